import type { DomainEvent } from '#packages/core/decider.js';

/** A platform setting: on or off for every merchant (`merchantId` null), or for one merchant, overriding that. */
export interface FeatureFlagObject {
  id: string;
  object: 'feature_flag';
  key: string;
  isEnabled: boolean;
  merchantId: string | null;
  description: string | null;
  updated: number;
}

export interface FeatureFlagSet {
  id: string;
  key: string;
  merchantId: string | null;
  isEnabled: boolean;
  description: string | null;
  at: string;
}

export type FeatureFlagEvent = DomainEvent<'feature_flag.set', FeatureFlagSet & { object: FeatureFlagObject }> | DomainEvent<'feature_flag.deleted', { id: string; at: string }>;

export const featureFlagStream = (id: string) => `feature_flag-${id}`;
