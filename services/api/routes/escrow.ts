import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../packages/catalog/index.js';
import type { CreateContractInput, CreateReleaseInput, EscrowContracts, ExecuteReleaseInput, ResolveDisputeInput } from '../../../packages/families/escrow/commands.js';
import {
  CLIENT_RELEASE_TRIGGERS,
  CONTRACT_STATUSES,
  DISPUTE_OPENERS,
  DISPUTE_OUTCOMES,
  FUNDING_SOURCE_TYPES,
  LEDGER_DESTINATION_TYPES,
  PARTICIPANT_ROLES,
  RELEASE_MODES,
  RELEASE_STATUSES,
  type ContractStatus,
  type DisputeOpener,
  type DisputeStatus,
  type ParticipantRole,
  type ReleaseStatus,
} from '../../../packages/families/escrow/events.js';
import { route, type Family, type RouteAuth } from '../../../packages/http/routes.js';
import { findEscrowContract, listEscrowContracts } from '../../../projections/escrow/escrow-contracts.js';
import { findEscrowDispute, listEscrowDisputes } from '../../../projections/escrow/escrow-disputes.js';
import { findEscrowRelease, listEscrowReleases } from '../../../projections/escrow/escrow-releases.js';
import type { CursorQuery } from '../../../projections/paging.js';
import { currencySchema, cursorListSchema, cursorQuery, found, idParams, idParamsOf, resourceSchema, requesterOf, retrieveRoute } from './shared.js';

const BASE = '/api/v1/escrow';
const escrowRead: RouteAuth = { scope: 'escrow.read', environmentHeader: 'optional' };
const escrowWrite: RouteAuth = { scope: 'escrow.write', environmentHeader: 'optional' };

/** Optional strings of the family's bodies may be null (the interface's rule); `req` ones may not. */
const nullable = (schema: Record<string, unknown>) => ({ ...schema, type: [schema.type as string, 'null'] });
const nullableEnum = (values: readonly string[]) => ({ enum: [...values, null] });
const text = (minLength: number, maxLength: number) => ({ type: 'string', minLength, maxLength });
const uuid = { type: 'string', format: 'uuid' };
const amountMinor = { type: 'integer', minimum: 1, maximum: MAX_AMOUNT };
const metadata = nullable(text(0, 8000));
/** A payment intent's public id, or a uuid (the interface types the field uuid; docs/escrow.md). */
const paymentIntentRef = { type: 'string', pattern: '^(pi_[0-9A-Za-z]{24}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$' };

const createContractBody = {
  type: 'object',
  required: ['currency'],
  additionalProperties: false,
  properties: {
    currency: currencySchema,
    amountMinor,
    fundingSourceType: nullableEnum(FUNDING_SOURCE_TYPES),
    fundingSourceLedgerAccountCode: nullable(text(1, 100)),
    defaultReleaseMode: nullableEnum(RELEASE_MODES),
    ledgerDestinationType: nullableEnum(LEDGER_DESTINATION_TYPES),
    ledgerDestinationAccountCode: nullable(text(1, 100)),
    defaultPayoutMethodId: nullable(uuid),
    autoReleaseAtUtc: nullable({ type: 'string', format: 'date-time' }),
    metadata,
  },
};

const createReleaseBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    amountMinor,
    milestoneId: nullable(uuid),
    mode: nullableEnum(RELEASE_MODES),
    trigger: nullableEnum(CLIENT_RELEASE_TRIGGERS),
    idempotencyKey: nullable(text(1, 64)),
    manualOverride: { type: 'boolean' },
    challengeId: uuid,
  },
};

const executeReleaseBody = {
  type: 'object',
  additionalProperties: false,
  // challengeId: live, a signed-in user paying a payout method the merchant never paid (docs/escrow.md).
  properties: { payoutMethodId: nullable(uuid), beneficiaryParticipantId: nullable(uuid), challengeId: uuid },
};

const openDisputeBody = {
  type: 'object',
  required: ['reason'],
  additionalProperties: false,
  properties: { reason: text(1, 1000), openedByRole: nullableEnum(DISPUTE_OPENERS) },
};

const resolveDisputeBody = {
  type: 'object',
  required: ['outcome'],
  additionalProperties: false,
  properties: { outcome: { enum: [...DISPUTE_OUTCOMES] }, outcomeMetadata: metadata, splitReleaseMinor: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT } },
};

