import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { InvoiceObject } from '../invoice/events.js';
import type { DocumentComposer } from '#packages/messaging/messages.js';
import { getCurrency, MAX_AMOUNT } from '#packages/catalog/index.js';
import { ApiError } from '#packages/core/errors.js';
import type { Billing } from '../service.js';
import { toInvoiceObject } from '../invoice/render.js';
import { INVOICE_STATUSES, type InvoiceStatus } from '../invoice/events.js';
import { Reply } from '#packages/http/context.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { findInvoice, findIssuedInvoice, listInvoices, renderInvoice } from '../read/invoices.js';
import { languageOf, type Language } from '#packages/http/pages/layout.js';
import { invoicePage, invoicePayRefusal } from './invoice-page.js';
import { isRefused } from '#packages/core/refusal.js';
import { invoiceNumber, type PayerLanguage } from '../invoice/commands.js';
import { describedCustomerFields, INVOICE_STATUS_WORDS, invoiceSchema } from './schemas.js';
import type { PageMerchantOf } from '#packages/families/assets/http/index.js';
import { billingRead, billingWrite, customerRef, type CustomerFields } from './customer-fields.js';
import { currencySchema, idParams, idParamsOf, metadataSchema, pageListRoute, retrieveRoute, wantsHtml } from '#packages/http/route-kit.js';
import type { Owner } from '#packages/core/owner.js';

/** An invoice as a PDF, from the merchant's `invoice` template or the built-in one; amounts in the currency's units, as the template shows them. */
async function invoicePdf(knex: Knex, documents: DocumentComposer, owner: Owner, i: InvoiceObject, at: Date): Promise<Buffer> {
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

const hostedInvoiceParams = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^in_[0-9A-Za-z]{24}$', description: 'The invoice (`in_…`), as its `hosted_invoice_url` names it' } },
  required: ['id'],
};
const LANGUAGE_WORDS = { en: 'English', fr: 'French' };
// Other parameters are ignored: the checkout session's return adds status, payment_intent and operation_id.
const langQuery = {
  type: 'object',
  properties: { lang: { enum: ['en', 'fr'], description: "The page's language; the browser's `Accept-Language` when left out", 'x-enumDescriptions': LANGUAGE_WORDS } },
};

/** `YYYY-MM-DD` (due at the end of that day, UTC) or a full date-time. */
const dueDateSchema = {
  type: 'string',
  anyOf: [{ format: 'date' }, { format: 'date-time' }],
  description: 'When it is due: a day (`2026-12-31`, due at the end of that day, UTC) or a date-time. Give this or `days_until_due`; 30 days after creation when neither is given',
};

