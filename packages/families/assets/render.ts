import type { Decider, Fact } from '#packages/core/decider.js';
import { present } from '#packages/core/aggregate.js';
import type { AssetEvent, AssetObject } from './events.js';
import { type AssetCommand, assetDecider, type AssetState } from './decider.js';

/** The public asset: what the API answers and what its events carry (`data.object`). */
export function toAssetObject(state: AssetState): AssetObject {
  const a = present(state.asset, 'asset');
  return {
    id: a.id,
    object: 'asset',
    name: a.name,
    purpose: a.purpose,
    contentType: a.contentType,
    size: a.size,
    sha256: a.sha256,
    status: state.status,
    uploadedSize: state.upload?.size ?? null,
    createdAt: a.createdAt,
    uploadedAt: state.upload?.at ?? null,
    completedAt: state.completedAt,
    livemode: a.environment === 'live',
  };
}

/** The asset aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const assetAggregate: Decider<AssetCommand, AssetState, Fact<AssetEvent>> = { ...assetDecider, render: { object: toAssetObject } };
