/**
 * An immutable map from string keys (a hash array mapped trie). `set` returns a new map that shares
 * all but one path of at most seven 32-slot nodes with the old one, so a decider's state can hold
 * thousands of entries and still evolve in O(log₃₂ n) per event, while every earlier state stays
 * exactly as it was: the stream cache and command handler keep and reuse old states.
 *
 * Iteration follows insertion order, like Map (a key set again keeps its place), so what a decider
 * derives from iterating (the order of refunds it decides) does not change with the structure.
 */

interface Entry<V> {
  key: string;
  value: V;
  /** Insertion rank: iteration order. */
  seq: number;
}

interface Leaf<V> {
  kind: 'leaf';
  hash: number;
  entries: readonly Entry<V>[]; // more than one only when full 32-bit hashes collide
}

interface Branch<V> {
  kind: 'branch';
  bitmap: number;
  children: readonly Node<V>[];
}

type Node<V> = Leaf<V> | Branch<V>;

const BITS = 5;
const MASK = (1 << BITS) - 1;
const MAX_SHIFT = 30;

/** Slots copied or visited so far, in all maps: lets a test check that work grows linearly. */
let work = 0;
export function persistentMapWork(): number {
  return work;
}

/** FNV-1a over UTF-16 code units. */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

function slotOf(bitmap: number, bit: number): number {
  return popcount(bitmap & (bit - 1));
}

function find<V>(node: Node<V> | null, hash: number, key: string): Entry<V> | undefined {
  let shift = 0;
  while (node) {
    if (node.kind === 'leaf') return node.hash === hash ? node.entries.find((e) => e.key === key) : undefined;
    const bit = 1 << ((hash >>> shift) & MASK);
    if ((node.bitmap & bit) === 0) return undefined;
    node = node.children[slotOf(node.bitmap, bit)]!;
    shift += BITS;
  }
  return undefined;
}

/** A branch holding two leaves whose hashes differ (at or below `shift`). */
function split<V>(a: Leaf<V>, b: Leaf<V>, shift: number): Node<V> {
  const ia = (a.hash >>> shift) & MASK;
  const ib = (b.hash >>> shift) & MASK;
  if (ia === ib) return { kind: 'branch', bitmap: 1 << ia, children: [split(a, b, shift + BITS)] };
  return { kind: 'branch', bitmap: (1 << ia) | (1 << ib), children: ia < ib ? [a, b] : [b, a] };
}

/** The node with `entry` set (a key already there keeps its rank); copies only the path to it. */
function insert<V>(node: Node<V> | null, hash: number, entry: Entry<V>, shift: number): Node<V> {
  if (!node) return { kind: 'leaf', hash, entries: [entry] };
  if (node.kind === 'leaf') {
    if (node.hash === hash) {
      work += node.entries.length;
      const i = node.entries.findIndex((e) => e.key === entry.key);
      const entries = [...node.entries];
      if (i >= 0) entries[i] = { ...entry, seq: node.entries[i]!.seq };
      else entries.push(entry);
      return { kind: 'leaf', hash, entries };
    }
    if (shift > MAX_SHIFT) throw new Error('persistent map: distinct hashes past the last level');
    return split(node, { kind: 'leaf', hash, entries: [entry] }, shift);
  }
  const bit = 1 << ((hash >>> shift) & MASK);
  const slot = slotOf(node.bitmap, bit);
  const children = [...node.children];
  work += children.length;
  if (node.bitmap & bit) {
    children[slot] = insert(node.children[slot]!, hash, entry, shift + BITS);
    return { kind: 'branch', bitmap: node.bitmap, children };
  }
  children.splice(slot, 0, { kind: 'leaf', hash, entries: [entry] });
  return { kind: 'branch', bitmap: node.bitmap | bit, children };
}

function collect<V>(node: Node<V> | null, into: Entry<V>[]): void {
  if (!node) return;
  if (node.kind === 'leaf') {
    into.push(...node.entries);
    return;
  }
  for (const child of node.children) collect(child, into);
}

export class PersistentMap<V, K extends string = string> implements Iterable<[K, V]> {
  private static readonly EMPTY = new PersistentMap<never, never>(null, 0, 0);

  private constructor(
    private readonly root: Node<V> | null,
    readonly size: number,
    /** The rank the next new key gets. */
    private readonly nextSeq: number,
  ) {}

  static empty<V, K extends string = string>(): PersistentMap<V, K> {
    return PersistentMap.EMPTY as unknown as PersistentMap<V, K>;
  }

  static of<V, K extends string = string>(entries: Iterable<readonly [K, V]>): PersistentMap<V, K> {
    let map = PersistentMap.empty<V, K>();
    for (const [k, v] of entries) map = map.set(k, v);
    return map;
  }

  get(key: K): V | undefined {
    return find(this.root, hashOf(key), key)?.value;
  }

  has(key: K): boolean {
    return find(this.root, hashOf(key), key) !== undefined;
  }

  /** A new map with `key` set to `value`; this one is unchanged. */
  set(key: K, value: V): PersistentMap<V, K> {
    const hash = hashOf(key);
    const known = find(this.root, hash, key) !== undefined;
    const root = insert(this.root, hash, { key, value, seq: this.nextSeq }, 0);
    return known ? new PersistentMap(root, this.size, this.nextSeq) : new PersistentMap(root, this.size + 1, this.nextSeq + 1);
  }

  /** Entries in insertion order (sorting costs O(n log n): for a full pass, not per event). */
  entries(): [K, V][] {
    const all: Entry<V>[] = [];
    collect(this.root, all);
    work += all.length;
    return all.sort((a, b) => a.seq - b.seq).map((e) => [e.key as K, e.value]);
  }

  values(): V[] {
    return this.entries().map(([, v]) => v);
  }

  keys(): K[] {
    return this.entries().map(([k]) => k);
  }

  [Symbol.iterator](): Iterator<[K, V]> {
    return this.entries()[Symbol.iterator]();
  }
}
