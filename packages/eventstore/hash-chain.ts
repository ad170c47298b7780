import { hash } from 'node:crypto';
import { canonicalJson } from '#packages/core/json.js';
import type { EventMetadata } from './port.js';

/**
 * The tamper-evident chains of the log (docs/audit.md). Each event's hash covers its stream,
 * version, id, type, data and metadata and the hash of the stream's previous event: one SHA-256
 * per event, computed by the adapter as it appends. The global chain folds those hashes in commit
 * order; the sealer (audit-chain.ts) stores it at checkpoints.
 */

/** The "previous hash" of a stream's first event, and the global chain before the first event. */
export const GENESIS_HASH = '0'.repeat(64);

/** What an event's hash covers: everything the service wrote about it except where the log put it. */
export interface HashedContent {
  streamId: string;
  version: number;
  eventId: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

// crypto.hash: one call per digest, about 0.7 µs less than createHash's object for each event.
export function eventHash(previous: string, e: HashedContent): string {
  return hash('sha256', canonicalJson([previous, e.streamId, e.version, e.eventId, e.type, e.data, e.metadata]), 'hex');
}

/** Hashes of a batch appended to one stream after the event whose hash is `previous`, in order. */
export function chainHashes(previous: string, events: readonly HashedContent[]): string[] {
  const out: string[] = [];
  let prev = previous;
  for (const e of events) out.push((prev = eventHash(prev, e)));
  return out;
}

/** One step of the global chain: the chain so far extended by the next event's hash. */
export function extendGlobalChain(chain: string, eventHashHex: string): string {
  return hash('sha256', chain + eventHashHex, 'hex');
}
