import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

/** Amounts in a currency's minor unit, by lower-case currency code (`{ "xof": 500000 }`). */
export type PerCurrency = Readonly<Record<string, number>>;

/** A rolling reserve: `percent` of each payment held in `reserved` for `days` days. */
export interface RollingReserve {
  percent: number;
  days: number;
}

/** Payouts frozen: why (the merchant reads it) and since when. */
export interface PayoutFreeze {
  reason: string;
  since: string;
}

/** The limits and holds of one merchant in one environment, as the risk operators left them. */
export interface Limits {
  merchantId: string;
  environment: Environment;
  transactionMaximums: PerCurrency;
  dailyPayoutCaps: PerCurrency;
  payoutFreeze: PayoutFreeze | null;
  rollingReserve: RollingReserve | null;
  updatedAt: string | null;
}

/** The limits as the API answers them (GET /api/v1/limits) and their events carry (`data.object`). */
export interface LimitsObject {
  object: 'limits';
  merchantId: string;
  environment: Environment;
  transactionMaximums: PerCurrency;
  dailyPayoutCaps: PerCurrency;
  payoutFreeze: { reason: string; since: number } | null;
  rollingReserve: RollingReserve | null;
  updated: number | null;
}

interface Owned {
  merchantId: string;
  environment: Environment;
  at: string;
}

/** Internal events: the merchant reads its limits (GET /api/v1/limits); the operator who decided is the event's actor. */
export type LimitsEvent =
  | DomainEvent<'merchant_limits.amounts_set', Owned & { transactionMaximums: PerCurrency; dailyPayoutCaps: PerCurrency; object: LimitsObject }>
  | DomainEvent<'merchant_limits.payouts_frozen', Owned & { reason: string; object: LimitsObject }>
  | DomainEvent<'merchant_limits.payouts_unfrozen', Owned & { object: LimitsObject }>
  | DomainEvent<'merchant_limits.reserve_set', Owned & { rollingReserve: RollingReserve | null; object: LimitsObject }>;

/** One stream per merchant and environment: the sandbox's limits never touch live's. */
export const limitsStream = (id: string) => `merchant_limits-${id}`;
export const limitsId = (merchantId: string, environment: Environment) => `${merchantId}-${environment}`;
