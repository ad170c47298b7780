/**
 * The operator catalog (docs/catalog.md): country (ISO 3166-1 alpha-2) → currency,
 * calling code, mobile money operators; per operator the directions it serves, per-direction
 * limits (inclusive, minor units), the decimals it accepts, and when a payout through it is
 * expected to be final. docs/catalog.md shows the same table for merchants; keep both in step.
 *
 * Sources: pawaPay's provider list and active configuration (limits, decimals), Flutterwave's
 * mobile money networks, operators' published wallet ceilings. Limits are per transaction; wallets
 * also have daily and monthly ceilings, so a payment within these limits can still be refused by
 * the operator.
 */
import type { AmountLimits, Country, Direction, Operator } from './types.js';

/** Default for mobile money: a payout not final 10 minutes after creation is late. */
export const DEFAULT_PAYOUT_EXPECTED_MINUTES = 10;

interface OperatorSpec {
  code: string;
  name: string;
  payin?: AmountLimits;
  payout?: AmountLimits;
  /** Defaults to the currency's minor units. */
  decimals?: number;
  payoutExpectedMinutes?: number;
}

interface CountrySpec {
  code: string;
  name: string;
  currency: string;
  /** Without '+'. */
  callingCode: string;
  /** Minor units of the currency, for the operators' default decimals. */
  minorUnits: number;
  operators: OperatorSpec[];
}

const lim = (min: number, max: number): AmountLimits => ({ min, max });

// XOF, zero decimals: 100 to 2,000,000 francs in, 100 to 1,500,000 francs out.
const XOF_IN = lim(100, 2_000_000);
const XOF_OUT = lim(100, 1_500_000);
// XAF (Cameroon): 100 to 1,000,000 francs in, 100 to 500,000 francs out.
const XAF_IN = lim(100, 1_000_000);
const XAF_OUT = lim(100, 500_000);
// GHS, two decimals: GHS 1.00 to GHS 10,000.00.
const GHS_IN = lim(100, 1_000_000);
const GHS_OUT = lim(100, 1_000_000);
// UGX, zero decimals.
const UGX_IN = lim(500, 5_000_000);
const UGX_OUT = lim(500, 5_000_000);
// RWF, zero decimals.
const RWF_IN = lim(100, 2_000_000);
const RWF_OUT = lim(100, 2_000_000);

