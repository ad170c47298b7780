import type { Clock } from '../../core/clock.js';
import type { EventMetadata, EventStore } from '../../eventstore/port.js';
import { handleCommand, loadState } from '../../eventstore/command-handler.js';
import type { Environment } from '../merchant/events.js';
import { merchantSettingsDecider } from './decider.js';
import { defaultPayoutSettings, merchantSettingsStream, type PayoutSettings } from './events.js';

export async function payoutSettings(store: EventStore, merchantId: string, environment: Environment): Promise<{ settings: PayoutSettings; updatedAt: string | null }> {
  const { state } = await loadState(store, merchantSettingsStream(merchantId, environment), merchantSettingsDecider);
  return { settings: state.settings ?? defaultPayoutSettings(environment), updatedAt: state.updatedAt };
}

export async function updatePayoutSettings(
  store: EventStore,
  clock: Clock,
  merchantId: string,
  environment: Environment,
  changes: Partial<PayoutSettings>,
  metadata: EventMetadata,
): Promise<{ settings: PayoutSettings; updatedAt: string | null }> {
  const result = await handleCommand(
    store,
    merchantSettingsStream(merchantId, environment),
    merchantSettingsDecider,
    { type: 'update', merchantId, environment, changes, at: clock.now() },
    metadata,
  );
  return { settings: result.state.settings ?? defaultPayoutSettings(environment), updatedAt: result.state.updatedAt };
}
