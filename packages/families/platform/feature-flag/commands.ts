import type { Clock } from '#packages/core/clock.js';
import type { Fact } from '#packages/core/decider.js';
import { derivedUuid } from '#packages/core/ids.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import type { FeatureFlagCommand, FeatureFlagState } from './decider.js';
import { featureFlagAggregate, toFeatureFlagObject } from './render.js';
import { featureFlagStream, type FeatureFlagEvent, type FeatureFlagObject } from './events.js';
import type { Actor } from '#packages/core/owner.js';
import { actorMetadata } from '#packages/eventstore/metadata.js';

export interface FeatureFlagInput {
  key: string;
  isEnabled?: boolean;
  merchantId?: string | null;
  description?: string | null;
}

/** Platform feature flags: one per key for everyone, and per merchant where one differs. */
export class FeatureFlags extends CommandService<FeatureFlagCommand, FeatureFlagState, Fact<FeatureFlagEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock }) {
    super(deps.store, featureFlagStream, featureFlagAggregate, { onConflict: 'internal' });
  }

  /** Creates or changes the flag of this key (and merchant): setting it again is the way to change it. */
  async set(input: FeatureFlagInput, actor: Actor): Promise<FeatureFlagObject> {
    const merchantId = input.merchantId ?? null;
    const id = derivedUuid(`feature_flag|${input.key}|${merchantId ?? '*'}`);
    const at = this.deps.clock.now().toISOString();
    const flag = { id, key: input.key, merchantId, isEnabled: input.isEnabled ?? false, description: input.description ?? null, at };
    await this.run(id, { type: 'set', flag }, { actor: actor.actor, occurred_at: at, correlation_id: id, ...(merchantId ? { merchant_id: merchantId } : {}), ...actorMetadata(actor) });
    return toFeatureFlagObject(flag);
  }

  async delete(id: string, actor: Actor): Promise<void> {
    const at = this.deps.clock.now();
    await this.run(id, { type: 'delete', id, at }, { actor: actor.actor, occurred_at: at.toISOString(), correlation_id: id, ...actorMetadata(actor) });
  }
}
