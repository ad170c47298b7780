import type { Knex } from 'knex';
import type { CollectionOutcomes } from '../payment-intent/outcomes.js';
import { ApiError } from '#packages/core/errors.js';
import { Reply } from '#packages/http/context.js';
import type { RouteGroup } from '#packages/http/routes.js';
import { findOperation, type OperationRow } from '../read/operations.js';
import { CATALOGUE, failureReason } from '#packages/families/checkout/http/index.js';
import { formatAmount, languageOf, pageReply, renderPage, type Language, type PageMerchant } from '#packages/http/pages/layout.js';
import { paymentFailureCode, paymentIntentMerchant } from '../read/payment-intents.js';
import type { PageMerchantOf } from '#packages/families/assets/http/index.js';
import { escapeHtml } from '#packages/http/route-kit.js';
import { operationRoute, redirectUrl } from './schemas.js';

const FINAL = ['succeeded', 'failed', 'canceled'];

/** The page a customer's browser lands on: the operation's status in words, in their language (a failure's reason too), reloading itself until final. */
function page(lang: Language, op: OperationRow, merchant: PageMerchant | null, failureCode: string | null): Reply {
  const t = CATALOGUE[lang].status;
  const final = FINAL.includes(op.status);
  const message = Object.hasOwn(t, op.status) ? t[op.status]! : t.inProgress;
  const back = final && !op.return_url.includes(`/operations/status/${op.id}`) ? `<p><a href="${escapeHtml(redirectUrl(op))}">${escapeHtml(t.back)}</a></p>` : '';
  const why = op.status === 'failed' && failureCode !== null ? `\n<p class="reason">${escapeHtml(t.why)} ${escapeHtml(failureReason(lang, failureCode))}.</p>` : '';
  const body = `<h1>${escapeHtml(message)}</h1>${why}
<p class="amount">${escapeHtml(formatAmount(Number(op.amount), op.currency, lang))}</p>${op.livemode ? '' : `\n<p class="notice">${escapeHtml(t.test)}</p>`}
<p class="notice">${escapeHtml(t.reference)} ${escapeHtml(op.id)}</p>${back}`;
  return pageReply(renderPage(lang, message, body, { refresh: !final, merchant }), 200);
}

const operationSchema = {
  type: 'object',
  required: ['id', 'object', 'status', 'payment_intent', 'amount', 'currency', 'livemode', 'return_url', 'redirect_url'],
  properties: {
    id: { type: 'string', description: "The operation's id (`op_…`): one confirmation of a payment intent, its `latest_operation`" },
    object: { const: 'operation', description: 'The kind of object: always `operation`' },
    status: { type: 'string', description: 'The payment intent status the operation reached' },
    payment_intent: { type: 'string', description: 'The payment intent the operation confirms (`pi_…`)' },
    amount: { type: 'integer', description: 'Minor units' },
    currency: { type: 'string', description: 'The currency, a three-letter ISO 4217 code in lower case' },
    livemode: { type: 'boolean', description: '`true` for a live payment, `false` for sandbox' },
    return_url: { type: ['string', 'null'], description: 'The return URL the confirmation gave (or the default one): where the payer goes back to' },
    redirect_url: { type: ['string', 'null'], description: 'Where the customer goes next, once the operation is final' },
  },
};

/**
 * What arrives on the URL the payer is sent back to: a card acquirer's (Paystack: `trxref` and
 * `reference`, the transaction's reference) and Sika's own (`redirectUrl`'s `status`,
 * `payment_intent`, `operation_id`, when the return URL is this page). Taken and not read: the page
 * shows what Sika verified.
 */
const returnQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    trxref: { type: 'string', maxLength: 200, description: "Added by a card acquirer's page (Paystack) sending the payer back: Sika asks the rail for the outcome at once. Its value is not read" },
    reference: { type: 'string', maxLength: 200, description: "Added by a card acquirer's page (Paystack), as `trxref`: Sika asks the rail at once. Its value is not read" },
    status: { type: 'string', maxLength: 40, description: 'Added by Sika when this page is the return URL; not read: the page shows what Sika verified' },
    payment_intent: { type: 'string', maxLength: 200, description: 'Added by Sika when this page is the return URL; not read' },
    operation_id: { type: 'string', maxLength: 200, description: 'Added by Sika when this page is the return URL; not read' },
  },
};

/** GET /operations/status/{operationId}: where customers land; JSON for programs, HTML for browsers. */
export function operationsRoutes(knex: Knex, pageMerchant: PageMerchantOf, collectionOutcomes: Pick<CollectionOutcomes, 'payerReturned'>): RouteGroup {
  /** The merchant the operation pays (an operation row names its payment intent, whose row names the merchant). */
  const merchantOf = async (op: OperationRow) => {
    const merchantId = await paymentIntentMerchant(knex, op.payment_intent);
    return merchantId ? pageMerchant({ merchantId, environment: op.livemode ? 'live' : 'sandbox' }) : null;
  };
  return {
    name: 'operations',
    description: "The status of one payment attempt (an operation), as JSON or as the page a payer's browser returns to.",
    routes: [
      {
        description: [
          "The status of one confirmation of a payment intent (an operation, the intent's `latest_operation`), public: the operation id is the credential. A browser (`Accept: text/html`) gets the page payers land on after a payment: the outcome in words, reloading itself until it is final, then a link back to the merchant; a program gets the JSON, with `redirect_url` once final.",
          '',
          "A payer coming back from a card acquirer's page (Paystack adds `reference` and `trxref`) makes Sika ask the rail for the outcome at once; a browser is then sent on to the same page without them (303). Use the payment intent (`GET /api/v1/payment-intents/{id}`) or its webhooks in your server, not this page.",
        ].join('\n'),
        ...operationRoute(
          'get',
          '/operations/status/:operationId',
          'Status of a payment operation (JSON, or an HTML page when the client asks for HTML)',
          { answers: { html: true, redirect: true }, response: operationSchema, query: returnQuery },
          async (ctx) => {
            const op = await findOperation(knex, ctx.params.operationId);
            if (!op) throw new ApiError('IKW-RES-001', `No such operation: '${ctx.params.operationId}'`, 'operationId');
            const accept = ctx.header('accept') ?? '';
            const html = accept.includes('text/html') && !/application\/json/.test(accept.split('text/html')[0] ?? '');
            // Back from the rail's page (Paystack adds the transaction's reference): ask the rail now.
            // The browser then goes on to the page without those parameters, whose reloads ask nothing.
            const query = ctx.query as { reference?: string; trxref?: string };
            if (!FINAL.includes(op.status) && (query.reference !== undefined || query.trxref !== undefined)) {
              await collectionOutcomes.payerReturned(op.payment_intent, op.id);
              if (html) return Reply.redirect(`/operations/status/${encodeURIComponent(op.id)}`);
            }
            if (html) return page(languageOf(ctx.header('accept-language')), op, await merchantOf(op), op.status === 'failed' ? await paymentFailureCode(knex, op.payment_intent) : null);
            return {
              id: op.id,
              object: 'operation',
              status: op.status,
              payment_intent: op.payment_intent,
              amount: Number(op.amount),
              currency: op.currency,
              livemode: op.livemode,
              return_url: op.return_url,
              redirect_url: FINAL.includes(op.status) ? redirectUrl(op) : null,
            };
          },
        ),
      },
    ],
  };
}
