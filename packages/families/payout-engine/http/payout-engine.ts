import type { Knex } from 'knex';
import { MAX_AMOUNT } from '#packages/catalog/index.js';
import { ApiError } from '#packages/core/errors.js';
import type { CreateBatchInput, PayoutBatchCreation } from '../payout-batch/commands.js';
import type { PayoutBatchExecution } from '../payout-batch/execution.js';
import { batchBodyFromCsv } from '../payout-batch/csv.js';
import type { BatchStatus } from '../payout-batch/events.js';
import type { CreateRecipientInput, PayoutRecipients, UpdateRecipientInput } from '../payout-recipient/commands.js';
import type { RecipientStatus } from '../payout-recipient/events.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { listPayoutBatchItems, type ItemsQuery } from '../read/payout-batch-items.js';
import { listPayoutBatchLogs } from '../read/payout-batch-logs.js';
import { findPayoutBatch, listPayoutBatches } from '../read/payout-batches.js';
import { findRecipient, listRecipients } from '../read/payout-recipients.js';
import { countrySchema, currencySchema, cursorListSchema, cursorQuery, found, idParamsOf, metadataSchema, payoutsRead, payoutsWrite, requesterOf, resourceSchema } from '#packages/http/route-kit.js';

const BASE = '/api/v1/payout-engine';
const BATCH_STATUSES: readonly BatchStatus[] = ['validated', 'executing', 'completed', 'partially_failed', 'failed', 'canceled'];
const RECIPIENT_STATUSES: readonly RecipientStatus[] = ['active', 'archived'];
const ITEM_STATUSES = ['validated', 'queued', 'pending', 'in_transit', 'paid', 'failed', 'canceled'];

const text = (maxLength: number, description?: string) => ({ type: 'string', minLength: 1, maxLength, ...(description !== undefined ? { description } : {}) });

const DESTINATION_TYPE_WORDS = {
  mobile_money: 'A mobile money wallet: `country`, `operator` and `msisdn`',
  bank: 'A bank account: `bank_code`, `account_number` and `account_name`',
};

/** What each status of a batch means (docs/payout-engine.md, "States"). */
const BATCH_STATUS_WORDS: Record<BatchStatus, string> = {
  validated: 'Created, every instruction valid; nothing held or sent until it is executed',
  executing: 'Its total plus fees is held and its items are being paid out',
  completed: 'Every item was paid',
  partially_failed: 'Finished with some items paid and some not; retry the failed ones',
  failed: 'Finished with no item paid; retry them',
  canceled: 'Canceled: nothing more is sent, and what was not sent is back on the balance',
};

/** What each status of a batch's item means. */
const ITEM_STATUS_WORDS: Record<string, string> = {
  validated: 'The batch is not executed yet',
  queued: 'Executed; its payout is not made yet',
  pending: 'Its payout is made, not yet accepted by the operator',
  in_transit: 'Its payout is on its way',
  paid: 'Its payout arrived',
  failed: 'Its payout failed (`failure_code`); a retry of the batch sends it again',
  canceled: 'Canceled with the batch before it was sent',
};

/** The destination fields of recipients and instructions, flat as the interface names them. */
const destinationFields = {
  destination_type: { enum: ['mobile_money', 'bank'], description: 'The kind of destination, which decides the fields it takes', 'x-enumDescriptions': DESTINATION_TYPE_WORDS },
  country: { ...countrySchema, description: "Mobile money: the wallet's country (ISO 3166-1 alpha-2, any case)" },
  operator: text(64, 'Mobile money: the operator id of `GET /api/v1/geography/countries` (`orange_money`); it must take payouts'),
  msisdn: { type: 'string', minLength: 4, maxLength: 32, description: "Mobile money: the wallet's phone number, local or international; stored in E.164" },
  bank_code: text(64, "Bank: the bank's code on the rail"),
  account_number: text(64, 'Bank: the account number'),
  account_name: text(140, "Bank: the account holder's name; where the rail checks it (NGN, GHS) it must be the bank's"),
};

