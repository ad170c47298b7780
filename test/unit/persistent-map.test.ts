/**
 * The persistent map deciders keep large collections in: it answers as a Map would, in insertion
 * order, and a map once made never changes when a later one is derived from it.
 */
import t from '#tap';
import { PersistentMap } from '#packages/core/persistent-map.js';

t.test('answers as a Map, in insertion order, and every earlier version stays as it was', async (t) => {
  let seed = 42;
  const random = (n: number) => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) % n;
  let map = PersistentMap.empty<number>();
  const reference = new Map<string, number>();
  const versions: { map: PersistentMap<number>; entries: [string, number][] }[] = [];
  for (let i = 0; i < 20_000; i++) {
    // Keys repeat, so updates (which keep their place) mix with insertions.
    const key = `k${random(5_000)}`;
    map = map.set(key, i);
    reference.set(key, i);
    if (i % 1_000 === 0) versions.push({ map, entries: [...reference] });
  }
  t.equal(map.size, reference.size);
  t.same(map.entries(), [...reference], 'same entries, same order');
  t.ok([...reference.keys()].every((k) => map.get(k) === reference.get(k) && map.has(k)));
  t.notOk(map.has('absent'));
  t.equal(map.get('absent'), undefined);
  for (const v of versions) t.same(v.map.entries(), v.entries, 'an earlier version is unchanged');
  t.same(
    PersistentMap.of([
      ['a', 1],
      ['b', 2],
      ['a', 3],
    ]).entries(),
    [
      ['a', 3],
      ['b', 2],
    ],
  );
  t.equal(PersistentMap.empty().size, 0);
});