const SPECS: CountrySpec[] = [
  {
    code: 'SN',
    name: 'Senegal',
    currency: 'XOF',
    callingCode: '221',
    minorUnits: 0,
    operators: [
      { code: 'orange_money', name: 'Orange Money', payin: XOF_IN, payout: XOF_OUT },
      { code: 'wave', name: 'Wave', payin: XOF_IN, payout: lim(100, 2_000_000) },
      { code: 'free_money', name: 'Free Money', payin: XOF_IN, payout: XOF_OUT },
      // Expresso E-Money: collections only (no disbursement API), so payouts to it are refused.
      { code: 'e_money', name: 'Expresso E-Money', payin: lim(100, 1_000_000) },
    ],
  },
  {
    code: 'CI',
    name: "Côte d'Ivoire",
    currency: 'XOF',
    callingCode: '225',
    minorUnits: 0,
    operators: [
      { code: 'orange_money', name: 'Orange Money', payin: XOF_IN, payout: XOF_OUT },
      { code: 'mtn', name: 'MTN Mobile Money', payin: XOF_IN, payout: XOF_OUT },
      { code: 'moov', name: 'Moov Money', payin: XOF_IN, payout: XOF_OUT },
      { code: 'wave', name: 'Wave', payin: XOF_IN, payout: lim(100, 2_000_000) },
    ],
  },
  {
    code: 'ML',
    name: 'Mali',
    currency: 'XOF',
    callingCode: '223',
    minorUnits: 0,
    operators: [
      { code: 'orange_money', name: 'Orange Money', payin: XOF_IN, payout: XOF_OUT },
      { code: 'moov', name: 'Moov Money', payin: XOF_IN, payout: XOF_OUT },
      { code: 'wave', name: 'Wave', payin: XOF_IN, payout: XOF_OUT },
    ],
  },
  {
    code: 'BF',
    name: 'Burkina Faso',
    currency: 'XOF',
    callingCode: '226',
    minorUnits: 0,
    operators: [
      { code: 'orange_money', name: 'Orange Money', payin: XOF_IN, payout: XOF_OUT },
      { code: 'moov', name: 'Moov Money', payin: XOF_IN, payout: XOF_OUT },
    ],
  },
  {
    code: 'BJ',
    name: 'Benin',
    currency: 'XOF',
    callingCode: '229',
    minorUnits: 0,
    operators: [
      { code: 'mtn', name: 'MTN Mobile Money', payin: XOF_IN, payout: XOF_OUT },
      { code: 'moov', name: 'Moov Money', payin: XOF_IN, payout: XOF_OUT },
    ],
  },
  {
    code: 'TG',
    name: 'Togo',
    currency: 'XOF',
    callingCode: '228',
    minorUnits: 0,
    operators: [
      { code: 'tmoney', name: 'T-Money', payin: XOF_IN, payout: XOF_OUT },
      { code: 'flooz', name: 'Flooz', payin: XOF_IN, payout: XOF_OUT },
    ],
  },
  {
    code: 'CM',
    name: 'Cameroon',
    currency: 'XAF',
    callingCode: '237',
    minorUnits: 0,
    operators: [
      { code: 'mtn', name: 'MTN Mobile Money', payin: XAF_IN, payout: XAF_OUT },
      { code: 'orange_money', name: 'Orange Money', payin: XAF_IN, payout: XAF_OUT },
    ],
  },
  {
    code: 'GH',
    name: 'Ghana',
    currency: 'GHS',
    callingCode: '233',
    minorUnits: 2,
    operators: [
      { code: 'mtn', name: 'MTN Mobile Money', payin: GHS_IN, payout: GHS_OUT },
      { code: 'telecel', name: 'Telecel Cash', payin: GHS_IN, payout: GHS_OUT },
      { code: 'airteltigo', name: 'AT Money (AirtelTigo)', payin: lim(100, 500_000), payout: lim(100, 500_000) },
    ],
  },
  {
    code: 'KE',
    name: 'Kenya',
    currency: 'KES',
    callingCode: '254',
    minorUnits: 2,
    operators: [
      // M-Pesa takes whole shillings only: KES 1 to KES 250,000 in, KES 10 to KES 150,000 out.
      { code: 'mpesa', name: 'M-Pesa', payin: lim(100, 25_000_000), payout: lim(1_000, 15_000_000), decimals: 0 },
      { code: 'airtel_money', name: 'Airtel Money', payin: lim(1_000, 15_000_000), payout: lim(1_000, 15_000_000), decimals: 0 },
    ],
  },
  {
    // Banks only (through Paystack: docs/connectors.md); no mobile money operator of Nigeria is carried.
    code: 'NG',
    name: 'Nigeria',
    currency: 'NGN',
    callingCode: '234',
    minorUnits: 2,
    operators: [],
  },
  {
    code: 'UG',
    name: 'Uganda',
    currency: 'UGX',
    callingCode: '256',
    minorUnits: 0,
    operators: [
      { code: 'mtn', name: 'MTN Mobile Money', payin: UGX_IN, payout: UGX_OUT },
      { code: 'airtel_money', name: 'Airtel Money', payin: UGX_IN, payout: lim(500, 4_000_000) },
    ],
  },
  {
    code: 'RW',
    name: 'Rwanda',
    currency: 'RWF',
    callingCode: '250',
    minorUnits: 0,
    operators: [
      { code: 'mtn', name: 'MTN Mobile Money', payin: RWF_IN, payout: RWF_OUT },
      { code: 'airtel_money', name: 'Airtel Money', payin: lim(100, 1_000_000), payout: lim(100, 1_000_000) },
    ],
  },
];

