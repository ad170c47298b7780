import type { Knex } from 'knex';
import type { AcceptDispute, EvidenceInput, SubmitDisputeEvidence } from '../commands.js';
import { DISPUTE_STATUSES, type DisputeStatus } from '../events.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import { findDispute, listDisputes } from '../read/index.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { cursorListSchema, cursorQuery, idParams, resourceSchema, retrieveRoute } from '#packages/http/route-kit.js';

const BASE = '/api/v1/disputes';
const read: RouteAuth = { scope: 'payment_intents.read', environmentHeader: 'optional' };
const write: RouteAuth = { scope: 'payment_intents.write', environmentHeader: 'optional' };

const STATUS_WORDS: Record<DisputeStatus, string> = {
  needs_response: 'The card network opened it: the merchant answers with evidence, or accepts it, before `evidence_due_by`',
  under_review: 'The evidence was sent (or the card network reviews it): the issuer decides',
  won: 'Decided for the merchant: the amount is back on the available balance',
  lost: "Decided for the payer: the amount left the merchant's balance for good",
  accepted: 'The merchant accepted the loss: as lost',
};
const nullableString = { type: ['string', 'null'] };
const evidenceSchema = {
  type: ['object', 'null'],
  description: 'The evidence the merchant sent; null before any',
  required: ['customer_email', 'customer_name', 'customer_phone', 'service_details', 'delivery_address', 'delivery_date', 'files', 'submitted_at'],
  properties: {
    customer_email: { type: 'string', description: "The payer's e-mail address" },
    customer_name: { type: 'string', description: "The payer's name" },
    customer_phone: { type: 'string', description: "The payer's phone number" },
    service_details: { type: 'string', description: 'What was sold or delivered' },
    delivery_address: { ...nullableString, description: 'Where it was delivered' },
    delivery_date: { ...nullableString, description: 'When it was delivered (YYYY-MM-DD)' },
    files: { type: 'array', items: { type: 'string' }, description: 'The ids of the assets sent with it (`/api/v1/assets`)' },
    submitted_at: { type: 'string', format: 'date-time', description: 'When it was sent' },
  },
};
const disputeSchema = resourceSchema('dispute', ['livemode', 'status', 'reason', 'amount', 'currency', 'fee', 'shortfall', 'payment_intent', 'evidence_due_by', 'evidence', 'created', 'closed_at'], {
  livemode: { type: 'boolean', description: '`true` for a dispute of a live payment (always, today: only live card payments are disputed)' },
  status: { enum: [...DISPUTE_STATUSES], description: 'Where the dispute stands', 'x-enumDescriptions': STATUS_WORDS },
  reason: { type: 'string', description: "The card network's category of the dispute (`fraud`, `chargeback`, …)" },
  amount: { type: 'integer', description: 'The disputed amount, in minor units: held in `reserved` while the dispute is open' },
  currency: { type: 'string', description: 'Lower-case ISO 4217 code' },
  fee: { type: 'integer', description: 'The dispute fee charged as it opened, in minor units (docs/fees.md): kept whatever the outcome' },
  shortfall: { type: 'integer', description: 'What the available balance could not cover of the amount and the fee as it opened (0 when it covered both); not held' },
  payment_intent: { type: 'string', description: 'The disputed payment intent' },
  evidence_due_by: { ...nullableString, format: 'date-time', description: 'Evidence or an acceptance must come before this time; null when the card network gave none' },
  evidence: evidenceSchema,
  created: { type: 'string', format: 'date-time', description: 'When Sika learnt of the dispute' },
  closed_at: { ...nullableString, description: 'When it was won, lost or accepted; null while open' },
});

