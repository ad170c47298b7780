import { ANY, ErrorType, NO_STREAM, STREAM_EXISTS, StreamNotFoundError, UnavailableError, WrongExpectedVersionError, type RecordedEvent as EsdbRecordedEvent } from '@eventstore/db-client';
import t from '#tap';
import { VersionConflictError } from '#packages/eventstore/port.js';
import {
  decodePosition,
  encodePosition,
  fromRecorded,
  isStreamNotFound,
  isSystemEvent,
  knownPosition,
  StreamScope,
  toActualVersion,
  toClientConnectionString,
  toEventData,
  toExpectedRevision,
  toJsonData,
  toMetadata,
  toVersion,
  translateAppendError,
} from '#packages/eventstore/esdb/mapping.js';

const U64_MAX = (1n << 64n) - 1n;

t.test('positions: zero-padded commit:prepare, round-trips, string order is log order', async (t) => {
  t.equal(encodePosition({ commit: 0n, prepare: 0n }), '00000000000000000000:00000000000000000000');
  t.equal(encodePosition({ commit: 1234n, prepare: 1200n }), '00000000000000001234:00000000000000001200');
  t.equal(encodePosition({ commit: U64_MAX, prepare: U64_MAX }), '18446744073709551615:18446744073709551615');
  for (const p of [
    { commit: 0n, prepare: 0n },
    { commit: 987654321n, prepare: 987654000n },
    { commit: U64_MAX, prepare: 1n },
  ]) {
    t.same(decodePosition(encodePosition(p)), p);
  }
  // Log order: by commit, then by prepare inside one commit (events of one multi-event write).
  const inLogOrder = [
    { commit: 9n, prepare: 9n },
    { commit: 10n, prepare: 2n },
    { commit: 10n, prepare: 10n },
    { commit: 100n, prepare: 99n },
    { commit: 1_000_000_000_000n, prepare: 5n },
  ].map(encodePosition);
  t.same([...inLogOrder].sort(), inLogOrder);
  t.throws(() => encodePosition({ commit: -1n, prepare: 0n }), RangeError);
  t.throws(() => encodePosition({ commit: U64_MAX + 1n, prepare: 0n }), RangeError);
  for (const bad of ['', '12', '1:2:3', 'a:1', '1:', ':1', '-1:0', '99999999999999999999:0', '000000000000000000001:0']) {
    t.throws(() => decodePosition(bad), `refuses ${JSON.stringify(bad)}`);
  }
  // Unpadded text from elsewhere still decodes.
  t.same(decodePosition('10:2'), { commit: 10n, prepare: 2n });
});

t.test('unknown positions (stream reads on servers before 22.6) are recognised', async (t) => {
  t.equal(knownPosition(undefined), null);
  t.equal(knownPosition({ commit: U64_MAX, prepare: U64_MAX }), null);
  t.same(knownPosition({ commit: 5n, prepare: 4n }), { commit: 5n, prepare: 4n });
});

t.test('expected versions: the four kinds map onto the client, numbers as 0-based bigint revisions', async (t) => {
  t.equal(toExpectedRevision('any'), ANY);
  t.equal(toExpectedRevision('no_stream'), NO_STREAM);
  t.equal(toExpectedRevision('stream_exists'), STREAM_EXISTS);
  t.equal(toExpectedRevision(0), 0n);
  t.equal(toExpectedRevision(41), 41n);
  t.equal(toExpectedRevision(Number.MAX_SAFE_INTEGER), BigInt(Number.MAX_SAFE_INTEGER));
  for (const bad of [-1, -2, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER + 1]) {
    t.throws(() => toExpectedRevision(bad), RangeError, `refuses ${bad}`);
  }
});

t.test('revisions become version numbers; no_stream stays no_stream', async (t) => {
  t.equal(toVersion(0n), 0);
  t.equal(toVersion(7n), 7);
  t.throws(() => toVersion(-1n), RangeError);
  t.throws(() => toVersion(BigInt(Number.MAX_SAFE_INTEGER) + 1n), RangeError);
  t.equal(toActualVersion(NO_STREAM), 'no_stream');
  t.equal(toActualVersion(3n), 3);
});

t.test('WrongExpectedVersionError becomes the port VersionConflictError with the actual version', async (t) => {
  const stale = translateAppendError(new WrongExpectedVersionError(undefined, { streamName: 'p-acct', expected: 0n, current: 1n }), 'acct', 0);
  t.type(stale, VersionConflictError);
  t.match(stale, { streamId: 'acct', expected: 0, actual: 1 });

  const exists = translateAppendError(new WrongExpectedVersionError(undefined, { streamName: 'x', expected: NO_STREAM, current: 0n }), 'x', 'no_stream');
  t.match(exists, { expected: 'no_stream', actual: 0 });

  const missing = translateAppendError(new WrongExpectedVersionError(undefined, { streamName: 'x', expected: STREAM_EXISTS, current: NO_STREAM }), 'x', 'stream_exists');
  t.type(missing, VersionConflictError);
  t.match(missing, { expected: 'stream_exists', actual: 'no_stream' });

  const other = new UnavailableError();
  t.equal(translateAppendError(other, 'x', 'any'), other, 'other errors pass through unchanged');
  const plain = new Error('boom');
  t.equal(translateAppendError(plain, 'x', 0), plain);
  t.equal(translateAppendError('text', 'x', 0), 'text');
});

t.test('stream-not-found is recognised by type, whatever the instance', async (t) => {
  t.ok(isStreamNotFound(new StreamNotFoundError(undefined, 'orders-1')));
  t.ok(isStreamNotFound({ type: ErrorType.STREAM_NOT_FOUND }));
  t.notOk(isStreamNotFound(new UnavailableError()));
  t.notOk(isStreamNotFound(null));
});

