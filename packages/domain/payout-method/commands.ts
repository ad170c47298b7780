import type { Clock } from '../../core/clock.js';
import { newUuid } from '../../core/ids.js';
import type { EventMetadata, EventStore } from '../../eventstore/port.js';
import { handleCommand, loadState } from '../../eventstore/command-handler.js';
import { payoutSettings } from '../merchant-settings/commands.js';
import type { Environment } from '../merchant/events.js';
import { payoutMethodDecider, type PayoutMethodState } from './decider.js';
import { normalizeDestination, type DestinationInput } from './destination.js';
import { payoutMethodStream } from './events.js';

/** Saves a destination; it can receive payouts once the merchant's safety delay has passed. */
export async function createPayoutMethod(
  store: EventStore,
  clock: Clock,
  merchantId: string,
  environment: Environment,
  input: DestinationInput,
  metadata: EventMetadata,
): Promise<PayoutMethodState> {
  // The request body is the destination: errors name its fields without a prefix.
  const destination = normalizeDestination(input, null, '');
  const { settings } = await payoutSettings(store, merchantId, environment);
  const now = clock.now();
  const id = newUuid();
  const result = await handleCommand(
    store,
    payoutMethodStream(id),
    payoutMethodDecider,
    {
      type: 'create',
      method: {
        id,
        merchantId,
        environment,
        destination,
        usableFrom: new Date(now.getTime() + settings.safetyDelayMinutes * 60_000).toISOString(),
        createdAt: now.toISOString(),
      },
    },
    metadata,
  );
  return result.state;
}

export async function deactivatePayoutMethod(
  store: EventStore,
  clock: Clock,
  merchantId: string,
  environment: Environment,
  id: string,
  metadata: EventMetadata,
): Promise<PayoutMethodState> {
  const result = await handleCommand(store, payoutMethodStream(id), payoutMethodDecider, { type: 'deactivate', merchantId, environment, at: clock.now() }, metadata);
  return result.state;
}

export function loadPayoutMethod(store: EventStore, id: string): Promise<PayoutMethodState> {
  return loadState(store, payoutMethodStream(id), payoutMethodDecider).then((r) => r.state);
}