const participantBody = {
  type: 'object',
  required: ['role', 'displayName'],
  additionalProperties: false,
  properties: { role: { enum: [...PARTICIPANT_ROLES] }, displayName: text(1, 256), email: nullable({ type: 'string', format: 'email', maxLength: 256 }) },
};

const milestoneBody = {
  type: 'object',
  required: ['title', 'amountMinor'],
  additionalProperties: false,
  properties: { title: text(1, 256), amountMinor },
};

const nullableText = { type: ['string', 'null'] };
const nullableInt = { type: ['integer', 'null'] };

const participantSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, role: { enum: [...PARTICIPANT_ROLES] }, displayName: { type: 'string' }, email: nullableText, addedAt: { type: 'string' } },
};
const milestoneSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    amountMinor: { type: 'integer' },
    status: { enum: ['open', 'completed', 'released'] },
    createdAt: { type: 'string' },
    completedAt: nullableText,
  },
};

const contractSchema = resourceSchema('escrow_contract', ['status', 'currency', 'fundedMinor', 'releasedMinor', 'refundedMinor', 'heldMinor'], {
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  status: { enum: [...CONTRACT_STATUSES] },
  currency: { type: 'string' },
  amountMinor: nullableInt,
  fundedMinor: { type: 'integer' },
  releasedMinor: { type: 'integer' },
  refundedMinor: { type: 'integer' },
  heldMinor: { type: 'integer' },
  pendingReleaseMinor: { type: 'integer' },
  fundingSourceType: { enum: [...FUNDING_SOURCE_TYPES] },
  fundingSourceLedgerAccountCode: nullableText,
  paymentIntentId: nullableText,
  defaultReleaseMode: { enum: [...RELEASE_MODES] },
  ledgerDestinationType: { enum: [...LEDGER_DESTINATION_TYPES] },
  ledgerDestinationAccountCode: nullableText,
  defaultPayoutMethodId: nullableText,
  autoReleaseAtUtc: nullableText,
  metadata: nullableText,
  participants: { type: 'array', items: participantSchema },
  milestones: { type: 'array', items: milestoneSchema },
  openDisputeId: nullableText,
  fundedAt: nullableText,
  canceledAt: nullableText,
});

const releaseSchema = resourceSchema('escrow_release', ['contractId', 'amountMinor', 'status'], {
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  contractId: { type: 'string' },
  currency: { type: 'string' },
  amountMinor: { type: 'integer' },
  milestoneId: nullableText,
  mode: { enum: [...RELEASE_MODES] },
  trigger: { enum: ['manual', 'milestone', 'auto_release', 'dispute_resolution'] },
  idempotencyKey: nullableText,
  manualOverride: { type: 'boolean' },
  status: { enum: [...RELEASE_STATUSES] },
  destination: { type: ['object', 'null'] },
  executedAt: nullableText,
  canceledAt: nullableText,
  returnedAt: nullableText,
});

const disputeSchema = resourceSchema('escrow_dispute', ['contractId', 'reason', 'status'], {
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  contractId: { type: 'string' },
  reason: { type: 'string' },
  openedByRole: { enum: [...DISPUTE_OPENERS] },
  status: { enum: ['open', 'resolved'] },
  outcome: { enum: [...DISPUTE_OUTCOMES, null] },
  outcomeMetadata: nullableText,
  releasedMinor: { type: 'integer' },
  refundedMinor: { type: 'integer' },
  resolvedAt: nullableText,
});

const contractParams = idParamsOf('contractId');
/**
 * The request parameter of each object a refusal names: its path `id` on every route, also where the
 * path says `contractId` (the public answers have always named the object `id`).
 */
const escrowIds = { contractId: 'id', releaseId: 'id', disputeId: 'id' };
const milestoneParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 255 }, milestoneId: { type: 'string', minLength: 1, maxLength: 255 } }, required: ['id', 'milestoneId'] };

/**
 * /api/v1/escrow: contracts (with participants and milestones), their releases and disputes
 * (docs/escrow.md). Eighteen operations.
 */
