import type { Knex } from 'knex';
import { MAX_AMOUNT } from '#packages/catalog/index.js';
import type { CreateContractInput, EscrowContracts } from '../contracts.js';
import type { EscrowDisputes, ResolveDisputeInput } from '../disputes.js';
import type { EscrowFunding } from '../funding.js';
import type { EscrowRefunds } from '../refunds.js';
import type { CreateReleaseInput, EscrowReleases, ExecuteReleaseInput } from '../releases.js';
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
} from '../events.js';
import type { ErrorCode } from '#packages/core/errors.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import { findEscrowContract, listEscrowContracts } from '../read/escrow-contracts.js';
import { findEscrowDispute, listEscrowDisputes } from '../read/escrow-disputes.js';
import { findEscrowRelease, listEscrowReleases } from '../read/escrow-releases.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { currencySchema, cursorListSchema, cursorQuery, found, idParams, resourceSchema, requesterOf, retrieveRoute } from '#packages/http/route-kit.js';

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

const FUNDING_SOURCE_WORDS = {
  payment_intent: "The payer's payment intent, named by `submit-for-funding`: its payment goes into escrow when it succeeds",
  merchant_balance: "The merchant's own available balance, taken at creation (`amountMinor` required)",
};
const RELEASE_MODE_WORDS = {
  manual: 'A release waits, `pending`, for `POST /api/v1/escrow/releases/{id}/execute`',
  immediate: "A release is executed as it is created, to the contract's default destination",
};
const LEDGER_DESTINATION_WORDS = {
  merchant_balance: "A ledger transfer to the merchant's available balance",
  payout_method: 'A payout to `defaultPayoutMethodId`',
};
const TRIGGER_WORDS = {
  manual: 'Asked for by a request, without a milestone',
  milestone: 'Asked for by a request, for a milestone (`milestoneId`)',
  auto_release: 'Made by the auto-release timer at `autoReleaseAtUtc`',
  dispute_resolution: "Made by a dispute's resolution (`release_to_beneficiary` or `split`)",
};
const PARTICIPANT_ROLE_WORDS = { payer: 'The one who pays into escrow', beneficiary: 'The one the funds are released to: a release may name it', agent: 'A third party, such as a broker: informative' };
const OPENER_WORDS = { payer: 'The payer', beneficiary: 'The beneficiary', platform: 'The merchant or platform, as arbiter' };
const OUTCOME_WORDS = {
  release_to_beneficiary: "Everything held becomes one release to the beneficiary, in the contract's default mode",
  refund_to_payer: 'Everything held is refunded to the payer',
  split: '`splitReleaseMinor` is released to the beneficiary, the rest refunded to the payer',
  dismissed: 'Nothing moves: pending releases stay and the freeze lifts',
};
const CONTRACT_STATUS_WORDS = {
  draft: 'Created: no payment intent submitted, nothing funded',
  pending_funding: 'A payment intent was submitted; its payment has not arrived',
  funded: 'Funds arrived and some are still held',
  disputed: 'A dispute is open: no release, refund or cancel until it is resolved',
  completed: 'Everything funded was released or refunded',
  canceled: 'Canceled: whatever it held went back to the payer',
};
const RELEASE_STATUS_WORDS = {
  pending: 'Its amount is reserved; it waits for `execute` or `cancel`',
  executed: 'The funds went to the merchant balance or to a payout (`destination`)',
  canceled: 'Canceled before execution: its amount is held for the contract again',
  returned: "Executed as a payout that failed: its amount is back in the contract's escrow",
};
const DISPUTE_STATUS_WORDS = { open: "Open: the contract's money is frozen", resolved: 'Resolved with an `outcome`' };
const MILESTONE_STATUS_WORDS = { open: 'Not delivered yet', completed: 'Marked delivered: a release may name it', released: 'A release (not canceled) names it' };

const described = (schema: Record<string, unknown>, description: string, words?: Record<string, string>) => ({ ...schema, description, ...(words ? { 'x-enumDescriptions': words } : {}) });

