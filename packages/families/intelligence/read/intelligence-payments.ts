import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import type { PaymentIntentEvent } from '#packages/families/payments/index.js';
import type { RefundEvent } from '#packages/families/billing/index.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { cursorPage, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import type { Owner } from '#packages/core/owner.js';

/**
 * The payment figures intelligence answers from (docs/intelligence.md), folded for it so that no
 * query scans payments:
 * - `read.intel_payments`: one row per payment intent with the dimensions it is counted under
 *   (day created, currency, country, operator, method) and its outcome, fee and refunds;
 * - `read.intel_daily`: the sums per merchant × environment × day × currency × country × operator ×
 *   method. Each change of a payment moves its contribution: out of the row it counted in, into
 *   the row it counts in now. A range of KPIs reads at most a row per day and dimension;
 * - `read.intel_refunds`: what a refund is for, to count it when it succeeds;
 * - `read.intel_customers`: each paying customer's first and last successful payment (lifecycle).
 */
export const intelligencePaymentsProjection: Projection = {
  name: 'intelligence_payments',
  // Analytics: no request reads its own writes here, and the daily sums are rows every payment of a day would contend on.
  followsLog: true,
  tables: ['read.intel_payments', 'read.intel_daily', 'read.intel_refunds', 'read.intel_customers'],
  migrations: [
    {
      name: 'intelligence_payments/001-create',
      up: (knex) =>
        knex.raw(`
        CREATE TABLE read.intel_payments (
          id text PRIMARY KEY,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          day date NOT NULL,
          currency text NOT NULL,
          country text NOT NULL,
          operator text NOT NULL,
          method text NOT NULL,
          customer text,
          amount bigint NOT NULL,
          status text NOT NULL,
          fee bigint NOT NULL DEFAULT 0,
          refunded bigint NOT NULL DEFAULT 0
        );
        CREATE TABLE read.intel_daily (
          merchant_id text NOT NULL,
          environment text NOT NULL,
          day date NOT NULL,
          currency text NOT NULL,
          country text NOT NULL,
          operator text NOT NULL,
          method text NOT NULL,
          count bigint NOT NULL,
          succeeded bigint NOT NULL,
          failed bigint NOT NULL,
          volume bigint NOT NULL,
          fees bigint NOT NULL,
          refunds bigint NOT NULL,
          PRIMARY KEY (merchant_id, environment, day, currency, country, operator, method)
        );
        CREATE TABLE read.intel_refunds (
          id text PRIMARY KEY,
          payment_intent text NOT NULL,
          amount bigint NOT NULL
        );
        CREATE TABLE read.intel_customers (
          merchant_id text NOT NULL,
          environment text NOT NULL,
          customer text NOT NULL,
          seq text NOT NULL,
          first_paid_at timestamptz NOT NULL,
          last_paid_at timestamptz NOT NULL,
          payments bigint NOT NULL,
          PRIMARY KEY (merchant_id, environment, customer)
        );
        CREATE INDEX intel_customers_recency ON read.intel_customers (merchant_id, environment, last_paid_at);`),
    },
  ],
  handles: ['payment_intent.created', 'payment_intent.confirmation_started', 'payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled', 'refund.created', 'refund.succeeded'],
  apply: (trx, event) => applyPayments(trx, [event]),
  applyBatch: applyPayments,
};

interface PaymentRow {
  id: string;
  merchant_id: string;
  environment: string;
  day: string;
  currency: string;
  country: string;
  operator: string;
  method: string;
  customer: string | null;
  amount: number;
  /** `open` until it succeeds, fails or is canceled. */
  status: 'open' | 'succeeded' | 'failed' | 'canceled';
  fee: number;
  refunded: number;
}

const DAILY_KEY = ['merchant_id', 'environment', 'day', 'currency', 'country', 'operator', 'method'] as const;
const SUMS_OF_DAY = ['count', 'succeeded', 'failed', 'volume', 'fees', 'refunds'] as const;
type DailyRow = Record<(typeof DAILY_KEY)[number], string> & Record<(typeof SUMS_OF_DAY)[number], number>;

interface CustomerPaid {
  merchant_id: string;
  environment: string;
  customer: string;
  seq: string;
  first_paid_at: string;
  last_paid_at: string;
  payments: number;
}

