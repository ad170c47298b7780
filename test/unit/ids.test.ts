import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import t from '#tap';
import { hasPrefix, newId, newUuid, randomBase62 } from '#packages/core/ids.js';

t.test('random ids are drawn from a pool of the CSPRNG: distinct, well-formed, every character about as likely', async (t) => {
  const ids = Array.from({ length: 20_000 }, () => newId('po'));
  t.equal(new Set(ids).size, ids.length, 'no id twice across many refills of the pool');
  t.ok(
    ids.every((id) => hasPrefix(id, 'po')),
    'po_ and 24 base62 characters',
  );
  const counts = new Map<string, number>();
  for (const id of ids) for (const c of id.slice(3)) counts.set(c, (counts.get(c) ?? 0) + 1);
  const expected = (ids.length * 24) / 62;
  t.equal(counts.size, 62, 'every character occurs');
  t.ok(
    [...counts.values()].every((n) => Math.abs(n - expected) < expected * 0.1),
    'each within 10 % of its share (7,742 of 480,000)',
  );
  t.equal(randomBase62(43).length, 43, 'longer strings (API key secrets) too');
});

t.test('the pool calls into the CSPRNG once per 4 KiB, not once per id', async (t) => {
  let fills = 0;
  const { randomFillSync, randomBytes } = crypto;
  // node:crypto's named exports follow its object once synced: a fresh copy of ids.js (its own,
  // empty pool) then calls the counting function.
  crypto.randomFillSync = ((buffer: Buffer) => {
    fills++;
    return randomFillSync(buffer);
  }) as typeof randomFillSync;
  crypto.randomBytes = (() => t.fail('no draw per id')) as unknown as typeof randomBytes;
  syncBuiltinESMExports();
  t.teardown(() => {
    Object.assign(crypto, { randomFillSync, randomBytes });
    syncBuiltinESMExports();
  });
  const fresh = `${import.meta.resolve('#packages/core/ids.js')}?counted`;
  const { newId: counted } = (await import(fresh)) as typeof import('#packages/core/ids.js');
  for (let i = 0; i < 850; i++) counted('po'); // 48 bytes each: 40,800 bytes
  t.equal(fills, 10, 'ten draws of 4,096 bytes');
  const { newUuid: countedUuid } = (await import(fresh)) as typeof import('#packages/core/ids.js');
  for (let i = 0; i < 256; i++) countedUuid(); // 16 bytes each: the 160 left, then one draw
  t.equal(fills, 11, 'UUIDs draw from the same pool');
});

t.test('UUIDs are version 7, distinct, and in the order they were made, many to a millisecond', async (t) => {
  const uuids = Array.from({ length: 20_000 }, () => newUuid());
  t.ok(
    uuids.every((u) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(u)),
    'version 7, RFC 9562 variant',
  );
  t.equal(new Set(uuids).size, uuids.length, 'no UUID twice');
  t.ok(
    uuids.every((u, i) => i === 0 || uuids[i - 1]! < u),
    'each sorts after the one before it',
  );
  const millisecond = (u: string) => u.slice(0, 8) + u.slice(9, 13);
  t.ok(new Set(uuids.map(millisecond)).size < uuids.length / 2, 'made faster than one a millisecond, so the counter ordered them');
});
