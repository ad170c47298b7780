import type { Environment } from '#packages/core/owner.js';
import type { PerCurrency } from '../limits/events.js';

/**
 * What a rule does when it matches (docs/risk.md): `block` refuses the attempt before any rail is
 * asked; `review` holds a payout, created and its money held, until a person releases it (a
 * payment cannot wait for one: the payer is paying now, so on a payment it is recorded as `score`);
 * `score` only records the decision.
 */
export type RiskAction = 'block' | 'review' | 'score';
export const RISK_ACTIONS: readonly RiskAction[] = ['block', 'review', 'score'];

/** A count in a window: at most `limit` attempts; the one beyond matches. */
export interface VelocityRule {
  limit: number;
  action: RiskAction;
}

/** The rules of a merchant in an environment; null: the rule is off. */
export interface RiskRuleSet {
  /** Payments by one payer (its mobile money number or e-mail) in the last hour. */
  payerPaymentsPerHour: VelocityRule | null;
  /** Payments by one payer in the last 24 hours. */
  payerPaymentsPerDay: VelocityRule | null;
  /** Payouts to one destination in the last 24 hours. */
  payoutsPerDestinationPerDay: VelocityRule | null;
  /** A payment or payout above the amount, per currency (a currency not listed has none). */
  amountCeiling: { amounts: PerCurrency; action: RiskAction } | null;
  /** The same payer paying the same amount again within `minutes` (Hub2 and Orange refuse such repeats as `fraud_suspicion`). */
  repeatedPayment: { minutes: number; action: RiskAction } | null;
  /** A payer's number or e-mail, or a payout's destination, on the merchant's blocklist. */
  blocklist: { action: RiskAction } | null;
  /**
   * A payment or payout above `multiple` times the median of the merchant's last successful ones
   * (succeeded payments, paid payouts) in its currency; only once it has `minimumHistory` of them.
   */
  amountAboveUsual: { multiple: number; minimumHistory: number; action: RiskAction } | null;
}

export type RiskRuleName = keyof RiskRuleSet;
export const RISK_RULE_NAMES: readonly RiskRuleName[] = ['payerPaymentsPerHour', 'payerPaymentsPerDay', 'payoutsPerDestinationPerDay', 'amountCeiling', 'repeatedPayment', 'blocklist', 'amountAboveUsual'];

/**
 * The platform's rules until the operators' risk role changes them (PUT /api/v1/operator/risk/rules):
 * they score (record) what looks unusual and block what the merchant blocklisted.
 */
export const DEFAULT_RISK_RULES: RiskRuleSet = {
  payerPaymentsPerHour: { limit: 10, action: 'score' },
  payerPaymentsPerDay: { limit: 30, action: 'score' },
  payoutsPerDestinationPerDay: { limit: 10, action: 'score' },
  amountCeiling: { amounts: { xof: 2_000_000, xaf: 2_000_000, ghs: 5_000_000, ngn: 500_000_000, kes: 50_000_000 }, action: 'score' },
  repeatedPayment: { minutes: 10, action: 'score' },
  blocklist: { action: 'block' },
  amountAboveUsual: { multiple: 10, minimumHistory: 20, action: 'score' },
};

/** How many of the merchant's last successful payments (or payouts) of a currency make its usual amount. */
export const USUAL_AMOUNT_WINDOW = 50;

export type BlocklistKind = 'phone' | 'email' | 'destination';
export const BLOCKLIST_KINDS: readonly BlocklistKind[] = ['phone', 'email', 'destination'];

/** One blocked value: a payer's number (E.164) or e-mail, or a payout destination (a number, or `bank_code/account_number`). */
export interface BlocklistEntry {
  id: string;
  kind: BlocklistKind;
  /** As compared: a number's digits, an e-mail in lower case, a bank account as `bank_code/account_number`. */
  value: string;
  note: string | null;
  createdAt: string;
}

/** The rules and blocklist of one merchant in one environment. */
export interface RiskSettings {
  merchantId: string;
  environment: Environment;
  /** The rules the merchant set; those absent follow the platform's defaults. */
  overrides: Partial<RiskRuleSet>;
  blocklist: BlocklistEntry[];
}

/** A set of rules: those given over the starting ones (DEFAULT_RISK_RULES). */
export function rulesInForce(overrides: Partial<RiskRuleSet>): RiskRuleSet {
  return { ...DEFAULT_RISK_RULES, ...overrides };
}

/** The merchant's rules as it reads them: its own where it set one, the platform's otherwise. */
export function merchantView(platform: RiskRuleSet, overrides: Partial<RiskRuleSet>): RiskRuleSet {
  return { ...platform, ...overrides };
}

/** The merchant's own rules that are on (those it set and did not turn off): they add to the platform's. */
export function ownRules(overrides: Partial<RiskRuleSet>): Partial<RiskRuleSet> {
  return Object.fromEntries(Object.entries(overrides).filter(([, rule]) => rule !== null)) as Partial<RiskRuleSet>;
}

/** What the payer or destination of an attempt is known by, and what was counted of its past. */
export interface Attempt {
  direction: 'payment' | 'payout';
  amount: number;
  currency: string;
  /** A payment's payer: the mobile money number's digits, the customer's e-mail in lower case. */
  phone: string | null;
  email: string | null;
  /** A payout's destination key (destinationKey). */
  destination: string | null;
}

