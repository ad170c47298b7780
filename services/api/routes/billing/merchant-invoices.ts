import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Clock } from '../../../../packages/core/clock.js';
import type { InvoiceObject } from '../../../../packages/families/billing/invoice/events.js';
import type { TemplateComposer } from '../../../../packages/families/templates/composer.js';
import { getCurrency, MAX_AMOUNT } from '../../../../packages/catalog/index.js';
import { ApiError } from '../../../../packages/core/errors.js';
import type { Invoices } from '../../../../packages/families/billing/invoice/commands.js';
import { toInvoiceObject } from '../../../../packages/families/billing/invoice/render.js';
import { INVOICE_STATUSES, type InvoiceStatus } from '../../../../packages/families/billing/invoice/events.js';
import { Reply } from '../../../../packages/http/context.js';
import { route, type Family } from '../../../../packages/http/routes.js';
import { findInvoice, findIssuedInvoice, listInvoices, renderInvoice } from '../../../../projections/billing/invoices.js';
import { languageOf, type Language } from '../../pages/layout.js';
import { invoicePage, invoicePayRefusal } from '../../pages/invoice.js';
import { isRefused } from '../../../../packages/core/refusal.js';
import { invoiceNumber, type PayerLanguage } from '../../../../packages/families/billing/invoice/commands.js';
import { invoiceSchema } from '../../schemas/billing.js';
import type { PageMerchantOf } from '../../pages/merchant.js';
import {
  billingRead,
  billingWrite,
  currencySchema,
  customerFields,
  customerRef,
  idParams,
  idParamsOf,
  metadataSchema,
  pageListRoute,
  retrieveRoute,
  wantsHtml,
  type CustomerFields,
} from '../shared.js';
import type { Owner } from '../../../../packages/core/owner.js';

/** An invoice as a PDF, from the merchant's `invoice` template or the built-in one; amounts in the currency's units, as the template shows them. */
async function invoicePdf(knex: Knex, documents: TemplateComposer, owner: Owner, i: InvoiceObject, at: Date): Promise<Buffer> {
  const merchant = await knex('read.merchants').select('name').where({ id: owner.merchantId }).first<{ name: string } | undefined>();
  const digits = getCurrency(i.currency)?.minorUnits ?? 0;
  const units = (minor: number) => (minor / 10 ** digits).toFixed(digits);
  const values = {
    merchant_name: merchant?.name ?? '',
    invoice_id: i.id,
    amount_due: units(i.amount_due),
    currency: i.currency,
    ...(i.due_date ? { due_date: i.due_date } : {}),
    lines: i.lines.map((l) => ({ description: l.description, amount: units(l.amount) })),
  };
  return documents.document(owner, 'invoice', values, at);
}

const hostedInvoiceParams = { type: 'object', properties: { id: { type: 'string', pattern: '^in_[0-9A-Za-z]{24}$' } }, required: ['id'] };
// Other parameters are ignored: the checkout session's return adds status, payment_intent and operation_id.
const langQuery = { type: 'object', properties: { lang: { enum: ['en', 'fr'] } } };

/** `YYYY-MM-DD` (due at the end of that day, UTC) or a full date-time. */
const dueDateSchema = { type: 'string', anyOf: [{ format: 'date' }, { format: 'date-time' }] };

