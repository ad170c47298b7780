import type { Knex } from 'knex';
import { EvictedByEvents } from '../eventstore/evicted-cache.js';
import type { EventStore } from '../eventstore/port.js';
import { findApiKeyByHash, type ApiKeyRow } from '../../projections/api-keys.js';

const KEY_EVENTS = new Set(['api_key.created', 'api_key.rolled', 'api_key.revoked']);

/**
 * The API keys requests presented, by hash, so that a request does not read read.api_keys
 * (docs/performance.md): only live keys are remembered, never an unknown hash, and a key's own
 * events evict it.
 */
export class ApiKeyCache extends EvictedByEvents<ApiKeyRow | undefined> {
  constructor(
    private readonly knex: Knex,
    store: EventStore,
  ) {
    super(store, (e) => (KEY_EVENTS.has(e.type) ? [(e.data as { keyId: string }).keyId] : []));
  }

  find(keyHash: string): Promise<ApiKeyRow | undefined> {
    return this.get(
      keyHash,
      () => findApiKeyByHash(this.knex, keyHash),
      (row) => (row && row.revoked_at === null ? row.id : null),
    );
  }
}