function parseDueDate(value: string): Date {
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T23:59:59Z`) : new Date(value);
}

/** A line of a new invoice: a price (× quantity), or free text with its unit amount (× quantity). */
type ItemBody = { price?: string; description?: string; unit_amount?: number; quantity?: number };

const invoiceItemsSchema = {
  type: 'array',
  description: 'Its lines (up to 20), each a price × quantity or free text; give `items` or `amount_due`, not both',
  minItems: 1,
  maxItems: 20,
  items: {
    type: 'object',
    additionalProperties: false,
    properties: {
      price: { type: 'string', minLength: 1, maxLength: 255, description: 'A price of an active product (`price_…`): the line takes its name and unit amount. Or leave it out and give `description` and `unit_amount`' },
      description: { type: 'string', minLength: 1, maxLength: 500, description: 'What a free-text line bills (with `unit_amount`, not with `price`)' },
      unit_amount: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT, description: "A free-text line's price of one unit, in minor units of the invoice's currency" },
      quantity: { type: 'integer', minimum: 1, maximum: 1_000_000, description: 'How many units; 1 when left out' },
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
    ...describedCustomerFields,
    currency: { ...currencySchema, description: 'The currency: needed with `amount_due` or free-text lines; lines with prices set it (all prices must be in it)' },
    items: invoiceItemsSchema,
    amount_due: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT, description: 'A plain amount to bill, in minor units of `currency`, as one line; instead of `items`' },
    description: { type: ['string', 'null'], maxLength: 1000, description: 'A note on the invoice for the customer; it also names the one line of an `amount_due` invoice' },
    due_date: dueDateSchema,
    days_until_due: { type: 'integer', minimum: 0, maximum: 365, description: 'Days from now until it is due, instead of `due_date`' },
    metadata: metadataSchema,
    subscription: { type: 'string', minLength: 1, maxLength: 255, description: "A subscription the invoice belongs to (`sub_…`): it bills the subscription's customer" },
  },
};

/**
 * /api/v1/merchant/invoices: list, retrieve, the PDF, create (a draft), status transitions; the wallet
 * apply; and the hosted invoice page that `hosted_invoice_url` points to.
 */
export function merchantInvoicesRoutes(knex: Knex, billing: Billing, documents: DocumentComposer, clock: Clock, pageMerchant: PageMerchantOf): RouteGroup {
  return {
    name: 'merchant-invoices',
    description: 'Invoices: drafted from lines, sent to the customer with a page and a PDF, paid by mobile money, card or wallet.',
    routes: [
      {
        ...pageListRoute<{ status?: InvoiceStatus; customer?: string; subscription?: string }>({
          path: '/api/v1/merchant/invoices',
          item: invoiceSchema,
          auth: billingRead,
          filters: {
            status: { enum: [...INVOICE_STATUSES], description: 'Only the invoices in this status', 'x-enumDescriptions': INVOICE_STATUS_WORDS },
            customer: { type: 'string', maxLength: 255, description: 'Only the invoices of this customer (`cus_…`)' },
            subscription: { type: 'string', maxLength: 255, description: 'Only the invoices of this subscription (`sub_…`)' },
          },
          summary: 'List invoices, newest first; `customer` and `subscription` keep those of one customer or subscription',
          list: (owner, query) => listInvoices(knex, owner, query, { status: query.status, customer: query.customer, subscription: query.subscription }),
        }),
        description: 'The invoices of the environment, newest first, drafts included: `status: open` lists what customers still owe; `customer` and `subscription` narrow it to one customer or subscription.',
      },
      {
        ...retrieveRoute({ path: '/api/v1/merchant/invoices/:id', noun: 'invoice', auth: billingRead, response: invoiceSchema, summary: 'Retrieve an invoice', find: (owner, id) => findInvoice(knex, owner, id) }),
        description: "One invoice as it stands: its lines, what was paid and what remains, its `hosted_invoice_url`. Another merchant's invoice, or one of the other environment, is `404 IKW-RES-001`.",
      },
      route<CreateBody>({
        method: 'post',
        path: '/api/v1/merchant/invoices',
        fields: { customerId: 'customer', amountDue: 'amount_due', subscriptionId: 'subscription', 'items.*.unitAmount': 'items.*.unit_amount' },
        summary: 'Create a draft invoice from lines (items: prices, or free text with description and unit_amount, in currency) or a plain amount (amount_due + currency); POST …/send or PATCH its status to open to send it',
        description: [
          'Bills a customer, named by id or by e-mail (`customer_email`, made if new), for lines (`items`: prices of active products, or free text with its `unit_amount`) or a plain `amount_due`. All lines are in one currency.',
          '',
          'The invoice starts as a `draft`: nothing is sent and it cannot be paid yet. Send it by e-mail (`POST /api/v1/merchant/invoices/{id}/send`) or finalize it (`PATCH …/status` to `open`); its `hosted_invoice_url` then shows it to the customer, with a Pay button.',
        ].join('\n'),
        refusals: ['IKW-VAL-003', 'IKW-BIL-006', 'IKW-BIL-007', 'IKW-BIL-008', 'IKW-ACT-005', 'IKW-ACT-006'],
        emits: ['invoice.created', 'customer.created', 'customer.updated'],
        auth: billingWrite,
        body: createBody,
        response: invoiceSchema,
        handler: async (ctx) => {
          const b = ctx.body;
          const state = await billing.invoiceIssuing.create(
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
        description: 'The invoice as a PDF document (`Content-Disposition: attachment`), to attach to your own e-mails or keep in your books: your published `invoice` template if you have one, else the built-in layout. Drafts too.',
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
        description: [
          'Moves an invoice along its life by hand: `open` finalizes a draft (it can be paid, nothing is e-mailed); `paid` records that what remained was paid outside Sika (cash, a bank transfer); `void` cancels it, giving back to the wallet what the wallet paid; `uncollectible` writes it off while still taking payments.',
          '',
          'A settled subscription invoice (paid, void or uncollectible) no longer holds its subscription `past_due`. `paid` and `void` are final; any other move is refused.',
        ].join('\n'),
        refusals: ['IKW-BIL-001'],
        emits: ['invoice.finalized', 'invoice.paid', 'invoice.voided', 'invoice.marked_uncollectible', 'customer.balance_credited', 'subscription.updated'],
        auth: billingWrite,
        params: idParams,
        body: {
          type: 'object',
          required: ['status'],
          additionalProperties: false,
          properties: { status: { enum: [...INVOICE_STATUSES], description: 'The status to move it to', 'x-enumDescriptions': INVOICE_STATUS_WORDS } },
        },
        response: invoiceSchema,
        handler: async (ctx) => renderInvoice(await billing.invoiceIssuing.transition(ctx.owner, ctx.params.id, ctx.body.status, ctx.actor)),
      }),
      route<{ amount?: number }, unknown, { invoiceId: string }>({
        method: 'post',
        path: '/api/v1/merchant/billing/wallet/invoices/:invoiceId/apply',
        summary: "Pay an open invoice from the customer's wallet: all that remains, or `amount`, at most the balance",
        description:
          "Pays an open (or uncollectible) invoice from its customer's wallet (`POST /api/v1/merchant/billing/wallet/customers/{customerId}/credit`): all that remains, or `amount`, but never more than the balance; what the wallet cannot cover stays to pay. The wallet must be in the invoice's currency. Answers the invoice, `paid` when nothing remains. Should the invoice be paid or voided at the same moment, the wallet keeps its money and the request is refused.",
        refusals: ['IKW-BIL-009', 'IKW-BIL-005', 'IKW-BIL-010'],
        emits: ['customer.balance_applied', 'customer.balance_returned', 'invoice.updated', 'invoice.paid'],
        auth: billingWrite,
        params: idParamsOf('invoiceId'),
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT, description: 'How much to take, in minor units, at most what remains to pay; all that remains (up to the balance) when left out' } },
        },
        response: invoiceSchema,
        handler: async (ctx) => renderInvoice(await billing.invoiceWalletPayments.applyWallet(ctx.owner, ctx.params.invoiceId, ctx.body, ctx.actor, ctx.requestRef)),
      }),
      route<{ language?: PayerLanguage }, unknown, { id: string }>({
        method: 'post',
        path: '/api/v1/merchant/invoices/:id/send',
        fields: { invoiceId: 'id' },
        summary: 'Send an invoice to its customer by e-mail (from "<merchant> via Sika", with its link), in `language` (en by default); a draft is finalized first; sending again sends again',
        description:
          'E-mails the invoice to its customer, from "<your name> via Sika", with a link to its hosted page where they pay it. A draft is finalized (`open`) first. Sending again sends again: a reminder by hand. The customer needs an e-mail address, and a paid or void invoice is not sent. Automatic reminders use the language it was last sent in.',
        refusals: ['IKW-BIL-013', 'IKW-BIL-009'],
        emits: ['invoice.finalized'],
        auth: billingWrite,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { language: { enum: ['en', 'fr'], description: 'The language of the e-mail; English when left out', 'x-enumDescriptions': LANGUAGE_WORDS } },
        },
        response: invoiceSchema,
        handler: async (ctx) => renderInvoice((await billing.invoiceIssuing.send(ctx.owner, ctx.params.id, ctx.body.language ?? 'en', ctx.actor)).invoice),
      }),
      route<unknown, { lang?: Language }, { id: string }>({
        method: 'get',
        path: '/hosted/invoices/:id',
        summary: "The hosted invoice page (hosted_invoice_url), in the customer's language (`lang`, else Accept-Language): the merchant, lines, amounts, the PDF, and a Pay button while it takes payments",
        description:
          "The page an invoice's `hosted_invoice_url` opens, for the customer and anyone holding the link: an HTML page, not an API. It shows the invoice and, while it takes payments, a Pay button that goes to a checkout page. A draft has no page (404).",
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
        description:
          "The form the hosted invoice page posts: it opens (or reopens) the invoice's checkout session for what remains to pay, in the country the payer picks, and answers `303` to it. A browser refused (the invoice no longer takes payments, another payment is in flight, the country does not pay in the invoice's currency) gets the invoice's page again with the reason; a program gets the coded error.",
        refusals: ['IKW-BIL-009', 'IKW-BIL-012', 'IKW-VAL-004', 'IKW-VAL-009'],
        auth: 'public',
        params: hostedInvoiceParams,
        query: langQuery,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            Country: { type: 'string', pattern: '^[A-Z]{2}$', description: "The country of the payer's account (ISO 3166-1, upper case); the first country that pays in the invoice's currency when left out" },
          },
        },
        form: true,
        answers: { html: true, redirect: true },
        handler: async (ctx) => {
          const lang = ctx.query.lang ?? languageOf(ctx.header('accept-language'));
          try {
            const session = await billing.invoicePayments.openCheckout(ctx.params.id, lang, ctx.body.Country, ctx.actor);
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
        description: 'The download link of the hosted invoice page: the same PDF as `GET /api/v1/merchant/invoices/{id}/pdf`, named by the invoice number. A draft has none (404).',
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
