import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import type { CollectionOutcomes } from '../payment-intent/outcomes.js';
import { Reply } from '#packages/http/context.js';
import type { RouteGroup } from '#packages/http/routes.js';
import { findOperation, type OperationRow } from '../read/operations.js';
import { paymentIntentMerchant } from '../read/payment-intents.js';
import { pageReply, renderPage } from '#packages/http/pages/layout.js';
import { escapeHtml } from '#packages/http/route-kit.js';
import { operationRoute, redirectUrl } from './schemas.js';

/**
 * The hosted 3-D Secure test page of `tok_3ds_required` (sandbox only, not part of the public
 * interface): the customer completes or fails the authentication, then goes to the return URL.
 */
export function sandboxRoutes(knex: Knex, collectionOutcomes: CollectionOutcomes): RouteGroup {
  const load = async (operationId: string): Promise<OperationRow> => {
    const op = await findOperation(knex, operationId);
    if (!op || op.livemode || op.status !== 'requires_action') throw new ApiError('IKW-RES-001', 'No 3-D Secure authentication is waiting for this operation', 'operationId');
    return op;
  };
  const finish = (outcome: 'succeeded' | 'failed') => async (ctx: { params: { operationId: string } }) => {
    const op = await load(ctx.params.operationId);
    const merchantId = await paymentIntentMerchant(knex, op.payment_intent);
    if (!merchantId) throw new Error(`Payment intent ${op.payment_intent} of operation ${op.id} is missing from the read model`);
    await collectionOutcomes.applyCallback({
      paymentIntentId: op.payment_intent,
      operationId: op.id,
      merchantId,
      environment: 'sandbox',
      connector: 'sandbox',
      outcome: outcome === 'succeeded' ? { status: 'succeeded' } : { status: 'failed', failureCode: 'authentication_failed', failureMessage: 'The cardholder failed 3-D Secure authentication' },
    });
    const done = await findOperation(knex, op.id);
    return Reply.redirect(redirectUrl(done ?? op));
  };
  return {
    name: 'sandbox',
    description: "Test pages of the sandbox that stand in for a bank's 3-D Secure step, so a card payment can be completed or failed on purpose.",
    routes: [
      {
        description:
          "The page a sandbox card payment with `tok_3ds_required` sends the payer to (`next_action.redirect_to_url.url`), standing in for the bank's 3-D Secure step: a button completes the authentication, another fails it, and the browser then goes to the confirmation's return URL. Only a sandbox operation in `requires_action` has one (`404 IKW-RES-001` otherwise).",
        ...operationRoute('get', '/sandbox/3ds/:operationId', 'Sandbox 3-D Secure test page', { answers: { html: true } }, async (ctx) => {
          const op = await load(ctx.params.operationId);
          const body = `<h1>3-D Secure test page</h1><p>Sandbox payment of ${Number(op.amount)} ${escapeHtml(op.currency.toUpperCase())}.</p>
<form method="post" action="/sandbox/3ds/${escapeHtml(op.id)}/complete"><button class="pay">Complete authentication</button></form>
<form method="post" action="/sandbox/3ds/${escapeHtml(op.id)}/fail"><button class="secondary">Fail authentication</button></form>`;
          return pageReply(renderPage('en', '3-D Secure test', body), 200);
        }),
      },
      {
        ...operationRoute('post', '/sandbox/3ds/:operationId/complete', 'Complete a sandbox 3-D Secure authentication', { answers: { redirect: true } }, finish('succeeded')),
        description:
          'The test page\'s "Complete authentication" button: the sandbox payment succeeds, as when a bank approves 3-D Secure, and the browser is sent (303) to the return URL with `status`, `payment_intent` and `operation_id`. Only a sandbox operation in `requires_action` takes it (`404 IKW-RES-001` otherwise).',
        emits: ['payment_intent.succeeded'],
      },
      {
        ...operationRoute('post', '/sandbox/3ds/:operationId/fail', 'Fail a sandbox 3-D Secure authentication', { answers: { redirect: true } }, finish('failed')),
        description:
          'The test page\'s "Fail authentication" button: the sandbox payment fails with `authentication_failed`, as when the cardholder fails 3-D Secure, and the browser is sent (303) to the return URL. Only a sandbox operation in `requires_action` takes it (`404 IKW-RES-001` otherwise).',
        emits: ['payment_intent.payment_failed'],
      },
    ],
  };
}
