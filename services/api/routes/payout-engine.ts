import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../packages/catalog/index.js';
import { ApiError } from '../../../packages/core/errors.js';
import type { CreateBatchInput, PayoutBatches } from '../../../packages/families/payout-engine/payout-batch/commands.js';
import { batchBodyFromCsv } from '../../../packages/families/payout-engine/payout-batch/csv.js';
import type { BatchStatus } from '../../../packages/families/payout-engine/payout-batch/events.js';
import type { CreateRecipientInput, PayoutRecipients, UpdateRecipientInput } from '../../../packages/families/payout-engine/payout-recipient/commands.js';
import type { RecipientStatus } from '../../../packages/families/payout-engine/payout-recipient/events.js';
import { route, type Family } from '../../../packages/http/routes.js';
import type { CursorQuery } from '../../../projections/paging.js';
import { listPayoutBatchItems, type ItemsQuery } from '../../../projections/payout-engine/payout-batch-items.js';
import { listPayoutBatchLogs } from '../../../projections/payout-engine/payout-batch-logs.js';
import { findPayoutBatch, listPayoutBatches } from '../../../projections/payout-engine/payout-batches.js';
import { findRecipient, listRecipients } from '../../../projections/payout-engine/payout-recipients.js';
import { countrySchema, currencySchema, cursorListSchema, cursorQuery, found, idParamsOf, metadataSchema, payoutsRead, payoutsWrite, requesterOf, resourceSchema } from './shared.js';

const BASE = '/api/v1/payout-engine';
const BATCH_STATUSES: readonly BatchStatus[] = ['validated', 'executing', 'completed', 'partially_failed', 'failed', 'canceled'];
const RECIPIENT_STATUSES: readonly RecipientStatus[] = ['active', 'archived'];
const ITEM_STATUSES = ['validated', 'queued', 'pending', 'in_transit', 'paid', 'failed', 'canceled'];

const text = (maxLength: number) => ({ type: 'string', minLength: 1, maxLength });

/** The destination fields of recipients and instructions, flat as the interface names them. */
const destinationFields = {
  destination_type: { enum: ['mobile_money', 'bank'] },
  country: countrySchema,
  operator: text(64),
  msisdn: { type: 'string', minLength: 4, maxLength: 32 },
  bank_code: text(64),
  account_number: text(64),
  account_name: text(140),
};

const recipientBody = {
  type: 'object',
  required: ['display_name', 'destination_type'],
  additionalProperties: false,
  properties: { display_name: text(256), currency: currencySchema, ...destinationFields },
};

const recipientUpdateBody = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: { display_name: text(256), currency: currencySchema, ...destinationFields },
};

/**
 * A payout instruction. Its destination values are checked per instruction against the catalog
 * (so each bad one is reported by index), not here: only their types and lengths are.
 */
const instructionSchema = {
  type: 'object',
  required: ['amount'],
  additionalProperties: false,
  properties: {
    amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT },
    currency: text(8),
    recipient_id: text(255),
    destination_type: { enum: ['mobile_money', 'bank'] },
    country: text(64),
    operator: text(64),
    msisdn: text(32),
    bank_code: text(64),
    account_number: text(64),
    account_name: text(140),
    reference: text(64),
    metadata: metadataSchema,
  },
};

const MAX_BATCH_INSTRUCTIONS = 10_000;

const batchBody = {
  type: 'object',
  required: ['currency', 'instructions'],
  additionalProperties: false,
  properties: {
    currency: currencySchema,
    idempotency_key: text(64),
    metadata: { type: 'string', maxLength: 8000 },
    instructions: { type: 'array', minItems: 1, maxItems: MAX_BATCH_INSTRUCTIONS, items: instructionSchema },
  },
};

const nullableText = { type: ['string', 'null'] };
const recipientSchema = resourceSchema('payout_recipient', ['display_name', 'destination_type', 'currency', 'status'], {
  display_name: { type: 'string' },
  destination_type: { enum: ['mobile_money', 'bank'] },
  currency: { type: 'string' },
  country: nullableText,
  operator: nullableText,
  msisdn: nullableText,
  bank_code: nullableText,
  account_number: nullableText,
  account_name: nullableText,
  status: { enum: [...RECIPIENT_STATUSES] },
  created: { type: 'integer' },
  updated: { type: 'integer' },
  livemode: { type: 'boolean' },
});

const batchSchema = resourceSchema('payout_batch', ['status', 'currency', 'total_amount', 'total_fee', 'item_count', 'counts'], {
  status: { enum: [...BATCH_STATUSES] },
  currency: { type: 'string' },
  total_amount: { type: 'integer' },
  total_fee: { type: 'integer' },
  item_count: { type: 'integer' },
  counts: { type: 'object', additionalProperties: { type: 'integer' } },
  attempt: { type: 'integer' },
  idempotency_key: nullableText,
  metadata: nullableText,
  source_format: { enum: ['json', 'csv'] },
  created: { type: 'integer' },
  executed_at: nullableText,
  finished_at: nullableText,
  canceled_at: nullableText,
  livemode: { type: 'boolean' },
});