/** The attempts counted before this one, in each rule's window (the risk family's read model). */
export interface AttemptCounts {
  payerLastHour: number;
  payerLastDay: number;
  destinationLastDay: number;
  /** The same payer and amount within the repeat rule's minutes. */
  repeats: number;
  /** The merchant's last successful payments (or payouts) in the attempt's currency: how many, and their median amount. */
  usual: { count: number; median: number };
}

/** One rule that matched, and why in words the merchant reads (never the payer). */
export interface RiskReason {
  rule: RiskRuleName;
  action: RiskAction;
  reason: string;
}

export type RiskDecision = 'allow' | 'score' | 'review' | 'block';

/** The strictest action of the rules that matched decides; none matched: allow. */
export function decisionOf(direction: Attempt['direction'], reasons: readonly RiskReason[]): RiskDecision {
  const actions = new Set(reasons.map((r) => (r.action === 'review' && direction === 'payment' ? 'score' : r.action)));
  for (const a of ['block', 'review', 'score'] as const) if (actions.has(a)) return a;
  return 'allow';
}

/** The digits of a phone number: the form numbers are compared in. */
export const phoneKey = (msisdn: string): string => msisdn.replace(/\D/g, '');

/** A payout destination as blocklists and counts name it. */
export function destinationKey(d: { type: 'mobile_money'; msisdn: string } | { type: 'bank'; bank_code: string; account_number: string }): string {
  return d.type === 'mobile_money' ? phoneKey(d.msisdn) : `${d.bank_code}/${d.account_number}`.toLowerCase();
}

/** The rules of `rules` this attempt matches, given what was counted before it and the blocklist (a rule absent is off). */
export function evaluate(rules: Partial<RiskRuleSet>, blocklist: readonly BlocklistEntry[], attempt: Attempt, counts: AttemptCounts): RiskReason[] {
  const reasons: RiskReason[] = [];
  const payer = attempt.direction === 'payment';
  if (payer && rules.payerPaymentsPerHour && (attempt.phone || attempt.email) && counts.payerLastHour >= rules.payerPaymentsPerHour.limit) {
    reasons.push({ rule: 'payerPaymentsPerHour', action: rules.payerPaymentsPerHour.action, reason: `The payer made ${counts.payerLastHour} payment attempts in the last hour (the rule allows ${rules.payerPaymentsPerHour.limit})` });
  }
  if (payer && rules.payerPaymentsPerDay && (attempt.phone || attempt.email) && counts.payerLastDay >= rules.payerPaymentsPerDay.limit) {
    reasons.push({ rule: 'payerPaymentsPerDay', action: rules.payerPaymentsPerDay.action, reason: `The payer made ${counts.payerLastDay} payment attempts in the last 24 hours (the rule allows ${rules.payerPaymentsPerDay.limit})` });
  }
  if (!payer && rules.payoutsPerDestinationPerDay && attempt.destination && counts.destinationLastDay >= rules.payoutsPerDestinationPerDay.limit) {
    reasons.push({
      rule: 'payoutsPerDestinationPerDay',
      action: rules.payoutsPerDestinationPerDay.action,
      reason: `${counts.destinationLastDay} payouts went to this destination in the last 24 hours (the rule allows ${rules.payoutsPerDestinationPerDay.limit})`,
    });
  }
  const ceiling = rules.amountCeiling?.amounts[attempt.currency.toLowerCase()];
  if (rules.amountCeiling && ceiling !== undefined && attempt.amount > ceiling) {
    reasons.push({ rule: 'amountCeiling', action: rules.amountCeiling.action, reason: `The amount ${attempt.amount} ${attempt.currency.toLowerCase()} is above the ceiling of ${ceiling}` });
  }
  if (payer && rules.repeatedPayment && counts.repeats > 0) {
    reasons.push({ rule: 'repeatedPayment', action: rules.repeatedPayment.action, reason: `The same payer paid the same amount within the last ${rules.repeatedPayment.minutes} minutes` });
  }
  if (rules.blocklist) {
    const listed = blocklist.find((e) => (e.kind === 'phone' && e.value === attempt.phone) || (e.kind === 'email' && e.value === attempt.email) || (e.kind === 'destination' && e.value === attempt.destination));
    if (listed)
      reasons.push({ rule: 'blocklist', action: rules.blocklist.action, reason: `The ${listed.kind === 'destination' ? 'destination' : `payer's ${listed.kind === 'phone' ? 'number' : 'e-mail'}`} is on the blocklist (${listed.id})` });
  }
  const usual = rules.amountAboveUsual;
  if (usual && counts.usual.count >= usual.minimumHistory && attempt.amount > usual.multiple * counts.usual.median) {
    const what = payer ? 'payments' : 'payouts';
    reasons.push({
      rule: 'amountAboveUsual',
      action: usual.action,
      reason: `The amount ${attempt.amount} ${attempt.currency.toLowerCase()} is above ${usual.multiple} times the median (${counts.usual.median}) of the merchant's last ${counts.usual.count} successful ${what}`,
    });
  }
  return reasons;
}