const intentOf = (event: RecordedEvent) => event.streamId.slice('payment_intent-'.length);

/** Rows per statement: well below PostgreSQL's 65 535 bindings for the widest row here (13 columns). */
const ROWS_PER_STATEMENT = 2000;

/**
 * Events folded into the rows they touch, in memory, then written with a few multi-row statements
 * (a batch of the log-following runner or a rebuild; one event is a batch of one): the payments
 * and refunds read first in two queries, each change moving the payment's contribution out of the
 * day row it counted in and into the one it counts in now, the sums added once per day row.
 */
async function applyPayments(trx: Knex.Transaction, events: readonly RecordedEvent[]): Promise<void> {
  const typed = events as unknown as readonly (PaymentIntentEvent | RefundEvent)[];
  const refundIds = typed.flatMap((e) => (e.type === 'refund.created' ? [e.data.refund.id] : e.type === 'refund.succeeded' ? [e.data.refundId] : []));
  const refunds = new Map<string, { payment_intent: string; amount: number }>();
  if (refundIds.length > 0) {
    for (const r of (await trx('read.intel_refunds').whereIn('id', [...new Set(refundIds)])) as { id: string; payment_intent: string; amount: string }[]) {
      refunds.set(r.id, { payment_intent: r.payment_intent, amount: Number(r.amount) });
    }
  }
  const paymentIds = new Set<string>();
  for (const [i, e] of typed.entries()) {
    if (e.type.startsWith('payment_intent.')) paymentIds.add(intentOf(events[i]!));
    else if (e.type === 'refund.created') paymentIds.add(e.data.payment.id);
  }
  for (const r of refunds.values()) paymentIds.add(r.payment_intent);
  const payments = new Map<string, PaymentRow>();
  if (paymentIds.size > 0) {
    for (const stored of (await trx('read.intel_payments').whereIn('id', [...paymentIds])) as PaymentRow[]) {
      payments.set(stored.id, { ...stored, day: dayOf(stored.day), amount: Number(stored.amount), fee: Number(stored.fee), refunded: Number(stored.refunded) });
    }
  }

  const changedPayments = new Set<string>();
  const newRefunds = new Map<string, { id: string; payment_intent: string; amount: number }>();
  const daily = new Map<string, DailyRow>();
  const customers = new Map<string, CustomerPaid>();
  /** Adds (sign 1) or takes back (sign -1) what one payment counts for in its day × dimensions row. */
  const contribute = (row: PaymentRow, sign: 1 | -1) => {
    const key = DAILY_KEY.map((c) => row[c]).join('|');
    let sums = daily.get(key);
    if (!sums) daily.set(key, (sums = { ...(Object.fromEntries(DAILY_KEY.map((c) => [c, row[c]])) as Record<(typeof DAILY_KEY)[number], string>), count: 0, succeeded: 0, failed: 0, volume: 0, fees: 0, refunds: 0 }));
    const succeeded = row.status === 'succeeded';
    sums.count += sign;
    sums.succeeded += succeeded ? sign : 0;
    sums.failed += row.status === 'failed' ? sign : 0;
    sums.volume += succeeded ? sign * row.amount : 0;
    sums.fees += succeeded ? sign * row.fee : 0;
    sums.refunds += sign * row.refunded;
  };
  /** Applies a change to a payment's row and moves its contribution from the old figures to the new ones. */
  const change = (id: string, next: (row: PaymentRow) => PaymentRow): PaymentRow | undefined => {
    const before = payments.get(id);
    if (!before) return undefined;
    const after = next(before);
    contribute(before, -1);
    payments.set(id, after);
    changedPayments.add(id);
    contribute(after, 1);
    return after;
  };
  const paidBy = (row: PaymentRow, at: string, position: string) => {
    const key = `${row.merchant_id}|${row.environment}|${row.customer}`;
    const known = customers.get(key);
    if (!known) customers.set(key, { merchant_id: row.merchant_id, environment: row.environment, customer: row.customer!, seq: position, first_paid_at: at, last_paid_at: at, payments: 1 });
    else {
      known.first_paid_at = Date.parse(at) < Date.parse(known.first_paid_at) ? at : known.first_paid_at;
      known.last_paid_at = Date.parse(at) > Date.parse(known.last_paid_at) ? at : known.last_paid_at;
      known.payments += 1;
    }
  };

  for (const [i, e] of typed.entries()) {
    const event = events[i]!;
    switch (e.type) {
      case 'payment_intent.created': {
        const d = e.data;
        if (payments.has(d.id)) break;
        const row: PaymentRow = {
          id: d.id,
          merchant_id: d.merchantId,
          environment: d.environment,
          day: d.createdAt.slice(0, 10),
          currency: d.currency.toUpperCase(),
          country: d.transactionCountry.toUpperCase(),
          operator: '',
          method: '',
          customer: d.customer,
          amount: d.amount,
          status: 'open',
          fee: 0,
          refunded: 0,
        };
        payments.set(d.id, row);
        changedPayments.add(d.id);
        contribute(row, 1);
        break;
      }
      case 'payment_intent.confirmation_started': {
        const method = e.data.paymentMethod;
        change(intentOf(event), (row) => ({
          ...row,
          method: method.type,
          operator: method.type === 'mobile_money' ? method.operator : '',
          country: method.type === 'mobile_money' ? method.country.toUpperCase() : row.country,
        }));
        break;
      }
      case 'payment_intent.succeeded': {
        const { fee, at } = e.data;
        const row = change(intentOf(event), (r) => ({ ...r, status: 'succeeded', fee }));
        if (row?.customer) paidBy(row, at, event.position);
        break;
      }
      case 'payment_intent.payment_failed':
        change(intentOf(event), (r) => ({ ...r, status: 'failed' }));
        break;
      case 'payment_intent.canceled':
        change(intentOf(event), (r) => ({ ...r, status: 'canceled' }));
        break;
      case 'refund.created':
        if (!refunds.has(e.data.refund.id)) {
          const refund = { id: e.data.refund.id, payment_intent: e.data.payment.id, amount: e.data.refund.amount };
          refunds.set(refund.id, refund);
          newRefunds.set(refund.id, refund);
        }
        break;
      case 'refund.succeeded': {
        const refund = refunds.get(e.data.refundId);
        if (refund) change(refund.payment_intent, (r) => ({ ...r, refunded: r.refunded + refund.amount }));
        break;
      }
      default:
        break;
    }
  }

  const chunks = <T>(rows: T[]) => Array.from({ length: Math.ceil(rows.length / ROWS_PER_STATEMENT) }, (_, i) => rows.slice(i * ROWS_PER_STATEMENT, (i + 1) * ROWS_PER_STATEMENT));
  for (const rows of chunks([...changedPayments].map((id) => payments.get(id)!))) await trx('read.intel_payments').insert(rows).onConflict('id').merge();
  for (const rows of chunks([...newRefunds.values()])) await trx('read.intel_refunds').insert(rows).onConflict('id').ignore();
  // Every day row a change touched is written, even one whose sums net to zero: event by event it
  // would have been inserted, so a rebuild leaves the same rows.
  for (const rows of chunks([...daily.values()])) {
    await trx('read.intel_daily')
      .insert(rows)
      .onConflict([...DAILY_KEY])
      // The existing row by its table name alone: SQL text must not name the schema (a shadow rebuild renames it).
      .merge(Object.fromEntries(SUMS_OF_DAY.map((c) => [c, trx.raw('intel_daily.?? + excluded.??', [c, c])])));
  }
  for (const rows of chunks([...customers.values()])) {
    await trx('read.intel_customers')
      .insert(rows)
      .onConflict(['merchant_id', 'environment', 'customer'])
      .merge({
        first_paid_at: trx.raw('LEAST(intel_customers.first_paid_at, excluded.first_paid_at)'),
        last_paid_at: trx.raw('GREATEST(intel_customers.last_paid_at, excluded.last_paid_at)'),
        payments: trx.raw('intel_customers.payments + excluded.payments'),
      });
  }
}

