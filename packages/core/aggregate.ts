import { Refusal } from './refusal.js';
import type { Owner } from './owner.js';

/** Whether the record exists and is of this environment: the check of news that names no merchant (a rail's callback). */
export function isOfEnvironment<R extends Pick<Owner, 'environment'>>(record: R | null | undefined, environment: Owner['environment']): record is R {
  return !!record && record.environment === environment;
}

/** Whether the record exists and is this merchant's in this environment: the one test behind every owner check. */
export function isOwned<R extends Owner>(record: R | null | undefined, owner: Owner): record is R {
  return !!record && record.merchantId === owner.merchantId && record.environment === owner.environment;
}

/**
 * The owner check of every command on an existing object: it must exist and be this merchant's in
 * this environment. Anything else is "no such …" (404), never a 403 that would tell it exists.
 * Where another object is only named in the input (a payment intent, a payout method), callers
 * refuse with that input's own code after `isOwned`.
 */
export function assertOwned<R extends Owner>(record: R | null | undefined, owner: Owner, noSuch: string, field: string): asserts record is R {
  if (!isOwned(record, owner)) throw new Refusal('IKW-RES-001', noSuch, field);
}

/** The record a public object is rendered from; rendering an object that does not exist is a bug. */
export function present<R>(record: R | null | undefined, what: string): R {
  if (!record) throw new Error(`The public object of a ${what} that does not exist`);
  return record;
}

/** The default of a switch that handles every case: adding a command without a handler fails to compile. */
export function unreachable(value: never): never {
  throw new Error(`Unhandled case: ${JSON.stringify(value)}`);
}
