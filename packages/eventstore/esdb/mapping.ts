/**
 * Pure translations between the EventStore port and @eventstore/db-client (v6): positions,
 * revisions, expected versions, errors, events and the stream scope. No I/O here, so every rule
 * has a unit test that runs without a server (test/unit/esdb-mapping.test.ts).
 */
import {
  ANY,
  ErrorType,
  NO_STREAM,
  STREAM_EXISTS,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type AppendExpectedRevision,
  type CurrentRevision,
  type EventData,
  type Filter,
  type JSONType,
  type Position,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import { VersionConflictError, type EventMetadata, type ExpectedVersion, type NewEvent, type RecordedEvent } from '../port.js';

/** 2^64 - 1 has 20 digits: every log position fits, so string order is numeric order. */
const PAD = 20;
const U64_MAX = (1n << 64n) - 1n;

/**
 * A $all position as the port's opaque checkpoint: zero-padded `commit:prepare`. Commit order
 * first, then prepare order inside one commit, which is the order of the log (the same idea as the
 * Postgres adapter's `transaction_id:global_position`).
 */
export function encodePosition(position: Position): string {
  for (const part of [position.commit, position.prepare]) {
    if (part < 0n || part > U64_MAX) throw new RangeError(`Not an EventStoreDB log position: ${String(part)}`);
  }
  return `${position.commit.toString().padStart(PAD, '0')}:${position.prepare.toString().padStart(PAD, '0')}`;
}

export function decodePosition(text: string): Position {
  const match = /^(\d{1,20}):(\d{1,20})$/.exec(text);
  if (!match) throw new Error(`Not an EventStoreDB position: ${text}`);
  const commit = BigInt(match[1]!);
  const prepare = BigInt(match[2]!);
  if (commit > U64_MAX || prepare > U64_MAX) throw new Error(`Not an EventStoreDB position: ${text}`);
  return { commit, prepare };
}

/** Servers before 22.6 answer stream reads with commit = 2^64-1 (no position): such a value is unknown, not huge. */
export function knownPosition(position: Position | undefined): Position | null {
  if (!position || position.commit === U64_MAX || position.commit < 0n || position.prepare < 0n) return null;
  return position;
}

/** The port's four expectations onto the client's: versions are 0-based revisions of the last event in both. */
export function toExpectedRevision(expected: ExpectedVersion): AppendExpectedRevision {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'stream_exists':
      return STREAM_EXISTS;
    default:
      // A negative number would reach the server as garbage (EventStore-Client-NodeJS#348): refuse it here.
      if (!Number.isSafeInteger(expected) || expected < 0) {
        throw new RangeError(`Expected version must be a whole number >= 0, 'no_stream', 'stream_exists' or 'any'; got ${String(expected)}`);
      }
      return BigInt(expected);
  }
}

/** A stream revision as the port's version number (0-based; exact up to 2^53). */
export function toVersion(revision: bigint): number {
  if (revision < 0n || revision > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`Stream revision out of range: ${String(revision)}`);
  return Number(revision);
}

export function toActualVersion(current: CurrentRevision): number | 'no_stream' {
  return current === NO_STREAM ? 'no_stream' : toVersion(current);
}

function errorType(err: unknown): unknown {
  return typeof err === 'object' && err !== null && 'type' in err ? err.type : undefined;
}

/**
 * The client's WrongExpectedVersionError as the port's VersionConflictError (with the actual
 * version the server reported); anything else is returned unchanged for the caller to rethrow.
 */
export function translateAppendError(err: unknown, streamId: string, expected: ExpectedVersion): unknown {
  if (errorType(err) !== ErrorType.WRONG_EXPECTED_VERSION || typeof err !== 'object' || err === null || !('actualVersion' in err)) return err;
  const actual = err.actualVersion;
  if (actual === NO_STREAM) return new VersionConflictError(streamId, expected, 'no_stream');
  if (typeof actual === 'bigint') return new VersionConflictError(streamId, expected, toVersion(actual));
  return err;
}

/** readStream on a stream that was never written rejects with StreamNotFoundError: the port answers []. */
export function isStreamNotFound(err: unknown): boolean {
  return errorType(err) === ErrorType.STREAM_NOT_FOUND;
}

/** System records ($metadata, $statsCollected, link events `$>`, ...) and system streams are not the service's events. */
export function isSystemEvent(streamName: string, type: string): boolean {
  return streamName.startsWith('$') || type.startsWith('$');
}

