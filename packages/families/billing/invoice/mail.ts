import type { Knex } from 'knex';
import { formatAmount, getOperator } from '#packages/catalog/index.js';
import type { Messenger, MessageOutcome } from '#packages/messaging/messages.js';
import type { CustomerDirectory } from '#packages/families/read-ports.js';
import type { PaymentIntentObject } from '#packages/families/payments/index.js';
import { findMerchant } from '#packages/families/merchants/read/index.js';
import { invoiceNumber, type InvoiceMessages, type PayerLanguage } from './commands.js';
import { amountRemaining, dueDate, type InvoiceState } from './decider.js';

/**
 * The invoice's e-mails to the merchant's customer, written from the `invoice_sent`,
 * `invoice_reminder` and `invoice_receipt` templates (the merchant's published ones, else the built-in ones) in the
 * customer's language, and sent as the merchant's messages: from "<merchant> via Sika", replies to
 * the merchant, held in the sandbox unless the address is the merchant team's own.
 */
export class InvoiceMail implements InvoiceMessages {
  constructor(private readonly deps: { knex: Knex; messenger: Messenger; customers: CustomerDirectory }) {}

  private async parties(state: InvoiceState) {
    const i = state.invoice!;
    const owner = { merchantId: i.merchantId, environment: i.environment };
    const [merchant, customer] = await Promise.all([findMerchant(this.deps.knex, i.merchantId), this.deps.customers.findCustomer(owner, i.customer)]);
    return { owner, merchantName: merchant?.name ?? '', email: customer?.email ?? null };
  }

  async sent(state: InvoiceState, language: PayerLanguage): Promise<MessageOutcome> {
    const i = state.invoice!;
    const { owner, merchantName, email } = await this.parties(state);
    if (!email) return { status: 'failed', error: 'the customer has no e-mail address' };
    const due = dueDate(i.dueAt);
    // Its reminders are written in the language it was sent in.
    await this.deps.knex('invoice_languages').insert({ invoice_id: i.id, language }).onConflict('invoice_id').merge();
    return this.deps.messenger.send({
      channel: 'email',
      to: email,
      purpose: 'invoice_sent',
      merchant: owner,
      template: {
        purpose: 'invoice_sent',
        locale: language,
        values: {
          merchant_name: merchantName,
          invoice_number: invoiceNumber(i.id),
          amount_due: formatAmount(amountRemaining(state), i.currency, language),
          ...(due ? { due_date: due } : {}),
          ...(i.description ? { memo: i.description } : {}),
          // The page opens in the language the e-mail is written in, whatever the browser prefers.
          url: `${i.hostedUrl}?lang=${language}`,
        },
      },
    });
  }

  async reminder(state: InvoiceState, offsetDays: number): Promise<MessageOutcome | null> {
    const i = state.invoice!;
    const { owner, merchantName, email } = await this.parties(state);
    if (!email) return null;
    const row = (await this.deps.knex('invoice_languages').where({ invoice_id: i.id }).first('language')) as { language: string } | undefined;
    const language: PayerLanguage = row?.language === 'fr' ? 'fr' : 'en';
    return this.deps.messenger.send({
      channel: 'email',
      to: email,
      purpose: 'invoice_reminder',
      merchant: owner,
      template: {
        purpose: 'invoice_reminder',
        locale: language,
        values: {
          merchant_name: merchantName,
          invoice_number: invoiceNumber(i.id),
          amount_due: formatAmount(amountRemaining(state), i.currency, language),
          due_date: dueDate(i.dueAt) ?? '',
          days: Math.abs(offsetDays),
          overdue: offsetDays > 0,
          url: `${i.hostedUrl}?lang=${language}`,
        },
      },
    });
  }

  async receipt(state: InvoiceState, payment: PaymentIntentObject, language: PayerLanguage): Promise<MessageOutcome | null> {
    const i = state.invoice!;
    const { owner, merchantName, email } = await this.parties(state);
    if (!email) return null;
    const method = payment.payment_method;
    const mobile = method?.type === 'mobile_money' ? method.mobile_money : null;
    const operator = mobile ? getOperator(mobile.country, mobile.operator) : undefined;
    return this.deps.messenger.send({
      channel: 'email',
      to: email,
      purpose: 'invoice_receipt',
      merchant: owner,
      template: {
        purpose: 'invoice_receipt',
        locale: language,
        values: {
          merchant_name: merchantName,
          invoice_number: invoiceNumber(i.id),
          amount: formatAmount(payment.amount, payment.currency, language),
          paid_at: (state.paidAt ?? new Date().toISOString()).slice(0, 10),
          ...(mobile ? { method: `${operator?.name ?? mobile.operator} ••${mobile.msisdn.slice(-4)}` } : method?.type === 'card' ? { method: `${method.card.brand} ••${method.card.last4}` } : {}),
          reference: payment.id,
          url: `${i.hostedUrl}?lang=${language}`,
        },
      },
    });
  }
}