function parseDueDate(value: string): Date {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T23:59:59Z`) : new Date(value);
}

/** A line of a new invoice: a price (× quantity), or free text with its unit amount (× quantity). */
type ItemBody = { price?: string; description?: string; unit_amount?: number; quantity?: number };

const invoiceItemsSchema = {
  type: 'array',
  minItems: 1,
  maxItems: 20,
  items: {
    type: 'object',
    additionalProperties: false,
    properties: {
      price: { type: 'string', minLength: 1, maxLength: 255 },
      description: { type: 'string', minLength: 1, maxLength: 500 },
      unit_amount: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT },
      quantity: { type: 'integer', minimum: 1, maximum: 1_000_000 },
    },
  },
};

/** Each line is a price, or a description with its unit_amount: never both, never half of one. */
function toInvoiceItems(items: ItemBody[]) {
  return items.map((i, n) => {
    const quantity = i.quantity ?? 1;
    if (i.price !== undefined) {
      const extra = i.description !== undefined ? 'description' : i.unit_amount !== undefined ? 'unit_amount' : null;
      if (extra) throw new ApiError('IKW-VAL-002', `A line with a price takes its ${extra} from the price`, `items.${n}.${extra}`);
      return { price: i.price, quantity };
    }
    if (i.description === undefined) throw new ApiError('IKW-VAL-001', 'A line needs a price, or a description and unit_amount', `items.${n}.description`);
    if (i.unit_amount === undefined) throw new ApiError('IKW-VAL-001', 'A free-text line needs its unit_amount', `items.${n}.unit_amount`);
    return { description: i.description, unitAmount: i.unit_amount, quantity };
  });
}

interface CreateBody extends CustomerFields {
  currency?: string;
  items?: ItemBody[];
  amount_due?: number;
  description?: string | null;
  due_date?: string;
  days_until_due?: number;
  metadata?: Record<string, string>;
  subscription?: string;
}

const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...customerFields,
    currency: currencySchema,
    items: invoiceItemsSchema,
    amount_due: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT },
    description: { type: ['string', 'null'], maxLength: 1000 },
    due_date: dueDateSchema,
    days_until_due: { type: 'integer', minimum: 0, maximum: 365 },
    metadata: metadataSchema,
    subscription: { type: 'string', minLength: 1, maxLength: 255 },
  },
};

/**
 * /api/v1/merchant/invoices: list, retrieve, the PDF, create (a draft), status transitions; the wallet
 * apply; and the hosted invoice page that `hosted_invoice_url` points to.
 */
export function merchantInvoicesFamily(knex: Knex, invoices: Invoices, documents: TemplateComposer, clock: Clock, pageMerchant: PageMerchantOf): Family {
  return {
    name: 'merchant-invoices',
    description: 'Invoices: drafted from lines, sent to the customer with a page and a PDF, paid by mobile money, card or wallet.',
    routes: [
      pageListRoute<{ status?: InvoiceStatus; customer?: string; subscription?: string }>({ path: '/api/v1/merchant/invoices', item: invoiceSchema, auth: billingRead,
        filters: { status: { enum: [...INVOICE_STATUSES] }, customer: { type: 'string', maxLength: 255 }, subscription: { type: 'string', maxLength: 255 } },
        summary: 'List invoices, newest first; `customer` and `subscription` keep those of one customer or subscription',
        list: (owner, query) => listInvoices(knex, owner, query, { status: query.status, customer: query.customer, subscription: query.subscription }) }),
      retrieveRoute({ path: '/api/v1/merchant/invoices/:id', noun: 'invoice', auth: billingRead, response: invoiceSchema,
        summary: 'Retrieve an invoice',
        find: (owner, id) => findInvoice(knex, owner, id) }),
      route<CreateBody>({
        method: 'post',
        path: '/api/v1/merchant/invoices',
        fields: { customerId: 'customer', amountDue: 'amount_due', subscriptionId: 'subscription', 'items.*.unitAmount': 'items.*.unit_amount' },
        summary: 'Create a draft invoice from lines (items: prices, or free text with description and unit_amount, in currency) or a plain amount (amount_due + currency); POST …/send or PATCH its status to open to send it',
        auth: billingWrite,
        body: createBody,
        response: invoiceSchema,
        handler: async (ctx) => {
          const b = ctx.body;
          const state = await invoices.create(
            ctx.owner,
            {
              customer: customerRef(b),
              ...(b.currency !== undefined ? { currency: b.currency } : {}),
              ...(b.items !== undefined ? { items: toInvoiceItems(b.items) } : {}),
              ...(b.amount_due !== undefined ? { amountDue: b.amount_due } : {}),
              ...(b.description !== undefined ? { description: b.description } : {}),
              ...(b.metadata ? { metadata: b.metadata } : {}),
              ...(b.due_date !== undefined ? { dueAt: parseDueDate(b.due_date) } : {}),
              ...(b.days_until_due !== undefined ? { daysUntilDue: b.days_until_due } : {}),
              ...(b.subscription !== undefined ? { subscriptionId: b.subscription } : {}),
              finalize: false,
            },
            ctx.actor,
          );
          return renderInvoice(toInvoiceObject(state));
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/merchant/invoices/:id/pdf',
        summary: "The invoice as a PDF, written with the merchant's published `invoice` template or the built-in one (docs/template-engine.md)",
        auth: billingRead,
        params: idParams,
        answers: { file: 'application/pdf' },
        handler: async (ctx) => {
          const i = await findInvoice(knex, ctx.owner, ctx.params.id);
          if (!i) throw new ApiError('IKW-RES-001', 'No such invoice', 'id');
          return Reply.stream(Readable.from(await invoicePdf(knex, documents, ctx.owner, i, clock.now())), 'application/pdf', {
            'Content-Disposition': `attachment; filename="${i.id}.pdf"`,
          });
        },
      }),
      route<{ status: InvoiceStatus }, unknown, { id: string }>({
        method: 'patch',
        path: '/api/v1/merchant/invoices/:id/status',
        fields: { invoiceId: 'id' },
        summary: 'Move an invoice: draft → open → paid | void | uncollectible, uncollectible → paid | void (anything else: IKW-BIL-001)',
        auth: billingWrite,
        params: idParams,
        body: { type: 'object', required: ['status'], additionalProperties: false, properties: { status: { enum: [...INVOICE_STATUSES] } } },
        response: invoiceSchema,
        handler: async (ctx) => renderInvoice(await invoices.transition(ctx.owner, ctx.params.id, ctx.body.status, ctx.actor)),
      }),
      route<{ amount?: number }, unknown, { invoiceId: string }>({
        method: 'post',
        path: '/api/v1/merchant/billing/wallet/invoices/:invoiceId/apply',
        summary: "Pay an open invoice from the customer's wallet: all that remains, or `amount`, at most the balance",
        auth: billingWrite,
        params: idParamsOf('invoiceId'),
        body: { type: 'object', additionalProperties: false, properties: { amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT } } },
        response: invoiceSchema,
        handler: async (ctx) => renderInvoice(await invoices.applyWallet(ctx.owner, ctx.params.invoiceId, ctx.body, ctx.actor, ctx.requestRef)),
      }),
      route<{ language?: PayerLanguage }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/merchant/invoices/:id/send',
        fields: { invoiceId: 'id' },
        summary: 'Send an invoice to its customer by e-mail (from "<merchant> via Sika", with its link), in `language` (en by default); a draft is finalized first; sending again sends again',
        auth: billingWrite,
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { language: { enum: ['en', 'fr'] } } },
        response: invoiceSchema,
        handler: async (ctx) => renderInvoice((await invoices.send(ctx.owner, ctx.params.id, ctx.body.language ?? 'en', ctx.actor)).invoice),
      }),
      route<unknown, { lang?: Language }, { id: string }>({
        method: 'get',
        path: '/hosted/invoices/:id',
        summary: "The hosted invoice page (hosted_invoice_url), in the customer's language (`lang`, else Accept-Language): the merchant, lines, amounts, the PDF, and a Pay button while it takes payments",
        auth: 'public',
        params: hostedInvoiceParams,
        query: langQuery,
        answers: { html: true },
        handler: async (ctx) => {
          const found = await findIssuedInvoice(knex, ctx.params.id);
          if (!found) throw new ApiError('IKW-RES-001', 'No such invoice', 'id');
          return invoicePage(ctx.query.lang ?? languageOf(ctx.header('accept-language')), found.invoice, await pageMerchant(found.owner));
        },
      }),
      route<{ Country?: string }, { lang?: Language }, { id: string }>({
        method: 'post',
        path: '/hosted/invoices/:id/pay',
        fields: { invoiceId: 'id' },
        summary: "The hosted invoice page's Pay button: answers 303 to the invoice's checkout session (the hosted checkout payment links use), one open session per invoice whoever clicks",
        auth: 'public',
        params: hostedInvoiceParams,
        query: langQuery,
        body: { type: 'object', additionalProperties: false, properties: { Country: { type: 'string', pattern: '^[A-Z]{2}$' } } },
        form: true,
        answers: { html: true, redirect: true },
        handler: async (ctx) => {
          const lang = ctx.query.lang ?? languageOf(ctx.header('accept-language'));
          try {
            const session = await invoices.openCheckout(ctx.params.id, lang, ctx.body.Country, ctx.actor);
            return Reply.redirect(`/checkout/session/${session.id}`);
          } catch (err) {
            // A browser gets the invoice's page again with the reason; a program the coded JSON error.
            if (!isRefused(err, 'IKW-BIL-009', 'IKW-BIL-012', 'IKW-VAL-004', 'IKW-VAL-009') || !wantsHtml(ctx.header('accept'))) throw err;
            const found = await findIssuedInvoice(knex, ctx.params.id);
            if (!found) throw err;
            return invoicePage(lang, found.invoice, await pageMerchant(found.owner), { error: invoicePayRefusal(lang, err.code), status: 409 });
          }
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/hosted/invoices/:id/pdf',
        summary: "The hosted invoice's PDF (as GET /api/v1/merchant/invoices/{id}/pdf), for whoever holds its link",
        auth: 'public',
        params: hostedInvoiceParams,
        answers: { file: 'application/pdf' },
        handler: async (ctx) => {
          const found = await findIssuedInvoice(knex, ctx.params.id);
          if (!found) throw new ApiError('IKW-RES-001', 'No such invoice', 'id');
          return Reply.stream(Readable.from(await invoicePdf(knex, documents, found.owner, found.invoice, clock.now())), 'application/pdf', {
            'Content-Disposition': `attachment; filename="${invoiceNumber(found.invoice.id)}.pdf"`,
          });
        },
      }),
    ],
  };
}