const itemSchema = {
  type: 'object',
  required: ['object', 'batch_id', 'index', 'amount', 'fee', 'status'],
  properties: {
    object: { const: 'payout_batch_item' },
    batch_id: { type: 'string' },
    index: { type: 'integer' },
    amount: { type: 'integer' },
    fee: { type: 'integer' },
    currency: { type: 'string' },
    destination: { type: 'object' },
    recipient_id: nullableText,
    reference: nullableText,
    status: { enum: ITEM_STATUSES },
    attempt: { type: 'integer' },
    payout_id: nullableText,
    failure_code: nullableText,
  },
};

const logSchema = resourceSchema('payout_batch_log', ['batch_id', 'type', 'status', 'created'], {
  batch_id: { type: 'string' },
  type: { type: 'string' },
  item_index: { type: ['integer', 'null'] },
  payout_id: nullableText,
  attempt: { type: ['integer', 'null'] },
  status: { type: 'string' },
  amount: { type: ['integer', 'null'] },
  failure_code: nullableText,
  created: { type: 'integer' },
});

/**
 * The body of an execution or a retry: in live, a signed-in user paying destinations the merchant
 * never paid gives a verified challenge of purpose payouts/new-destination (docs/decisions.md, "Payouts").
 */
const executionBody = {
  type: 'object',
  additionalProperties: false,
  properties: { challenge_id: { type: 'string', format: 'uuid' } },
};
type ExecutionBody = { challenge_id?: string };

const recipientParams = idParamsOf('recipientId');
const batchParams = idParamsOf('batchId');

/**
 * /api/v1/payout-engine: saved recipients and payout batches (docs/payout-engine.md). Thirteen
 * operations: recipients create, list, get, update, archive; batches create (JSON or CSV), list,
 * get, items, execute, cancel, retry, execution logs.
 */