export function escrowFamily(knex: Knex, escrow: EscrowContracts): Family {
  return {
    name: 'escrow',
    description: 'Escrow contracts: money held for a buyer and a seller until milestones are met, released in parts, refunded, or settled through a dispute.',
    routes: [
      route<CreateContractInput>({
        method: 'post',
        path: `${BASE}/contracts`,
        summary: 'Create an escrow contract: funded later by a payment intent, or at once from the merchant balance',
        auth: escrowWrite,
        body: createContractBody,
        response: contractSchema,
        handler: (ctx) => escrow.create(ctx.owner, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { status?: ContractStatus }>({
        method: 'get',
        path: `${BASE}/contracts`,
        summary: 'List escrow contracts, newest first (cursor-paged), by status',
        auth: escrowRead,
        query: cursorQuery({ status: { enum: [...CONTRACT_STATUSES] } }),
        response: cursorListSchema(contractSchema),
        handler: (ctx) => listEscrowContracts(knex, ctx.owner, ctx.query, `${BASE}/contracts`, { ...(ctx.query.status ? { status: ctx.query.status } : {}) }),
      }),
      retrieveRoute({
        path: `${BASE}/contracts/:id`,
        noun: 'escrow contract',
        summary: 'Retrieve an escrow contract with its participants, milestones and amounts',
        auth: escrowRead,
        response: contractSchema,
        find: (owner, id) => findEscrowContract(knex, owner, id),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/contracts/:id/cancel`,
        fields: escrowIds,
        summary: 'Cancel an escrow contract: pending releases are canceled and what it holds is refunded to the payer',
        auth: escrowWrite,
        params: idParams,
        response: contractSchema,
        handler: (ctx) => escrow.cancel(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<{ paymentIntentId: string }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/contracts/:id/submit-for-funding`,
        fields: escrowIds,
        summary: "Name the payer's payment intent (not yet confirmed) that funds the contract: its payment goes to the contract's escrow",
        auth: escrowWrite,
        params: idParams,
        body: { type: 'object', required: ['paymentIntentId'], additionalProperties: false, properties: { paymentIntentId: paymentIntentRef } },
        response: contractSchema,
        handler: (ctx) => escrow.submitForFunding(ctx.owner, ctx.params.id, ctx.body.paymentIntentId, ctx.actor),
      }),
      route<{ role: ParticipantRole; displayName: string; email?: string | null }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/contracts/:id/participants`,
        fields: escrowIds,
        summary: 'Add a participant to a contract: a payer, a beneficiary (a release may name it) or an agent',
        auth: escrowWrite,
        params: idParams,
        body: participantBody,
        response: contractSchema,
        handler: (ctx) => escrow.addParticipant(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<{ title: string; amountMinor: number }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/contracts/:id/milestones`,
        fields: escrowIds,
        summary: 'Add a milestone to a contract: a part of the work and the amount released for it',
        auth: escrowWrite,
        params: idParams,
        body: milestoneBody,
        response: contractSchema,
        handler: (ctx) => escrow.addMilestone(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<unknown, unknown, { id: string; milestoneId: string }>({
        method: 'post',
        path: `${BASE}/contracts/:id/milestones/:milestoneId/complete`,
        fields: escrowIds,
        summary: 'Mark a milestone delivered: a release may then name it',
        auth: escrowWrite,
        params: milestoneParams,
        response: contractSchema,
        handler: (ctx) => escrow.completeMilestone(ctx.owner, ctx.params.id, ctx.params.milestoneId, ctx.actor),
      }),
      route<{ amountMinor?: number }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/contracts/:id/refund`,
        fields: escrowIds,
        summary: 'Refund held funds to the payer: amountMinor, or all that pending releases do not hold',
        auth: escrowWrite,
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { amountMinor } },
        response: contractSchema,
        handler: (ctx) => escrow.refund(ctx.owner, ctx.params.id, ctx.body ?? {}, ctx.actor, ctx.requestRef),
      }),
      route<CreateReleaseInput & { challengeId?: string }, unknown, { contractId: string }>({
        method: 'post',
        path: `${BASE}/releases/contract/:contractId`,
        fields: escrowIds,
        summary: "Create a release of a contract's held funds (executed at once in immediate mode); refused while a dispute is open",
        auth: escrowWrite,
        params: contractParams,
        body: createReleaseBody,
        response: releaseSchema,
        handler: (ctx) => {
          const { challengeId, ...input } = ctx.body ?? {};
          return escrow.createRelease(ctx.owner, ctx.params.contractId, input, requesterOf(ctx, challengeId), ctx.actor, ctx.requestRef);
        },
      }),
      route<unknown, CursorQuery & { status?: ReleaseStatus }, { contractId: string }>({
        method: 'get',
        path: `${BASE}/releases/contract/:contractId`,
        summary: "List a contract's releases, newest first (cursor-paged), by status",
        auth: escrowRead,
        params: contractParams,
        query: cursorQuery({ status: { enum: [...RELEASE_STATUSES] } }),
        response: cursorListSchema(releaseSchema),
        handler: async (ctx) => {
          await found('escrow contract', ctx.params.contractId, findEscrowContract(knex, ctx.owner, ctx.params.contractId));
          const url = `${BASE}/releases/contract/${ctx.params.contractId}`;
          return listEscrowReleases(knex, ctx.owner, ctx.params.contractId, ctx.query, url, { ...(ctx.query.status ? { status: ctx.query.status } : {}) });
        },
      }),
      retrieveRoute({
        path: `${BASE}/releases/:id`,
        noun: 'escrow release',
        summary: 'Retrieve an escrow release',
        auth: escrowRead,
        response: releaseSchema,
        find: (owner, id) => findEscrowRelease(knex, owner, id),
      }),
      route<ExecuteReleaseInput & { challengeId?: string }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/releases/:id/execute`,
        fields: escrowIds,
        summary: "Execute a pending release: a payout to a payout method, or a ledger transfer to the merchant's balance (for a beneficiary participant)",
        auth: escrowWrite,
        params: idParams,
        body: executeReleaseBody,
        response: releaseSchema,
        handler: (ctx) => {
          const { challengeId, ...input } = ctx.body ?? {};
          return escrow.executeRelease(ctx.owner, ctx.params.id, input, requesterOf(ctx, challengeId), ctx.actor);
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/releases/:id/cancel`,
        fields: escrowIds,
        summary: 'Cancel a pending release: its amount is held for the contract again',
        auth: escrowWrite,
        params: idParams,
        response: releaseSchema,
        handler: (ctx) => escrow.cancelRelease(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<{ reason: string; openedByRole?: DisputeOpener | null }, unknown, { contractId: string }>({
        method: 'post',
        path: `${BASE}/disputes/contract/:contractId`,
        fields: escrowIds,
        summary: 'Open a dispute on a funded contract: its releases and refunds are frozen until it is resolved',
        auth: escrowWrite,
        params: contractParams,
        body: openDisputeBody,
        response: disputeSchema,
        handler: (ctx) => escrow.openDispute(ctx.owner, ctx.params.contractId, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { status?: DisputeStatus }, { contractId: string }>({
        method: 'get',
        path: `${BASE}/disputes/contract/:contractId`,
        summary: "List a contract's disputes, newest first (cursor-paged), by status",
        auth: escrowRead,
        params: contractParams,
        query: cursorQuery({ status: { enum: ['open', 'resolved'] } }),
        response: cursorListSchema(disputeSchema),
        handler: async (ctx) => {
          await found('escrow contract', ctx.params.contractId, findEscrowContract(knex, ctx.owner, ctx.params.contractId));
          const url = `${BASE}/disputes/contract/${ctx.params.contractId}`;
          return listEscrowDisputes(knex, ctx.owner, ctx.params.contractId, ctx.query, url, { ...(ctx.query.status ? { status: ctx.query.status } : {}) });
        },
      }),
      retrieveRoute({
        path: `${BASE}/disputes/:id`,
        noun: 'escrow dispute',
        summary: 'Retrieve an escrow dispute',
        auth: escrowRead,
        response: disputeSchema,
        find: (owner, id) => findEscrowDispute(knex, owner, id),
      }),
      route<ResolveDisputeInput, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/disputes/:id/resolve`,
        fields: escrowIds,
        summary: 'Resolve a dispute: release to the beneficiary, refund to the payer, split (splitReleaseMinor to the beneficiary), or dismiss',
        auth: escrowWrite,
        params: idParams,
        body: resolveDisputeBody,
        response: disputeSchema,
        handler: (ctx) => escrow.resolveDispute(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
    ],
  };
}
