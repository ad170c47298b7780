import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { ApiError } from '#packages/core/errors.js';
import { baselineOf, operatorHealth, recommend, RECOMMENDATION_KINDS, type OperatorWindow } from '../recommendations.js';
import { DASHBOARD_PAGES, suggest, type DashboardPage } from '../suggestions.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import { DECISION_KINDS, findDecision, listDecisions, type DecisionKind } from '../read/intelligence-decisions.js';
import {
  ACTIVE_DAYS,
  checkRange,
  CHURN_DAYS,
  findCustomerLifecycle,
  kpiBreakdown,
  kpiTotals,
  LIFECYCLE_STAGES,
  lifecycleCounts,
  lifecycleCustomers,
  operatorFigures,
  type KpiDimension,
  type KpiRange,
  type LifecycleStage,
} from '../read/intelligence-payments.js';
import { merchantFacts } from '../read/merchant-facts.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { cursorListSchema, cursorQuery, currencySchema, idParamsOf, listSchema, resourceSchema } from '#packages/http/route-kit.js';

const BASE = '/api/v1/intelligence';
const intelligenceRead: RouteAuth = { scope: 'intelligence.read', environmentHeader: 'optional' };
const DAY = 86_400_000;
const DIMENSIONS: readonly KpiDimension[] = ['operator', 'country', 'method', 'day'];

const day = { type: 'string', format: 'date' };
const rangeQuery = {
  from: { ...day, description: 'First day (UTC), inclusive; default: 29 days before `to`' },
  to: { ...day, description: 'Last day (UTC), inclusive; default: today' },
  currency: { ...currencySchema, description: 'Only the payments in this currency (`XOF`); every currency, each apart, when absent' },
};
const answeredRange = {
  from: { ...day, description: 'The first day of the range (UTC), inclusive' },
  to: { ...day, description: 'The last day of the range (UTC), inclusive' },
  currency: { type: ['string', 'null'], description: 'The currency asked for, upper case; null when every currency was' },
};
const RANGE_REFUSALS = ['IKW-ITL-001'] as const;
type RangeQuery = { from?: string; to?: string; currency?: string };

