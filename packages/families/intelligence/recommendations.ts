/**
 * Recommendations computed from a merchant's figures (docs/intelligence.md): pure rules over what
 * the intelligence read models sum up, so each can be checked against known numbers.
 */

/** Attempts and money of one country × operator × currency over a window. */
export interface OperatorWindow {
  country: string;
  operator: string;
  currency: string;
  attempts: number;
  failed: number;
  volume: number;
  fees: number;
}

export type RecommendationKind = 'operator_failing' | 'reengage_customers' | 'cheaper_rail';
export const RECOMMENDATION_KINDS: readonly RecommendationKind[] = ['operator_failing', 'reengage_customers', 'cheaper_rail'];

export interface Recommendation {
  /** Stable for the same finding, so the dashboard can remember a dismissed one. */
  id: string;
  object: 'intelligence.recommendation';
  kind: RecommendationKind;
  severity: 'high' | 'medium' | 'low';
  title: string;
  detail: string;
  /** The figures behind it. */
  evidence: Record<string, string | number>;
}

/** Too few attempts say nothing about a failure rate. */
export const MIN_ATTEMPTS = 20;
/** An operator is failing "more than usual" when its recent failure rate is this much above its baseline, and at least 1.5 times it. */
export const FAILURE_RATE_MARGIN = 0.1;
/** Without a baseline, a recent failure rate from which an operator is worth a look. */
export const FAILURE_RATE_ALONE = 0.3;
/** A rail is worth switching to when its fee rate is at most this share of the one most used. */
export const CHEAPER_SHARE = 0.8;

const pct = (rate: number) => `${Math.round(rate * 1000) / 10}%`;
const rateOf = (w: OperatorWindow) => (w.attempts === 0 ? 0 : w.failed / w.attempts);

export interface OperatorHealth {
  failureRate: number | null;
  /** Over the baseline window; null without enough attempts there. */
  usualFailureRate: number | null;
  status: 'healthy' | 'degraded' | 'insufficient_data';
}

const rounded = (rate: number) => Math.round(rate * 10_000) / 10_000;

/** An operator's recent failure rate against its own baseline: degraded when well above it (or high, without one). */
export function operatorHealth(now: OperatorWindow, before: OperatorWindow | undefined): OperatorHealth {
  const failureRate = now.attempts === 0 ? null : rounded(rateOf(now));
  const usualFailureRate = before && before.attempts >= MIN_ATTEMPTS ? rounded(rateOf(before)) : null;
  if (now.attempts < MIN_ATTEMPTS || failureRate === null) return { failureRate, usualFailureRate, status: 'insufficient_data' };
  // Thresholds rounded like the rates, so 60% against a usual 40% is 1.5 times it, as it reads.
  const degraded = usualFailureRate === null ? failureRate >= FAILURE_RATE_ALONE : failureRate >= rounded(usualFailureRate + FAILURE_RATE_MARGIN) && failureRate >= rounded(usualFailureRate * 1.5);
  return { failureRate, usualFailureRate, status: degraded ? 'degraded' : 'healthy' };
}

/** The baseline window of the same country × operator × currency. */
export const baselineOf = (now: OperatorWindow, baseline: readonly OperatorWindow[]) => baseline.find((b) => b.country === now.country && b.operator === now.operator && b.currency === now.currency);

