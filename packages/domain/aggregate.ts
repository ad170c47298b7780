import type { DomainEvent } from '../core/decider.js';
import { Refusal } from '../core/refusal.js';
import type { Owner } from '../core/owner.js';

/** An event as a decider drafts it: its data without the public `object`, which is attached after. */
export type Draft<E extends DomainEvent> = E extends { type: infer T; data: infer D } ? { type: T; data: Omit<D, 'object'> } : never;

/**
 * A decider's way to finish its events: applies each draft in turn and attaches the public object
 * as the aggregate stands after it (`data.object`), so webhooks and read models get the resource
 * as it was at that event. Internal events (locks, bookkeeping) carry no object.
 */
export function objectAttacher<S, E extends DomainEvent>(
  evolve: (state: S, event: E) => S,
  render: (state: S) => unknown,
  internal: readonly E['type'][] = [],
): (state: S, drafts: Draft<E>[]) => E[] {
  return (state, drafts) => {
    const out: E[] = [];
    let s = state;
    for (const draft of drafts) {
      const plain = { ...draft, data: { ...draft.data } } as unknown as E;
      s = evolve(s, plain);
      out.push(internal.includes(plain.type) ? plain : ({ ...draft, data: { ...draft.data, object: render(s) } } as unknown as E));
    }
    return out;
  };
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
