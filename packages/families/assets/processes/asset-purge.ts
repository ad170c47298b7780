import type { Knex } from 'knex';
import type { ConsumerSpec } from '#packages/bus/consumer.js';
import type { Clock } from '#packages/core/clock.js';
import type { AssetBytes } from '../commands.js';
import type { AssetEvent } from '../events.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { enqueue } from '#packages/scheduler/scheduler.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/** Removes a deleted asset's bytes from the store (again after a crash: removing absent keys is no error). */
export const assetPurge = defineProcess<AssetBytes>({
  job: { name: 'asset.purge', key: (p) => `asset-purge:${p.assetId}`, lane: lanes.merchant },
  handler:
    ({ assets }) =>
    (p) =>
      assets.purge(p),
});

export const ASSET_PURGE_CONSUMER = 'asset-purge';

/** Each deleted asset becomes a purge job, in the consumer's transaction: its bytes never outlive it for long. */
export function assetPurgeConsumer(clock: Clock): ConsumerSpec {
  return {
    name: ASSET_PURGE_CONSUMER,
    checkpointTable: 'bus_checkpoints',
    handles: ['asset.deleted'],
    handle: async (trx: Knex.Transaction, events: readonly RecordedEvent[]) => {
      for (const event of events) {
        if (event.type !== 'asset.deleted') continue;
        const deleted = (event as unknown as Extract<AssetEvent, { type: 'asset.deleted' }>).data;
        const merchantId = event.metadata.merchant_id;
        if (!merchantId || deleted.keys.length === 0) continue;
        await enqueue(trx, assetPurge.job, { merchantId, assetId: deleted.object.id, keys: deleted.keys }, clock.now());
      }
    },
  };
}