export function payoutEngineFamily(knex: Knex, recipients: PayoutRecipients, batches: PayoutBatches): Family {
  const batchOf = (owner: Parameters<typeof findPayoutBatch>[1], id: string) => found('payout batch', id, findPayoutBatch(knex, owner, id));
  return {
    name: 'payout-engine',
    description: 'Bulk payouts: saved recipients, and batches of many payouts made from JSON or CSV instructions, checked, approved and executed together.',
    routes: [
      route<CreateRecipientInput>({
        method: 'post',
        path: `${BASE}/recipients`,
        fields: { destinationType: 'destination_type' },
        summary: 'Save a recipient: a beneficiary with a mobile money or bank destination, checked against the catalog',
        auth: payoutsWrite,
        body: recipientBody,
        response: recipientSchema,
        handler: (ctx) => recipients.create(ctx.owner, ctx.body, ctx.actor),
      }),
      route<unknown, CursorQuery & { status?: RecipientStatus }>({
        method: 'get',
        path: `${BASE}/recipients`,
        summary: 'List recipients, newest first (cursor-paged), by status',
        auth: payoutsRead,
        query: cursorQuery({ status: { enum: [...RECIPIENT_STATUSES] } }),
        response: cursorListSchema(recipientSchema),
        handler: (ctx) => listRecipients(knex, ctx.owner, ctx.query, `${BASE}/recipients`, { ...(ctx.query.status ? { status: ctx.query.status } : {}) }),
      }),
      route<unknown, unknown, { recipientId: string }>({
        method: 'get',
        path: `${BASE}/recipients/:recipientId`,
        summary: 'Retrieve a recipient',
        auth: payoutsRead,
        params: recipientParams,
        response: recipientSchema,
        handler: (ctx) => found('payout recipient', ctx.params.recipientId, findRecipient(knex, ctx.owner, ctx.params.recipientId)),
      }),
      route<UpdateRecipientInput, unknown, { recipientId: string }>({
        method: 'patch',
        path: `${BASE}/recipients/:recipientId`,
        fields: { recipientId: 'id', destinationType: 'destination_type' },
        summary: 'Update a recipient: its name, or its destination (checked again as a whole)',
        auth: payoutsWrite,
        params: recipientParams,
        body: recipientUpdateBody,
        response: recipientSchema,
        handler: (ctx) => recipients.update(ctx.owner, ctx.params.recipientId, ctx.body, ctx.actor),
      }),
      route<unknown, unknown, { recipientId: string }>({
        method: 'post',
        path: `${BASE}/recipients/:recipientId/archive`,
        fields: { recipientId: 'id' },
        summary: 'Archive a recipient: kept for the batches that name it, refused in new ones',
        auth: payoutsWrite,
        params: recipientParams,
        response: recipientSchema,
        handler: (ctx) => recipients.archive(ctx.owner, ctx.params.recipientId, ctx.actor),
      }),
      route<CreateBatchInput>({
        method: 'post',
        path: `${BASE}/batches`,
        summary: 'Create a payout batch from instructions (JSON, or text/csv with a header line); every instruction is validated, each invalid one reported by index',
        auth: payoutsWrite,
        body: batchBody,
        csvBody: batchBodyFromCsv,
        fields: { idempotencyKey: 'idempotency_key', csv: 'body', recipientId: 'recipient_id', destinationType: 'destination_type' },
        response: batchSchema,
        handler: (ctx) => batches.create(ctx.owner, ctx.body, ctx.header('content-type')?.toLowerCase().startsWith('text/csv') ? 'csv' : 'json', requesterOf(ctx, undefined), ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { status?: BatchStatus }>({
        method: 'get',
        path: `${BASE}/batches`,
        summary: 'List payout batches, newest first (cursor-paged), by status',
        auth: payoutsRead,
        query: cursorQuery({ status: { enum: [...BATCH_STATUSES] } }),
        response: cursorListSchema(batchSchema),
        handler: (ctx) => listPayoutBatches(knex, ctx.owner, ctx.query, `${BASE}/batches`, { ...(ctx.query.status ? { status: ctx.query.status } : {}) }),
      }),
      route<unknown, unknown, { batchId: string }>({
        method: 'get',
        path: `${BASE}/batches/:batchId`,
        summary: 'Retrieve a payout batch: status, totals and item counts',
        auth: payoutsRead,
        params: batchParams,
        response: batchSchema,
        handler: (ctx) => batchOf(ctx.owner, ctx.params.batchId),
      }),
      route<unknown, ItemsQuery, { batchId: string }>({
        method: 'get',
        path: `${BASE}/batches/:batchId/items`,
        summary: "List a batch's items in index order, each with its payout and status",
        auth: payoutsRead,
        params: batchParams,
        query: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 },
            starting_after: { type: 'integer', minimum: 0, maximum: MAX_BATCH_INSTRUCTIONS },
            status: { enum: ITEM_STATUSES },
          },
        },
        response: cursorListSchema(itemSchema),
        handler: async (ctx) => {
          await batchOf(ctx.owner, ctx.params.batchId);
          return listPayoutBatchItems(knex, ctx.owner, ctx.params.batchId, ctx.query, `${BASE}/batches/${ctx.params.batchId}/items`);
        },
      }),
      route<ExecutionBody, unknown, { batchId: string }>({
        method: 'post',
        path: `${BASE}/batches/:batchId/execute`,
        summary: 'Execute a validated batch: its total plus fees is held at once, then each item is paid out, a few at a time per operator (live: a signed-in user paying a destination never paid before gives challenge_id, purpose payouts/new-destination)',
        auth: payoutsWrite,
        params: batchParams,
        body: executionBody,
        fields: { challengeId: 'challenge_id' },
        response: batchSchema,
        handler: (ctx) => batches.execute(ctx.owner, ctx.params.batchId, requesterOf(ctx, ctx.body.challenge_id), ctx.actor, ctx.requestRef),
      }),
      route<unknown, unknown, { batchId: string }>({
        method: 'post',
        path: `${BASE}/batches/:batchId/cancel`,
        summary: 'Cancel a batch before or during execution: nothing more is sent, payouts not yet sent are canceled',
        auth: payoutsWrite,
        params: batchParams,
        response: batchSchema,
        handler: (ctx) => batches.cancel(ctx.owner, ctx.params.batchId, ctx.actor),
      }),
      route<ExecutionBody, unknown, { batchId: string }>({
        method: 'post',
        path: `${BASE}/batches/:batchId/retry`,
        summary: 'Retry the failed items of a partially failed or failed batch, as new payouts with a new balance check (live: a signed-in user paying a destination never paid before gives challenge_id, purpose payouts/new-destination)',
        auth: payoutsWrite,
        params: batchParams,
        body: executionBody,
        fields: { challengeId: 'challenge_id' },
        response: batchSchema,
        handler: (ctx) => batches.retry(ctx.owner, ctx.params.batchId, requesterOf(ctx, ctx.body.challenge_id), ctx.actor, ctx.requestRef),
      }),
      route<unknown, { limit: number; starting_after?: string }, { batchId: string }>({
        method: 'get',
        path: `${BASE}/batches/:batchId/execution-logs`,
        summary: "A batch's execution log, oldest first: its steps and every event of its payouts",
        auth: payoutsRead,
        params: batchParams,
        query: {
          type: 'object',
          additionalProperties: false,
          properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 100 }, starting_after: text(255) },
        },
        response: cursorListSchema(logSchema),
        handler: async (ctx) => {
          await batchOf(ctx.owner, ctx.params.batchId);
          const logs = await listPayoutBatchLogs(knex, ctx.owner, ctx.params.batchId, ctx.query, `${BASE}/batches/${ctx.params.batchId}/execution-logs`);
          if (!logs) throw new ApiError('IKW-VAL-001', `No such log entry: '${ctx.query.starting_after}'`, 'starting_after');
          return logs;
        },
      }),
    ],
  };
}