const recipientBody = {
  type: 'object',
  required: ['display_name', 'destination_type'],
  additionalProperties: false,
  properties: {
    display_name: text(256, 'The name you know the recipient by (a supplier, an agent), up to 256 characters'),
    currency: { ...currencySchema, description: "The currency the recipient receives (ISO 4217, any case); for mobile money, the country's by default" },
    ...destinationFields,
  },
};

const recipientUpdateBody = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    display_name: text(256, 'A new name'),
    currency: { ...currencySchema, description: 'A new currency; the destination is checked again as a whole' },
    ...destinationFields,
  },
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
    amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT, description: 'The amount to pay, in minor units of the batch currency; its fee comes on top' },
    currency: text(8, "Optional; when given it must be the batch's currency"),
    recipient_id: text(255, 'A saved recipient (`rcp_…`) to pay, instead of the destination fields'),
    destination_type: { enum: ['mobile_money', 'bank'], description: 'An inline destination instead of `recipient_id`: its kind', 'x-enumDescriptions': DESTINATION_TYPE_WORDS },
    country: text(64, 'Inline mobile money: the country'),
    operator: text(64, 'Inline mobile money: the operator id'),
    msisdn: text(32, 'Inline mobile money: the phone number'),
    bank_code: text(64, "Inline bank: the bank's code"),
    account_number: text(64, 'Inline bank: the account number'),
    account_name: text(140, "Inline bank: the holder's name"),
    reference: text(64, 'Your reference of the line (an invoice number), unique within the batch: a repeat is refused, as it usually is a line pasted twice'),
    metadata: { ...metadataSchema, description: "The payout's metadata (strings), with `source` and `environment` added" },
  },
};

const MAX_BATCH_INSTRUCTIONS = 10_000;

const batchBody = {
  type: 'object',
  required: ['currency', 'instructions'],
  additionalProperties: false,
  properties: {
    currency: { ...currencySchema, description: 'The currency of every payout of the batch (ISO 4217, any case)' },
    idempotency_key: text(64, 'Names the batch: the same key with the same instructions answers the same batch, with others `IKW-IDM-002` (the `Idempotency-Key` header when absent)'),
    metadata: { type: 'string', maxLength: 8000, description: 'Your note of the batch (a payroll month), up to 8,000 characters' },
    instructions: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_BATCH_INSTRUCTIONS,
      items: instructionSchema,
      description: `The payouts, 1 to ${MAX_BATCH_INSTRUCTIONS.toLocaleString('en-US')}: each a \`recipient_id\` or an inline destination, and an amount`,
    },
  },
};

const nullableText = (description: string) => ({ type: ['string', 'null'], description });
const recipientSchema = resourceSchema('payout_recipient', ['display_name', 'destination_type', 'currency', 'status'], {
  display_name: { type: 'string', description: 'The name you know the recipient by' },
  destination_type: { enum: ['mobile_money', 'bank'], description: 'The kind of destination', 'x-enumDescriptions': DESTINATION_TYPE_WORDS },
  currency: { type: 'string', description: 'The currency it receives, in lower case' },
  country: nullableText("Mobile money: the wallet's country; null for a bank"),
  operator: nullableText('Mobile money: the operator id; null for a bank'),
  msisdn: nullableText('Mobile money: the number in E.164; null for a bank'),
  bank_code: nullableText("Bank: the bank's code; null for mobile money"),
  account_number: nullableText('Bank: the account number; null for mobile money'),
  account_name: nullableText("Bank: the holder's name; null for mobile money"),
  status: {
    enum: [...RECIPIENT_STATUSES],
    description: 'Whether new batches may pay it',
    'x-enumDescriptions': { active: 'Usable in new batches', archived: 'Kept for the batches that name it; refused in new ones (`IKW-PEN-003`) and in updates' },
  },
  created: { type: 'integer' },
  updated: { type: 'integer' },
  livemode: { type: 'boolean' },
});

