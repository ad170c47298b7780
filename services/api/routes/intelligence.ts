import type { Knex } from 'knex';
import type { Clock } from '../../../packages/core/clock.js';
import { ApiError } from '../../../packages/core/errors.js';
import { baselineOf, operatorHealth, recommend, RECOMMENDATION_KINDS, type OperatorWindow } from '../../../packages/families/intelligence/recommendations.js';
import { DASHBOARD_PAGES, suggest, type DashboardPage } from '../../../packages/families/intelligence/suggestions.js';
import { route, type Family, type RouteAuth } from '../../../packages/http/routes.js';
import { DECISION_KINDS, findDecision, listDecisions, type DecisionKind } from '../../../projections/intelligence/intelligence-decisions.js';
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
} from '../../../projections/intelligence/intelligence-payments.js';
import { merchantFacts } from '../../../projections/intelligence/merchant-facts.js';
import type { CursorQuery } from '../../../projections/paging.js';
import { cursorListSchema, cursorQuery, currencySchema, idParamsOf, listSchema, resourceSchema } from './shared.js';

const BASE = '/api/v1/intelligence';
const intelligenceRead: RouteAuth = { scope: 'intelligence.read', environmentHeader: 'optional' };
const DAY = 86_400_000;
const DIMENSIONS: readonly KpiDimension[] = ['operator', 'country', 'method', 'day'];

const day = { type: 'string', format: 'date' };
const rangeQuery = {
  from: { ...day, description: 'First day (UTC), inclusive; default: 29 days before `to`' },
  to: { ...day, description: 'Last day (UTC), inclusive; default: today' },
  currency: currencySchema,
};
type RangeQuery = { from?: string; to?: string; currency?: string };

const figures = {
  currency: { type: 'string' },
  count: { type: 'integer' },
  succeeded: { type: 'integer' },
  failed: { type: 'integer' },
  successRate: { type: ['number', 'null'] },
  volume: { type: 'integer' },
  fees: { type: 'integer' },
  refunds: { type: 'integer' },
  net: { type: 'integer' },
};
const figuresSchema = { type: 'object', required: Object.keys(figures), properties: figures };
const kpisSchema = {
  type: 'object',
  required: ['object', 'from', 'to', 'data'],
  properties: { object: { const: 'intelligence.kpis' }, from: day, to: day, currency: { type: ['string', 'null'] }, data: { type: 'array', items: figuresSchema } },
};
const breakdownSchema = {
  type: 'object',
  required: ['object', 'dimension', 'from', 'to', 'data'],
  properties: {
    object: { const: 'intelligence.kpi_breakdown' },
    dimension: { enum: [...DIMENSIONS] },
    from: day,
    to: day,
    currency: { type: ['string', 'null'] },
    data: { type: 'array', items: { type: 'object', required: ['key', ...Object.keys(figures)], properties: { key: { type: 'string' }, ...figures } } },
  },
};
const decisionSchema = resourceSchema('intelligence.decision', ['kind', 'subject', 'outcome', 'reason', 'decidedAt'], {
  kind: { enum: [...DECISION_KINDS] },
  subject: { type: 'string' },
  outcome: { type: 'object', additionalProperties: { type: ['string', 'number', 'null'] } },
  reason: { type: 'string' },
  decidedAt: { type: 'string', format: 'date-time' },
});
const stageCounts = { type: 'object', required: [...LIFECYCLE_STAGES], properties: Object.fromEntries(LIFECYCLE_STAGES.map((s) => [s, { type: 'integer' }])) };
const lifecycleSchema = {
  type: 'object',
  required: ['object', 'asOf', 'stages', 'total'],
  properties: { object: { const: 'intelligence.lifecycle' }, asOf: { type: 'string', format: 'date-time' }, stages: stageCounts, total: { type: 'integer' }, definitions: { type: 'object', additionalProperties: { type: 'string' } } },
};
const customerSchema = {
  type: 'object',
  required: ['object', 'customer', 'stage', 'firstPaymentAt', 'lastPaymentAt', 'payments'],
  properties: {
    object: { const: 'customer_lifecycle' },
    customer: { type: 'string' },
    stage: { enum: [...LIFECYCLE_STAGES] },
    firstPaymentAt: { type: 'string', format: 'date-time' },
    lastPaymentAt: { type: 'string', format: 'date-time' },
    payments: { type: 'integer' },
  },
};
const recommendationSchema = resourceSchema('intelligence.recommendation', ['kind', 'severity', 'title', 'detail', 'evidence'], {
  kind: { enum: [...RECOMMENDATION_KINDS] },
  severity: { enum: ['high', 'medium', 'low'] },
  title: { type: 'string' },
  detail: { type: 'string' },
  evidence: { type: 'object', additionalProperties: { type: ['string', 'number'] } },
});
const operatorSchema = {
  type: 'object',
  required: ['object', 'country', 'operator', 'currency', 'attempts', 'failed', 'failureRate', 'usualFailureRate', 'status'],
  properties: {
    object: { const: 'intelligence.operator_health' },
    country: { type: 'string' },
    operator: { type: 'string' },
    currency: { type: 'string' },
    attempts: { type: 'integer' },
    failed: { type: 'integer' },
    failureRate: { type: ['number', 'null'] },
    usualFailureRate: { type: ['number', 'null'] },
    status: { enum: ['healthy', 'degraded', 'insufficient_data'] },
  },
};
const suggestionSchema = {
  type: 'object',
  required: ['id', 'object', 'kind', 'title', 'detail', 'action', 'pages'],
  properties: {
    id: { type: 'string' },
    object: { const: 'context_suggestion' },
    kind: { enum: ['onboarding', 'attention', 'feature'] },
    title: { type: 'string' },
    detail: { type: 'string' },
    action: { type: 'string' },
    pages: { type: 'array', items: { enum: [...DASHBOARD_PAGES] } },
  },
};

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
const daysBefore = (d: Date, n: number) => new Date(d.getTime() - n * DAY);

