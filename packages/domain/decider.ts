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
   * Internal commands (scheduler jobs, provider callbacks) and commands whose refusal must be a
   * business answer (a payout's balance check) decide again on the fresh state instead of
   * answering 409: a retry re-runs the whole decision, so it is always safe.
   */
  retriesOnConflict?: number;
}

interface Cached {
  decider: unknown;
  version: number;
  state: unknown;
}

const CACHE_LIMIT = 10_000;

/**
 * Per event store, the last folded state of recently used streams and a queue per stream. The
 * queue only spares this process from racing itself (no wasted reads and retries on a hot
 * balance); the append's expected version stays the one guard, across processes too. States are
 * immutable (evolve returns new objects), so a cached state is never changed under a reader.
 */
class StreamCache {
  private readonly states = new Map<string, Cached>();
  private readonly queues = new Map<string, Promise<unknown>>();

  async load<State, Event extends DomainEvent>(
    store: EventStore,
    streamId: string,
    decider: Pick<Decider<unknown, State, Event>, 'initialState' | 'evolve'>,
  ): Promise<{ state: State; version: number | 'no_stream' }> {
    const hit = this.states.get(streamId);
    const base = hit && hit.decider === decider ? hit : null;
    const fromVersion = base ? base.version + 1 : 0;
    const events = await store.readStream(streamId, { fromVersion });
    let state = (base ? base.state : decider.initialState) as State;
    for (const e of events) state = decider.evolve(state, toDomain<Event>(e));
    const version = events.length > 0 ? events[events.length - 1]!.version : base ? base.version : 'no_stream';
    if (version !== 'no_stream') this.remember(streamId, decider, version, state);
    return { state, version };
  }

  remember(streamId: string, decider: unknown, version: number, state: unknown): void {
    this.states.delete(streamId);
    this.states.set(streamId, { decider, version, state });
    if (this.states.size > CACHE_LIMIT) this.states.delete(this.states.keys().next().value!);
  }

  /** Runs `work` after every earlier piece of work on the same stream in this process. */
  serialize<T>(streamId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(streamId) ?? Promise.resolve();
    const run = previous.then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.queues.set(streamId, settled);
    void settled.then(() => {
      if (this.queues.get(streamId) === settled) this.queues.delete(streamId);
    });
    return run;
  }
}

const caches = new WeakMap<EventStore, StreamCache>();
function cacheOf(store: EventStore): StreamCache {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new StreamCache()));
  return cache;
}

/**
 * The one way commands run: load the stream, fold it, decide, append with the version that was read.
 * A concurrent writer makes the append fail; that answers 409 IKW-RES-003 (retryable), never a lock.
 */
export function handleCommand<Command, State, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Decider<Command, State, Event>,
  command: Command,
  metadata: EventMetadata,
  options: HandleOptions = {},
): Promise<HandleResult<State, Event>> {
  const cache = cacheOf(store);
  return cache.serialize(streamId, async () => {
    for (let attempt = 0; ; attempt++) {
      const { state, version } = await cache.load(store, streamId, decider);
      const events = decider.decide(command, state);
      if (events.length === 0) return { state, events, appended: null };
      try {
        const appended = await store.append(
          streamId,
          events.map((e) => ({ type: e.type, data: e.data, metadata })),
          { expectedVersion: version },
        );
        const after = events.reduce((s, e) => decider.evolve(s, e), state);
        cache.remember(streamId, decider, appended.nextVersion, after);
        return { state: after, events, appended };
      } catch (err) {
        if (!(err instanceof VersionConflictError)) throw err;
        if (attempt < (options.retriesOnConflict ?? 0)) continue;
        throw new ApiError('IKW-RES-003', options.conflictMessage);
      }
    }
  });
}

/** Loads an aggregate's current state without deciding anything. */
export function loadState<State, Event extends DomainEvent>(
  store: EventStore,
  streamId: string,
  decider: Pick<Decider<unknown, State, Event>, 'initialState' | 'evolve'>,
): Promise<{ state: State; version: number | 'no_stream' }> {
  return cacheOf(store).load(store, streamId, decider);
}