const figures = {
  currency: { type: 'string', description: 'The currency of these figures: amounts are never added across currencies' },
  count: { type: 'integer', description: 'Payment intents created in the range' },
  succeeded: { type: 'integer', description: 'Of those, the ones that succeeded' },
  failed: { type: 'integer', description: 'Of those, the ones that failed' },
  successRate: { type: ['number', 'null'], description: 'succeeded ÷ (succeeded + failed), from 0 to 1; null when none reached an outcome' },
  volume: { type: 'integer', description: 'The amounts of the succeeded payments, in minor units' },
  fees: { type: 'integer', description: 'The fees of those payments, in minor units' },
  refunds: { type: 'integer', description: 'The succeeded refunds of those payments, in minor units' },
  net: { type: 'integer', description: 'volume − fees − refunds, in minor units' },
};
const figuresSchema = { type: 'object', required: Object.keys(figures), properties: figures };
const kpisSchema = {
  type: 'object',
  required: ['object', 'from', 'to', 'data'],
  properties: {
    object: { const: 'intelligence.kpis', description: 'The kind of object: always `intelligence.kpis`' },
    ...answeredRange,
    data: { type: 'array', items: figuresSchema, description: 'The figures of each currency with payments in the range' },
  },
};
const DIMENSION_WORDS: Record<KpiDimension, string> = {
  operator: 'Per operator (`orange_money`, a card acquirer); `none` for payments not confirmed yet',
  country: 'Per country: the mobile money country, else the transaction country',
  method: 'Per payment method (`mobile_money`, `card`); `none` for payments not confirmed yet',
  day: 'Per day the payments were created (UTC, `YYYY-MM-DD`)',
};
const breakdownSchema = {
  type: 'object',
  required: ['object', 'dimension', 'from', 'to', 'data'],
  properties: {
    object: { const: 'intelligence.kpi_breakdown', description: 'The kind of object: always `intelligence.kpi_breakdown`' },
    dimension: { enum: [...DIMENSIONS], description: 'What the figures are split by', 'x-enumDescriptions': DIMENSION_WORDS },
    ...answeredRange,
    data: {
      type: 'array',
      description: 'The figures of each value of the dimension, per currency',
      items: { type: 'object', required: ['key', ...Object.keys(figures)], properties: { key: { type: 'string', description: 'The value of the dimension (an operator, a country, a method or a day)' }, ...figures } },
    },
  },
};
const DECISION_WORDS: Record<DecisionKind, string> = {
  payment_routing:
    'Which operator and rail a payment intent was confirmed on, and why (`outcome`: `method`, `operator`, `rail_country`, `flow`; `route: backup` when its usual route was passed over, unavailable or failing, and another carried it)',
  payout_routing: 'Which rail a payout was sent on, and its fee (`outcome`: `method`, `operator` or bank code, `rail_country`, `fee`; `route: backup` when its usual route was passed over)',
  payout_delay: 'Why a payout was marked late (`outcome`: `delay_reason`, `expected_by`)',
  payout_failure: 'Why a payout failed (`outcome`: `failure_code`)',
  risk: "What the merchant's risk rules decided about a payment or payout before money moved, and why (`outcome`: `decision` `score`, `review` or `block`, `direction` `payment` or `payout`, `rules` the rules that matched, comma-separated); only attempts a rule matched (docs/risk.md)",
};
const decisionKind = (description: string) => ({ enum: [...DECISION_KINDS], description, 'x-enumDescriptions': DECISION_WORDS });
const decisionSchema = resourceSchema('intelligence.decision', ['kind', 'subject', 'outcome', 'reason', 'decidedAt'], {
  kind: decisionKind('What was decided'),
  subject: { type: 'string', description: 'The payment intent (`pi_…`) or payout (`po_…`) it was decided for' },
  outcome: { type: 'object', additionalProperties: { type: ['string', 'number', 'null'] }, description: 'What was decided, in fields of its kind' },
  reason: { type: 'string', description: 'Why, in words' },
  decidedAt: { type: 'string', format: 'date-time', description: 'When it was decided' },
});
const STAGE_WORDS: Record<LifecycleStage, string> = {
  new: `First successful payment within the last ${ACTIVE_DAYS} days`,
  active: `Paid within the last ${ACTIVE_DAYS} days, having first paid before them`,
  at_risk: `Last paid ${ACTIVE_DAYS} to ${CHURN_DAYS} days ago`,
  churned: `Last paid more than ${CHURN_DAYS} days ago`,
};
const stage = (description: string) => ({ enum: [...LIFECYCLE_STAGES], description, 'x-enumDescriptions': STAGE_WORDS });
const stageCounts = {
  type: 'object',
  required: [...LIFECYCLE_STAGES],
  description: 'How many paying customers are in each stage',
  properties: Object.fromEntries(LIFECYCLE_STAGES.map((s) => [s, { type: 'integer', description: `Customers ${s.replace('_', ' ')}: ${STAGE_WORDS[s].charAt(0).toLowerCase()}${STAGE_WORDS[s].slice(1)}` }])),
};
const lifecycleSchema = {
  type: 'object',
  required: ['object', 'asOf', 'stages', 'total'],
  properties: {
    object: { const: 'intelligence.lifecycle', description: 'The kind of object: always `intelligence.lifecycle`' },
    asOf: { type: 'string', format: 'date-time', description: "The time the stages were computed at: the request's" },
    stages: stageCounts,
    total: { type: 'integer', description: 'Paying customers in all' },
    definitions: { type: 'object', additionalProperties: { type: 'string' }, description: 'What each stage means, in words' },
  },
};
const customerSchema = {
  type: 'object',
  required: ['object', 'customer', 'stage', 'firstPaymentAt', 'lastPaymentAt', 'payments'],
  properties: {
    object: { const: 'customer_lifecycle', description: 'The kind of object: always `customer_lifecycle`' },
    customer: { type: 'string', description: 'The customer (`cus_…`)' },
    stage: stage('Where the customer is, as of now'),
    firstPaymentAt: { type: 'string', format: 'date-time', description: 'When their first successful payment was made' },
    lastPaymentAt: { type: 'string', format: 'date-time', description: 'When their last successful payment was made' },
    payments: { type: 'integer', description: 'Their successful payments' },
  },
};
const recommendationSchema = resourceSchema('intelligence.recommendation', ['kind', 'severity', 'title', 'detail', 'evidence'], {
  kind: {
    enum: [...RECOMMENDATION_KINDS],
    description: 'What was found',
    'x-enumDescriptions': {
      operator_failing: 'An operator failed well above its usual rate over the last 7 days: tell payers to use another',
      reengage_customers: 'Customers are at risk (last paid 30 to 90 days ago): reach out before they churn',
      cheaper_rail: 'In a country and currency, another operator cost at most 80% of the fee rate of the one most used',
    },
  },
  severity: {
    enum: ['high', 'medium', 'low'],
    description: 'How much it matters; the list is most severe first',
    'x-enumDescriptions': { high: 'Money is being lost now', medium: 'Worth acting on soon', low: 'A saving to consider' },
  },
  title: { type: 'string', description: 'The finding, in a line' },
  detail: { type: 'string', description: 'The finding with its figures, and what to do' },
  evidence: { type: 'object', additionalProperties: { type: ['string', 'number'] }, description: 'The figures behind it, by name' },
});
const operatorSchema = {
  type: 'object',
  required: ['object', 'country', 'operator', 'currency', 'attempts', 'failed', 'failureRate', 'usualFailureRate', 'status'],
  properties: {
    object: { const: 'intelligence.operator_health', description: 'The kind of object: always `intelligence.operator_health`' },
    country: { type: 'string', description: 'The country of the rail (ISO 3166-1)' },
    operator: { type: 'string', description: 'The operator (`orange_money`, `wave`, …)' },
    currency: { type: 'string', description: 'The currency of the payments' },
    attempts: { type: 'integer', description: 'Payments that reached an outcome with it over the last `days`' },
    failed: { type: 'integer', description: 'Of those, the failed ones' },
    failureRate: { type: ['number', 'null'], description: 'failed ÷ attempts over the last `days`, from 0 to 1; null without attempts' },
    usualFailureRate: { type: ['number', 'null'], description: 'The same rate over the 28 days before; null with fewer than 20 attempts then' },
    status: {
      enum: ['healthy', 'degraded', 'insufficient_data'],
      description: 'The verdict',
      'x-enumDescriptions': {
        healthy: 'Failing about as usual',
        degraded: 'Failing at least 10 points above, and 1.5 times, its usual rate (or at least 30% without one)',
        insufficient_data: 'Fewer than 20 attempts over the last `days`: too few to tell',
      },
    },
  },
};
const PAGE_WORDS: Record<DashboardPage, string> = {
  home: 'The home page',
  payments: 'The payments page',
  payouts: 'The payouts page',
  customers: 'The customers page',
  developers: 'The Developers page (keys, webhooks)',
  settings: 'The settings',
};
const page = (description: string) => ({ enum: [...DASHBOARD_PAGES], description, 'x-enumDescriptions': PAGE_WORDS });
const suggestionSchema = {
  type: 'object',
  required: ['id', 'object', 'kind', 'title', 'detail', 'action', 'pages'],
  properties: {
    id: { type: 'string', description: 'Stable for the same suggestion, so the dashboard can remember one dismissed' },
    object: { const: 'context_suggestion', description: 'The kind of object: always `context_suggestion`' },
    kind: {
      enum: ['onboarding', 'attention', 'feature'],
      description: 'What sort of suggestion; problems come first, then go-live steps, then features',
      'x-enumDescriptions': {
        attention: 'A problem to look at: payments failed since yesterday, late payouts',
        onboarding: 'A go-live step not done: a first sandbox payment, a payout destination, a webhook endpoint, a logo',
        feature: 'A feature not used yet: payment links, the payout engine, customers',
      },
    },
    title: { type: 'string', description: 'The suggestion, in a line' },
    detail: { type: 'string', description: 'Why, in a sentence or two' },
    action: { type: 'string', description: 'The operation or dashboard page that acts on it' },
    pages: { type: 'array', items: page('A page it belongs to'), description: 'The dashboard pages it belongs to: shown first there' },
  },
};

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const daysBefore = (d: Date, n: number) => new Date(d.getTime() - n * DAY);

