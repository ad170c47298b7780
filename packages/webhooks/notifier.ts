import type { Knex } from 'knex';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Clock } from '#packages/core/clock.js';
import type { Logger } from '#packages/core/logger.js';
import type { MessageComposer } from '#packages/messaging/messages.js';
import type { Environment } from '#packages/core/owner.js';

export const NOTICE_SENDER = 'Sika <notifications@sika.invalid>';

/**
 * Merchant notices, written with the template engine (the merchant's published template for the
 * notice's purpose, else the built-in one: docs/templates.md). Every notice is recorded in
 * `email_outbox` first; it is also sent through SMTP (nodemailer) when SMTP_URL is set and the
 * merchant has an e-mail address.
 */
export class Notifier {
  private readonly transport: Transporter | null;

  constructor(
    private readonly knex: Knex,
    private readonly clock: Clock,
    smtpUrl: string | null,
    private readonly log: Logger,
    private readonly composer: MessageComposer,
  ) {
    this.transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
  }

  async endpointFailing(merchantId: string, environment: Environment, endpoint: { id: string; url: string }, failures: number): Promise<void> {
    await this.notice(merchantId, environment, 'webhook_endpoint_failing', (merchantName) => ({ merchant_name: merchantName, endpoint_id: endpoint.id, endpoint_url: endpoint.url, failures }));
  }

  async automationDisabled(merchantId: string, environment: Environment, automation: { id: string; name: string }, failures: number, lastError: string): Promise<void> {
    await this.notice(merchantId, environment, 'automation_disabled', (merchantName) => ({
      merchant_name: merchantName,
      automation_id: automation.id,
      automation_name: automation.name,
      failures,
      last_error: lastError,
    }));
  }

  /** A dispute opened or closed (docs/disputes.md, "E-mails"): `purpose` `dispute_opened` or `dispute_closed`, the template's values but the merchant's name. */
  async dispute(merchantId: string, environment: Environment, purpose: 'dispute_opened' | 'dispute_closed', values: Record<string, unknown>): Promise<void> {
    await this.notice(merchantId, environment, purpose, (merchantName) => ({ merchant_name: merchantName, ...values }));
  }

  /** Renders the notice of `purpose` with the merchant's template or the built-in one, records it, sends it. */
  private async notice(merchantId: string, environment: Environment, purpose: string, data: (merchantName: string) => Record<string, unknown>): Promise<void> {
    const merchant = await this.knex('read.merchants').select('name', 'email').where({ id: merchantId }).first<{ name: string; email: string | null } | undefined>();
    const values = data(merchant?.name ?? '');
    const { subject, text, html } = await this.composer.compose({ merchantId, environment }, purpose, values);
    const [row] = await this.knex('email_outbox')
      .insert({ merchant_id: merchantId, recipient: merchant?.email ?? null, subject, body: text, created_at: this.clock.now() })
      .returning('id');
    const id = (row as { id: string }).id;
    if (!this.transport || !merchant?.email) return;
    try {
      await this.transport.sendMail({ from: NOTICE_SENDER, to: merchant.email, subject, text, ...(html !== undefined ? { html } : {}) });
      await this.knex('email_outbox').where({ id }).update({ sent_at: this.clock.now() });
    } catch (err) {
      this.log.warn({ err, merchant_id: merchantId }, 'notice e-mail not sent');
      await this.knex('email_outbox')
        .where({ id })
        .update({ error: err instanceof Error ? err.message : String(err) });
    }
  }

  close(): void {
    this.transport?.close();
  }
}