/** Operators whose failure rate over the recent window is well above their own baseline. */
export function failingOperators(recent: readonly OperatorWindow[], baseline: readonly OperatorWindow[]): Recommendation[] {
  const out: Recommendation[] = [];
  for (const now of recent) {
    const health = operatorHealth(now, baselineOf(now, baseline));
    if (health.status !== 'degraded') continue;
    const recentRate = health.failureRate!;
    const usual = health.usualFailureRate;
    out.push({
      id: `operator_failing:${now.country}:${now.operator}:${now.currency}`,
      object: 'intelligence.recommendation',
      kind: 'operator_failing',
      severity: 'high',
      title: `${now.operator} in ${now.country} is failing more than usual`,
      detail:
        usual === null
          ? `${pct(recentRate)} of ${now.attempts} payments failed over the last 7 days. Offer payers another operator or method while it lasts.`
          : `${pct(recentRate)} of ${now.attempts} payments failed over the last 7 days, against ${pct(usual)} over the 28 days before. Offer payers another operator or method while it lasts.`,
      evidence: { country: now.country, operator: now.operator, currency: now.currency, attempts: now.attempts, failed: now.failed, failure_rate: recentRate, ...(usual === null ? {} : { usual_failure_rate: usual }) },
    });
  }
  return out;
}

/** Customers who paid before but not in the last 30 days (not yet churned) are worth a message. */
export function customersToReengage(atRisk: number): Recommendation[] {
  if (atRisk === 0) return [];
  return [
    {
      id: 'reengage_customers',
      object: 'intelligence.recommendation',
      kind: 'reengage_customers',
      severity: 'medium',
      title: `${atRisk} customer${atRisk === 1 ? '' : 's'} stopped paying`,
      detail: `${atRisk} customer${atRisk === 1 ? ' has' : 's have'} not paid for 30 to 90 days. Re-engage them before they churn (GET /api/v1/intelligence/lifecycle/customers?stage=at_risk lists them).`,
      evidence: { at_risk: atRisk },
    },
  ];
}

/**
 * Per country and currency, the operator with the lowest fee rate the merchant actually paid,
 * against the one carrying the most volume: worth it when it costs at most CHEAPER_SHARE as much.
 */
export function cheaperRails(window: readonly OperatorWindow[]): Recommendation[] {
  const groups = new Map<string, OperatorWindow[]>();
  for (const w of window) {
    if (w.volume <= 0) continue;
    const key = `${w.country}:${w.currency}`;
    groups.set(key, [...(groups.get(key) ?? []), w]);
  }
  const out: Recommendation[] = [];
  for (const options of groups.values()) {
    if (options.length < 2) continue;
    const fee = (w: OperatorWindow) => w.fees / w.volume;
    const mostUsed = options.reduce((a, b) => (b.volume > a.volume ? b : a));
    const cheapest = options.reduce((a, b) => (fee(b) < fee(a) ? b : a));
    if (cheapest === mostUsed || fee(cheapest) > fee(mostUsed) * CHEAPER_SHARE) continue;
    const saving = Math.round((fee(mostUsed) - fee(cheapest)) * mostUsed.volume);
    out.push({
      id: `cheaper_rail:${mostUsed.country}:${mostUsed.currency}:${cheapest.operator}`,
      object: 'intelligence.recommendation',
      kind: 'cheaper_rail',
      severity: 'low',
      title: `${cheapest.operator} costs less than ${mostUsed.operator} in ${mostUsed.country}`,
      detail: `Over the last 30 days your fees were ${pct(fee(cheapest))} of volume through ${cheapest.operator} and ${pct(fee(mostUsed))} through ${mostUsed.operator}, which carried most of it. Steering payers to ${cheapest.operator} would have saved about ${saving} ${mostUsed.currency}.`,
      evidence: { country: mostUsed.country, currency: mostUsed.currency, cheaper: cheapest.operator, current: mostUsed.operator, cheaper_fee_rate: fee(cheapest), current_fee_rate: fee(mostUsed), estimated_saving: saving },
    });
  }
  return out;
}

const SEVERITY_ORDER = { high: 0, medium: 1, low: 2 } as const;

/** Every recommendation, most severe first. */
export function recommend(input: { recent: readonly OperatorWindow[]; baseline: readonly OperatorWindow[]; month: readonly OperatorWindow[]; atRisk: number }): Recommendation[] {
  return [...failingOperators(input.recent, input.baseline), ...customersToReengage(input.atRisk), ...cheaperRails(input.month)].sort((a, b) => SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity]);
}
