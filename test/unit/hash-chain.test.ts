import t from '#tap';
import fc from 'fast-check';
import { canonicalJson } from '#packages/core/json.js';
import { chainHashes, eventHash, extendGlobalChain, GENESIS_HASH } from '#packages/eventstore/hash-chain.js';

const event = {
  streamId: 'balance-acct_1-sandbox-xof',
  version: 0,
  eventId: '0190b6f6-0000-7000-8000-000000000001',
  type: 'ledger.entry_posted',
  data: { amount: 5000, lines: [{ account: 'available', amount: 5000 }], note: 'é' },
  metadata: { merchant_id: 'acct_1', actor: 'key_1' },
};

t.test('canonical JSON: sorted keys, the same text as JSON.stringify after a jsonb-like reordering', async (t) => {
  t.equal(canonicalJson({ b: 1, a: [true, null, { d: 'x', c: 2 }] }), '{"a":[true,null,{"c":2,"d":"x"}],"b":1}');
  t.equal(canonicalJson({ a: undefined, b: [undefined], c: new Date(0) }), '{"b":[null],"c":"1970-01-01T00:00:00.000Z"}', 'undefined dropped or null, toJSON used, as JSON.stringify');
  const value = { z: { y: 1, x: [1.5, -0, 'ü'] }, a: 'text "quoted"' };
  const reordered = JSON.parse('{"a":"text \\"quoted\\"","z":{"x":[1.5,0,"ü"],"y":1}}') as unknown;
  t.equal(canonicalJson(value), canonicalJson(reordered));
});

/** The first implementation, kept as the reference the faster one must match text for text. */
function referenceCanonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return referenceCanonicalJson((value as { toJSON(): unknown }).toJSON());
  const omitted = (x: unknown) => x === undefined || typeof x === 'function' || typeof x === 'symbol';
  if (Array.isArray(value)) return `[${value.map((x: unknown) => (omitted(x) ? 'null' : referenceCanonicalJson(x))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .filter((k) => !omitted(record[k]))
    .map((k) => `${JSON.stringify(k)}:${referenceCanonicalJson(record[k])}`);
  return `{${members.join(',')}}`;
}

t.test('canonical JSON writes what the sorted-keys JSON.stringify writes, for any value', async (t) => {
  // Strings of any UTF-16 units (lone surrogates, controls, quotes), numbers with -0, NaN and
  // Infinity, undefined and dates inside objects and arrays, keys that look like indexes.
  const text = fc.string({ unit: 'binary' });
  const leaf = fc.oneof(
    text,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.date({ noInvalidDate: true }),
    fc.constant(() => 1),
  );
  const value = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node')), fc.dictionary(fc.oneof(text, fc.nat().map(String)), tie('node'))),
  })).node;
  fc.assert(
    fc.property(value, (v) => canonicalJson(v) === referenceCanonicalJson(v)),
    { numRuns: 1000, seed: 20261130 },
  );
  t.equal(canonicalJson('\ud800"\n'), JSON.stringify('\ud800"\n'), 'a lone surrogate and escapes as JSON.stringify writes them');
  t.equal(canonicalJson({ 10: 'a', 2: 'b', b: 1, a: 2 }), '{"10":"a","2":"b","a":2,"b":1}', 'index-like keys sorted as text');
  t.throws(() => canonicalJson({ a: 1n }), TypeError, 'a bigint fails as in JSON.stringify');
});

t.test('an event hash covers every field and the previous hash; chains link in order', async (t) => {
  const h = eventHash(GENESIS_HASH, event);
  t.match(h, /^[0-9a-f]{64}$/);
  t.equal(eventHash(GENESIS_HASH, { ...event, data: { note: 'é', lines: [{ amount: 5000, account: 'available' }], amount: 5000 } }), h, 'key order does not matter');
  for (const changed of [
    { ...event, data: { ...event.data, amount: 5001 } },
    { ...event, version: 1 },
    { ...event, streamId: 'balance-acct_2-sandbox-xof' },
    { ...event, eventId: '0190b6f6-0000-7000-8000-000000000002' },
    { ...event, type: 'ledger.other' },
    { ...event, metadata: { ...event.metadata, actor: 'key_2' } },
  ]) {
    t.not(eventHash(GENESIS_HASH, changed), h);
  }
  t.not(eventHash('f'.repeat(64), event), h, 'the previous hash');
  const [first, second] = chainHashes(GENESIS_HASH, [event, { ...event, version: 1 }]);
  t.equal(first, h);
  t.equal(second, eventHash(h, { ...event, version: 1 }));
  t.not(extendGlobalChain(extendGlobalChain(GENESIS_HASH, first!), second!), extendGlobalChain(extendGlobalChain(GENESIS_HASH, second!), first!), 'the global chain depends on order');
});

t.test('the digests are the ones logs already hold: fixed values, computed by the first implementation', async (t) => {
  // A faster canonical JSON or SHA-256 call must not change a stored chain (docs/audit.md).
  const [first, second] = chainHashes(GENESIS_HASH, [event, { ...event, version: 1 }]);
  t.equal(first, '8e2d8e4c8901bd47a54f88ea08becfbecfb2e20b3fbbd3cc8590425305befe33');
  t.equal(second, '56c6047d2e8b4c5e84c9ad84a0e2f70d256cc00fba071e5d0fca3654bd94ea99');
  t.equal(extendGlobalChain(extendGlobalChain(GENESIS_HASH, first!), second!), '0ed8dfe36868557e46dde7e7b49c10fe1bf6fa19d9a810647fa4a20f9d1e29dc', 'the global chain');
});
