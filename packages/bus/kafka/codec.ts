/**
 * How a recorded event travels on the Kafka topic, both ways; pure, so it is unit-tested
 * everywhere (test/unit/kafka-codec.test.ts).
 *
 *   key     = stream id        (the default partitioner hashes it: one stream, one partition, in order)
 *   headers = event-id, event-type, content-type
 *   value   = JSON of the RecordedEvent (recordedAt as an ISO-8601 string)
 */
import type { Message } from 'kafkajs';
import type { EventMetadata, RecordedEvent } from '#packages/eventstore/port.js';

export const HEADER_EVENT_ID = 'event-id';
export const HEADER_EVENT_TYPE = 'event-type';
export const HEADER_CONTENT_TYPE = 'content-type';
export const CONTENT_TYPE = 'application/vnd.sika.recorded-event+json; version=1';

export class MessageDecodeError extends Error {
  constructor(reason: string) {
    super(`Not a Sika event message: ${reason}`);
    this.name = 'MessageDecodeError';
  }
}

export function encodeEvent(event: RecordedEvent): Message & { key: string; value: string } {
  const value = JSON.stringify({
    eventId: event.eventId,
    streamId: event.streamId,
    version: event.version,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    position: event.position,
    recordedAt: event.recordedAt.toISOString(),
    hash: event.hash,
  });
  return {
    key: event.streamId,
    value,
    headers: { [HEADER_EVENT_ID]: event.eventId, [HEADER_EVENT_TYPE]: event.type, [HEADER_CONTENT_TYPE]: CONTENT_TYPE },
  };
}

/** What decode needs of a consumed message (kafkajs' KafkaMessage has these). */
export interface IncomingMessage {
  key: Buffer | string | null;
  value: Buffer | string | null;
  headers?: Record<string, Buffer | string | (Buffer | string)[] | undefined>;
}

function text(value: Buffer | string | (Buffer | string)[] | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const one = Array.isArray(value) ? value[value.length - 1] : value;
  return one === undefined ? undefined : typeof one === 'string' ? one : one.toString('utf8');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field<T>(obj: Record<string, unknown>, name: string, check: (v: unknown) => v is T, what: string): T {
  const v = obj[name];
  if (!check(v)) throw new MessageDecodeError(`${name} must be ${what}`);
  return v;
}

const isString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isVersion = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** A consumed message back into the RecordedEvent the relay read; throws MessageDecodeError on anything else. */
export function decodeMessage(message: IncomingMessage): RecordedEvent {
  const raw = text(message.value);
  if (raw === undefined) throw new MessageDecodeError('no value');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new MessageDecodeError('value is not JSON');
  }
  if (!isRecord(parsed)) throw new MessageDecodeError('value is not a JSON object');
  const eventId = field(parsed, 'eventId', isString, 'a non-empty string');
  const streamId = field(parsed, 'streamId', isString, 'a non-empty string');
  const version = field(parsed, 'version', isVersion, 'a whole number >= 0');
  const type = field(parsed, 'type', isString, 'a non-empty string');
  const metadata = field(parsed, 'metadata', isRecord, 'a JSON object') as EventMetadata;
  const position = field(parsed, 'position', isString, 'a non-empty string');
  const recordedText = field(parsed, 'recordedAt', isString, 'an ISO-8601 time');
  const recordedAt = new Date(recordedText);
  if (Number.isNaN(recordedAt.getTime())) throw new MessageDecodeError('recordedAt must be an ISO-8601 time');
  if (!('data' in parsed)) throw new MessageDecodeError('data is missing');

  const key = text(message.key);
  if (key !== undefined && key !== streamId) throw new MessageDecodeError(`key ${key} is not the stream id ${streamId}`);
  const headerId = text(message.headers?.[HEADER_EVENT_ID]);
  if (headerId !== undefined && headerId !== eventId) throw new MessageDecodeError(`header event-id ${headerId} is not the event id ${eventId}`);
  const headerType = text(message.headers?.[HEADER_EVENT_TYPE]);
  if (headerType !== undefined && headerType !== type) throw new MessageDecodeError(`header event-type ${headerType} is not the event type ${type}`);

  // Messages relayed before the log had chain hashes carry none: consumers act on them all the same.
  const hash = typeof parsed.hash === 'string' ? parsed.hash : '';
  return { eventId, streamId, version, type, data: parsed.data, metadata, position, recordedAt, hash };
}

/** The offset to commit after handling `offset`: Kafka commits the next offset to read. */
export function nextOffset(offset: string): string {
  if (!/^\d+$/.test(offset)) throw new Error(`Not a Kafka offset: ${offset}`);
  return (BigInt(offset) + 1n).toString();
}

/**
 * Whether a consumer group has handled a partition: its committed offset (next to read; -1 when
 * none) has reached the high watermark that was current when we asked.
 */
export function partitionCaughtUp(committed: string, low: string, high: string): boolean {
  if (BigInt(high) <= BigInt(low)) return true;
  return BigInt(committed) >= BigInt(high);
}

/**
 * Splits messages into sends of at most `maxBytes` of keys and values (the broker refuses
 * record batches over message.max.bytes, 1 MiB by default); order is kept, and a message larger
 * than the limit goes alone (the broker then answers, rather than the relay hiding it).
 */
export function chunkMessages<M extends { key: string; value: string }>(messages: readonly M[], maxBytes: number): M[][] {
  const chunks: M[][] = [];
  let current: M[] = [];
  let size = 0;
  for (const m of messages) {
    const bytes = Buffer.byteLength(m.key) + Buffer.byteLength(m.value) + 64;
    if (current.length > 0 && size + bytes > maxBytes) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(m);
    size += bytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** Consumer group of a bus consumer: one group per topic and ConsumerSpec name. */
export function groupIdFor(topic: string, name: string): string {
  return `${topic}.${name}`;
}