/** `date` columns come back as Date objects (local midnight) or strings, by driver settings. */
function dayOf(value: unknown): string {
  if (value instanceof Date) return `${value.getFullYear()}-${String(value.getMonth() + 1).padStart(2, '0')}-${String(value.getDate()).padStart(2, '0')}`;
  return String(value).slice(0, 10);
}

// ---------------------------------------------------------------------------------------------
// Queries

export type KpiDimension = 'operator' | 'country' | 'method' | 'day';

export interface KpiRange {
  /** First and last day (UTC, inclusive), `YYYY-MM-DD`. */
  from: string;
  to: string;
  currency?: string;
}

export interface KpiFigures {
  currency: string;
  count: number;
  succeeded: number;
  failed: number;
  /** succeeded / (succeeded + failed); null when no payment reached an outcome. */
  successRate: number | null;
  volume: number;
  fees: number;
  refunds: number;
  /** volume − fees − refunds. */
  net: number;
}

const SUMS = ['count', 'succeeded', 'failed', 'volume', 'fees', 'refunds'] as const;

function figuresOf(row: Record<string, unknown>): KpiFigures {
  const n = Object.fromEntries(SUMS.map((c) => [c, Number(row[c] ?? 0)])) as Record<(typeof SUMS)[number], number>;
  const decided = n.succeeded + n.failed;
  return { currency: String(row.currency), ...n, successRate: decided === 0 ? null : Math.round((n.succeeded / decided) * 10_000) / 10_000, net: n.volume - n.fees - n.refunds };
}