/**
 * /api/v1/intelligence (docs/intelligence.md): nine operations over read models built for them —
 * KPIs and their breakdown, decisions (list, get), customer lifecycle (stages, customers, one
 * customer), recommendations, operator health. Plus /api/v1/context-intelligence/suggestions.
 */
export function intelligenceRoutes(knex: Knex, clock: Clock): RouteGroup {
  /** The range asked for, or the 30 days up to today. */
  const rangeOf = (q: RangeQuery): KpiRange => {
    const to = q.to ?? isoDay(clock.now());
    const from = q.from ?? isoDay(daysBefore(new Date(`${to}T00:00:00Z`), 29));
    const range = { from, to, ...(q.currency ? { currency: q.currency.toUpperCase() } : {}) };
    checkRange(range);
    return range;
  };
  /** The operators' last `days` days (today included) and the 28 days before, per country × operator × currency. */
  const operatorWindows = async (owner: Parameters<typeof operatorFigures>[1], days: number): Promise<{ recent: OperatorWindow[]; baseline: OperatorWindow[] }> => {
    const today = clock.now();
    const [recent, baseline] = await Promise.all([
      operatorFigures(knex, owner, { from: isoDay(daysBefore(today, days - 1)), to: isoDay(today) }),
      operatorFigures(knex, owner, { from: isoDay(daysBefore(today, days + 27)), to: isoDay(daysBefore(today, days)) }),
    ]);
    return { recent, baseline };
  };

  return {
    name: 'intelligence',
    description: "What the merchant's payments say: KPIs and their breakdowns, the decisions the service took (routing, delays), customers' lifecycle and operator health.",
    routes: [
      route<unknown, RangeQuery>({
        method: 'get',
        path: `${BASE}/kpis`,
        summary: 'Payment KPIs over a date range, per currency: payments, succeeded, failed, success rate, volume, fees, refunds, net',
        description:
          "The figures of the payments created from `from` to `to` (UTC days, inclusive; the 30 days up to today by default, at most 366), each currency apart. A payment counts under the day it was created, and its outcome, fee and refunds are added to that day as they happen: a range's figures do not change when a later day is added. They follow the event log, so a payment shows a moment after it is answered.",
        refusals: [...RANGE_REFUSALS],
        auth: intelligenceRead,
        query: { type: 'object', additionalProperties: false, properties: rangeQuery },
        response: kpisSchema,
        handler: async (ctx) => {
          const range = rangeOf(ctx.query);
          return { object: 'intelligence.kpis', from: range.from, to: range.to, currency: range.currency ?? null, data: await kpiTotals(knex, ctx.owner, range) };
        },
      }),
      route<unknown, RangeQuery & { dimension: KpiDimension }>({
        method: 'get',
        path: `${BASE}/kpis/breakdown`,
        summary: 'The same KPIs per operator, country, payment method or day',
        description:
          'The figures of GET /api/v1/intelligence/kpis split by `dimension`, each value per currency: to see which operator fails, which country sells, or a daily chart. Payments not yet confirmed count under operator and method `none`.',
        refusals: [...RANGE_REFUSALS],
        auth: intelligenceRead,
        query: {
          type: 'object',
          required: ['dimension'],
          additionalProperties: false,
          properties: { ...rangeQuery, dimension: { enum: [...DIMENSIONS], description: 'What to split the figures by', 'x-enumDescriptions': DIMENSION_WORDS } },
        },
        response: breakdownSchema,
        handler: async (ctx) => {
          const range = rangeOf(ctx.query);
          const data = await kpiBreakdown(knex, ctx.owner, range, ctx.query.dimension);
          return { object: 'intelligence.kpi_breakdown', dimension: ctx.query.dimension, from: range.from, to: range.to, currency: range.currency ?? null, data };
        },
      }),
      route<unknown, CursorQuery & { kind?: DecisionKind; subject?: string }>({
        method: 'get',
        path: `${BASE}/decisions`,
        summary: 'The routing and delay decisions the service took (which operator and rail for a payment, why a payout was delayed), newest first',
        description:
          'What the service decided for your payments and payouts, and why: the rail a payment or payout went on, why a payout is late or failed. Give `subject` to see every decision about one payment intent or payout, for instance when a customer asks what happened. Cursor-paged (docs/pagination.md).',
        refusals: [],
        auth: intelligenceRead,
        query: cursorQuery({
          kind: decisionKind('Only decisions of this kind'),
          subject: { type: 'string', minLength: 1, maxLength: 255, description: 'Only the decisions about this payment intent (`pi_…`) or payout (`po_…`)' },
        }),
        response: cursorListSchema(decisionSchema),
        handler: (ctx) => listDecisions(knex, ctx.owner, ctx.query, `${BASE}/decisions`, { kind: ctx.query.kind, subject: ctx.query.subject }),
      }),
      route<unknown, unknown, { decisionId: string }>({
        method: 'get',
        path: `${BASE}/decisions/:decisionId`,
        summary: 'Retrieve a decision',
        description: "One decision, as the list shows it. Another merchant's decision, or one of the other environment, is `404 IKW-RES-001`.",
        refusals: [],
        auth: intelligenceRead,
        params: { ...idParamsOf('decisionId'), properties: { decisionId: { type: 'string', minLength: 1, maxLength: 255, description: 'The id of the decision' } } },
        response: decisionSchema,
        handler: async (ctx) => {
          const decision = await findDecision(knex, ctx.owner, ctx.params.decisionId);
          if (!decision) throw new ApiError('IKW-RES-001', `No such decision: '${ctx.params.decisionId}'`, 'decisionId');
          return decision;
        },
      }),
      route({
        method: 'get',
        path: `${BASE}/lifecycle`,
        summary: 'How many paying customers are new, active, at risk or churned, from their payment history',
        description: `How your paying customers (those named by a successful payment intent) are spread over the stages, computed at the time of the request from each one's first and last successful payment: new (first paid within ${ACTIVE_DAYS} days), active, at risk (last paid ${ACTIVE_DAYS} to ${CHURN_DAYS} days ago) and churned. GET …/lifecycle/customers lists the customers of a stage.`,
        refusals: [],
        auth: intelligenceRead,
        response: lifecycleSchema,
        handler: async (ctx) => {
          const now = clock.now();
          const stages = await lifecycleCounts(knex, ctx.owner, now);
          return {
            object: 'intelligence.lifecycle',
            asOf: now.toISOString(),
            stages,
            total: Object.values(stages).reduce((a, b) => a + b, 0),
            definitions: {
              new: `first successful payment within the last ${ACTIVE_DAYS} days`,
              active: `paid within the last ${ACTIVE_DAYS} days`,
              at_risk: `last paid ${ACTIVE_DAYS} to ${CHURN_DAYS} days ago`,
              churned: `last paid more than ${CHURN_DAYS} days ago`,
            },
          };
        },
      }),
      route<unknown, CursorQuery & { stage?: LifecycleStage }>({
        method: 'get',
        path: `${BASE}/lifecycle/customers`,
        summary: 'Paying customers with their lifecycle stage, by stage (cursor-paged)',
        description: 'The paying customers behind the lifecycle counts, each with its stage and payments: `stage=at_risk` gives the ones to re-engage. Cursor-paged (docs/pagination.md).',
        refusals: [],
        auth: intelligenceRead,
        query: cursorQuery({ stage: stage('Only the customers in this stage') }),
        response: cursorListSchema(customerSchema),
        handler: (ctx) => lifecycleCustomers(knex, ctx.owner, clock.now(), ctx.query, `${BASE}/lifecycle/customers`, ctx.query.stage),
      }),
      route<unknown, unknown, { customerId: string }>({
        method: 'get',
        path: `${BASE}/customers/:customerId`,
        summary: "One customer's lifecycle stage and payment history",
        description: "Where one customer stands: its stage, first and last successful payment and how many it made. A customer with no successful payment, another merchant's or one of the other environment is `404 IKW-RES-001`.",
        refusals: [],
        auth: intelligenceRead,
        params: { ...idParamsOf('customerId'), properties: { customerId: { type: 'string', minLength: 1, maxLength: 255, description: 'The customer (`cus_…`)' } } },
        response: customerSchema,
        handler: async (ctx) => {
          const found = await findCustomerLifecycle(knex, ctx.owner, clock.now(), ctx.params.customerId);
          if (!found) throw new ApiError('IKW-RES-001', `No paying customer: '${ctx.params.customerId}'`, 'customerId');
          return found;
        },
      }),
      route({
        method: 'get',
        path: `${BASE}/recommendations`,
        summary: 'Recommendations computed from the data: an operator failing more than usual, customers to re-engage, a cheaper rail',
        description:
          'What your figures suggest doing, most severe first, computed at the time of the request: an operator failing well above its usual rate over the last 7 days, customers at risk to re-engage, an operator that cost less than the one you use most over 30 days. Each carries the figures behind it and an `id` stable for the same finding. An empty list means nothing to do.',
        refusals: [],
        auth: intelligenceRead,
        response: listSchema(recommendationSchema),
        handler: async (ctx) => {
          const today = clock.now();
          const [{ recent, baseline }, month, stages] = await Promise.all([
            operatorWindows(ctx.owner, 7),
            operatorFigures(knex, ctx.owner, { from: isoDay(daysBefore(today, 29)), to: isoDay(today) }),
            lifecycleCounts(knex, ctx.owner, today),
          ]);
          return { object: 'list', data: recommend({ recent, baseline, month, atRisk: stages.at_risk }) };
        },
      }),
      route<unknown, { days: number }>({
        method: 'get',
        path: `${BASE}/operators`,
        summary: "Operator health: each operator's failure rate over the last days against its usual rate (the 28 days before)",
        description:
          'For each country × operator × currency your payments went through over the last `days` (today included), its failure rate against its own rate over the 28 days before, and a verdict: the test of the `operator_failing` recommendation. Use it to tell payers to pick another operator while one is `degraded`.',
        refusals: [],
        auth: intelligenceRead,
        query: {
          type: 'object',
          additionalProperties: false,
          properties: { days: { type: 'integer', minimum: 1, maximum: 90, default: 7, description: 'How many days back to look, today included (1 to 90)' } },
        },
        response: listSchema(operatorSchema),
        handler: async (ctx) => {
          const { recent, baseline } = await operatorWindows(ctx.owner, ctx.query.days);
          const data = recent.map((now) => ({
            object: 'intelligence.operator_health',
            country: now.country,
            operator: now.operator,
            currency: now.currency,
            attempts: now.attempts,
            failed: now.failed,
            ...operatorHealth(now, baselineOf(now, baseline)),
          }));
          return { object: 'list', data };
        },
      }),
    ],
  };
}

