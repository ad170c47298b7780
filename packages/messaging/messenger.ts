import type { Knex } from 'knex';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Clock } from '#packages/core/clock.js';
import type { Logger } from '#packages/core/logger.js';
import type { SecretBox } from '#packages/core/secrets.js';
import type { Enqueue } from '#packages/scheduler/scheduler.js';
import type { Message, MessageChannel, MessageComposer, MessageOutcome, Messenger, OutgoingMessage, SenderDirectory } from './messages.js';
import type { Owner } from '#packages/core/owner.js';

/** The sender of the service's own messages: account codes and links, security notices. */
export const ACCOUNT_SENDER = 'Sika <accounts@sika.invalid>';
/** The address merchants' messages (portal codes, automations) go from, under the merchant's name: never the account sender. */
export const MERCHANT_SENDER_ADDRESS = 'merchants@sika.invalid';

/** How long the outbox keeps a message's (sealed) text, and the message's row (docs/operations.md). */
export interface OutboxRetention {
  textMs: number;
  rowMs: number;
}

/** A message as the outbox keeps it, its text opened (`null` once delivered or past its retention). */
export interface OutboxMessage {
  id: string;
  channel: string;
  recipient: string;
  purpose: string;
  subject: string;
  text: string | null;
  created_at: Date;
  sent_at: Date | null;
  error: string | null;
}

const HOUR_MS = 3_600_000;
/** The secret box's context for outbox texts (a sealed text cannot be opened as anything else). */
const OUTBOX_CONTEXT = 'message-outbox';
const nextHour = (at: Date) => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS);

/** Where a real SMS provider plugs in. None is configured here: SMS stay in the outbox (the sandbox). */
export interface SmsGateway {
  send(to: string, text: string): Promise<void>;
}

/** How a merchant's message goes out: the name and Reply-To it carries, and why it is held (sandbox, outside the team). */
interface MerchantSending {
  name: string;
  replyTo: string | null;
  hold?: string;
}

/**
 * Writes templated messages with the template engine, records every message in `message_outbox`,
 * then delivers it: e-mail through SMTP (nodemailer)
 * when SMTP_URL is set, SMS through the gateway when one is configured. A message no transport
 * took keeps its text in the outbox (sandbox and development: that is where to read a code),
 * sealed with the secrets key and only for `retention.textMs`; one that was delivered keeps none.
 * Codes and links are never in the outbox in clear, and its rows go after `retention.rowMs`.
 * A merchant's message goes under the merchant's name from MERCHANT_SENDER_ADDRESS with its
 * Reply-To; a sandbox merchant's only to its team's verified addresses and numbers, the rest held.
 */
export class OutboxMessenger implements Messenger {
  private readonly email: Transporter | null;

  constructor(
    private readonly deps: {
      knex: Knex;
      clock: Clock;
      log: Logger;
      smtpUrl: string | null;
      sms: SmsGateway | null;
      composer: MessageComposer;
      senders: SenderDirectory;
      box: SecretBox;
      retention: OutboxRetention;
      /** The retention pass's next job (packages/processes/outbox-purge.ts). */
      enqueuePurge: Enqueue<{ at: string }>;
    },
  ) {
    this.email = deps.smtpUrl ? nodemailer.createTransport(deps.smtpUrl) : null;
  }

  async send(outgoing: OutgoingMessage): Promise<MessageOutcome> {
    const { knex, clock, log } = this.deps;
    const message = await this.written(outgoing);
    const merchant = message.merchant && (await this.merchantSending(message.merchant, message));
    const [row] = await knex('message_outbox')
      .insert({ channel: message.channel, recipient: message.to, purpose: message.purpose, subject: message.subject, body: this.deps.box.seal(message.text, OUTBOX_CONTEXT), created_at: clock.now() })
      .returning('id');
    const id = (row as { id: string }).id;
    if (merchant?.hold !== undefined) {
      await knex('message_outbox')
        .where({ id })
        .update({ error: `held: ${merchant.hold}` });
      return { status: 'held', reason: merchant.hold };
    }
    const deliver = this.transportFor(message, merchant);
    if (!deliver) return { status: 'kept' };
    try {
      await deliver();
      await knex('message_outbox').where({ id }).update({ sent_at: clock.now(), body: null });
      return { status: 'delivered' };
    } catch (err) {
      // The account flows answer the same either way (no enumeration); the outbox and the log say what failed.
      log.warn({ err, purpose: message.purpose, channel: message.channel }, 'message not delivered');
      const error = err instanceof Error ? err.message : String(err);
      await knex('message_outbox').where({ id }).update({ error, body: null });
      return { status: 'failed', error };
    }
  }