const batchSchema = resourceSchema('payout_batch', ['status', 'currency', 'total_amount', 'total_fee', 'item_count', 'counts'], {
  status: { enum: [...BATCH_STATUSES], description: 'Where the batch stands (docs/payout-engine.md, "States")', 'x-enumDescriptions': BATCH_STATUS_WORDS },
  currency: { type: 'string', description: 'The currency of its payouts, in lower case' },
  total_amount: { type: 'integer', description: 'The sum of its amounts, in minor units' },
  total_fee: { type: 'integer', description: 'The sum of its fees, quoted per item at creation' },
  item_count: { type: 'integer', description: 'How many instructions it holds' },
  counts: { type: 'object', additionalProperties: { type: 'integer' }, description: 'Items per outcome: `validated`, `queued`, `paid`, `failed`, `canceled`' },
  attempt: { type: 'integer', description: '0 before execution, then 1, and one more per retry' },
  idempotency_key: nullableText('The key that names it, or null'),
  metadata: nullableText('Your note of the batch, or null'),
  source_format: {
    enum: ['json', 'csv'],
    description: 'How its instructions came',
    'x-enumDescriptions': { json: 'A JSON body', csv: 'A `text/csv` body' },
  },
  created: { type: 'integer' },
  executed_at: nullableText('When it was first executed (ISO 8601), or null'),
  finished_at: nullableText('When its last item became final (ISO 8601), or null'),
  canceled_at: nullableText('When it was canceled (ISO 8601), or null'),
  livemode: { type: 'boolean' },
});

const itemSchema = {
  type: 'object',
  required: ['object', 'batch_id', 'index', 'amount', 'fee', 'status'],
  properties: {
    object: { const: 'payout_batch_item', description: 'The kind of object: always `payout_batch_item`' },
    batch_id: { type: 'string', description: 'Its batch (`pob_…`)' },
    index: { type: 'integer', description: 'Its place among the instructions, from 0' },
    amount: { type: 'integer', description: 'The amount, in minor units' },
    fee: { type: 'integer', description: 'Its fee, quoted at creation' },
    currency: { type: 'string', description: 'The currency, in lower case' },
    destination: { type: 'object', description: "Where it pays, normalised as a payout's `destination`" },
    recipient_id: nullableText('The recipient it pays, or null for an inline destination'),
    reference: nullableText('Your reference of the line, or null'),
    status: { enum: ITEM_STATUSES, description: "Where the item stands: its payout's status once made", 'x-enumDescriptions': ITEM_STATUS_WORDS },
    attempt: { type: 'integer', description: 'The execution that made its current payout: 1, then one more per retry' },
    payout_id: nullableText('Its current payout (`po_…`), once made; null before'),
    failure_code: nullableText('Why its payout failed, or null'),
  },
};

const logSchema = resourceSchema('payout_batch_log', ['batch_id', 'type', 'status', 'created'], {
  batch_id: { type: 'string', description: 'The batch (`pob_…`)' },
  type: { type: 'string', description: 'The event: a step of the batch (`payout_batch.*`) or of one of its payouts (`payout.*`)' },
  item_index: { type: ['integer', 'null'], description: "The item a payout's event is about; null for the batch's steps" },
  payout_id: nullableText("The payout of the event, or null for the batch's steps"),
  attempt: { type: ['integer', 'null'], description: 'The execution it belongs to, or null' },
  status: { type: 'string', description: "The batch's or the payout's status after it" },
  amount: { type: ['integer', 'null'], description: 'The amount it moved, in minor units, or null' },
  failure_code: nullableText('Why a payout failed, or null'),
  created: { type: 'integer', description: 'When it happened, in Unix seconds' },
});

/**
 * The body of an execution or a retry: in live, a signed-in user paying destinations the merchant
 * never paid gives a verified challenge of purpose payouts/new-destination (docs/decisions.md, "Payouts").
 */
const executionBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    challenge_id: {
      type: 'string',
      format: 'uuid',
      description: 'Live, a signed-in user paying destinations this merchant never paid: the id of a verified second-factor challenge of purpose `payouts/new-destination`, covering every item. An API key never sends it',
    },
  },
};
type ExecutionBody = { challenge_id?: string };

const recipientParams = { ...idParamsOf('recipientId'), properties: { recipientId: { ...idParamsOf('recipientId').properties.recipientId, description: 'The recipient (`rcp_…`)' } } };
const batchParams = { ...idParamsOf('batchId'), properties: { batchId: { ...idParamsOf('batchId').properties.batchId, description: 'The payout batch (`pob_…`)' } } };

/** What an execution or a retry may refuse besides its declaration: the batch's status, the gates, the rule of new destinations and its challenge, the balance. */
const EXECUTION_REFUSALS = ['IKW-PEN-005', 'IKW-BAL-001', 'IKW-PRV-005', 'IKW-ACT-006', 'IKW-PAY-007', 'IKW-PAY-008', 'IKW-ACC-006', 'IKW-ACC-007'] as const;

/**
 * /api/v1/payout-engine: saved recipients and payout batches (docs/payout-engine.md). Thirteen
 * operations: recipients create, list, get, update, archive; batches create (JSON or CSV), list,
 * get, items, execute, cancel, retry, execution logs.
 */
