import t from '#tap';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { chunkMessages, CONTENT_TYPE, decodeMessage, encodeEvent, groupIdFor, MessageDecodeError, nextOffset, partitionCaughtUp, type IncomingMessage } from '#packages/bus/kafka/codec.js';

const event: RecordedEvent = {
  eventId: '0190b6f6-0000-7000-8000-0000000000aa',
  streamId: 'payout-po_123',
  version: 4,
  type: 'payout.paid',
  data: { object: { id: 'po_123', amount: 5000, currency: 'xof' }, note: 'ünïcødé' },
  metadata: { merchant_id: 'acct_1', environment: 'live', correlation_id: 'corr', causation_id: 'cause', request_id: 'req_1', actor: 'key_1', occurred_at: '2026-03-04T05:06:07.000Z' },
  position: '00000000000000000042:00000000000000000042',
  recordedAt: new Date('2026-03-04T05:06:07.123Z'),
  hash: 'a'.repeat(64),
};

/** What kafkajs hands a consumer: Buffers for key, value and headers. */
function asConsumed(m: ReturnType<typeof encodeEvent>): IncomingMessage {
  const headers: Record<string, Buffer> = {};
  for (const [k, v] of Object.entries(m.headers ?? {})) headers[k] = Buffer.from(String(v));
  return { key: Buffer.from(m.key), value: Buffer.from(m.value), headers };
}

t.test('key is the stream id, headers carry event id and type, value round-trips the recorded event', async (t) => {
  const m = encodeEvent(event);
  t.equal(m.key, 'payout-po_123');
  t.same(m.headers, { 'event-id': event.eventId, 'event-type': 'payout.paid', 'content-type': CONTENT_TYPE });
  t.same(JSON.parse(m.value), { ...event, recordedAt: '2026-03-04T05:06:07.123Z' });
  const back = decodeMessage(asConsumed(m));
  t.same(back, event);
  t.ok(back.recordedAt instanceof Date);
  t.same(decodeMessage({ key: m.key, value: m.value }), event, 'string key and value, no headers');
  t.same(decodeMessage({ ...asConsumed(m), headers: { 'event-id': [Buffer.from(event.eventId)] } }), event, 'array header values');
});

t.test('null and other JSON data survive; metadata stays intact', async (t) => {
  for (const data of [null, 0, 'text', [1, { a: 2 }], { deep: { deeper: [true] } }]) {
    t.same(decodeMessage(asConsumed(encodeEvent({ ...event, data }))).data, data);
  }
  t.same(decodeMessage(asConsumed(encodeEvent({ ...event, metadata: {} }))).metadata, {});
});

t.test('anything that is not a relay message is refused with MessageDecodeError', async (t) => {
  const good = JSON.parse(encodeEvent(event).value) as Record<string, unknown>;
  const bad: [string, IncomingMessage][] = [
    ['no value', { key: 'k', value: null }],
    ['not JSON', { key: null, value: '{' }],
    ['an array', { key: null, value: '[]' }],
    ['missing data', { key: null, value: JSON.stringify({ ...good, data: undefined }) }],
    ['negative version', { key: null, value: JSON.stringify({ ...good, version: -1 }) }],
    ['fractional version', { key: null, value: JSON.stringify({ ...good, version: 1.5 }) }],
    ['empty event id', { key: null, value: JSON.stringify({ ...good, eventId: '' }) }],
    ['metadata not an object', { key: null, value: JSON.stringify({ ...good, metadata: [] }) }],
    ['bad time', { key: null, value: JSON.stringify({ ...good, recordedAt: 'yesterday' }) }],
    ['no position', { key: null, value: JSON.stringify({ ...good, position: undefined }) }],
    ['key of another stream', { key: 'payout-po_999', value: JSON.stringify(good) }],
    ['header id of another event', { key: null, value: JSON.stringify(good), headers: { 'event-id': 'other' } }],
    ['header type of another event', { key: null, value: JSON.stringify(good), headers: { 'event-type': 'payout.failed' } }],
  ];
  for (const [what, message] of bad) t.throws(() => decodeMessage(message), MessageDecodeError, what);
});

t.test('offsets: the committed offset is the next one to read', async (t) => {
  t.equal(nextOffset('0'), '1');
  t.equal(nextOffset('41'), '42');
  t.equal(nextOffset('9223372036854775806'), '9223372036854775807', 'int64 offsets stay exact');
  t.throws(() => nextOffset('-1'));
  t.throws(() => nextOffset('x'));
});

t.test('caught up: committed offset at the high watermark, or nothing to read', async (t) => {
  t.ok(partitionCaughtUp('-1', '0', '0'), 'empty partition');
  t.ok(partitionCaughtUp('-1', '5', '5'), 'everything deleted by retention');
  t.notOk(partitionCaughtUp('-1', '0', '3'), 'group has committed nothing');
  t.notOk(partitionCaughtUp('2', '0', '3'));
  t.ok(partitionCaughtUp('3', '0', '3'));
  t.ok(partitionCaughtUp('4', '0', '3'), 'the watermark was read before newer messages');
});

t.test('sends are split by size, in order, a big message alone', async (t) => {
  const m = (key: string, bytes: number) => ({ key, value: 'x'.repeat(bytes) });
  const msgs = [m('a', 100), m('b', 100), m('c', 100), m('d', 1000), m('e', 10)];
  const chunks = chunkMessages(msgs, 400);
  t.same(
    chunks.map((c) => c.map((x) => x.key)),
    [['a', 'b'], ['c'], ['d'], ['e']],
  );
  t.same(chunks.flat(), msgs, 'order kept, nothing lost');
  t.same(chunkMessages([], 400), []);
  t.same(chunkMessages(msgs, 10_000).length, 1);
});

t.test('consumer groups are named after the topic and the consumer', async (t) => {
  t.equal(groupIdFor('sika.events', 'webhook-dispatcher'), 'sika.events.webhook-dispatcher');
  t.equal(groupIdFor('other', 'x'), 'other.x');
});
