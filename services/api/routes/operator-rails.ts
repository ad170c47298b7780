import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { ApiError } from '#packages/core/errors.js';
import { ENVIRONMENTS, type Environment } from '#packages/core/owner.js';
import type { ConnectorRouter } from '#packages/connectors/router.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { findReconciliationRun, listReconciliationRuns } from '#packages/families/ledger/read/index.js';
import { cursorListQuery, type CursorQuery } from '#packages/read-models/paging.js';
import { recentRailDecisions } from '#packages/read-models/rail-attempts.js';
import type { RailFloatBoard } from '../../rail-float.js';
import { railHealth, type RailHealthBoard } from '../../rail-health.js';
import { attemptsForReview, type AttemptForReview } from '../../rails.js';
import { runReconciliation } from '../../reconciliation.js';
import { cursorListSchema, idParams, listSchema } from '#packages/http/route-kit.js';
import { anyOperator, operatorOf } from '#packages/families/operators/http/shared.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';

const RAILS_READ = anyOperator('operator.rails.read');
const FINANCE: RouteAuth = { scope: 'operator.reconciliation', operator: ['finance'] };

const environmentSchema = {
  enum: [...ENVIRONMENTS],
  description: 'The environment: `live` (default) or `sandbox`',
  'x-enumDescriptions': { live: 'Real money, the rails configured for live', sandbox: "Test money: the sandbox operator, or a rail's sandbox account" },
};

const measureSchema = (window: string) => ({
  type: 'object',
  description: `The attempts started in the ${window}`,
  properties: {
    attempts: { type: 'integer', description: 'How many were started' },
    succeeded: { type: 'integer', description: 'How many succeeded (payments) or were paid (payouts)' },
    failed: { type: 'integer', description: 'How many failed, whoever failed them' },
    railFaults: { type: 'integer', description: 'Of the failures, those that say the rail failed (it could not be asked, the operator was unreachable, a provider error), not the payer or the recipient' },
    pending: { type: 'integer', description: 'How many have no final answer yet' },
    successRate: { type: ['number', 'null'], description: 'succeeded ÷ (succeeded + failed), 0 to 1; null when none has a final answer' },
  },
});

const healthLineSchema = {
  type: 'object',
  properties: {
    rail: { type: 'string', description: "The rail that carried the attempts: a connector (`pawapay`, `paystack`), `sandbox`, or `unrecorded` for live attempts of a rail that keeps no money of Sika's" },
    direction: { enum: ['collect', 'payout'], description: 'Payments in or payouts out', 'x-enumDescriptions': { collect: 'Payments collected from payers', payout: 'Payouts sent to recipients' } },
    kind: {
      enum: ['mobile_money', 'card', 'bank'],
      description: 'What was carried',
      'x-enumDescriptions': { mobile_money: 'Mobile money: `country` and `operator` name it', card: 'Cards', bank: 'Bank transfers: `operator` is the bank code' },
    },
    country: { type: ['string', 'null'], description: 'ISO 3166-1 alpha-2; null for cards, and for a bank whose currency several countries use' },
    operator: { type: ['string', 'null'], description: 'The mobile money operator, or the bank code; null for cards' },
    currency: { type: 'string', description: 'The currency, lower case' },
    availability: {
      enum: ['available', 'degraded', 'unavailable', null],
      description: "What the rail says of this subject now (pawaPay's availability); null for a rail this service has no connector of",
      'x-enumDescriptions': { available: 'The provider says it carries it normally', degraded: 'The provider says it is slow, or its state could not be learnt', unavailable: 'The provider says it is closed' },
    },
    lastHour: measureSchema('last hour'),
    lastDay: measureSchema('last 24 hours'),
    breaker: {
      type: ['object', 'null'],
      description:
        'What the router does with the rail for this subject, from its measured health (docs/connectors.md, "Health"): `closed`, it is chosen as usual; `open`, set aside until `until` after its own failures reached the threshold; `half_open`, one probe attempt may go (`probe_in_flight`: it has gone, and nothing else goes until it ends). A bank payout\'s line is measured per bank, but its rail is chosen by currency: no bank\'s breaker moves it.',
      required: ['state'],
      properties: {
        state: {
          enum: ['closed', 'open', 'half_open'],
          description: 'The breaker’s state',
          'x-enumDescriptions': { closed: 'Chosen as usual', open: 'Set aside: the next rail that serves the subject is chosen', half_open: 'One probe attempt may go through it' },
        },
        until: { type: 'string', format: 'date-time', description: 'When an open breaker lets one probe through' },
        since: { type: 'string', format: 'date-time', description: 'When a half-open breaker opened to a probe' },
        probe_in_flight: { type: 'boolean', description: 'Whether the probe has gone and has no final answer yet' },
      },
    },
  },
};