const createContractBody = {
  type: 'object',
  required: ['currency'],
  additionalProperties: false,
  properties: {
    currency: currencySchema,
    amountMinor: described(amountMinor, "The amount the contract is for, in minor units. Required when funded from the merchant balance (taken at once); with a payment intent, the intent must be for it. Left out: the intent's amount"),
    fundingSourceType: described(nullableEnum(FUNDING_SOURCE_TYPES), 'How the contract is funded; `payment_intent` when left out', FUNDING_SOURCE_WORDS),
    fundingSourceLedgerAccountCode: described(nullable(text(1, 100)), 'An account code of your own books for the source of the funds, kept on the contract'),
    defaultReleaseMode: described(nullableEnum(RELEASE_MODES), 'The mode of releases that name none; `manual` when left out', RELEASE_MODE_WORDS),
    ledgerDestinationType: described(
      nullableEnum(LEDGER_DESTINATION_TYPES),
      'Where a release goes when `execute` names no destination; `payout_method` when `defaultPayoutMethodId` is given, else `merchant_balance`',
      LEDGER_DESTINATION_WORDS,
    ),
    ledgerDestinationAccountCode: described(nullable(text(1, 100)), 'An account code of your own books, written on each ledger transfer of a release (`destination.accountCode`)'),
    defaultPayoutMethodId: described(nullable(uuid), 'A saved payout method of yours that releases are paid out to; required with `ledgerDestinationType: payout_method`'),
    autoReleaseAtUtc: described(nullable({ type: 'string', format: 'date-time' }), 'When whatever the funded contract still holds (beyond pending releases) is released and executed by itself, unless a dispute is open'),
    metadata: described(metadata, 'A string of your own (up to 8000 characters), returned as given'),
  },
};

const createReleaseBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    amountMinor: described(amountMinor, "The amount to release, in minor units; left out: the milestone's amount, else everything held not promised to pending releases"),
    milestoneId: described(nullable(uuid), 'The milestone this release pays: it must be `completed` (or `manualOverride: true`) and not released yet'),
    mode: described(nullableEnum(RELEASE_MODES), "`immediate` to execute it at once to the contract's default destination; the contract's `defaultReleaseMode` when left out", RELEASE_MODE_WORDS),
    trigger: described(nullableEnum(CLIENT_RELEASE_TRIGGERS), 'Why it is released; `milestone` with `milestoneId`, else `manual`', { manual: TRIGGER_WORDS.manual, milestone: TRIGGER_WORDS.milestone }),
    idempotencyKey: described(nullable(text(1, 64)), 'Names the release within the contract: the same key answers the release it made, whatever else the body says'),
    manualOverride: { type: 'boolean', description: 'Release a milestone that is not `completed` yet; `false` when left out' },
    challengeId: described(uuid, 'Live, a signed-in user releasing in `immediate` mode to a payout method never paid before: a verified `payouts/new-destination` challenge (POST /api/v1/auth/mfa/challenge). An API key gives none'),
  },
};

const executeReleaseBody = {
  type: 'object',
  additionalProperties: false,
  // challengeId: live, a signed-in user paying a payout method the merchant never paid (docs/escrow.md).
  properties: {
    payoutMethodId: described(nullable(uuid), 'Pay the release out to this saved payout method of yours (not with `beneficiaryParticipantId`)'),
    beneficiaryParticipantId: described(nullable(uuid), "Transfer the release to the merchant's available balance, marked with this participant of role `beneficiary`"),
    challengeId: described(uuid, 'Live, a signed-in user paying a payout method never paid before: a verified `payouts/new-destination` challenge (POST /api/v1/auth/mfa/challenge). An API key gives none'),
  },
};

const openDisputeBody = {
  type: 'object',
  required: ['reason'],
  additionalProperties: false,
  properties: {
    reason: described(text(1, 1000), 'Why the dispute is opened, in words kept on the dispute'),
    openedByRole: described(nullableEnum(DISPUTE_OPENERS), 'Who opens it; `payer` when left out', OPENER_WORDS),
  },
};

const resolveDisputeBody = {
  type: 'object',
  required: ['outcome'],
  additionalProperties: false,
  properties: {
    outcome: { enum: [...DISPUTE_OUTCOMES], description: 'How the held funds are divided', 'x-enumDescriptions': OUTCOME_WORDS },
    outcomeMetadata: described(metadata, 'A string of your own about the decision (up to 8000 characters), kept on the dispute'),
    splitReleaseMinor: { type: 'integer', minimum: 0, maximum: MAX_AMOUNT, description: "For a `split` (required then): the beneficiary's part, in minor units, at most what the contract holds; the rest is refunded" },
  },
};

const participantBody = {
  type: 'object',
  required: ['role', 'displayName'],
  additionalProperties: false,
  properties: {
    role: { enum: [...PARTICIPANT_ROLES], description: 'What the participant is to the contract', 'x-enumDescriptions': PARTICIPANT_ROLE_WORDS },
    displayName: described(text(1, 256), 'Their name, as shown'),
    email: described(nullable({ type: 'string', format: 'email', maxLength: 256 }), 'Their e-mail address, kept for your records (Sika sends them nothing)'),
  },
};