function buildOperator(country: CountrySpec, spec: OperatorSpec): Operator {
  const directions: Direction[] = [];
  const limits: Partial<Record<Direction, AmountLimits>> = {};
  if (spec.payin) {
    directions.push('payin');
    limits.payin = Object.freeze({ ...spec.payin });
  }
  if (spec.payout) {
    directions.push('payout');
    limits.payout = Object.freeze({ ...spec.payout });
  }
  return Object.freeze({
    code: spec.code,
    name: spec.name,
    country: country.code,
    currency: country.currency,
    directions: Object.freeze(directions) as Direction[],
    limits: Object.freeze(limits),
    decimals: spec.decimals ?? country.minorUnits,
    payoutExpectedMinutes: spec.payoutExpectedMinutes ?? DEFAULT_PAYOUT_EXPECTED_MINUTES,
  });
}

// Frozen: lookups hand out the catalog's own objects, so nobody may change them in place.
const COUNTRIES: readonly Country[] = SPECS.map((spec) =>
  Object.freeze({
    code: spec.code,
    name: spec.name,
    currency: spec.currency,
    callingCode: spec.callingCode,
    operators: Object.freeze(spec.operators.map((o) => buildOperator(spec, o))) as Operator[],
  }),
).sort((a, b) => a.code.localeCompare(b.code));

const BY_CODE: ReadonlyMap<string, Country> = new Map(COUNTRIES.map((c) => [c.code, c]));
const OPERATORS: ReadonlyMap<string, ReadonlyMap<string, Operator>> = new Map(COUNTRIES.map((c) => [c.code, new Map(c.operators.map((o) => [o.code, o]))]));

/**
 * Per-transfer limits of bank payouts, inclusive, in minor units, by country (docs/catalog.md,
 * "Banks"): Nigeria's are Paystack's for a transfer to a NUBAN account, NGN 100 to NGN 10,000,000.
 * A country not listed has none of Sika's own; its bank or rail may still refuse an amount.
 */
const BANK_PAYOUT_LIMITS: Readonly<Record<string, AmountLimits>> = { NG: lim(10_000, 1_000_000_000) };

/**
 * The largest card payment by country, in minor units, where the country's cards are carried
 * (Nigeria through Paystack: NGN 10,000,000, Paystack's ceiling of one transaction).
 */
const CARD_PAYIN_MAX: Readonly<Record<string, number>> = { NG: 1_000_000_000 };

/** The currencies cards are paid in: Paystack's (docs/connectors.md); the other currencies' cards are carried by no rail. */
const CARD_CURRENCIES: readonly string[] = ['NGN', 'GHS', 'KES', 'ZAR', 'USD'];

/** Whether payers in `country` can pay by card (in its currency). */
export function takesCards(country: Country): boolean {
  return CARD_CURRENCIES.includes(country.currency.toUpperCase());
}

/** The largest payment any rail of the country takes: its operators' and its cards'. */
export function largestPayin(country: Country): number {
  return Math.max(0, CARD_PAYIN_MAX[country.code] ?? 0, ...country.operators.map((o) => o.limits.payin?.max ?? 0));
}

/** The limits of a bank payout in `country`, when Sika has them. */
export function bankPayoutLimits(country: string): AmountLimits | undefined {
  return Object.hasOwn(BANK_PAYOUT_LIMITS, country.toUpperCase()) ? BANK_PAYOUT_LIMITS[country.toUpperCase()] : undefined;
}

/** The country with this ISO 3166-1 alpha-2 code, in any case (`sn`, `SN`); undefined when unknown. */
export function getCountry(code: string): Country | undefined {
  if (typeof code !== 'string') return undefined;
  return BY_CODE.get(code.toUpperCase());
}

/** The operator `operator` (any case) of `country` (any case); undefined when either is unknown. */
export function getOperator(country: string, operator: string): Operator | undefined {
  if (typeof country !== 'string' || typeof operator !== 'string') return undefined;
  return OPERATORS.get(country.toUpperCase())?.get(operator.toLowerCase());
}

/** Every country of the catalog, ordered by code. */
export function listCountries(): Country[] {
  return [...COUNTRIES];
}
