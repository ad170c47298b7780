import { unixSeconds } from '#packages/core/clock.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import { present } from '#packages/core/aggregate.js';
import { featureFlagDecider, type FeatureFlagCommand, type FeatureFlagState } from './decider.js';
import type { FeatureFlagEvent, FeatureFlagObject, FeatureFlagSet } from './events.js';

/** The public feature flag: what the API answers and what `feature_flag.set` carries (`data.object`). */
export const toFeatureFlagObject = (f: FeatureFlagSet): FeatureFlagObject => ({
  id: f.id,
  object: 'feature_flag',
  key: f.key,
  isEnabled: f.isEnabled,
  merchantId: f.merchantId,
  description: f.description,
  updated: unixSeconds(new Date(f.at)),
});

/** Feature flags as the command handler runs them: a flag set is stored with the flag after it; a deletion carries none. */
export const featureFlagAggregate: Decider<FeatureFlagCommand, FeatureFlagState, Fact<FeatureFlagEvent>> = {
  ...featureFlagDecider,
  render: { object: (state) => toFeatureFlagObject(present(state.flag, 'feature flag')), internal: ['feature_flag.deleted'] },
};
