import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Prefixes of the public IDs of the Stripe-like core (docs/architecture.md). */
export type IdPrefix =
  | 'pi'
  | 'po'
  | 'we'
  | 'evt'
  | 'cus'
  | 'prod'
  | 'price'
  | 'sub'
  | 'in'
  | 're'
  | 'cs'
  | 'txn'
  | 'whr'
  | 'op'
  | 'acct'
  | 'key'
  | 'req'
  | 'rcp'
  | 'pob'
  | 'cap'
  | 'tpl'
  | 'auto'
  | 'arun'
  | 'recon'
  | 'opr'
  | 'dp'
  | 'rbl'
  | 'ra';

/**
 * Bytes of the CSPRNG drawn 4 KiB at a time: a call into it per id cost 2 % of a busy process's
 * CPU (docs/performance.md step 32). Each byte is handed out once; the view is read before the
 * next draw refills the pool (the callers are synchronous), as Node's own randomUUID caches.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let pooled = 0;

function pooledRandomBytes(n: number): Uint8Array {
  if (n > POOL_BYTES) return randomBytes(n);
  if (pooled < n) {
    randomFillSync(pool);
    pooled = POOL_BYTES;
  }
  pooled -= n;
  return pool.subarray(pooled, pooled + n);
}

/** `length` unbiased base62 characters (24: ~143 bits of randomness); bytes >= 248 are dropped. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const b of pooledRandomBytes(length * 2)) {
      if (b < 248 && out.length < length) out += ALPHABET[b % 62];
    }
  }
  return out;
}

/** A prefixed public ID: `pi_` + 24 base62 characters. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}

/**
 * A prefixed ID computed from `seed`: the same seed always names the same object, so a retried
 * request or a re-delivered event lands on the object the first one made.
 */
export function derivedId(prefix: IdPrefix, seed: string): string {
  const digest = createHash('sha256').update(seed).digest();
  let id = '';
  for (let i = 0; i < 24; i++) id += ALPHABET[digest[i]! % 62];
  return `${prefix}_${id}`;
}

/**
 * The public id (`evt_…`) of the event a stored domain event becomes: derived, so a re-delivered
 * bus batch, a webhook and an object's history all name it the same.
 */
export function publicEventId(sourceEventId: string): string {
  return derivedId('evt', `evt:${sourceEventId}`);
}

/** uuid's v7 state, kept here since its random bytes come from the pool: ids of one millisecond count up from a random start. */
const uuidClock = { msecs: -Infinity, seq: 0 };

/**
 * A UUIDv7, ordered by creation in this process. Its random bytes come from the pool: uuid's own
 * source draws 16 bytes from Web Crypto per id, about 6 µs, a twentieth of an append's CPU (issue 70).
 */
export function newUuid(): string {
  const random = pooledRandomBytes(16);
  const now = Date.now();
  if (now > uuidClock.msecs) {
    uuidClock.msecs = now;
    uuidClock.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    uuidClock.seq = (uuidClock.seq + 1) | 0;
    if (uuidClock.seq === 0) uuidClock.msecs++;
  }
  return uuidv7({ random, msecs: uuidClock.msecs, seq: uuidClock.seq });
}

/** A UUID computed from `seed` (v5): the same seed always names the same object. */
export function derivedUuid(seed: string): string {
  return uuidv5(seed, DERIVED_UUID_NAMESPACE);
}
const DERIVED_UUID_NAMESPACE = '6f1c0e0a-5b7e-4c55-9a55-51ca0c0f1f0e';

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}_`) && /^[A-Za-z]+_[0-9A-Za-z]{24}$/.test(id);
}