/**
 * Which streams of the server this store owns. Unscoped (the default) it owns every non-system
 * stream. With a prefix, streams are written as `prefix + streamId`, the global log shows only
 * those, and stream ids come back without the prefix: several stores (a test run, a second
 * deployment) can share one EventStoreDB without seeing each other's log.
 */
export class StreamScope {
  constructor(readonly prefix = '') {
    if (prefix.startsWith('$')) throw new Error(`A stream prefix cannot start with $ (system streams): ${prefix}`);
  }

  toStreamName(streamId: string): string {
    return this.prefix + streamId;
  }

  /** The port's stream id of a server stream, or null when the stream is not this store's. */
  toStreamId(streamName: string): string | null {
    if (streamName.startsWith('$') || !streamName.startsWith(this.prefix)) return null;
    return streamName.slice(this.prefix.length);
  }

  /** Server-side filter for subscribeToAll: only this store's streams, never system events. */
  filter(): Filter {
    return this.prefix === '' ? excludeSystemEvents() : streamNameFilter({ prefixes: [this.prefix] });
  }
}

/** Event data must be a JSON object, array or string for the client's JSON events. */
export function toJsonData(data: unknown): JSONType {
  if (typeof data === 'string' || Array.isArray(data)) return data;
  if (typeof data === 'object' && data !== null && !(data instanceof Uint8Array)) return data as Record<string, unknown>;
  throw new TypeError(`EventStoreDB event data must be a JSON object, array or string; got ${data === null ? 'null' : typeof data}`);
}

/** The metadata member that carries the event's chain hash (hash-chain.ts); callers never see it. */
const HASH_KEY = '$hash';

/** A new event as the client's JSON event, keeping the caller's event id; metadata is always written (as JSON), with the chain hash. */
export function toEventData(event: NewEvent, eventId: string, hash: string): EventData {
  if (event.type.startsWith('$')) throw new Error(`Event types starting with $ are reserved for EventStoreDB: ${event.type}`);
  return jsonEvent({ id: eventId, type: event.type, data: toJsonData(event.data), metadata: { ...(event.metadata ?? {}), [HASH_KEY]: hash } });
}

/**
 * Metadata read back, split into the caller's metadata and the chain hash ('' when the event was
 * not written by this service: verify reports it). Anything but a JSON object is no metadata.
 */
export function toMetadata(value: unknown): { metadata: EventMetadata; hash: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Uint8Array) return { metadata: {}, hash: '' };
  const { [HASH_KEY]: hash, ...metadata } = value as Record<string, unknown>;
  return { metadata: metadata as EventMetadata, hash: typeof hash === 'string' ? hash : '' };
}

function toData(event: EsdbRecordedEvent): unknown {
  if (event.isJson) return event.data;
  // Binary events were not written by this service; hand over JSON if they hold it, else the bytes.
  try {
    return JSON.parse(Buffer.from(event.data).toString('utf8')) as unknown;
  } catch {
    return event.data;
  }
}

/**
 * A recorded event of the client as the port's RecordedEvent, or null when it is not this
 * store's (system event, other scope). `fallbackPosition` serves servers that return no position
 * on stream reads (then the caller passes what it knows, or the call fails).
 */
export function fromRecorded(event: EsdbRecordedEvent, scope: StreamScope, fallbackPosition?: Position): RecordedEvent | null {
  if (isSystemEvent(event.streamId, event.type)) return null;
  const streamId = scope.toStreamId(event.streamId);
  if (streamId === null) return null;
  const position = knownPosition(event.position) ?? fallbackPosition;
  if (!position) throw new Error(`EventStoreDB returned no log position for ${event.streamId}@${String(event.revision)}: version 22.6 or later is required`);
  return {
    eventId: event.id,
    streamId,
    version: toVersion(event.revision),
    type: event.type,
    data: toData(event),
    ...toMetadata(event.metadata),
    position: encodePosition(position),
    recordedAt: event.created,
  };
}

/**
 * The service accepts `kurrentdb://` URLs as well as `esdb://` (packages/core/config.ts); client
 * v6 only parses the esdb schemes, which mean the same thing.
 */
export function toClientConnectionString(url: string): string {
  return url.replace(/^kurrentdb(\+discover)?:\/\//i, (_m, discover: string | undefined) => `esdb${discover ?? ''}://`);
}
