/**
 * The fee schedule and the one function that prices a transaction with it (docs/fees.md). `POST /api/v1/fees/quote`, the payout balance check (amount + fee must be available)
 * and the ledger postings of payments (merchant gets amount − fee) all call `quoteFee`, so a quote
 * is exactly what is charged. docs/fees.md shows the same table for merchants; keep both in step.
 */
import { ApiError } from '#packages/core/errors.js';
import { bankPayoutLimits, getCountry, getOperator } from './countries.js';
import { getCurrency } from './currencies.js';
import type { Direction, FeeQuote, FeeQuoteInput, FeeRule, Operator, PaymentMethodType } from './types.js';

/** Largest amount a quote accepts, in minor units (keeps amount + fee a safe integer). */
export const MAX_AMOUNT = 999_999_999_999;

const DIRECTIONS: readonly Direction[] = ['payin', 'payout'];
const METHODS: readonly PaymentMethodType[] = ['mobile_money', 'card', 'bank'];

type RuleSpec = Omit<FeeRule, 'fixed' | 'min' | 'max'> & Partial<Pick<FeeRule, 'fixed' | 'min' | 'max'>>;

function rule(spec: RuleSpec): FeeRule {
  return { fixed: 0, min: 0, max: null, ...spec };
}

/** Per-currency amounts, in minor units of that currency. */
const PAYOUT_MOBILE_MONEY_MIN: Record<string, number> = { XOF: 100, XAF: 100, GHS: 100, KES: 1_000, UGX: 500, RWF: 100 };
const CARD_FIXED: Record<string, number> = { XOF: 100, XAF: 100, GHS: 100, KES: 1_000, UGX: 500, RWF: 100, NGN: 10_000 };
const PAYOUT_BANK_FIXED: Record<string, number> = { XOF: 1_000, XAF: 1_000, GHS: 1_000, KES: 10_000, UGX: 5_000, RWF: 1_000, NGN: 10_000 };

/**
 * The schedule. For a transaction, the matching rule with the most specific key wins:
 * operator (always with its country) > country > currency > default. Rules with the same key
 * are not allowed (a unit test checks it), so the choice never depends on order.
 */
export const FEE_SCHEDULE: readonly FeeRule[] = Object.freeze(
  [
    // Defaults: one per direction × method the platform serves (payouts go to mobile money or banks).
    rule({ direction: 'payin', method: 'mobile_money', basisPoints: 150 }),
    rule({ direction: 'payin', method: 'card', basisPoints: 290 }),
    rule({ direction: 'payin', method: 'bank', basisPoints: 100 }),
    rule({ direction: 'payout', method: 'mobile_money', basisPoints: 100 }),
    rule({ direction: 'payout', method: 'bank', basisPoints: 100 }),

    // Per currency: mobile money payouts 1% with a minimum; cards 2.9% plus a fixed part;
    // bank payouts a fixed fee.
    ...Object.entries(PAYOUT_MOBILE_MONEY_MIN).map(([currency, min]) => rule({ direction: 'payout', method: 'mobile_money', currency, basisPoints: 100, min })),
    ...Object.entries(CARD_FIXED).map(([currency, fixed]) => rule({ direction: 'payin', method: 'card', currency, basisPoints: 290, fixed })),
    ...Object.entries(PAYOUT_BANK_FIXED).map(([currency, fixed]) => rule({ direction: 'payout', method: 'bank', currency, basisPoints: 0, fixed })),

    // Per country.
    rule({ direction: 'payin', method: 'mobile_money', country: 'CM', basisPoints: 200 }),
    rule({ direction: 'payout', method: 'mobile_money', country: 'GH', basisPoints: 100, min: 100, max: 2_000 }),

    // Per operator.
    rule({ direction: 'payin', method: 'mobile_money', country: 'SN', operator: 'wave', basisPoints: 100 }),
    rule({ direction: 'payin', method: 'mobile_money', country: 'CI', operator: 'wave', basisPoints: 100 }),
    rule({ direction: 'payout', method: 'mobile_money', country: 'SN', operator: 'wave', basisPoints: 100, min: 50 }),
    rule({ direction: 'payin', method: 'mobile_money', country: 'KE', operator: 'mpesa', basisPoints: 150, max: 20_000 }),
    rule({ direction: 'payout', method: 'mobile_money', country: 'KE', operator: 'mpesa', basisPoints: 100, min: 1_000, max: 10_000 }),
  ].map((r) => Object.freeze(r)),
);

