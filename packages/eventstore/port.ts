/**
 * The event store port. Streams hold one aggregate's events, versioned from 0 (like EventStoreDB
 * revisions); the global log orders every event for readers. Both adapters implement this.
 */

/** What the writer read: a version number, or one of the three symbolic expectations. */
export type ExpectedVersion = number | 'no_stream' | 'stream_exists' | 'any';

/** Who and what caused an event. Auditors read this; docs/architecture.md lists the fields. */
export interface EventMetadata {
  merchant_id?: string;
  environment?: 'sandbox' | 'live';
  correlation_id?: string;
  causation_id?: string;
  request_id?: string;
  actor?: string;
  occurred_at?: string;
  [key: string]: unknown;
}

export interface NewEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
  metadata?: EventMetadata;
  /** Supplied by callers that need a known id (idempotent producers); otherwise generated. */
  eventId?: string;
}

export interface RecordedEvent<T extends string = string, D = unknown> {
  eventId: string;
  streamId: string;
  version: number;
  type: T;
  data: D;
  metadata: EventMetadata;
  /** Position in the global log, opaque to callers but ordered (string compare within one adapter). */
  position: string;
  recordedAt: Date;
  /** SHA-256 over the event's content and the previous event's hash in its stream (hash-chain.ts). */
  hash: string;
}

export interface AppendResult {
  /** Version of the last event written. */
  nextVersion: number;
  /** Global position of the last event written. */
  position: string;
  events: RecordedEvent[];
}

export class VersionConflictError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number | 'no_stream',
  ) {
    super(`Version conflict on stream ${streamId}: expected ${String(expected)}, actual ${String(actual)}`);
    this.name = 'VersionConflictError';
  }
}

export interface Subscription {
  /** Stops reading; resolves when the current batch, if any, has been handled. */
  stop(): Promise<void>;
  /** Resolves when the subscription has handled everything committed up to now (for tests and readiness). */
  caughtUp(): Promise<void>;
}

export interface SubscribeOptions {
  /** Checkpoint to resume after; null starts at the beginning of the log. */
  after: string | null;
  batchSize?: number;
  /** Handles a batch in log order; the subscription moves past it only when this resolves. */
  handle(events: RecordedEvent[]): Promise<void>;
  onError?(err: unknown): void;
  /**
   * For readers that can wait (a cache's evictions by other processes): read every this many ms
   * instead of at each commit. Stores whose subscriptions are pushed to them ignore it.
   */
  pollOnlyEveryMs?: number;
  /**
   * For readers whose commits come often and small (a process's consumer group): once caught up
   * (a read returned less than a batch), the next read starts at least this many ms after that
   * one, however many commits wake it meanwhile; `caughtUp()` reads at once. Stores whose
   * subscriptions are pushed to them ignore it.
   */
  caughtUpReadEveryMs?: number;
}

/** One stream's part of an atomic append: its events and the version they were decided on. */
export interface StreamAppend {
  streamId: string;
  events: NewEvent[];
  expectedVersion: number | 'no_stream';
}

export interface EventStore {
  append(streamId: string, events: NewEvent[], options: { expectedVersion: ExpectedVersion }): Promise<AppendResult>;
  /**
   * Appends to several streams in one commit: all of them or none (a version conflict on any
   * stream writes nothing). Only stores whose engine can do it have it (Postgres); elsewhere a
   * multi-stream change is a saga with a mend.
   */
  appendAtomically?(appends: StreamAppend[]): Promise<AppendResult[]>;
  /** Events of one stream in version order, from `fromVersion` (inclusive). Empty if no stream. */
  readStream(streamId: string, options?: { fromVersion?: number }): Promise<RecordedEvent[]>;
  /** Current version of a stream, or 'no_stream'. */
  streamVersion(streamId: string): Promise<number | 'no_stream'>;
  /**
   * Up to `limit` events of the global log after `after`, in commit order; never skips a late
   * commit. `stored`: read what storage holds now, never a copy this process kept (the audit
   * verifier, which looks for rows changed behind the service's back).
   */
  readAll(after: string | null, limit: number, options?: { stored?: boolean }): Promise<RecordedEvent[]>;
  /** Position of the newest committed event, or null for an empty log (what caughtUp waits for). */
  headPosition(): Promise<string | null>;
  subscribe(options: SubscribeOptions): Subscription;
  close(): Promise<void>;
}