/** /api/v1/context-intelligence/suggestions: what the dashboard suggests next to the current merchant on a page. */
export function contextIntelligenceRoutes(knex: Knex, clock: Clock): RouteGroup {
  return {
    name: 'context-intelligence',
    description: "Suggestions the dashboard shows next to a page, from the merchant's own recent payments and payouts.",
    routes: [
      route<unknown, { page?: DashboardPage }>({
        method: 'get',
        path: '/api/v1/context-intelligence/suggestions',
        summary: 'What to suggest next to the current merchant on a dashboard page: problems (failed payments, late payouts), go-live steps left, features not used yet',
        description:
          "The suggestions for the merchant now, in priority order: problems first (payments failed since yesterday, late payouts), then the go-live steps not done, then features not used yet. With `page`, that page's suggestions come first, each group in its order. A suggestion disappears once its condition is met, so the list is the merchant's to-do list.",
        refusals: [],
        auth: intelligenceRead,
        query: { type: 'object', additionalProperties: false, properties: { page: page('The dashboard page shown: its suggestions come first') } },
        response: {
          ...listSchema(suggestionSchema),
          properties: { ...listSchema(suggestionSchema).properties, page: { ...page('The page asked for; null when none was'), enum: [...DASHBOARD_PAGES, null] } },
        },
        handler: async (ctx) => ({ object: 'list', page: ctx.query.page ?? null, data: suggest(await merchantFacts(knex, ctx.owner, clock.now()), ctx.query.page) }),
      }),
    ],
  };
}