  /** A templated message written out by the template engine; a written one as it is. */
  private async written(outgoing: OutgoingMessage): Promise<Message> {
    if (!('template' in outgoing)) return outgoing;
    const { template, ...rest } = outgoing;
    return { ...rest, ...(await this.deps.composer.compose(outgoing.merchant ?? null, template.purpose, template.values, template.locale)) };
  }

  /** A merchant's message carries the merchant's name and notice address: replies reach the merchant, not the service. */
  private async merchantSending(owner: Owner, message: Message): Promise<MerchantSending> {
    const merchant = await this.deps.senders.sender(owner.merchantId);
    const hold = await this.holdOf(owner, message.channel, message.to);
    return { name: merchant?.name ?? 'A Sika merchant', replyTo: merchant?.email ?? null, ...(hold !== undefined ? { hold } : {}) };
  }

  /**
   * A sandbox merchant's message reaches only addresses and numbers a member of the merchant's
   * organization verified, so a free sign-up cannot write to strangers in its own words.
   */
  async holdOf(merchant: Owner, channel: MessageChannel, to: string): Promise<string | undefined> {
    if (merchant.environment !== 'sandbox') return undefined;
    const team = await this.deps.senders.verifiedTeamContacts(merchant.merchantId);
    const email = channel === 'email';
    if (email ? team.emails.includes(to.toLowerCase()) : team.phones.includes(to)) return undefined;
    return `sandbox: ${to} is not a verified ${email ? 'address' : 'number'} of the merchant's team; recorded, not sent`;
  }

  private transportFor(message: Message, merchant: MerchantSending | undefined): (() => Promise<void>) | null {
    if (message.channel === 'email') {
      const email = this.email;
      const from = merchant ? { name: `${merchant.name} via Sika`, address: MERCHANT_SENDER_ADDRESS } : ACCOUNT_SENDER;
      const replyTo = merchant ? merchant.replyTo : message.replyTo;
      return (
        email &&
        (async () =>
          void (await email.sendMail({
            from,
            to: message.to,
            subject: message.subject,
            text: message.text,
            ...(message.html !== undefined ? { html: message.html } : {}),
            ...(message.messageId !== undefined ? { messageId: message.messageId } : {}),
            ...(replyTo ? { replyTo } : {}),
          })))
      );
    }
    const sms = this.deps.sms;
    // A merchant's SMS (automations) has no subject: its text goes as written.
    return sms && (() => sms.send(message.to, message.subject ? `${message.subject}: ${message.text}` : message.text));
  }

  /** The latest messages, newest first, their kept text opened: for the CLI and for tests reading a code. */
  async kept(filter: { recipient?: string; channel?: string; purpose?: string } = {}, limit = 20): Promise<OutboxMessage[]> {
    const rows = (await this.deps
      .knex('message_outbox')
      .where(Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)))
      .orderBy('id', 'desc')
      .limit(limit)
      .select('id', 'channel', 'recipient', 'purpose', 'subject', 'body', 'created_at', 'sent_at', 'error')) as (Omit<OutboxMessage, 'text'> & { body: string | null })[];
    return rows.map(({ body, ...row }) => ({ ...row, text: body === null ? null : this.deps.box.open(body, OUTBOX_CONTEXT) }));
  }

  /** The retention pass: texts past their time dropped, rows past theirs deleted; then the next pass, at the next hour (missed ones are not made up). */
  async purge(): Promise<void> {
    const { knex, retention } = this.deps;
    const at = this.deps.clock.now();
    await knex('message_outbox')
      .where('created_at', '<', new Date(at.getTime() - retention.textMs))
      .whereNotNull('body')
      .update({ body: null });
    await knex('message_outbox')
      .where('created_at', '<', new Date(at.getTime() - retention.rowMs))
      .delete();
    await this.schedulePurge(at);
  }

  /** Sets the retention pass after `from` (once per hour boundary, whichever process asks). */
  schedulePurge(from: Date = this.deps.clock.now()): Promise<void> {
    const next = nextHour(from);
    return this.deps.enqueuePurge({ at: next.toISOString() }, next);
  }

  close(): void {
    this.email?.close();
  }
}