const milestoneBody = {
  type: 'object',
  required: ['title', 'amountMinor'],
  additionalProperties: false,
  properties: { title: described(text(1, 256), 'The part of the work, as shown (`Design delivered`)'), amountMinor: described(amountMinor, 'The amount released for it, in minor units') },
};

const nullableText = { type: ['string', 'null'] };
const nullableInt = { type: ['integer', 'null'] };
const isoTime = (what: string) => ({ ...nullableText, description: `${what}, an ISO 8601 time; null until then` });

const participantSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: "The participant's id, which `execute` names as `beneficiaryParticipantId`" },
    role: { enum: [...PARTICIPANT_ROLES], description: 'What the participant is to the contract', 'x-enumDescriptions': PARTICIPANT_ROLE_WORDS },
    displayName: { type: 'string', description: 'Their name' },
    email: { ...nullableText, description: 'Their e-mail address, or null' },
    addedAt: { type: 'string', description: 'When they were added, an ISO 8601 time' },
  },
};
const milestoneSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: "The milestone's id, which a release names as `milestoneId`" },
    title: { type: 'string', description: 'The part of the work' },
    amountMinor: { type: 'integer', description: 'The amount released for it, in minor units' },
    status: { enum: ['open', 'completed', 'released'], description: 'Where the milestone stands', 'x-enumDescriptions': MILESTONE_STATUS_WORDS },
    createdAt: { type: 'string', description: 'When it was added, an ISO 8601 time' },
    completedAt: isoTime('When it was marked delivered'),
  },
};

const contractSchema = resourceSchema('escrow_contract', ['status', 'currency', 'fundedMinor', 'releasedMinor', 'refundedMinor', 'heldMinor'], {
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  status: { enum: [...CONTRACT_STATUSES], description: 'Where the contract stands; it decides which operations it accepts', 'x-enumDescriptions': CONTRACT_STATUS_WORDS },
  currency: { type: 'string', description: 'The currency, a three-letter ISO 4217 code in lower case (`xof`)' },
  amountMinor: { ...nullableInt, description: "The amount the contract is for, in minor units; null: the funding intent's amount" },
  fundedMinor: { type: 'integer', description: "What arrived into escrow, in minor units, net of the payment's processing fee" },
  releasedMinor: { type: 'integer', description: 'What executed releases took out, in minor units' },
  refundedMinor: { type: 'integer', description: 'What was refunded to the payer, in minor units' },
  heldMinor: { type: 'integer', description: 'What the contract holds now: funded − released − refunded, in minor units' },
  pendingReleaseMinor: { type: 'integer', description: 'The part of `heldMinor` that pending releases reserve' },
  fundingSourceType: { enum: [...FUNDING_SOURCE_TYPES], description: 'How the contract is funded', 'x-enumDescriptions': FUNDING_SOURCE_WORDS },
  fundingSourceLedgerAccountCode: { ...nullableText, description: 'Your account code for the source of the funds, or null' },
  paymentIntentId: { ...nullableText, description: 'The payment intent submitted to fund it, or null' },
  defaultReleaseMode: { enum: [...RELEASE_MODES], description: 'The mode of releases that name none', 'x-enumDescriptions': RELEASE_MODE_WORDS },
  ledgerDestinationType: { enum: [...LEDGER_DESTINATION_TYPES], description: 'Where a release goes when `execute` names no destination', 'x-enumDescriptions': LEDGER_DESTINATION_WORDS },
  ledgerDestinationAccountCode: { ...nullableText, description: 'Your account code written on each ledger transfer of a release, or null' },
  defaultPayoutMethodId: { ...nullableText, description: 'The payout method releases are paid out to by default, or null' },
  autoReleaseAtUtc: { ...nullableText, description: 'When what it holds is released by itself, an ISO 8601 time; null for none' },
  metadata: { ...nullableText, description: 'Your string, as given at creation, or null' },
  participants: { type: 'array', items: participantSchema, description: 'The payer, beneficiaries and agents added, in the order they were added' },
  milestones: { type: 'array', items: milestoneSchema, description: 'The milestones, in the order they were added' },
  openDisputeId: { ...nullableText, description: 'The dispute open on it, or null' },
  fundedAt: isoTime('When funds first arrived'),
  canceledAt: isoTime('When it was canceled'),
});