t.test('system events and streams are excluded; the scope prefixes and strips stream names', async (t) => {
  t.ok(isSystemEvent('$stats-127.0.0.1:2113', 'x'));
  t.ok(isSystemEvent('orders-1', '$metadata'));
  t.ok(isSystemEvent('$$orders-1', '$metadata'));
  t.ok(isSystemEvent('$et-order', '$>'));
  t.notOk(isSystemEvent('orders-1', 'order.created'));

  const all = new StreamScope();
  t.equal(all.toStreamName('payout-1'), 'payout-1');
  t.equal(all.toStreamId('payout-1'), 'payout-1');
  t.equal(all.toStreamId('$settings'), null);
  t.match(all.filter(), { filterOn: 'eventType', regex: '^[^$].*' }, 'server-side: excludeSystemEvents()');

  const scoped = new StreamScope('t1-');
  t.equal(scoped.toStreamName('payout-1'), 't1-payout-1');
  t.equal(scoped.toStreamId('t1-payout-1'), 'payout-1');
  t.equal(scoped.toStreamId('t2-payout-1'), null);
  t.equal(scoped.toStreamId('payout-1'), null);
  t.match(scoped.filter(), { filterOn: 'streamName', prefixes: ['t1-'] });
  t.throws(() => new StreamScope('$x'));
});

t.test('new events become JSON events with the caller id and the metadata intact', async (t) => {
  const meta = { merchant_id: 'acct_1', environment: 'live' as const, correlation_id: 'c', causation_id: 'k', request_id: 'req_1', actor: 'key_1', occurred_at: '2026-01-01T00:00:00.000Z', extra: { nested: [1, 2] } };
  const data = toEventData({ type: 'payout.created', data: { amount: 100 }, metadata: meta }, '0190b6f6-0000-7000-8000-000000000001', 'h1');
  t.match(data, { id: '0190b6f6-0000-7000-8000-000000000001', contentType: 'application/json', type: 'payout.created', data: { amount: 100 } });
  t.same(data.metadata, { ...meta, $hash: 'h1' }, 'the chain hash travels in the metadata');
  t.same(toEventData({ type: 'x', data: {} }, 'id', 'h2').metadata, { $hash: 'h2' }, 'absent metadata is written as {} plus the hash');
  t.throws(() => toEventData({ type: '$metadata', data: {} }, 'id', 'h'), 'reserved types are refused');

  t.same(toJsonData({ a: 1 }), { a: 1 });
  t.same(toJsonData([1]), [1]);
  t.equal(toJsonData('s'), 's');
  for (const bad of [null, 1, true, undefined, new Uint8Array([1])]) t.throws(() => toJsonData(bad), TypeError);
});

t.test('recorded events map to the port: version, position, metadata, data; others are skipped', async (t) => {
  const created = new Date('2026-02-03T04:05:06.000Z');
  const base = {
    streamId: 'p-order-1',
    id: '0190b6f6-0000-7000-8000-000000000002',
    revision: 3n,
    type: 'order.placed',
    created,
    position: { commit: 500n, prepare: 480n },
  };
  const json: EsdbRecordedEvent = { ...base, isJson: true, data: { n: 1 }, metadata: { merchant_id: 'acct_1', environment: 'sandbox', $hash: 'abc' } };
  t.same(fromRecorded(json, new StreamScope('p-')), {
    eventId: base.id,
    streamId: 'order-1',
    version: 3,
    type: 'order.placed',
    data: { n: 1 },
    metadata: { merchant_id: 'acct_1', environment: 'sandbox' },
    hash: 'abc',
    position: '00000000000000000500:00000000000000000480',
    recordedAt: created,
  });
  t.equal(fromRecorded(json, new StreamScope('q-')), null, 'another scope');
  t.equal(fromRecorded({ ...json, type: '$metadata' }, new StreamScope()), null, 'system event type');
  t.equal(fromRecorded({ ...json, streamId: '$stats-x' }, new StreamScope()), null, 'system stream');

  const binary: EsdbRecordedEvent = { ...base, isJson: false, data: new TextEncoder().encode('{"b":2}'), metadata: new Uint8Array([1, 2]) };
  t.match(fromRecorded(binary, new StreamScope()), { data: { b: 2 }, metadata: {}, hash: '' }, 'binary JSON is decoded; binary metadata is no metadata and no hash');

  const noPosition: EsdbRecordedEvent = { ...json, position: { commit: U64_MAX, prepare: U64_MAX } };
  t.throws(() => fromRecorded(noPosition, new StreamScope('p-')), /22\.6/);
  t.match(fromRecorded(noPosition, new StreamScope('p-'), { commit: 7n, prepare: 7n }), { position: '00000000000000000007:00000000000000000007' });

  t.same(toMetadata(undefined), { metadata: {}, hash: '' });
  t.same(toMetadata([1]), { metadata: {}, hash: '' });
  t.same(toMetadata({ actor: 'a' }), { metadata: { actor: 'a' }, hash: '' });
  t.same(toMetadata({ actor: 'a', $hash: 'h' }), { metadata: { actor: 'a' }, hash: 'h' });
});

t.test('connection strings: kurrentdb schemes become the esdb schemes client v6 parses', async (t) => {
  t.equal(toClientConnectionString('esdb://localhost:2113?tls=false'), 'esdb://localhost:2113?tls=false');
  t.equal(toClientConnectionString('kurrentdb://localhost:2113?tls=false'), 'esdb://localhost:2113?tls=false');
  t.equal(toClientConnectionString('kurrentdb+discover://cluster.local:2113'), 'esdb+discover://cluster.local:2113');
  t.equal(toClientConnectionString('esdb+discover://a:2113,b:2113'), 'esdb+discover://a:2113,b:2113');
});