function dailyRows(knex: Knex, owner: Owner, range: KpiRange): Knex.QueryBuilder {
  const q = knex('read.intel_daily').where({ merchant_id: owner.merchantId, environment: owner.environment }).whereBetween('day', [range.from, range.to]);
  if (range.currency) q.where({ currency: range.currency.toUpperCase() });
  return q;
}

const sumColumns = (knex: Knex) => SUMS.map((c) => knex.raw('SUM(??)::bigint AS ??', [c, c]));

/** The KPIs of a date range, one set per currency (amounts never add across currencies). */
export async function kpiTotals(knex: Knex, owner: Owner, range: KpiRange): Promise<KpiFigures[]> {
  const rows = await dailyRows(knex, owner, range)
    .select('currency', ...sumColumns(knex))
    .groupBy('currency')
    .orderBy('currency');
  return (rows as Record<string, unknown>[]).map(figuresOf);
}

/** The same figures per operator, country, method or day (per currency); payments not yet confirmed have operator and method `none`. */
export async function kpiBreakdown(knex: Knex, owner: Owner, range: KpiRange, dimension: KpiDimension): Promise<(KpiFigures & { key: string })[]> {
  const column = dimension === 'day' ? knex.raw("to_char(day, 'YYYY-MM-DD') AS key") : knex.raw('?? AS key', [dimension]);
  const rows = await dailyRows(knex, owner, range)
    .select('currency', column, ...sumColumns(knex))
    .groupByRaw('currency, key')
    .orderByRaw('key, currency');
  return (rows as Record<string, unknown>[]).map((r) => ({ key: String(r.key) === '' ? 'none' : String(r.key), ...figuresOf(r) }));
}

export interface OperatorFigures {
  country: string;
  operator: string;
  currency: string;
  attempts: number;
  failed: number;
  volume: number;
  fees: number;
}

/** Per country × operator × currency over a range: what operator health and recommendations compare. */
export async function operatorFigures(knex: Knex, owner: Owner, range: KpiRange): Promise<OperatorFigures[]> {
  const rows = await dailyRows(knex, owner, range)
    .whereNot({ operator: '' })
    .select('country', 'operator', 'currency', knex.raw('SUM(succeeded + failed)::bigint AS attempts'), knex.raw('SUM(failed)::bigint AS failed'), knex.raw('SUM(volume)::bigint AS volume'), knex.raw('SUM(fees)::bigint AS fees'))
    .groupBy('country', 'operator', 'currency')
    .orderBy(['country', 'operator', 'currency']);
  return (rows as Record<string, unknown>[]).map((r) => ({
    country: String(r.country),
    operator: String(r.operator),
    currency: String(r.currency),
    attempts: Number(r.attempts),
    failed: Number(r.failed),
    volume: Number(r.volume),
    fees: Number(r.fees),
  }));
}

