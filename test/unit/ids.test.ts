import * as crypto from 'node:crypto';
import t from 'tap';
import { hasPrefix, newId, randomBase62 } from '#packages/core/ids.js';

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
  const { newId: counted } = await t.mockImport<typeof import('#packages/core/ids.js')>('../../packages/core/ids.js', {
    'node:crypto': {
      ...crypto,
      randomFillSync: (buffer: Buffer) => {
        fills++;
        return crypto.randomFillSync(buffer);
      },
      randomBytes: () => t.fail('no draw per id'),
    },
  });
  for (let i = 0; i < 850; i++) counted('po'); // 48 bytes each: 40,800 bytes
  t.equal(fills, 10, 'ten draws of 4,096 bytes');
});