const releaseSchema = resourceSchema('escrow_release', ['contractId', 'amountMinor', 'status'], {
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  contractId: { type: 'string', description: 'The contract whose funds it releases' },
  currency: { type: 'string', description: "The contract's currency, lower case" },
  amountMinor: { type: 'integer', description: 'The amount released, in minor units (a payout sends it less its fee)' },
  milestoneId: { ...nullableText, description: 'The milestone it pays, or null' },
  mode: { enum: [...RELEASE_MODES], description: 'Whether it was executed as it was created', 'x-enumDescriptions': RELEASE_MODE_WORDS },
  trigger: { enum: ['manual', 'milestone', 'auto_release', 'dispute_resolution'], description: 'Why it was made', 'x-enumDescriptions': TRIGGER_WORDS },
  idempotencyKey: { ...nullableText, description: 'The `idempotencyKey` it was created with, or null' },
  manualOverride: { type: 'boolean', description: '`true` when it released a milestone not yet completed' },
  status: { enum: [...RELEASE_STATUSES], description: 'Where the release stands', 'x-enumDescriptions': RELEASE_STATUS_WORDS },
  destination: {
    type: ['object', 'null'],
    description: 'Where it went, once executed; null before. `{type: "ledger_transfer", beneficiaryParticipantId, accountCode}` for a transfer to the merchant balance, `{type: "payout", payoutMethodId, payoutId, fee}` for a payout',
  },
  executedAt: isoTime('When it was executed'),
  canceledAt: isoTime('When it was canceled'),
  returnedAt: isoTime('When its payout failed and the amount went back to escrow'),
});

const disputeSchema = resourceSchema('escrow_dispute', ['contractId', 'reason', 'status'], {
  livemode: { type: 'boolean' },
  created: { type: 'integer', description: 'When it was opened, in Unix seconds' },
  contractId: { type: 'string', description: 'The contract it freezes' },
  reason: { type: 'string', description: 'Why it was opened' },
  openedByRole: { enum: [...DISPUTE_OPENERS], description: 'Who opened it', 'x-enumDescriptions': OPENER_WORDS },
  status: { enum: ['open', 'resolved'], description: 'Whether it is still open', 'x-enumDescriptions': DISPUTE_STATUS_WORDS },
  outcome: { enum: [...DISPUTE_OUTCOMES, null], description: 'How it was resolved; null while open', 'x-enumDescriptions': OUTCOME_WORDS },
  outcomeMetadata: { ...nullableText, description: 'Your string about the decision, or null' },
  releasedMinor: { type: 'integer', description: 'What the resolution released to the beneficiary, in minor units' },
  refundedMinor: { type: 'integer', description: 'What the resolution refunded to the payer, in minor units' },
  resolvedAt: isoTime('When it was resolved'),
});

const contractParams = { type: 'object', properties: { contractId: { type: 'string', minLength: 1, maxLength: 255, description: 'The id of the escrow contract' } }, required: ['contractId'] };
/**
 * The request parameter of each object a refusal names: its path `id` on every route, also where the
 * path says `contractId` (the public answers have always named the object `id`).
 */
const escrowIds = { contractId: 'id', releaseId: 'id', disputeId: 'id' };
const milestoneParams = {
  type: 'object',
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 255, description: 'The id of the escrow contract' },
    milestoneId: { type: 'string', minLength: 1, maxLength: 255, description: 'The id of one of its milestones' },
  },
  required: ['id', 'milestoneId'],
};
/** What paying a release out may answer: the payout's refusals about a saved payout method (docs/escrow.md, "Releases"). */
const RELEASE_PAYOUT_REFUSALS: readonly ErrorCode[] = [
  'IKW-PAY-002',
  'IKW-PAY-003',
  'IKW-PAY-004',
  'IKW-PAY-007',
  'IKW-PAY-008',
  'IKW-ACC-006',
  'IKW-CAP-001',
  'IKW-CAP-002',
  'IKW-CFG-001',
  'IKW-CFG-002',
  'IKW-PRV-001',
  'IKW-PRV-005',
  'IKW-ACT-006',
  'IKW-PRV-010',
  'IKW-PRV-011',
  'IKW-PRV-012',
];

/** The escrow family's use cases, one service each (the family's manifest builds them). */
export interface EscrowServices {
  contracts: EscrowContracts;
  funding: EscrowFunding;
  refunds: EscrowRefunds;
  releases: EscrowReleases;
  disputes: EscrowDisputes;
}