const floatLineSchema = {
  type: 'object',
  required: ['rail', 'wallet', 'currency', 'country', 'operator', 'available', 'read_at'],
  properties: {
    rail: { type: 'string', description: 'The rail whose wallet it is' },
    wallet: { type: 'string', description: "The provider's wallet (pawaPay: its country, or country/provider; Hub2: the currency's transfer account)" },
    currency: { type: 'string', description: 'The currency, lower case' },
    country: { type: ['string', 'null'], description: 'The country whose payouts it pays (ISO 3166-1 alpha-2); null: every country of its currency' },
    operator: { type: ['string', 'null'], description: 'The operator whose payouts it pays; null: every operator of its country' },
    available: { type: 'integer', description: 'What the last reading said it holds, less the payouts sent through the rail since, in minor units: a payout whose amount and fee exceed it goes to the next rail' },
    read_at: { type: 'string', format: 'date-time', description: 'When that reading was asked for (every RAIL_FLOAT_REFRESH)' },
  },
};

const healthSchema = {
  type: 'object',
  required: ['object', 'environment', 'rails', 'lines', 'float'],
  properties: {
    object: { const: 'rail_health', description: 'The kind of object: always `rail_health`' },
    environment: { ...environmentSchema, description: 'The environment measured' },
    rails: { type: 'array', items: { type: 'string', description: 'A connector name' }, description: 'The rails configured for this environment, in the order they are asked' },
    lines: { type: 'array', items: healthLineSchema, description: 'One line per rail, direction and subject with an attempt in the last 24 hours' },
    float: { type: 'array', items: floatLineSchema, description: 'The wallets that pay the rails\' payouts, as the router weighs them (docs/connectors.md, "Float"); none for a rail not read yet' },
  },
};

const decisionSchema = {
  type: 'object',
  required: ['at', 'direction', 'rail', 'kind', 'country', 'operator', 'currency', 'merchant_id', 'object_id', 'passed_over', 'outcome'],
  properties: {
    at: { type: 'string', format: 'date-time', description: "When the attempt started: the payment's confirmation, or the payout's creation" },
    direction: healthLineSchema.properties.direction,
    rail: { type: 'string', description: "The rail chosen: a connector (`pawapay`, `hub2`), `sandbox`, or `unrecorded` for a live attempt of a rail that keeps no money of Sika's" },
    kind: healthLineSchema.properties.kind,
    country: healthLineSchema.properties.country,
    operator: healthLineSchema.properties.operator,
    currency: healthLineSchema.properties.currency,
    merchant_id: { type: ['string', 'null'], description: 'The merchant (`acct_…`); null only for an attempt recorded before this list existed, in a log kept outside this database, until its read model is rebuilt' },
    object_id: { type: ['string', 'null'], description: 'What was carried: the payment intent (`pi_…`) or the payout (`po_…`); null as `merchant_id` is' },
    passed_over: {
      type: 'array',
      description: 'The rails that serve the subject and that the router passed over for this attempt, in the order they are asked; empty when the first was chosen',
      items: {
        type: 'object',
        required: ['rail', 'why'],
        properties: {
          rail: { type: 'string', description: 'The rail passed over' },
          why: {
            type: 'string',
            description:
              'Why (docs/connectors.md, "Health"): `declared_unavailable` (its provider declared it closed for the subject), `set_aside` (its breaker set it aside after its own failures reached the threshold), `rejected` (it refused the first attempt, so the payment was tried on another) or `float_short` (its wallet could not cover the payout); a reason added later appears as its own text',
          },
        },
      },
    },
    outcome: {
      enum: ['pending', 'succeeded', 'failed'],
      description: 'How the attempt ended',
      'x-enumDescriptions': { pending: 'No final answer yet', succeeded: 'Succeeded (a payment) or paid (a payout)', failed: 'Failed, whoever failed it' },
    },
  },
};

