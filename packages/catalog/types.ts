/** Shapes of the catalog: countries, currencies, operators, fees. Data lives beside this file. */

export type Direction = 'payin' | 'payout';
export type PaymentMethodType = 'mobile_money' | 'card' | 'bank';

export interface Currency {
  /** ISO 4217, upper case. */
  code: string;
  /** Digits after the decimal point: amounts are integers in units of 10^-minorUnits. */
  minorUnits: number;
  name: string;
}

export interface AmountLimits {
  /** Inclusive, in minor units. */
  min: number;
  max: number;
}

export interface Operator {
  /** Stable code used in the API, lower snake case: `orange_money`, `wave`, `mtn`. */
  code: string;
  name: string;
  country: string;
  currency: string;
  /** Directions the operator serves; a payin-only operator refuses payouts. */
  directions: Direction[];
  limits: Partial<Record<Direction, AmountLimits>>;
  /** Decimals the operator accepts in amounts (0 for XOF even where the currency had more). */
  decimals: number;
  /** Minutes after which a payout through this operator is expected to be final. */
  payoutExpectedMinutes: number;
}

export interface Country {
  /** ISO 3166-1 alpha-2, upper case. */
  code: string;
  name: string;
  currency: string;
  /** Without '+', e.g. "221". */
  callingCode: string;
  operators: Operator[];
}

export interface FeeRule {
  direction: Direction;
  method: PaymentMethodType;
  /** Omitted = any country / any operator. The most specific matching rule wins. */
  country?: string;
  operator?: string;
  /**
   * ISO 4217, upper case. Omitted = any currency. A currency rule carries what must differ by
   * currency (a minimum, a fixed part) for every country of that currency; a country or operator
   * rule is more specific than a currency rule.
   */
  currency?: string;
  /** Percentage part in basis points (1/100 of a percent). */
  basisPoints: number;
  /** Fixed part, minor units of the country's currency. */
  fixed: number;
  min: number;
  /** null = no maximum. */
  max: number | null;
}

export interface FeeQuoteInput {
  amount: number;
  currency: string;
  direction: Direction;
  method: PaymentMethodType;
  country: string;
  operator?: string;
}

export interface FeeQuote {
  /** The input, normalised: currency and country upper case, operator lower case (null when none). */
  amount: number;
  currency: string;
  direction: Direction;
  method: PaymentMethodType;
  country: string;
  operator: string | null;
  fee: number;
  /** Payin: what the merchant is credited (amount − fee). Payout: what the recipient gets (amount). */
  net: number;
  /** What leaves the merchant's balance for a payout (amount + fee); the amount for a payin. */
  total: number;
  rule: FeeRule;
}