/**
 * /api/v1/escrow: contracts (with participants and milestones), their releases and disputes
 * (docs/escrow.md). Eighteen operations.
 */
export function escrowRoutes(knex: Knex, escrow: EscrowServices): RouteGroup {
  return {
    name: 'escrow',
    description: 'Escrow contracts: money held for a buyer and a seller until milestones are met, released in parts, refunded, or settled through a dispute.',
    routes: [
      route<CreateContractInput>({
        method: 'post',
        path: `${BASE}/contracts`,
        summary: 'Create an escrow contract: funded later by a payment intent, or at once from the merchant balance',
        description:
          "Opens a contract that holds a payer's money apart from your balance until the work is delivered. With `fundingSourceType: payment_intent` (the default) it starts `draft`: create the payer's payment intent, name it with `submit-for-funding` before it is confirmed, and its payment lands in escrow. With `merchant_balance`, `amountMinor` is taken from your available balance at once (`IKW-BAL-001` when short) and the contract is `funded`. Add participants and milestones, then release, refund or dispute. A retry with the same `Idempotency-Key` answers the same contract.",
        refusals: ['IKW-VAL-003', 'IKW-BAL-001', 'IKW-PAY-002', 'IKW-PAY-003'],
        emits: ['escrow_contract.created', 'escrow_contract.funded'],
        auth: escrowWrite,
        body: createContractBody,
        response: contractSchema,
        handler: (ctx) => escrow.contracts.create(ctx.owner, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { status?: ContractStatus }>({
        method: 'get',
        path: `${BASE}/contracts`,
        summary: 'List escrow contracts, newest first (cursor-paged), by status',
        description:
          'Your contracts of the environment, newest first, with their amounts, participants and milestones; `status` keeps those in one state, such as the `disputed` ones to settle. Cursor-paged with `limit`, `starting_after` and `ending_before` (docs/pagination.md).',
        refusals: [],
        auth: escrowRead,
        query: cursorQuery({ status: { enum: [...CONTRACT_STATUSES], description: 'Only the contracts in this state', 'x-enumDescriptions': CONTRACT_STATUS_WORDS } }),
        response: cursorListSchema(contractSchema),
        handler: (ctx) => listEscrowContracts(knex, ctx.owner, ctx.query, `${BASE}/contracts`, { ...(ctx.query.status ? { status: ctx.query.status } : {}) }),
      }),
      {
        ...retrieveRoute({
          path: `${BASE}/contracts/:id`,
          noun: 'escrow contract',
          summary: 'Retrieve an escrow contract with its participants, milestones and amounts',
          auth: escrowRead,
          response: contractSchema,
          find: (owner, id) => findEscrowContract(knex, owner, id),
        }),
        description:
          "The contract as it stands: `status`, what it holds (`heldMinor`) and what pending releases reserve of it (`pendingReleaseMinor`), its participants and milestones. Use it to check a contract whose `escrow_contract.*` webhook you missed; another merchant's contract is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/contracts/:id/cancel`,
        fields: escrowIds,
        summary: 'Cancel an escrow contract: pending releases are canceled and what it holds is refunded to the payer',
        description:
          "Ends a contract that is `draft`, `pending_funding` or `funded`: its pending releases are canceled and whatever it holds goes back to the payer, the way the money came (the payment's rail, or your balance for a contract funded from it), in one commit. A payment that arrives after the cancel is refunded as it arrives. Canceling a canceled contract answers it unchanged; a `completed` one is `IKW-ESC-001`, a `disputed` one `IKW-ESC-003`.",
        refusals: ['IKW-ESC-001', 'IKW-ESC-003', 'IKW-RES-003', 'IKW-PRV-006'],
        emits: ['escrow_contract.refunded', 'escrow_contract.canceled'],
        auth: escrowWrite,
        params: idParams,
        response: contractSchema,
        handler: (ctx) => escrow.refunds.cancel(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<{ paymentIntentId: string }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/contracts/:id/submit-for-funding`,
        fields: escrowIds,
        summary: "Name the payer's payment intent (not yet confirmed) that funds the contract: its payment goes to the contract's escrow",
        description:
          "Links the payment intent the payer will pay, before it is confirmed: when it succeeds, its amount less the processing fee is posted into the contract's escrow instead of your balance (`escrow_contract.funded`) and the contract becomes `funded`. The intent must be yours, `requires_payment_method`, in the contract's currency, for its `amountMinor` when it has one, and fund no other contract (`IKW-ESC-002` otherwise). Naming the same intent again answers the contract as it is; another one is `IKW-ESC-001`. A confirm racing this call makes one of them lose (`IKW-RES-003`, retry).",
        refusals: ['IKW-ESC-001', 'IKW-ESC-002', 'IKW-ESC-003', 'IKW-RES-003'],
        auth: escrowWrite,
        params: idParams,
        body: {
          type: 'object',
          required: ['paymentIntentId'],
          additionalProperties: false,
          properties: { paymentIntentId: { ...paymentIntentRef, description: 'The payment intent (`pi_…`, or its uuid) that funds the contract: not yet confirmed' } },
        },
        response: contractSchema,
        handler: (ctx) => escrow.funding.submitForFunding(ctx.owner, ctx.params.id, ctx.body.paymentIntentId, ctx.actor),
      }),
      route<{ role: ParticipantRole; displayName: string; email?: string | null }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/contracts/:id/participants`,
        fields: escrowIds,
        summary: 'Add a participant to a contract: a payer, a beneficiary (a release may name it) or an agent',
        description:
          "Records who the contract is between (up to 20 participants): a `beneficiary` can then be named by `execute` as `beneficiaryParticipantId`. Allowed in any state but `completed` and `canceled` (`IKW-ESC-001`). The answer is the contract, with the participant's `id` in `participants`.",
        refusals: ['IKW-ESC-001'],
        auth: escrowWrite,
        params: idParams,
        body: participantBody,
        response: contractSchema,
        handler: (ctx) => escrow.contracts.addParticipant(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<{ title: string; amountMinor: number }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/contracts/:id/milestones`,
        fields: escrowIds,
        summary: 'Add a milestone to a contract: a part of the work and the amount released for it',
        description:
          "Splits the work into parts paid one by one (up to 100 milestones): complete a milestone when it is delivered, then create a release with its `milestoneId`, which takes its `amountMinor` by default. Allowed while the contract is `draft`, `pending_funding` or `funded` (`IKW-ESC-001`; `IKW-ESC-003` during a dispute). The answer is the contract, with the milestone's `id` in `milestones`.",
        refusals: ['IKW-ESC-001', 'IKW-ESC-003'],
        auth: escrowWrite,
        params: idParams,
        body: milestoneBody,
        response: contractSchema,
        handler: (ctx) => escrow.contracts.addMilestone(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
      route<unknown, unknown, { id: string; milestoneId: string }>({
        method: 'post',
        path: `${BASE}/contracts/:id/milestones/:milestoneId/complete`,
        fields: escrowIds,
        summary: 'Mark a milestone delivered: a release may then name it',
        description:
          'Marks the milestone `completed`, so that a release may pay it without `manualOverride`. It moves no money. Completing it again answers the contract unchanged; a milestone not on the contract is `404 IKW-RES-001`, a `completed` or `canceled` contract `IKW-ESC-001`.',
        refusals: ['IKW-ESC-001'],
        auth: escrowWrite,
        params: milestoneParams,
        response: contractSchema,
        handler: (ctx) => escrow.contracts.completeMilestone(ctx.owner, ctx.params.id, ctx.params.milestoneId, ctx.actor),
      }),
      route<{ amountMinor?: number }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/contracts/:id/refund`,
        fields: escrowIds,
        summary: 'Refund held funds to the payer: amountMinor, or all that pending releases do not hold',
        description:
          "Gives held funds back to the payer the way they came (the payment's rail, or your balance for a contract funded from it): `amountMinor`, or, left out, everything pending releases do not reserve (`IKW-ESC-004` when that is less or nothing). Only a `funded` contract (`IKW-ESC-001`, `IKW-ESC-003` during a dispute). A contract left holding nothing is `completed`. A retry with the same `Idempotency-Key` refunds once.",
        refusals: ['IKW-ESC-001', 'IKW-ESC-003', 'IKW-ESC-004', 'IKW-PRV-006'],
        emits: ['escrow_contract.refunded'],
        auth: escrowWrite,
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { amountMinor: described(amountMinor, 'The amount to refund, in minor units; left out: everything held that pending releases do not reserve') } },
        response: contractSchema,
        handler: (ctx) => escrow.refunds.refund(ctx.owner, ctx.params.id, ctx.body ?? {}, ctx.actor, ctx.requestRef),
      }),
      route<CreateReleaseInput & { challengeId?: string }, unknown, { contractId: string }>({
        method: 'post',
        path: `${BASE}/releases/contract/:contractId`,
        fields: escrowIds,
        summary: "Create a release of a contract's held funds (executed at once in immediate mode); refused while a dispute is open",
        description:
          "Reserves part of what a `funded` contract holds for the beneficiary: `amountMinor`, else the milestone's amount, else everything not promised to other releases (`IKW-ESC-004` beyond that). A `manual` release waits, `pending`, for `execute`; an `immediate` one is executed at once to the contract's default destination, and if the payout refuses, it stays pending with that refusal as the answer. A milestone must be `completed` (or `manualOverride: true`) and not released already (`IKW-ESC-009`). The body's `idempotencyKey`, or else the `Idempotency-Key` header, names the release: a retry answers the same one and moves nothing again.",
        refusals: ['IKW-ESC-001', 'IKW-ESC-003', 'IKW-ESC-004', 'IKW-ESC-007', 'IKW-ESC-009', ...RELEASE_PAYOUT_REFUSALS],
        emits: ['escrow_contract.release_executed'],
        auth: escrowWrite,
        params: contractParams,
        body: createReleaseBody,
        response: releaseSchema,
        handler: (ctx) => {
          const { challengeId, ...input } = ctx.body ?? {};
          return escrow.releases.createRelease(ctx.owner, ctx.params.contractId, input, requesterOf(ctx, challengeId), ctx.actor, ctx.requestRef);
        },
      }),
      route<unknown, CursorQuery & { status?: ReleaseStatus }, { contractId: string }>({
        method: 'get',
        path: `${BASE}/releases/contract/:contractId`,
        summary: "List a contract's releases, newest first (cursor-paged), by status",
        description:
          "The releases of one contract, newest first, whatever made them (a request, a milestone, the auto-release timer, a dispute's resolution); `status` keeps those in one state, such as the `pending` ones waiting for `execute`. Cursor-paged (docs/pagination.md).",
        refusals: [],
        auth: escrowRead,
        params: contractParams,
        query: cursorQuery({ status: { enum: [...RELEASE_STATUSES], description: 'Only the releases in this state', 'x-enumDescriptions': RELEASE_STATUS_WORDS } }),
        response: cursorListSchema(releaseSchema),
        handler: async (ctx) => {
          await found('escrow contract', ctx.params.contractId, findEscrowContract(knex, ctx.owner, ctx.params.contractId));
          const url = `${BASE}/releases/contract/${ctx.params.contractId}`;
          return listEscrowReleases(knex, ctx.owner, ctx.params.contractId, ctx.query, url, { ...(ctx.query.status ? { status: ctx.query.status } : {}) });
        },
      }),
      {
        ...retrieveRoute({
          path: `${BASE}/releases/:id`,
          noun: 'escrow release',
          summary: 'Retrieve an escrow release',
          auth: escrowRead,
          response: releaseSchema,
          find: (owner, id) => findEscrowRelease(knex, owner, id),
        }),
        description: "The release as it stands: `status`, and once executed its `destination` (the payout's id and fee, or the ledger transfer). A release whose payout failed is `returned`. Another merchant's release is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<ExecuteReleaseInput & { challengeId?: string }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/releases/:id/execute`,
        fields: escrowIds,
        summary: "Execute a pending release: a payout to a payout method, or a ledger transfer to the merchant's balance (for a beneficiary participant)",
        description:
          "Moves a pending release's funds out of escrow, in one commit with the contract: `payoutMethodId` pays it out to that saved payout method (the release amount less the payout fee; `IKW-ESC-004` when it does not cover the fee); `beneficiaryParticipantId` transfers it to your available balance, marked with that beneficiary (`IKW-ESC-007` if it is not one); both at once is `IKW-ESC-008`. With neither, the contract's default destination. In live, a payout method never paid before asks a signed-in user for `challengeId` (`IKW-PAY-007`) and an API key for the setting that allows it (`IKW-PAY-008`); a payout refused leaves the release pending. Executing an executed release answers it unchanged; a canceled one is `IKW-ESC-005`.",
        refusals: ['IKW-ESC-001', 'IKW-ESC-003', 'IKW-ESC-004', 'IKW-ESC-005', 'IKW-ESC-007', 'IKW-ESC-008', ...RELEASE_PAYOUT_REFUSALS],
        emits: ['escrow_contract.release_executed'],
        auth: escrowWrite,
        params: idParams,
        body: executeReleaseBody,
        response: releaseSchema,
        handler: (ctx) => {
          const { challengeId, ...input } = ctx.body ?? {};
          return escrow.releases.executeRelease(ctx.owner, ctx.params.id, input, requesterOf(ctx, challengeId), ctx.actor);
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/releases/:id/cancel`,
        fields: escrowIds,
        summary: 'Cancel a pending release: its amount is held for the contract again',
        description:
          'Withdraws a release before it is executed, while the contract is `funded` or `disputed`: its amount is no longer reserved, and the milestone it named may be released again. Canceling a canceled release answers it unchanged; an executed one is `IKW-ESC-005`.',
        refusals: ['IKW-ESC-001', 'IKW-ESC-005'],
        auth: escrowWrite,
        params: idParams,
        response: releaseSchema,
        handler: (ctx) => escrow.releases.cancelRelease(ctx.owner, ctx.params.id, ctx.actor),
      }),
      route<{ reason: string; openedByRole?: DisputeOpener | null }, unknown, { contractId: string }>({
        method: 'post',
        path: `${BASE}/disputes/contract/:contractId`,
        fields: escrowIds,
        summary: 'Open a dispute on a funded contract: its releases and refunds are frozen until it is resolved',
        description:
          'Freezes a `funded` contract while the parties disagree: until the dispute is resolved no release is created or executed, nothing is refunded and the contract cannot be canceled (`IKW-ESC-003`), and the auto-release timer waits. Only one dispute is open at a time. A retry with the same `Idempotency-Key` answers the dispute it opened.',
        refusals: ['IKW-ESC-001', 'IKW-ESC-003'],
        emits: ['escrow_contract.dispute_opened'],
        auth: escrowWrite,
        params: contractParams,
        body: openDisputeBody,
        response: disputeSchema,
        handler: (ctx) => escrow.disputes.openDispute(ctx.owner, ctx.params.contractId, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { status?: DisputeStatus }, { contractId: string }>({
        method: 'get',
        path: `${BASE}/disputes/contract/:contractId`,
        summary: "List a contract's disputes, newest first (cursor-paged), by status",
        description: 'The disputes of one contract, open and resolved, newest first; `status` keeps those in one state. Cursor-paged (docs/pagination.md).',
        refusals: [],
        auth: escrowRead,
        params: contractParams,
        query: cursorQuery({ status: { enum: ['open', 'resolved'], description: 'Only the disputes in this state', 'x-enumDescriptions': DISPUTE_STATUS_WORDS } }),
        response: cursorListSchema(disputeSchema),
        handler: async (ctx) => {
          await found('escrow contract', ctx.params.contractId, findEscrowContract(knex, ctx.owner, ctx.params.contractId));
          const url = `${BASE}/disputes/contract/${ctx.params.contractId}`;
          return listEscrowDisputes(knex, ctx.owner, ctx.params.contractId, ctx.query, url, { ...(ctx.query.status ? { status: ctx.query.status } : {}) });
        },
      }),
      {
        ...retrieveRoute({
          path: `${BASE}/disputes/:id`,
          noun: 'escrow dispute',
          summary: 'Retrieve an escrow dispute',
          auth: escrowRead,
          response: disputeSchema,
          find: (owner, id) => findEscrowDispute(knex, owner, id),
        }),
        description: "The dispute as it stands: `open`, or `resolved` with its `outcome` and what it released and refunded. Another merchant's dispute is `404 IKW-RES-001`.",
        refusals: [],
      },
      route<ResolveDisputeInput, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/disputes/:id/resolve`,
        fields: escrowIds,
        summary: 'Resolve a dispute: release to the beneficiary, refund to the payer, split (splitReleaseMinor to the beneficiary), or dismiss',
        description:
          "Settles an open dispute and lifts the freeze. Every outcome but `dismissed` first cancels the pending releases, then divides what the contract holds: `release_to_beneficiary` makes it one release (`trigger: dispute_resolution`, in the contract's default mode: executed at once when `immediate`, else pending for `execute`), `refund_to_payer` refunds it, `split` releases `splitReleaseMinor` (required, at most what is held: `IKW-ESC-004`) and refunds the rest. `dismissed` moves nothing. A resolved dispute is `IKW-ESC-006`.",
        refusals: ['IKW-ESC-004', 'IKW-ESC-006', 'IKW-RES-003', 'IKW-PRV-006'],
        emits: ['escrow_contract.dispute_resolved', 'escrow_contract.refunded', 'escrow_contract.release_executed'],
        auth: escrowWrite,
        params: idParams,
        body: resolveDisputeBody,
        response: disputeSchema,
        handler: (ctx) => escrow.disputes.resolveDispute(ctx.owner, ctx.params.id, ctx.body, ctx.actor),
      }),
    ],
  };
}