/** The longest range a KPI query takes, in days. */
export const MAX_RANGE_DAYS = 366;

/** Checks a range: from ≤ to, at most MAX_RANGE_DAYS days. */
export function checkRange(range: KpiRange): void {
  const days = (Date.parse(`${range.to}T00:00:00Z`) - Date.parse(`${range.from}T00:00:00Z`)) / 86_400_000 + 1;
  if (!Number.isFinite(days) || days < 1) throw new ApiError('IKW-ITL-001', 'from must be on or before to', 'from');
  if (days > MAX_RANGE_DAYS) throw new ApiError('IKW-ITL-001', `A range covers at most ${MAX_RANGE_DAYS} days`, 'from');
}

// Lifecycle

export type LifecycleStage = 'new' | 'active' | 'at_risk' | 'churned';
export const LIFECYCLE_STAGES: readonly LifecycleStage[] = ['new', 'active', 'at_risk', 'churned'];
/** A customer is new for 30 days after their first payment, at risk 30 days after their last, churned after 90. */
export const ACTIVE_DAYS = 30;
export const CHURN_DAYS = 90;

function stageSql(knex: Knex, now: Date): Knex.Raw {
  const day = 86_400_000;
  const activeSince = new Date(now.getTime() - ACTIVE_DAYS * day);
  const churnedBefore = new Date(now.getTime() - CHURN_DAYS * day);
  return knex.raw(`CASE WHEN first_paid_at >= ? THEN 'new' WHEN last_paid_at >= ? THEN 'active' WHEN last_paid_at >= ? THEN 'at_risk' ELSE 'churned' END`, [activeSince, activeSince, churnedBefore]);
}

/** How many of this owner's paying customers are in each stage, as of `now`. */
export async function lifecycleCounts(knex: Knex, owner: Owner, now: Date): Promise<Record<LifecycleStage, number>> {
  const rows = await knex('read.intel_customers')
    .where({ merchant_id: owner.merchantId, environment: owner.environment })
    .select(knex.raw('?? AS stage', [stageSql(knex, now)]), knex.raw('COUNT(*)::bigint AS n'))
    .groupBy('stage');
  const counts: Record<LifecycleStage, number> = { new: 0, active: 0, at_risk: 0, churned: 0 };
  for (const r of rows as { stage: LifecycleStage; n: string }[]) counts[r.stage] = Number(r.n);
  return counts;
}

export interface CustomerLifecycle {
  object: 'customer_lifecycle';
  customer: string;
  stage: LifecycleStage;
  firstPaymentAt: string;
  lastPaymentAt: string;
  payments: number;
}

interface CustomerRow {
  customer: string;
  seq: string;
  stage: LifecycleStage;
  first_paid_at: Date;
  last_paid_at: Date;
  payments: string;
}

const renderCustomer = (r: CustomerRow): CustomerLifecycle => ({
  object: 'customer_lifecycle',
  customer: r.customer,
  stage: r.stage,
  firstPaymentAt: r.first_paid_at.toISOString(),
  lastPaymentAt: r.last_paid_at.toISOString(),
  payments: Number(r.payments),
});

function customerRows(knex: Knex, owner: Owner, now: Date): Knex.QueryBuilder {
  return knex.select('*').from(
    knex('read.intel_customers')
      .where({ merchant_id: owner.merchantId, environment: owner.environment })
      .select('*', knex.raw('?? AS stage', [stageSql(knex, now)]))
      .as('c'),
  );
}

/** This owner's paying customers in a stage (all when none is named), most recent first payment first. */
export function lifecycleCustomers(knex: Knex, owner: Owner, now: Date, cursor: CursorQuery, url: string, stage?: LifecycleStage): Promise<CursorList<CustomerLifecycle>> {
  const q = customerRows(knex, owner, now);
  if (stage) q.where({ stage });
  return cursorPage<CustomerRow, CustomerLifecycle>(q, cursor, url, 'customer', renderCustomer);
}

export async function findCustomerLifecycle(knex: Knex, owner: Owner, now: Date, customer: string): Promise<CustomerLifecycle | undefined> {
  const row = await customerRows(knex, owner, now).where({ customer }).first<CustomerRow | undefined>();
  return row && renderCustomer(row);
}
