/**
 * Given/when/then for deciders, one shape for every decider suite:
 *
 *   const payouts = spec(payoutAggregate);
 *   payouts.given(payouts.history(create, accepted)).when(cancel).thenThrows(t, 'IKW-RES-002');
 *
 * `history(...commands)` builds the events a scenario starts from, deciding each command on the
 * state the earlier ones left (as the command handler does, which also renders: an aggregate with a
 * `render` gives its events their public object, a pure decider its facts alone); the `then…` checks run the command
 * on the given history and assert with the test's `t`. Checks that let the scenario go on return
 * the history after the command: the given events followed by the decided ones.
 */
import type { Test } from 'tap';
import { fold, rendered, type Decider, type DomainEvent, type Fact } from '#packages/core/decider.js';
import type { ErrorCode } from '#packages/core/errors.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
// Deciders refuse with their families' codes and post to their families' accounts: the family list fills the catalogue and the chart.
import { ERROR_CODES } from '#packages/families/index.js';

/**
 * What a refused command throws: a Refusal (or, from the deciders not yet moved to it, an ApiError)
 * with this code and, where given, these fields.
 */
export interface ExpectedRefusal {
  code: ErrorCode;
  /** The field the refusal names: a Refusal's `field`, an ApiError's `param`. `null`: it names none. */
  param?: string | null;
  /** A string is compared whole; a RegExp is matched. */
  message?: string | RegExp;
  retryable?: boolean;
}

/** An expected event: its exact type, and a pattern its data must match (t.match: a string in the pattern matches a value that contains it). */
export interface EventPattern<E extends DomainEvent> {
  type: E['type'];
  data?: object;
}

export interface When<S, E extends DomainEvent> {
  /** Decides exactly `expected` (t.same). */
  then(t: Test, expected: readonly E[], message?: string): E[];
  /** Decides events of exactly these types, in this order, whose data match the patterns. */
  thenMatch(t: Test, expected: readonly EventPattern<E>[], message?: string): E[];
  /** Accepts the command and decides no event (idempotent repeats, late news). */
  thenNothing(t: Test, message?: string): void;
  /** Refuses the command: throws an ApiError of this code (and param, message, retryable when given). */
  thenThrows(t: Test, refusal: ErrorCode | ExpectedRefusal, message?: string): void;
  /** Accepts the command; `check` asserts (with the test's own `t`) on the state after it and on the events it decided. */
  thenState(check: (state: S, decided: E[]) => void): E[];
}

export interface Given<C, S, E extends DomainEvent> {
  /** The given history followed by what `commands` decide one after the other; a refusal throws. */
  history(...commands: C[]): E[];
  when(command: C): When<S, E>;
}

export interface DeciderSpec<C, S, E extends DomainEvent> {
  /** The state the events leave, from the decider's initial state. */
  state(events: readonly E[]): S;
  /** What `commands` decide one after the other from no history; a refusal throws. */
  history(...commands: C[]): E[];
  /** The history the command is decided on: these event lists, one after the other. */
  given(...histories: (readonly E[])[]): Given<C, S, E>;
}

export function spec<C, S, E extends DomainEvent>(decider: Decider<C, S, E>): DeciderSpec<C, S, E> {
  const state = (events: readonly E[]) => fold(decider, events);
  const decide = (command: C, history: readonly E[]) => {
    const s = state(history);
    return rendered(decider, s, decider.decide(command, s));
  };
  const given = (...histories: (readonly E[])[]): Given<C, S, E> => {
    const before = histories.flat();
    return {
      history: (...commands) => commands.reduce<E[]>((h, c) => [...h, ...decide(c, h)], before),
      when: (command) => when(before, () => decide(command, before)),
    };
  };
  const when = (before: E[], decide: () => E[]): When<S, E> => ({
    then(t, expected, message) {
      const decided = decide();
      t.same(decided, expected, message ?? `decides ${typesOf(expected)}`);
      return [...before, ...decided];
    },
    thenMatch(t, expected, message) {
      const decided = decide();
      const label = message ?? `decides ${typesOf(expected)}`;
      t.same(
        decided.map((e) => e.type),
        expected.map((e) => e.type),
        label,
      );
      if (expected.some((e) => e.data))
        t.match(
          decided.map((e) => e.data),
          expected.map((e) => e.data ?? {}),
          `${label}: the data`,
        );
      return [...before, ...decided];
    },
    thenNothing(t, message) {
      t.same(decide(), [], message ?? 'decides nothing');
    },
    thenThrows(t, refusal, message) {
      const expected: ExpectedRefusal = typeof refusal === 'string' ? { code: refusal } : refusal;
      const label = message ?? `refused with ${expected.code}`;
      let decided: E[];
      try {
        decided = decide();
      } catch (err) {
        t.ok(isRefused(err), `${label}: a coded refusal`);
        if (!isRefused(err)) return;
        t.equal(err.code, expected.code, `${label}: code ${expected.code}`);
        const field = err instanceof Refusal ? err.field : err.param;
        if (expected.param === null) t.equal(field, undefined, `${label}: names no field`);
        else if (expected.param !== undefined) t.equal(field, expected.param, `${label}: field ${expected.param}`);
        if (typeof expected.message === 'string') t.equal(err.message, expected.message, `${label}: the message`);
        else if (expected.message) t.match(err.message, expected.message, `${label}: the message`);
        if (expected.retryable !== undefined) t.equal(ERROR_CODES[err.code].retryable, expected.retryable, `${label}: retryable ${expected.retryable}`);
        return;
      }
      t.fail(`${label}: it decided ${typesOf(decided)} instead`);
    },
    thenState(check) {
      const decided = decide();
      const after = [...before, ...decided];
      check(state(after), decided);
      return after;
    },
  });
  return { state, history: (...commands) => given().history(...commands), given };
}

/**
 * The spec of an aggregate whose events carry its public object, its events typed as stored (the
 * events.ts union, `data.object` included): `storedSpec<PayoutEvent>()(payoutAggregate)`.
 */
export const storedSpec =
  <Stored extends DomainEvent>() =>
  <C, S>(aggregate: Decider<C, S, Fact<Stored>>): DeciderSpec<C, S, Stored> =>
    spec(aggregate) as unknown as DeciderSpec<C, S, Stored>;

const typesOf = (events: readonly { type: string }[]) => (events.length ? events.map((e) => e.type).join(', ') : 'nothing');
