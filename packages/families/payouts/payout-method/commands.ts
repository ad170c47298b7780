import type { Clock } from '#packages/core/clock.js';
import { newUuid } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import { CommandService, loadState } from '#packages/eventstore/command-handler.js';
import { payoutSettings } from '../payout/settings-decider.js';
import { payoutMethodDecider, type PayoutMethodCommand, type PayoutMethodState } from './decider.js';
import { normalizeDestination, type DestinationInput } from './destination.js';
import { payoutMethodStream, type PayoutMethodEvent } from './events.js';
import type { Environment } from '#packages/core/owner.js';

/**
 * Saved payout destinations. The functions below are the same commands for callers holding only a
 * store (the routes, and payouts, escrow and funding, which read a destination before paying to it).
 */
export class PayoutMethods extends CommandService<PayoutMethodCommand, PayoutMethodState, PayoutMethodEvent> {
  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {
    super(store, payoutMethodStream, payoutMethodDecider);
  }

  /** Saves a destination; it can receive payouts once the merchant's safety delay has passed. */
  async create(merchantId: string, environment: Environment, input: DestinationInput, metadata: EventMetadata): Promise<PayoutMethodState> {
    // The request body is the destination: errors name its fields without a prefix.
    const destination = normalizeDestination(input, null, '');
    const { settings } = await payoutSettings(this.store, merchantId, environment);
    const now = this.clock.now();
    const id = newUuid();
    const result = await this.run(
      id,
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

  async deactivate(merchantId: string, environment: Environment, id: string, metadata: EventMetadata): Promise<PayoutMethodState> {
    const result = await this.run(id, { type: 'deactivate', merchantId, environment, at: this.clock.now() }, metadata);
    return result.state;
  }
}

/** Saves a destination; it can receive payouts once the merchant's safety delay has passed. */
export function createPayoutMethod(store: EventStore, clock: Clock, merchantId: string, environment: Environment, input: DestinationInput, metadata: EventMetadata): Promise<PayoutMethodState> {
  return new PayoutMethods(store, clock).create(merchantId, environment, input, metadata);
}

export function deactivatePayoutMethod(store: EventStore, clock: Clock, merchantId: string, environment: Environment, id: string, metadata: EventMetadata): Promise<PayoutMethodState> {
  return new PayoutMethods(store, clock).deactivate(merchantId, environment, id, metadata);
}

/** The destination as its stream holds it: a read for services of other aggregates, which hold only a store (no clock, no commands). */
export async function loadPayoutMethod(store: EventStore, id: string): Promise<PayoutMethodState> {
  return (await loadState(store, payoutMethodStream(id), payoutMethodDecider)).state;
}