/** What an operator does about an attempt left for review (docs/connectors.md, "States and status checks"). */
function adviceOf(a: AttemptForReview): string {
  if (a.object === 'refund' && a.status === 'failed') return 'The rail failed this give-back and its money is back on the account it left: give it back again, or settle with the payer another way.';
  const what = a.object === 'payment_intent' ? 'deposit' : a.object;
  return `The rail gave no final answer after every status check: look up the ${what} ${a.id} in the rail's dashboard. Its callback, or its record read by the next reconciliation, settles it; until then no money moves on a guess.`;
}

const reviewItemSchema = {
  type: 'object',
  properties: {
    object: {
      enum: ['payment_intent', 'payout', 'refund'],
      description: 'What is left open',
      'x-enumDescriptions': { payment_intent: 'A live payment still processing', payout: 'A live payout still on its way', refund: 'A live refund still pending, or a give-back the rail failed' },
    },
    id: { type: 'string', description: "The object's id" },
    merchantId: { type: 'string', description: 'Its merchant (`acct_…`)' },
    status: { type: 'string', description: 'Its status at Sika' },
    amount: { type: 'integer', description: 'Its amount, in minor units' },
    currency: { type: 'string', description: 'Its currency' },
    created: { type: 'integer', description: 'When it was created, in Unix seconds' },
    advice: { type: 'string', description: 'What to do about it' },
  },
};

const walletSchema = {
  type: 'object',
  properties: {
    currency: { type: 'string', description: 'The currency' },
    expected: { type: 'integer', description: 'What the ledger expects the rail to hold, in minor units' },
    reported: { type: 'integer', description: 'What the rail says it holds, in minor units' },
    difference: { type: 'integer', description: 'reported − expected: positive when the rail holds more' },
  },
};

const attemptDifferenceSchema = {
  type: 'object',
  properties: {
    kind: {
      enum: ['payment', 'payout', 'refund'],
      description: 'What the attempt was',
      'x-enumDescriptions': { payment: 'A payment collected through the rail', payout: 'A payout sent through the rail', refund: 'A refund sent back through the rail' },
    },
    id: { type: 'string', description: 'The payment intent, payout or refund' },
    merchantId: { type: 'string', description: 'Its merchant' },
    sika: { type: 'string', description: 'Its status at Sika' },
    rail: { type: 'string', description: "What the rail's record says: `succeeded`, `failed`, `pending` or `not_found`" },
    reportedAmount: {
      type: 'object',
      description: "The amount the rail reports when it is not the attempt's",
      properties: { amount: { type: 'integer', description: 'In minor units' }, currency: { type: 'string', description: 'The currency' } },
    },
  },
};

const runSchema = {
  type: 'object',
  required: ['runId', 'rail', 'environment', 'actor', 'ranAt', 'checked', 'wallets', 'attempts'],
  properties: {
    runId: { type: 'string', description: 'The run (`recon_…`)' },
    rail: { type: 'string', description: 'The rail reconciled' },
    environment: { ...environmentSchema, description: 'The environment reconciled' },
    actor: { type: 'string', description: 'Who ran it: `operator:<id>`, or `cli` for `bin/sika reconcile`' },
    ranAt: { type: 'string', format: 'date-time', description: 'When it ran' },
    checked: { type: 'integer', description: "How many attempts were compared with the rail's records" },
    wallets: { type: 'array', items: walletSchema, description: 'The currencies whose wallet balance differs from what the ledger expects' },
    attempts: { type: 'array', items: attemptDifferenceSchema, description: "The attempts whose state at Sika differs from the rail's record" },
    holdings: {
      type: 'array',
      description: 'Every currency, differing or not: what the ledger expects the rail to hold and what it holds (absent in runs recorded before it was kept)',
      items: {
        type: 'object',
        required: ['currency', 'expected', 'reported'],
        properties: {
          currency: { type: 'string', description: 'The currency' },
          expected: { type: 'integer', description: 'What the ledger expects the rail to hold, in minor units' },
          reported: { type: 'integer', description: 'What the rail says it holds, in minor units' },
        },
      },
    },
    periods: {
      type: 'array',
      description:
        'Per currency where something moved since the previous run of the rail and environment: the rail\'s statement over that time beside what its wallet moved (docs/reconciliation.md, "A rail\'s statement"); absent in runs recorded before it was kept',
      items: {
        type: 'object',
        required: ['currency', 'since', 'lines', 'expectedMoved', 'reportedMoved', 'unexplained'],
        properties: {
          currency: { type: 'string', description: 'The currency' },
          since: { type: ['string', 'null'], format: 'date-time', description: 'When the previous run ran; null for the first run (the period starts with the ledger)' },
          lines: {
            type: 'array',
            description: 'What each kind of ledger entry moved in (+) or out (−) of the wallet in the period',
            items: {
              type: 'object',
              required: ['kind', 'amount', 'count'],
              properties: {
                kind: { type: 'string', description: 'The kind of entry: `payment`, `payout_paid`, `refund`, …' },
                amount: { type: 'integer', description: 'What those entries moved, in minor units' },
                count: { type: 'integer', description: 'How many entries' },
              },
            },
          },
          expectedMoved: { type: 'integer', description: 'What the ledger says the wallet gained (negative: lost) in the period: the sum of the lines' },
          reportedMoved: { type: ['integer', 'null'], description: 'What the wallet gained by its own balances; null when the previous run kept no holdings' },
          unexplained: { type: ['integer', 'null'], description: "`reportedMoved` − `expectedMoved`: a difference that appeared in the period (the rail's own fees, money moved by hand, an attempt in flight)" },
        },
      },
    },
  },
};

