import type { Knex } from 'knex';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Message, MessageOutcome, Messenger, OutgoingMessage } from '../domain/messages.js';
import type { TemplateComposer } from './composer.js';

/** The sender of the service's own messages: account codes and links, security notices. */
export const ACCOUNT_SENDER = 'Sika <accounts@sika.invalid>';
/** The address merchants' own messages (automations) go from, under the merchant's name: never the account sender. */
export const MERCHANT_SENDER_ADDRESS = 'merchants@sika.invalid';

/** Where a real SMS provider plugs in. None is configured here: SMS stay in the outbox (the sandbox). */
export interface SmsGateway {
  send(to: string, text: string): Promise<void>;
}

/**
 * Writes templated messages with the template engine, records every message in `message_outbox`,
 * then delivers it: e-mail through SMTP (nodemailer)
 * when SMTP_URL is set, SMS through the gateway when one is configured. A message no transport
 * took keeps its text in the outbox (sandbox and development: that is where to read a code); one
 * that was delivered does not, so codes and links are not kept in clear after they left.
 */
export class OutboxMessenger implements Messenger {
  private readonly email: Transporter | null;

  constructor(
    private readonly deps: { knex: Knex; clock: Clock; log: Logger; smtpUrl: string | null; sms: SmsGateway | null; composer: TemplateComposer },
  ) {
    this.email = deps.smtpUrl ? nodemailer.createTransport(deps.smtpUrl) : null;
  }

  async send(outgoing: OutgoingMessage): Promise<MessageOutcome> {
    const { knex, clock, log } = this.deps;
    const message = await this.written(outgoing);
    const [row] = await knex('message_outbox')
      .insert({ channel: message.channel, recipient: message.to, purpose: message.purpose, subject: message.subject, body: message.text, created_at: clock.now() })
      .returning('id');
    const id = (row as { id: string }).id;
    if (message.hold !== undefined) {
      await knex('message_outbox').where({ id }).update({ error: `held: ${message.hold}` });
      return { status: 'held', reason: message.hold };
    }
    const deliver = this.transportFor(message);
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
    return { ...rest, ...(await this.deps.composer.compose(template.owner, template.purpose, template.values)) };
  }

  private transportFor(message: Message): (() => Promise<void>) | null {
    if (message.channel === 'email') {
      const email = this.email;
      const from = message.sender !== undefined ? { name: `${message.sender} via Sika`, address: MERCHANT_SENDER_ADDRESS } : ACCOUNT_SENDER;
      return email && (async () => void (await email.sendMail({ from, to: message.to, subject: message.subject, text: message.text, ...(message.html !== undefined ? { html: message.html } : {}), ...(message.messageId !== undefined ? { messageId: message.messageId } : {}), ...(message.replyTo ? { replyTo: message.replyTo } : {}) })));
    }
    const sms = this.deps.sms;
    // A merchant's SMS (automations) has no subject: its text goes as written.
    return sms && (() => sms.send(message.to, message.subject ? `${message.subject}: ${message.text}` : message.text));
  }

  close(): void {
    this.email?.close();
  }
}
