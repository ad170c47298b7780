import { unixSeconds } from '#packages/core/clock.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import { present } from '#packages/core/aggregate.js';
import { limitsDecider, type LimitsCommand, type LimitsState } from './decider.js';
import type { Limits, LimitsEvent, LimitsObject } from './events.js';

/** The public limits: what GET /api/v1/limits answers and every limits event carries (`data.object`). */
export const toLimitsObject = (l: Limits): LimitsObject => ({
  object: 'limits',
  merchantId: l.merchantId,
  environment: l.environment,
  transactionMaximums: l.transactionMaximums,
  dailyPayoutCaps: l.dailyPayoutCaps,
  payoutFreeze: l.payoutFreeze ? { reason: l.payoutFreeze.reason, since: unixSeconds(new Date(l.payoutFreeze.since)) } : null,
  rollingReserve: l.rollingReserve,
  updated: l.updatedAt === null ? null : unixSeconds(new Date(l.updatedAt)),
});

/** The limits as the command handler runs them: every event is stored with the limits after it. */
export const limitsAggregate: Decider<LimitsCommand, LimitsState, Fact<LimitsEvent>> = {
  ...limitsDecider,
  render: { object: (state) => toLimitsObject(present(state.limits, 'limits')) },
};