const text = (maxLength: number, description: string) => ({ type: 'string', minLength: 1, maxLength, pattern: '\\S', description });
const evidenceBody = {
  type: 'object',
  required: ['customer_email', 'customer_name', 'customer_phone', 'service_details'],
  additionalProperties: false,
  properties: {
    customer_email: { type: 'string', format: 'email', maxLength: 254, description: "The payer's e-mail address" },
    customer_name: text(200, "The payer's name"),
    customer_phone: { type: 'string', pattern: '^\\+?[0-9 ]{6,20}$', description: "The payer's phone number" },
    service_details: text(2000, 'What was sold or delivered, and how the payer received it'),
    delivery_address: text(500, 'Where it was delivered'),
    delivery_date: { type: 'string', pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description: 'When it was delivered (YYYY-MM-DD)' },
    files: { type: 'array', maxItems: 10, uniqueItems: true, items: { type: 'string', minLength: 1, maxLength: 255 }, description: 'Ids of ready assets (`/api/v1/assets`, any purpose): receipts, delivery proofs' },
  },
};

const acceptBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    file: { type: 'string', minLength: 1, maxLength: 255, description: 'Id of a ready asset (`/api/v1/assets`) sent with the acceptance (a refund receipt); without it, Sika sends its own note of the acceptance' },
  },
};

/** /api/v1/disputes: card disputes of the merchant's payments (docs/disputes.md). Four operations: list, retrieve, submit evidence, accept. */
export function disputesRoutes(knex: Knex, answers: { evidence: SubmitDisputeEvidence; acceptance: AcceptDispute }): RouteGroup {
  return {
    name: 'disputes',
    description: "Card disputes (chargebacks) of the merchant's live card payments: opened by the card network through Paystack, answered with evidence or accepted before their due date.",
    routes: [
      route<unknown, CursorQuery & { status?: DisputeStatus; payment_intent?: string }>({
        method: 'get',
        path: BASE,
        summary: 'List disputes, newest first (cursor-paged), by status and payment',
        description: "The merchant's disputes of this environment. Filter by `status=needs_response` to find those awaiting an answer.",
        auth: read,
        query: cursorQuery({
          status: { enum: [...DISPUTE_STATUSES], description: 'Only the disputes in this state', 'x-enumDescriptions': STATUS_WORDS },
          payment_intent: { type: 'string', minLength: 1, maxLength: 255, description: 'Only the disputes of this payment intent' },
        }),
        response: cursorListSchema(disputeSchema),
        handler: (ctx) => listDisputes(knex, ctx.owner, ctx.query, BASE, { status: ctx.query.status, payment_intent: ctx.query.payment_intent }),
      }),
      {
        ...retrieveRoute({ path: `${BASE}/:id`, noun: 'dispute', summary: 'Retrieve a dispute', auth: read, response: disputeSchema, find: (owner, id) => findDispute(knex, owner, id) }),
        description: "One dispute with where it stands, its due date and the evidence sent. Another merchant's dispute is 404.",
      },
      route<EvidenceInput, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/:id/evidence`,
        summary: 'Submit evidence: the payer, what was delivered, and files',
        description:
          "Sends the merchant's answer to the card network through Paystack, once, while the dispute is `needs_response` and before `evidence_due_by`; the dispute is then `under_review`. Files are the ids of ready assets of the merchant. Use an Idempotency-Key: a retry answers the first answer.",
        refusals: ['IKW-DSP-001', 'IKW-DSP-002', 'IKW-DSP-004', 'IKW-DSP-005'],
        emits: ['dispute.updated'],
        auth: write,
        params: idParams,
        body: evidenceBody,
        response: disputeSchema,
        fields: { disputeId: 'id' },
        handler: (ctx) => answers.evidence.submit(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<{ file?: string }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/:id/accept`,
        summary: 'Accept the dispute: the payer keeps the amount',
        description:
          "Tells Paystack the merchant accepts the dispute (resolved `merchant-accepted`, with `file` uploaded, or Sika's note of the acceptance when none is named); the dispute closes as `accepted` and its amount leaves the merchant's `reserved` balance for good. Refused once closed. Use an Idempotency-Key: a retry answers the first answer.",
        refusals: ['IKW-DSP-003', 'IKW-DSP-004', 'IKW-DSP-005'],
        emits: ['dispute.closed'],
        auth: write,
        params: idParams,
        body: acceptBody,
        response: disputeSchema,
        fields: { disputeId: 'id' },
        handler: (ctx) => answers.acceptance.accept(ctx.owner, ctx.params.id, ctx.body ?? {}, ctx.actor),
      }),
    ],
  };
}