/**
 * The fee of a dispute (docs/fees.md, "Disputes"), per currency in its minor units: charged when
 * the dispute opens and kept whatever its outcome. A currency without one charges none.
 */
const DISPUTE_FEES: Readonly<Record<string, number>> = Object.freeze({ NGN: 150_000 });

/** The dispute fee of a currency (any case), in minor units; 0 when the catalog sets none. */
export function disputeFee(currency: string): number {
  return DISPUTE_FEES[currency.toUpperCase()] ?? 0;
}

/** How specific a rule is: operator > country > currency > default. */
export function ruleSpecificity(r: FeeRule): number {
  if (r.operator !== undefined) return 3;
  if (r.country !== undefined) return 2;
  if (r.currency !== undefined) return 1;
  return 0;
}

/** Rules by direction × method, most specific first. */
const INDEX: ReadonlyMap<string, readonly FeeRule[]> = (() => {
  const index = new Map<string, FeeRule[]>();
  for (const r of FEE_SCHEDULE) {
    const key = `${r.direction}:${r.method}`;
    const list = index.get(key) ?? [];
    list.push(r);
    index.set(key, list);
  }
  for (const list of index.values()) list.sort((a, b) => ruleSpecificity(b) - ruleSpecificity(a));
  return index;
})();

function findRule(direction: Direction, method: PaymentMethodType, country: string, currency: string, operator: string | null): FeeRule | undefined {
  return INDEX.get(`${direction}:${method}`)?.find((r) => (r.operator === undefined || r.operator === operator) && (r.country === undefined || r.country === country) && (r.currency === undefined || r.currency === currency));
}

/** `amount × basisPoints / 10000`, rounded half up to a whole minor unit, in exact integer arithmetic. */
function percentOf(amount: number, basisPoints: number): number {
  const scaled = amount * basisPoints + 5_000;
  if (Number.isSafeInteger(scaled)) return (scaled - (scaled % 10_000)) / 10_000;
  return Number((BigInt(amount) * BigInt(basisPoints) + 5_000n) / 10_000n);
}

function formatMinor(amount: number, minorUnits: number, currency: string): string {
  const value = minorUnits === 0 ? amount.toLocaleString('en-US') : (amount / 10 ** minorUnits).toLocaleString('en-US', { minimumFractionDigits: minorUnits });
  return `${currency} ${value}`;
}

/** The step of the amounts an operator takes, in minor units: more than 1 where it takes whole currency units only. */
export function amountStep(operator: Operator, minorUnits: number): number {
  return 10 ** Math.max(0, minorUnits - operator.decimals);
}

function checkOperator(operator: Operator, direction: Direction, amount: number, minorUnits: number): void {
  if (!operator.directions.includes(direction)) {
    throw new ApiError('IKW-VAL-006', `${operator.name} (${operator.code}) does not serve ${direction}s in ${operator.country}; it serves: ${operator.directions.join(', ')}`, 'operator');
  }
  const limits = operator.limits[direction];
  if (limits && (amount < limits.min || amount > limits.max)) {
    const fmt = (n: number) => `${n} (${formatMinor(n, minorUnits, operator.currency)})`;
    throw new ApiError('IKW-VAL-008', `${operator.name} accepts ${direction} amounts from ${fmt(limits.min)} to ${fmt(limits.max)} in minor units; got ${amount}`, 'amount');
  }
  const step = amountStep(operator, minorUnits);
  if (amount % step !== 0) {
    throw new ApiError('IKW-VAL-008', `${operator.name} accepts whole ${operator.currency} amounts only: amount must be a multiple of ${step} minor units`, 'amount');
  }
}