export function payoutEngineRoutes(knex: Knex, recipients: PayoutRecipients, batches: PayoutBatchCreation, executions: PayoutBatchExecution): RouteGroup {
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
        description:
          "Saves a beneficiary you pay often (a supplier, an agent) with its destination, a mobile money wallet or a bank account, checked against the catalog as a payout's destination is. Batches then name it by `recipient_id`. Unlike a payout method, a recipient waits no safety delay: in live, an execution paying it for the first time takes a signed-in user's second factor (`IKW-PAY-007`), or an API key that the payout settings let pay inline destinations (`IKW-PAY-008`).",
        refusals: ['IKW-VAL-003', 'IKW-VAL-004', 'IKW-VAL-005', 'IKW-VAL-006', 'IKW-VAL-007', 'IKW-VAL-009'],
        auth: payoutsWrite,
        body: recipientBody,
        response: recipientSchema,
        handler: (ctx) => recipients.create(ctx.owner, ctx.body, ctx.actor),
      }),
      route<unknown, CursorQuery & { status?: RecipientStatus }>({
        method: 'get',
        path: `${BASE}/recipients`,
        summary: 'List recipients, newest first (cursor-paged), by status',
        description: "The merchant's recipients of the environment, newest first, cursor-paged (`limit`, `starting_after`, `ending_before`); `status` keeps the active or the archived ones.",
        auth: payoutsRead,
        query: cursorQuery({
          status: {
            enum: [...RECIPIENT_STATUSES],
            description: 'Only recipients in this status',
            'x-enumDescriptions': { active: 'Usable in new batches', archived: 'Archived' },
          },
        }),
        response: cursorListSchema(recipientSchema),
        handler: (ctx) => listRecipients(knex, ctx.owner, ctx.query, `${BASE}/recipients`, { ...(ctx.query.status ? { status: ctx.query.status } : {}) }),
      }),
      route<unknown, unknown, { recipientId: string }>({
        method: 'get',
        path: `${BASE}/recipients/:recipientId`,
        summary: 'Retrieve a recipient',
        description: "One recipient with its destination (normalised: the other type's fields are null) and status. Another merchant's recipient, or one of the other environment, is `404 IKW-RES-001`.",
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
        description:
          'Changes the name or the destination; a destination change is checked again as a whole, and a new `destination_type` replaces the old fields. Batches already created keep the destination they were validated with. An archived recipient cannot be changed (`409 IKW-RES-002`).',
        refusals: ['IKW-RES-002', 'IKW-VAL-003', 'IKW-VAL-004', 'IKW-VAL-005', 'IKW-VAL-006', 'IKW-VAL-007', 'IKW-VAL-009'],
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
        description: 'Archives the recipient: the batches that name it keep it, new batches naming it are refused (`IKW-PEN-003`, per instruction), and it can no longer be changed. There is no delete: payouts made to it stay traceable.',
        auth: payoutsWrite,
        params: recipientParams,
        response: recipientSchema,
        handler: (ctx) => recipients.archive(ctx.owner, ctx.params.recipientId, ctx.actor),
      }),
      route<CreateBatchInput>({
        method: 'post',
        path: `${BASE}/batches`,
        summary: 'Create a payout batch from instructions (JSON, or text/csv with a header line); every instruction is validated, each invalid one reported by index',
        description: [
          'Creates a batch of up to 10,000 payouts in one currency, `validated`: nothing is held or sent until you execute it. Each instruction pays a saved recipient (`recipient_id`) or an inline destination, and is checked as a single payout would be (catalog, limits, capabilities, fee). When any is invalid nothing is created, and `400 IKW-PEN-001` lists every invalid one by `index` in `errors`.',
          '',
          'Send JSON, or `Content-Type: text/csv` with a header line naming the columns (`IKW-PEN-004` when malformed; docs/payout-engine.md, "A batch from CSV"). `idempotency_key` (or the `Idempotency-Key` header) names the batch: the same request answers the same batch. A batch with bank instructions is checked against the balance and then with the bank for holder names, last.',
        ].join('\n'),
        refusals: ['IKW-PEN-001', 'IKW-PEN-004', 'IKW-VAL-003', 'IKW-BAL-001'],
        emits: ['payout_batch.created'],
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
        description: "The merchant's payout batches of the environment, newest first, cursor-paged; `status` keeps one status (the `partially_failed` ones to retry, say).",
        auth: payoutsRead,
        query: cursorQuery({ status: { enum: [...BATCH_STATUSES], description: 'Only batches in this status', 'x-enumDescriptions': BATCH_STATUS_WORDS } }),
        response: cursorListSchema(batchSchema),
        handler: (ctx) => listPayoutBatches(knex, ctx.owner, ctx.query, `${BASE}/batches`, { ...(ctx.query.status ? { status: ctx.query.status } : {}) }),
      }),
      route<unknown, unknown, { batchId: string }>({
        method: 'get',
        path: `${BASE}/batches/:batchId`,
        summary: 'Retrieve a payout batch: status, totals and item counts',
        description:
          "The batch as it stands: its status, totals, fees and the count of items per outcome. Follow an execution with it or with the `payout_batch.*` webhooks; the items and their payouts are in `…/items`. Another merchant's batch is `404 IKW-RES-001`.",
        auth: payoutsRead,
        params: batchParams,
        response: batchSchema,
        handler: (ctx) => batchOf(ctx.owner, ctx.params.batchId),
      }),
      route<unknown, ItemsQuery, { batchId: string }>({
        method: 'get',
        path: `${BASE}/batches/:batchId/items`,
        summary: "List a batch's items in index order, each with its payout and status",
        description:
          "The batch's items in index order, each with its amount, fee, destination, status and current payout (`payout_id`, whose webhooks and history are a payout's). Page with `starting_after` set to the last index of a page; `status` keeps one status (the failed items, say).",
        auth: payoutsRead,
        params: batchParams,
        query: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'How many items a page holds, 1 to 100' },
            starting_after: { type: 'integer', minimum: 0, maximum: MAX_BATCH_INSTRUCTIONS, description: 'An item index: the page starts after it (the next page: the last index of this one)' },
            status: { enum: ITEM_STATUSES, description: 'Only items in this status', 'x-enumDescriptions': ITEM_STATUS_WORDS },
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
        summary:
          'Execute a validated batch: its total plus fees is held at once, then each item is paid out, a few at a time per operator (live: a signed-in user paying a destination never paid before gives challenge_id, purpose payouts/new-destination)',
        description: [
          'Starts paying a `validated` batch: its total plus fees is held on the balance in the same commit as its `executing` status (`IKW-BAL-001` when the balance does not cover it, nothing held), then each item becomes an ordinary payout, sent a few at a time per operator. Follow it with the batch, its items or the webhooks; it ends `completed`, `partially_failed` or `failed`.',
          '',
          'In live, a signed-in user paying destinations this merchant never paid sends `challenge_id` (`IKW-PAY-007`); an API key executes as the payout settings allow (`IKW-PAY-008`). Another status is `409 IKW-PEN-005`. The same request retried after a lost answer answers the execution it started: nothing is held or sent twice.',
        ].join('\n'),
        refusals: [...EXECUTION_REFUSALS, 'IKW-RES-001'],
        emits: ['payout_batch.execution_started', 'payout.created'],
        auth: payoutsWrite,
        params: batchParams,
        body: executionBody,
        fields: { challengeId: 'challenge_id' },
        response: batchSchema,
        handler: (ctx) => executions.execute(ctx.owner, ctx.params.batchId, requesterOf(ctx, ctx.body.challenge_id), ctx.actor, ctx.requestRef),
      }),
      route<unknown, unknown, { batchId: string }>({
        method: 'post',
        path: `${BASE}/batches/:batchId/cancel`,
        summary: 'Cancel a batch before or during execution: nothing more is sent, payouts not yet sent are canceled',
        description:
          'Stops a batch: a `validated` one is canceled at once; during execution, every payout not yet handed to its operator is canceled (its funds back on the available balance), while those already with the operator go on to their end. What the hold has left returns to the balance. A finished batch is `409 IKW-PEN-005`.',
        refusals: ['IKW-PEN-005'],
        emits: ['payout_batch.canceled', 'payout.canceled'],
        auth: payoutsWrite,
        params: batchParams,
        response: batchSchema,
        handler: (ctx) => executions.cancel(ctx.owner, ctx.params.batchId, ctx.actor),
      }),
      route<ExecutionBody, unknown, { batchId: string }>({
        method: 'post',
        path: `${BASE}/batches/:batchId/retry`,
        summary: 'Retry the failed items of a partially failed or failed batch, as new payouts with a new balance check (live: a signed-in user paying a destination never paid before gives challenge_id, purpose payouts/new-destination)',
        description:
          "Sends the failed items of a `partially_failed` or `failed` batch again as its next attempt: new payouts, a new hold of their total plus fees and a new balance check; the first payouts stay `failed` in their history. Another status, or a batch without failed items, is `409 IKW-PEN-005`; the rules of new destinations are an execution's.",
        refusals: [...EXECUTION_REFUSALS, 'IKW-RES-001'],
        emits: ['payout_batch.execution_started', 'payout.created'],
        auth: payoutsWrite,
        params: batchParams,
        body: executionBody,
        fields: { challengeId: 'challenge_id' },
        response: batchSchema,
        handler: (ctx) => executions.retry(ctx.owner, ctx.params.batchId, requesterOf(ctx, ctx.body.challenge_id), ctx.actor, ctx.requestRef),
      }),
      route<unknown, { limit: number; starting_after?: string }, { batchId: string }>({
        method: 'get',
        path: `${BASE}/batches/:batchId/execution-logs`,
        summary: "A batch's execution log, oldest first: its steps and every event of its payouts",
        description:
          "What happened to the batch, oldest first: its own steps (created, execution started, finished, canceled) and every event of its payouts (created, in transit, delayed, paid, failed, canceled), in the order they happened. Page with `starting_after` set to the last entry's id; an id that is not one of its entries is `400 IKW-VAL-001`.",
        auth: payoutsRead,
        params: batchParams,
        query: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 100, description: 'How many entries a page holds, 1 to 100' },
            starting_after: text(255, "An entry's id: the page starts after it"),
          },
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