/**
 * /api/v1/intelligence (docs/intelligence.md): nine operations over read models built for them —
 * KPIs and their breakdown, decisions (list, get), customer lifecycle (stages, customers, one
 * customer), recommendations, operator health. Plus /api/v1/context-intelligence/suggestions.
 */
export function intelligenceFamily(knex: Knex, clock: Clock): Family {
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
    description: 'What the merchant\'s payments say: KPIs and their breakdowns, the decisions the service took (routing, delays), customers\' lifecycle and operator health.',
    routes: [
      route<unknown, RangeQuery>({
        method: 'get',
        path: `${BASE}/kpis`,
        summary: 'Payment KPIs over a date range, per currency: payments, succeeded, failed, success rate, volume, fees, refunds, net',
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
        auth: intelligenceRead,
        query: { type: 'object', required: ['dimension'], additionalProperties: false, properties: { ...rangeQuery, dimension: { enum: [...DIMENSIONS] } } },
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
        auth: intelligenceRead,
        query: cursorQuery({ kind: { enum: [...DECISION_KINDS] }, subject: { type: 'string', minLength: 1, maxLength: 255 } }),
        response: cursorListSchema(decisionSchema),
        handler: (ctx) => listDecisions(knex, ctx.owner, ctx.query, `${BASE}/decisions`, { kind: ctx.query.kind, subject: ctx.query.subject }),
      }),
      route<unknown, unknown, { decisionId: string }>({
        method: 'get',
        path: `${BASE}/decisions/:decisionId`,
        summary: 'Retrieve a decision',
        auth: intelligenceRead,
        params: idParamsOf('decisionId'),
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
        auth: intelligenceRead,
        query: cursorQuery({ stage: { enum: [...LIFECYCLE_STAGES] } }),
        response: cursorListSchema(customerSchema),
        handler: (ctx) => lifecycleCustomers(knex, ctx.owner, clock.now(), ctx.query, `${BASE}/lifecycle/customers`, ctx.query.stage),
      }),
      route<unknown, unknown, { customerId: string }>({
        method: 'get',
        path: `${BASE}/customers/:customerId`,
        summary: "One customer's lifecycle stage and payment history",
        auth: intelligenceRead,
        params: idParamsOf('customerId'),
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
        auth: intelligenceRead,
        query: { type: 'object', additionalProperties: false, properties: { days: { type: 'integer', minimum: 1, maximum: 90, default: 7 } } },
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
export function contextIntelligenceFamily(knex: Knex, clock: Clock): Family {
  return {
    name: 'context-intelligence',
    description: 'Suggestions the dashboard shows next to a page, from the merchant\'s own recent payments and payouts.',
    routes: [
      route<unknown, { page?: DashboardPage }>({
        method: 'get',
        path: '/api/v1/context-intelligence/suggestions',
        summary: "What to suggest next to the current merchant on a dashboard page: problems (failed payments, late payouts), go-live steps left, features not used yet",
        auth: intelligenceRead,
        query: { type: 'object', additionalProperties: false, properties: { page: { enum: [...DASHBOARD_PAGES] } } },
        response: { ...listSchema(suggestionSchema), properties: { ...listSchema(suggestionSchema).properties, page: { enum: [...DASHBOARD_PAGES, null] } } },
        handler: async (ctx) => ({ object: 'list', page: ctx.query.page ?? null, data: suggest(await merchantFacts(knex, ctx.owner, clock.now()), ctx.query.page) }),
      }),
    ],
  };
}
