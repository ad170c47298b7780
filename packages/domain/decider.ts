import { ApiError } from '../core/errors.js';
import {
  VersionConflictError,
  type AppendResult,
  type EventMetadata,
  type EventStore,
  type RecordedEvent,
} from '../eventstore/port.js';

/** A domain event as deciders produce it: a type and its data. */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/**
 * An aggregate as a Decider: pure functions, no I/O, no clock (time comes inside the command).
 * `decide` returns the new events or throws an ApiError when the command is refused.
 */
export interface Decider<Command, State, Event extends DomainEvent> {
  initialState: State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
}

export function fold<State, Event extends DomainEvent>(
  decider: Pick<Decider<unknown, State, Event>, 'initialState' | 'evolve'>,
  events: readonly Event[],
): State {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState);
}

export interface HandleResult<State, Event extends DomainEvent> {
  /** State after the new events. */
  state: State;
  /** The events this command appended (empty when the decider decided nothing). */
  events: Event[];
  appended: AppendResult | null;
}

function toDomain<Event extends DomainEvent>(recorded: RecordedEvent): Event {
  return { type: recorded.type, data: recorded.data } as Event;
}

/**
 * The one way commands run: load the stream, fold it, decide, append with the version that was read.
 * A concurrent writer makes the append fail; that answers 409 IKW-RES-003 (retryable), never a lock.
 */
export interface HandleOptions {
  /** Message of the 409 a client gets when another request changed the stream first. */
  conflictMessage?: string;
  /**
   * Internal commands (scheduler jobs, provider callbacks) decide again on the fresh state instead
   * of answering 409: their decision is idempotent, so a retry is always safe.
   */
  retriesOnConflict?: number;
}

export async function handleCommand<Command, State, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, State, Event>,
  command: Command,
  metadata: EventMetadata,
  options: HandleOptions = {},
): Promise<HandleResult<State, Event>> {
  for (let attempt = 0; ; attempt++) {
    const history = await store.readStream(streamId);
    const state = fold(decider, history.map((e) => toDomain<Event>(e)));
    const events = decider.decide(command, state);
    if (events.length === 0) return { state, events, appended: null };
    const expectedVersion = history.length === 0 ? 'no_stream' : history[history.length - 1]!.version;
    try {
      const appended = await store.append(
        streamId,
        events.map((e) => ({ type: e.type, data: e.data, metadata })),
        { expectedVersion },
      );
      return { state: events.reduce((s, e) => decider.evolve(s, e), state), events, appended };
    } catch (err) {
      if (!(err instanceof VersionConflictError)) throw err;
      if (attempt < (options.retriesOnConflict ?? 0)) continue;
      throw new ApiError('IKW-RES-003', options.conflictMessage);
    }
  }
}

/** Loads an aggregate's current state without deciding anything. */
export async function loadState<State, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<unknown, State, Event>, 'initialState' | 'evolve'>,
): Promise<{ state: State; version: number | 'no_stream' }> {
  const history = await store.readStream(streamId);
  return {
    state: fold(decider, history.map((e) => toDomain<Event>(e))),
    version: history.length === 0 ? 'no_stream' : history[history.length - 1]!.version,
  };
}
