import type { Decider, Fact } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';
import type { Limits, LimitsEvent, PerCurrency, RollingReserve } from './events.js';

interface About {
  merchantId: string;
  environment: Environment;
  at: Date;
}

export type LimitsCommand =
  | (About & { type: 'set_amounts'; transactionMaximums: PerCurrency; dailyPayoutCaps: PerCurrency })
  | (About & { type: 'freeze_payouts'; reason: string })
  | (About & { type: 'unfreeze_payouts' })
  | (About & { type: 'set_reserve'; rollingReserve: RollingReserve | null });

export interface LimitsState {
  limits: Limits | null;
}

/** No limit, no hold: what a merchant no operator has limited has. */
export const noLimits = (merchantId: string, environment: Environment): Limits => ({
  merchantId,
  environment,
  transactionMaximums: {},
  dailyPayoutCaps: {},
  payoutFreeze: null,
  rollingReserve: null,
  updatedAt: null,
});

/**
 * The limits of one merchant in one environment. Every command is a risk operator's decision,
 * recorded as it is (setting the same values again is recorded again: the audit trail shows who
 * looked and confirmed); unfreezing payouts that are not frozen records nothing.
 */
export const limitsDecider: Decider<LimitsCommand, LimitsState, Fact<LimitsEvent>> = {
  initialState: { limits: null },
  evolve(state, event) {
    const d = event.data;
    const limits = { ...(state.limits ?? noLimits(d.merchantId, d.environment)), updatedAt: d.at };
    switch (event.type) {
      case 'merchant_limits.amounts_set':
        return { limits: { ...limits, transactionMaximums: event.data.transactionMaximums, dailyPayoutCaps: event.data.dailyPayoutCaps } };
      case 'merchant_limits.payouts_frozen':
        return { limits: { ...limits, payoutFreeze: { reason: event.data.reason, since: state.limits?.payoutFreeze?.since ?? d.at } } };
      case 'merchant_limits.payouts_unfrozen':
        return { limits: { ...limits, payoutFreeze: null } };
      case 'merchant_limits.reserve_set':
        return { limits: { ...limits, rollingReserve: event.data.rollingReserve } };
    }
  },
  decide(command, state) {
    const owned = { merchantId: command.merchantId, environment: command.environment, at: command.at.toISOString() };
    switch (command.type) {
      case 'set_amounts':
        return [{ type: 'merchant_limits.amounts_set', data: { ...owned, transactionMaximums: command.transactionMaximums, dailyPayoutCaps: command.dailyPayoutCaps } }];
      case 'freeze_payouts':
        return [{ type: 'merchant_limits.payouts_frozen', data: { ...owned, reason: command.reason } }];
      case 'unfreeze_payouts':
        return state.limits?.payoutFreeze ? [{ type: 'merchant_limits.payouts_unfrozen', data: owned }] : [];
      case 'set_reserve':
        return [{ type: 'merchant_limits.reserve_set', data: { ...owned, rollingReserve: command.rollingReserve } }];
    }
  },
};
