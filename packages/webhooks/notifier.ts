import type { Knex } from 'knex';
import nodemailer, { type Transporter } from 'nodemailer';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';

export const NOTICE_SENDER = 'Sika <notifications@sika.invalid>';

/**
 * Merchant notices. Every notice is recorded in `email_outbox` first; it is also sent through
 * SMTP (nodemailer) when SMTP_URL is set and the merchant has an e-mail address.
 */
export class Notifier {
  private readonly transport: Transporter | null;

  constructor(
    private readonly knex: Knex,
    private readonly clock: Clock,
    smtpUrl: string | null,
    private readonly log: Logger,
  ) {
    this.transport = smtpUrl ? nodemailer.createTransport(smtpUrl) : null;
  }

  async endpointFailing(merchantId: string, endpoint: { id: string; url: string }, failures: number): Promise<void> {
    const merchant = await this.knex('read.merchants').select('name', 'email').where({ id: merchantId }).first<{ name: string; email: string | null } | undefined>();
    const subject = `Webhook endpoint failing: ${endpoint.url}`;
    const body = [
      `Hello ${merchant?.name ?? ''},`,
      '',
      `Deliveries to your webhook endpoint ${endpoint.id} (${endpoint.url}) have failed ${failures} times in a row, so it is now marked as failing.`,
      'Events are still stored: once the endpoint answers with a 2xx again, replay the failed deliveries with POST /api/v1/webhook-replays.',
      '',
      '— Sika',
    ].join('\n');
    const [row] = await this.knex('email_outbox')
      .insert({ merchant_id: merchantId, recipient: merchant?.email ?? null, subject, body, created_at: this.clock.now() })
      .returning('id');
    const id = (row as { id: string }).id;
    if (!this.transport || !merchant?.email) return;
    try {
      await this.transport.sendMail({ from: NOTICE_SENDER, to: merchant.email, subject, text: body });
      await this.knex('email_outbox').where({ id }).update({ sent_at: this.clock.now() });
    } catch (err) {
      this.log.warn({ err, merchant_id: merchantId }, 'notice e-mail not sent');
      await this.knex('email_outbox').where({ id }).update({ error: err instanceof Error ? err.message : String(err) });
    }
  }

  close(): void {
    this.transport?.close();
  }
}