/**
 * Prices one transaction: validates the input against the catalog, picks the most specific rule,
 * and computes `fee = clamp(round_half_up(amount × bp / 10000) + fixed, min, max)`, capped at the
 * amount for a payin. Pure and synchronous. Throws ApiError (IKW-VAL-001/002/003/004/005/006/008/009)
 * naming the offending parameter.
 */
export function quoteFee(input: FeeQuoteInput): FeeQuote {
  const { amount, direction, method } = input;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 1 || amount > MAX_AMOUNT) {
    throw new ApiError('IKW-VAL-001', `amount must be an integer from 1 to ${MAX_AMOUNT}, in the currency's minor units`, 'amount');
  }
  if (!DIRECTIONS.includes(direction)) throw new ApiError('IKW-VAL-001', `direction must be one of: ${DIRECTIONS.join(', ')}`, 'direction');
  if (!METHODS.includes(method)) throw new ApiError('IKW-VAL-001', `method must be one of: ${METHODS.join(', ')}`, 'method');
  const currency = getCurrency(input.currency);
  if (!currency) throw new ApiError('IKW-VAL-003', `Unknown or unsupported currency: '${String(input.currency)}'`, 'currency');
  const country = getCountry(input.country);
  if (!country) throw new ApiError('IKW-VAL-004', `Unknown or unsupported country: '${String(input.country)}'`, 'country');
  if (country.currency !== currency.code) {
    throw new ApiError('IKW-VAL-009', `${country.name} (${country.code}) uses ${country.currency.toLowerCase()}, not ${currency.code.toLowerCase()}`, 'currency');
  }
  if (direction === 'payout' && method === 'card') {
    throw new ApiError('IKW-VAL-001', 'Payouts go to mobile_money or bank, not card', 'method');
  }

  // Callers that read JSON may hand over null for "no operator": treat it as absent.
  const requested: string | null = input.operator ?? null;
  let operator: Operator | undefined;
  if (method === 'mobile_money') {
    if (requested === null || requested === '') {
      throw new ApiError('IKW-VAL-001', 'operator is required for mobile_money', 'operator');
    }
    operator = getOperator(country.code, requested);
    if (!operator) {
      const known = country.operators.map((o) => o.code).join(', ');
      throw new ApiError('IKW-VAL-005', `Unknown operator '${String(requested)}' for ${country.code}; known: ${known}`, 'operator');
    }
    checkOperator(operator, direction, amount, currency.minorUnits);
  } else if (requested !== null) {
    throw new ApiError('IKW-VAL-002', `operator applies to mobile_money only, not ${method}`, 'operator');
  }
  const bankLimits = direction === 'payout' && method === 'bank' ? bankPayoutLimits(country.code) : undefined;
  if (bankLimits && (amount < bankLimits.min || amount > bankLimits.max)) {
    const fmt = (n: number) => `${n} (${formatMinor(n, currency.minorUnits, currency.code)})`;
    throw new ApiError('IKW-VAL-008', `Bank payouts in ${country.name} take amounts from ${fmt(bankLimits.min)} to ${fmt(bankLimits.max)} in minor units; got ${amount}`, 'amount');
  }

  const operatorCode = operator?.code ?? null;
  const applied = findRule(direction, method, country.code, currency.code, operatorCode);
  // The schedule has a default for every direction × method accepted above (a unit test checks it).
  if (!applied) throw new Error(`No fee rule for ${direction} ${method} ${country.code} ${operatorCode ?? '-'}`);

  let fee = percentOf(amount, applied.basisPoints) + applied.fixed;
  if (fee < applied.min) fee = applied.min;
  if (applied.max !== null && fee > applied.max) fee = applied.max;
  if (direction === 'payin' && fee > amount) fee = amount;

  return {
    amount,
    currency: currency.code,
    direction,
    method,
    country: country.code,
    operator: operatorCode,
    fee,
    net: direction === 'payin' ? amount - fee : amount,
    total: direction === 'payin' ? amount : amount + fee,
    rule: applied,
  };
}