/**
 * /api/v1/operator/rails and /api/v1/operator/reconciliation-runs (docs/operator.md, "Rails" and
 * "Reconciliation"): each rail's measured health, the router's recent decisions and what is left for
 * review, for every operator;
 * reconciliations run with the service's own configuration and their history, for finance.
 */
export function operatorRailsRoutes(knex: Knex, store: EventStore, clock: Clock, connectors: ConnectorRouter, board: RailHealthBoard, float: RailFloatBoard): RouteGroup {
  return {
    name: 'operator-rails',
    description: "The rails for operators: their measured health, the router's recent decisions, the attempts left for review, and reconciliations with their history.",
    routes: [
      route<unknown, { environment?: Environment }>({
        method: 'get',
        path: '/api/v1/operator/rails',
        summary: "Each rail's health: availability and measured success per direction, country and operator over the last hour and day",
        description:
          "Per rail, direction (collect, payout) and subject (mobile money country and operator, a bank, cards): how many attempts started in the last hour and the last 24 hours, how they ended (rail faults apart from payers' failures) and the success rate, beside what the provider says of its availability now. Subjects no attempt touched in the last 24 hours are not listed; `rails` names every rail configured for the environment.",
        auth: RAILS_READ,
        query: { type: 'object', additionalProperties: false, properties: { environment: environmentSchema } },
        response: healthSchema,
        handler: async (ctx) => {
          const environment = ctx.query.environment ?? 'live';
          const rails = connectors.connectorsOf(environment).map((c) => c.name);
          const wallets = rails.flatMap((rail) => float.lines(environment, rail).map((line) => ({ rail, ...line })));
          return { object: 'rail_health', environment, rails, lines: await railHealth({ knex, connectors, clock, board }, environment), float: wallets };
        },
      }),
      route({
        method: 'get',
        path: '/api/v1/operator/rails/review',
        summary: 'The live attempts left for review: no status check will ask about them any more; each with what to do',
        description:
          "Live payments still processing, payouts still on their way and refunds still pending whose status-check schedule ran out without a final answer, and give-backs the rail failed (the same list as `bin/sika rails review`). Nothing is failed by guess: each waits for the rail's record, and `advice` says what to do.",
        auth: RAILS_READ,
        response: listSchema(reviewItemSchema),
        handler: async () => ({
          object: 'list',
          data: (await attemptsForReview(knex)).map((a) => ({ object: a.object, id: a.id, merchantId: a.merchant_id, status: a.status, amount: a.amount, currency: a.currency, created: a.created, advice: adviceOf(a) })),
        }),
      }),
      route<unknown, { environment?: Environment; limit: number; passed_over_only: boolean }>({
        method: 'get',
        path: '/api/v1/operator/rails/decisions',
        summary: "The router's recent decisions: which rail carried each new payment and payout, and the rails it passed over and why",
        description:
          'The newest attempts of the environment first, payments and payouts together, across merchants: the rail chosen for each and the rails passed over for it (declared closed by their provider, set aside by their breaker, refused the first attempt, a wallet short of a payout), with its merchant, its object and how it ended. Every decision by default, so an operator sees the usual route beside the detours; `passed_over_only=true` keeps only the detours.',
        auth: RAILS_READ,
        query: {
          type: 'object',
          additionalProperties: false,
          properties: {
            environment: environmentSchema,
            limit: { type: 'integer', minimum: 1, maximum: 200, default: 50, description: 'How many decisions, 1 to 200 (default 50)' },
            passed_over_only: { type: 'boolean', default: false, description: '`true`: only the decisions for which a rail was passed over; `false` (default): every one' },
          },
        },
        response: listSchema(decisionSchema),
        handler: async (ctx) => {
          const decisions = await recentRailDecisions(knex, ctx.query.environment ?? 'live', { limit: ctx.query.limit, passedOverOnly: ctx.query.passed_over_only });
          return {
            object: 'list',
            data: decisions.map((d) => ({
              at: d.at.toISOString(),
              direction: d.direction,
              rail: d.rail,
              kind: d.kind,
              country: d.country,
              operator: d.operator,
              currency: d.currency,
              merchant_id: d.merchantId,
              object_id: d.objectId,
              passed_over: d.passedOver,
              outcome: d.outcome,
            })),
          };
        },
      }),
      route<{ rail: string; environment?: Environment }>({
        method: 'post',
        path: '/api/v1/operator/reconciliation-runs',
        status: 201,
        summary: "Reconcile a rail: its wallets against the ledger and every attempt it carried against its record, with the service's configuration",
        description:
          "Runs what `bin/sika reconcile` runs, in the service, with the rail's credentials the service has: the rail's wallet balances against what the ledger expects it to hold, and every attempt it carried against its record (status checks). Changes nothing; the run is recorded with its report and you as its actor (`reconciliation.run_recorded`). A rail not configured for the environment is `404 IKW-RES-001`; one that keeps no money of Sika's has nothing to reconcile (`IKW-VAL-001`).",
        refusals: ['IKW-RES-001', 'IKW-VAL-001'],
        auth: FINANCE,
        body: {
          type: 'object',
          required: ['rail'],
          additionalProperties: false,
          properties: { rail: { type: 'string', minLength: 1, maxLength: 50, description: 'The rail: a connector name (`pawapay`)' }, environment: environmentSchema },
        },
        response: runSchema,
        handler: async (ctx) => {
          const environment = ctx.body.environment ?? 'live';
          const connector = connectors.named(environment, ctx.body.rail);
          if (!connector) throw new ApiError('IKW-RES-001', `No rail '${ctx.body.rail}' is configured for ${environment}`, 'rail');
          if (!connector.walletBalances) throw new ApiError('IKW-VAL-001', `${connector.name} keeps no money of Sika's: nothing to reconcile`, 'rail');
          return runReconciliation({ knex, store, clock }, connector, environment, `operator:${operatorOf(ctx).operatorId}`);
        },
      }),
      route<unknown, CursorQuery & { rail?: string; environment?: Environment }>({
        method: 'get',
        path: '/api/v1/operator/reconciliation-runs',
        summary: 'The reconciliation history, newest first: every run of the console and the command line with its report',
        description: "Every recorded run (the console's and `bin/sika reconcile`'s), newest first, of one rail and environment when `rail` and `environment` say so. Cursor-paged (docs/pagination.md).",
        auth: FINANCE,
        query: {
          ...cursorListQuery,
          properties: { ...cursorListQuery.properties, rail: { type: 'string', minLength: 1, maxLength: 50, description: 'Only runs of this rail' }, environment: { ...environmentSchema, description: 'Only runs of this environment' } },
        },
        response: cursorListSchema(runSchema),
        handler: async (ctx) => {
          const { rail, environment, ...cursor } = ctx.query;
          return listReconciliationRuns(knex, { ...(rail !== undefined ? { rail } : {}), ...(environment !== undefined ? { environment } : {}) }, cursor, ctx.path);
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: '/api/v1/operator/reconciliation-runs/:id',
        summary: 'One reconciliation run with its whole report',
        description: 'The run as recorded: who ran it, when, how many attempts it compared and every difference it found.',
        refusals: ['IKW-RES-001'],
        auth: FINANCE,
        params: { ...idParams, properties: { id: { type: 'string', minLength: 1, maxLength: 255, description: 'The run (`recon_…`)' } } },
        response: runSchema,
        handler: async (ctx) => {
          const run = await findReconciliationRun(knex, ctx.params.id);
          if (!run) throw new ApiError('IKW-RES-001', `No such reconciliation run: '${ctx.params.id}'`, 'id');
          return run;
        },
      }),
    ],
  };
}
