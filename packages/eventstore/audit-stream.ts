import type { EventStore, RecordedEvent } from './port.js';

/** What `sika audit stream` prints per event: one JSON line for auditors' tools (docs/audit.md). */
export interface AuditRecord {
  position: string;
  stream_id: string;
  version: number;
  event_id: string;
  type: string;
  occurred_at: string;
  recorded_at: string;
  merchant_id: string | null;
  environment: string | null;
  actor: string | null;
  request_id: string | null;
  correlation_id: string | null;
  causation_id: string | null;
  hash: string;
  data: unknown;
}

export interface AuditStreamOptions {
  /** One stream's events; otherwise the merchant's, read from the global log. */
  streamId?: string;
  merchantId?: string;
  /** Only events after this log position. */
  after?: string;
  /** Only events that occurred at or after this moment (the command's time, else the log's). */
  since?: Date;
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function occurredAt(e: RecordedEvent): Date {
  const stated = text(e.metadata.occurred_at);
  return stated !== null && !Number.isNaN(Date.parse(stated)) ? new Date(stated) : e.recordedAt;
}

function toRecord(e: RecordedEvent): AuditRecord {
  const m = e.metadata;
  return {
    position: e.position,
    stream_id: e.streamId,
    version: e.version,
    event_id: e.eventId,
    type: e.type,
    occurred_at: occurredAt(e).toISOString(),
    recorded_at: e.recordedAt.toISOString(),
    merchant_id: text(m.merchant_id),
    environment: text(m.environment),
    actor: text(m.actor),
    request_id: text(m.request_id),
    correlation_id: text(m.correlation_id),
    causation_id: text(m.causation_id),
    hash: e.hash,
    data: e.data,
  };
}

/** The events asked for, in log order (a stream's in version order), a page at a time. */
export async function* auditRecords(store: EventStore, options: AuditStreamOptions): AsyncGenerator<AuditRecord> {
  const wanted = (e: RecordedEvent) =>
    (options.merchantId === undefined || e.metadata.merchant_id === options.merchantId) && (options.after === undefined || e.position > options.after) && (options.since === undefined || occurredAt(e) >= options.since);
  if (options.streamId !== undefined) {
    for (const e of await store.readStream(options.streamId)) if (wanted(e)) yield toRecord(e);
    return;
  }
  let after = options.after ?? null;
  for (;;) {
    // What auditors replay is the log as stored, not a copy this process kept.
    const batch = await store.readAll(after, 500, { stored: true });
    if (batch.length === 0) return;
    for (const e of batch) if (wanted(e)) yield toRecord(e);
    after = batch[batch.length - 1]!.position;
  }
}
