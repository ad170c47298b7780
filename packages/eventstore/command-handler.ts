import { rendered, type Decider, type DomainEvent, type Evolver } from '#packages/core/decider.js';
import { ApiError } from '#packages/core/errors.js';
import { VersionConflictError, type AppendResult, type EventMetadata, type EventStore, type RecordedEvent } from './port.js';

/**
 * What a command does when another writer appended to its stream between its read and its append.
 * - `none`: client commands answer 409 IKW-RES-003 (the client retries; nothing was written).
 * - `internal`: scheduler jobs, provider callbacks and bus reactions decide again on the fresh
 *   state: nobody is there to retry them, and every decision is re-run, so it is always safe.
 * - `contended`: races that must end in a business answer, never a 409 (a balance hold, the
 *   refundable remainder, a wallet): decided again until they win or are refused on the merits.
 */
export type ConflictPolicy = 'none' | 'internal' | 'contended';

/** How many times each policy decides again before giving up with 409. */
export const CONFLICT_RETRIES: Readonly<Record<ConflictPolicy, number>> = { none: 0, internal: 10, contended: 100 };

export interface HandleOptions {
  /** Default `none`. */
  onConflict?: ConflictPolicy;
  /** Message of the 409 a client gets when another request changed the stream first. */
  conflictMessage?: string;
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

interface Cached {
  decider: unknown;
  version: number;
  state: unknown;
}

/** Streams whose folded state one process keeps (least recently used beyond that are dropped). */
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
  /** Atomic changes that queued on a stream while it was busy, decided together at its next turn. */
  readonly waiting = new Map<string, WaitingChange[]>();

  async load<State, Event extends DomainEvent>(store: EventStore, streamId: string, decider: Evolver<State, Event>): Promise<{ state: State; version: number | 'no_stream' }> {
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

  /**
   * The remembered state without reading the stream (the initial state of a new stream when none
   * is remembered). It is right unless another process, or a write outside these handlers,
   * appended since; an append on it carries its version, so a stale guess only ever conflicts.
   */
  assume<State, Event extends DomainEvent>(streamId: string, decider: Evolver<State, Event>): { state: State; version: number | 'no_stream' } {
    const hit = this.states.get(streamId);
    if (hit && hit.decider === decider) return { state: hit.state as State, version: hit.version };
    return { state: decider.initialState, version: 'no_stream' };
  }

  /** The remembered state, or null when this process remembers none for the stream. */
  recall<State>(streamId: string, decider: unknown): { state: State; version: number } | null {
    const hit = this.states.get(streamId);
    return hit && hit.decider === decider ? { state: hit.state as State, version: hit.version } : null;
  }

  remember(streamId: string, decider: unknown, version: number, state: unknown): void {
    this.states.delete(streamId);
    this.states.set(streamId, { decider, version, state });
    if (this.states.size > CACHE_LIMIT) this.states.delete(this.states.keys().next().value!);
  }

  /** Settles once the work on the stream queued so far in this process is done; undefined when none is. */
  settled(streamId: string): Promise<unknown> | undefined {
    return this.queues.get(streamId);
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
 * The one way commands run: take the stream's state, decide, render, append with the version the
 * state is at. Deciders decide domain facts; where the aggregate renders a public object, it is
 * attached here to the events appended (`rendered`, docs/architecture.md "Decide, render, append"). A concurrent writer makes the append fail; the policy says whether to decide again or
 * answer 409 IKW-RES-003 (retryable). Never a lock.
 *
 * The first decision is made on the state this process remembers, without reading the stream
 * (docs/performance.md): when the append succeeds, its expected version proves that state was
 * current. A conflict, a refusal or a decision to do nothing on that unread state is not trusted:
 * the stream is read and the command decided again, which costs no retry of the policy.
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
  const retries = CONFLICT_RETRIES[options.onConflict ?? 'none'];
  return cache.serialize(streamId, async () => {
    let read = false;
    for (let attempt = 0; ;) {
      const { state, version } = read ? await cache.load(store, streamId, decider) : cache.assume(streamId, decider);
      let events: Event[];
      try {
        events = rendered(decider, state, decider.decide(command, state));
      } catch (err) {
        if (read) throw err;
        read = true;
        continue;
      }
      if (events.length === 0) {
        if (read) return { state, events, appended: null };
        read = true;
        continue;
      }
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
        if (read && attempt++ >= retries) throw new ApiError('IKW-RES-003', options.conflictMessage);
        read = true;
      }
    }
  });
}

/** One command of a change that spans several streams. */
export interface CommandStep<Command, State, Event extends DomainEvent> {
  streamId: string;
  decider: Decider<Command, State, Event>;
  command: Command;
  metadata: EventMetadata;
  /**
   * Runs the step only when the change's earlier steps left their streams so (each step's state
   * after its events): the money of a fact commits with the fact, and only when the fact happened.
   * On the state, not on the events, so that a retry of a saga (a store without atomic commits)
   * still finishes what a crash left.
   */
  when?: (earlier: readonly StepOutcome[]) => boolean;
}

/** What an earlier step of the same change decided, for `when`. */
export interface StepOutcome {
  state: unknown;
  events: readonly DomainEvent[];
}

/** Lets steps of different aggregates sit in one list. */
export function step<Command, State, Event extends DomainEvent>(s: CommandStep<Command, State, Event>): CommandStep<unknown, unknown, DomainEvent> {
  return s as unknown as CommandStep<unknown, unknown, DomainEvent>;
}

export type AnyStep = CommandStep<unknown, unknown, DomainEvent>;
type AnyResult = HandleResult<unknown, DomainEvent>;

/** An atomic change waiting for its turn on its first stream. */
interface WaitingChange {
  steps: AnyStep[];
  options: HandleOptions;
  taken: boolean;
  resolve(results: AnyResult[]): void;
  reject(err: unknown): void;
}

/**
 * Runs several commands on several streams as one change: each is decided on its stream's state
 * and all their events are appended in one commit with the versions read, or nothing is. Null when
 * the store cannot append atomically (the caller then runs them as a saga with a mend). The first
 * step's stream is the contended one: this process queues its work there, like handleCommand, and
 * the changes that queued there meanwhile share one commit (decideTogether). Work this process
 * has in flight on its other streams (a payout's submission while the operator's answer comes) is
 * waited for first, so the change decides on what that work leaves rather than conflicting with it
 * and reading both streams again (docs/performance.md step 33). Nothing is held while waiting, so
 * no two changes wait on each other.
 */
export function handleCommandsAtomically(store: EventStore, steps: AnyStep[], options: HandleOptions = {}): Promise<AnyResult[]> | null {
  if (!store.appendAtomically || steps.length === 0) return null;
  const cache = cacheOf(store);
  const busy = steps.slice(1).flatMap((s) => cache.settled(s.streamId) ?? []);
  if (busy.length > 0) return Promise.all(busy).then(() => queueOnFirstStream(store, cache, steps, options));
  return queueOnFirstStream(store, cache, steps, options);
}

function queueOnFirstStream(store: EventStore, cache: StreamCache, steps: AnyStep[], options: HandleOptions): Promise<AnyResult[]> {
  const streamId = steps[0]!.streamId;
  const waiting = cache.waiting;
  return new Promise<AnyResult[]>((resolve, reject) => {
    const change: WaitingChange = { steps, options, taken: false, resolve, reject };
    const queue = waiting.get(streamId);
    if (queue) queue.push(change);
    else waiting.set(streamId, [change]);
    void cache.serialize(streamId, async () => {
      if (change.taken) return; // an earlier turn on this stream decided it
      const turn = waiting.get(streamId)!;
      waiting.delete(streamId);
      for (const c of turn) c.taken = true;
      await decideTogether(store, cache, turn);
    });
  });
}

/**
 * The changes that queued on one stream, in one commit (docs/performance.md): each decided in
 * order on the first stream's remembered state as the ones before it left it, its other streams on
 * theirs, and all appended at once with the first stream's version. What is not plainly accepted
 * on remembered states (a refusal, nothing to do, a stream another change also writes) and every
 * change of a commit that fails then runs alone, reading what it needs: a hot balance commits
 * many payouts at a time, and any doubt costs only the old way.
 */
async function decideTogether(store: EventStore, cache: StreamCache, changes: WaitingChange[]): Promise<void> {
  const alone: WaitingChange[] = [];
  const together: { change: WaitingChange; shared: DomainEvent[]; after: unknown; others: { step: AnyStep; state: unknown; version: number | 'no_stream'; events: DomainEvent[] }[] }[] = [];
  if (changes.length > 1) {
    const { streamId, decider } = changes[0]!.steps[0]!;
    const base = cache.assume(streamId, decider);
    let state = base.state;
    const written = new Set([streamId]);
    for (const change of changes) {
      const [first, ...rest] = change.steps;
      if (first!.decider !== decider || rest.some((s) => written.has(s.streamId) || s.when)) {
        alone.push(change);
        continue;
      }
      try {
        const shared = rendered(decider, state, decider.decide(first!.command, state));
        const others = rest.map((s) => {
          const known = cache.assume(s.streamId, s.decider);
          return { step: s, ...known, events: rendered(s.decider, known.state, s.decider.decide(s.command, known.state)) };
        });
        if (shared.length === 0 || others.some((o) => o.events.length === 0)) {
          alone.push(change);
          continue;
        }
        state = shared.reduce((x, e) => decider.evolve(x, e), state);
        together.push({ change, shared, after: state, others });
        for (const s of rest) written.add(s.streamId);
      } catch {
        alone.push(change);
      }
    }
    if (together.length > 1) {
      try {
        const appended = await store.appendAtomically!([
          { streamId, expectedVersion: base.version, events: together.flatMap((t) => t.shared.map((e) => ({ type: e.type, data: e.data, metadata: t.change.steps[0]!.metadata }))) },
          ...together.flatMap((t) => t.others.map((o) => ({ streamId: o.step.streamId, expectedVersion: o.version, events: o.events.map((e) => ({ type: e.type, data: e.data, metadata: o.step.metadata })) }))),
        ]);
        cache.remember(streamId, decider, appended[0]!.nextVersion, state);
        let offset = 0;
        let next = 1;
        for (const t of together) {
          const recorded = appended[0]!.events.slice(offset, (offset += t.shared.length));
          const last = recorded[recorded.length - 1]!;
          const results: AnyResult[] = [{ state: t.after, events: t.shared, appended: { nextVersion: last.version, position: last.position, events: recorded } }];
          for (const o of t.others) {
            const result = appended[next++]!;
            const after = o.events.reduce((x, e) => o.step.decider.evolve(x, e), o.state);
            cache.remember(o.step.streamId, o.step.decider, result.nextVersion, after);
            results.push({ state: after, events: o.events, appended: result });
          }
          t.change.resolve(results);
        }
        together.length = 0;
      } catch {
        // A conflict or a failure of the shared commit: each change decides again alone.
      }
    }
  }
  const rest = changes.length > 1 ? changes.filter((c) => together.some((t) => t.change === c) || alone.includes(c)) : changes;
  for (const change of rest) {
    try {
      change.resolve(await decideAlone(store, cache, change.steps, change.options));
    } catch (err) {
      change.reject(err);
    }
  }
}

/** One change in one commit, decided first on the remembered states, read when that is not proved (as in handleCommand). */
async function decideAlone(store: EventStore, cache: StreamCache, steps: AnyStep[], options: HandleOptions): Promise<AnyResult[]> {
  const retries = CONFLICT_RETRIES[options.onConflict ?? 'none'];
  let read = false;
  for (let attempt = 0; ;) {
    const decided: { step: AnyStep; state: unknown; version: number | 'no_stream'; events: DomainEvent[]; skipped: boolean }[] = [];
    try {
      for (const s of steps) {
        if (s.when && !s.when(decided.map(outcomeOf))) {
          decided.push({ step: s, state: undefined, version: 'no_stream', events: [], skipped: true });
          continue;
        }
        const { state, version } = read ? await cache.load(store, s.streamId, s.decider) : cache.assume(s.streamId, s.decider);
        decided.push({ step: s, state, version, events: rendered(s.decider, state, s.decider.decide(s.command, state)), skipped: false });
      }
    } catch (err) {
      if (read) throw err;
      read = true;
      continue;
    }
    const writing = decided.filter((d) => d.events.length > 0);
    if (!read && writing.length < decided.filter((d) => !d.skipped).length) {
      read = true;
      continue;
    }
    try {
      const appended =
        writing.length === 0 ? [] : await store.appendAtomically!(writing.map((d) => ({ streamId: d.step.streamId, expectedVersion: d.version, events: d.events.map((e) => ({ type: e.type, data: e.data, metadata: d.step.metadata })) })));
      return decided.map((d) => {
        const i = writing.indexOf(d);
        if (i < 0) return { state: d.state, events: d.events, appended: null };
        const after = d.events.reduce((state, e) => d.step.decider.evolve(state, e), d.state);
        cache.remember(d.step.streamId, d.step.decider, appended[i]!.nextVersion, after);
        return { state: after, events: d.events, appended: appended[i]! };
      });
    } catch (err) {
      if (!(err instanceof VersionConflictError)) throw err;
      if (read && attempt++ >= retries) throw new ApiError('IKW-RES-003', options.conflictMessage);
      read = true;
    }
  }
}

/**
 * The steps in one commit where the store can (PostgreSQL); otherwise one after another. Callers
 * order the steps so that a crash between two leaves what the next attempt takes over (each step
 * decides nothing when it already happened).
 */
export async function handleSteps(store: EventStore, steps: CommandStep<unknown, unknown, DomainEvent>[], options: HandleOptions = {}): Promise<HandleResult<unknown, DomainEvent>[]> {
  const atomic = handleCommandsAtomically(store, steps, options);
  if (atomic) return atomic;
  const results: HandleResult<unknown, DomainEvent>[] = [];
  for (const s of steps) {
    if (s.when && !s.when(results.map(outcomeOf))) results.push({ state: undefined, events: [], appended: null });
    else results.push(await handleCommand(store, s.streamId, s.decider, s.command, s.metadata, options));
  }
  return results;
}

/** A step's state after its events (a skipped step has none). */
function outcomeOf(d: { step?: AnyStep; state: unknown; events: readonly DomainEvent[] }): StepOutcome {
  if (!d.step) return { state: d.state, events: d.events };
  const evolve = d.step.decider.evolve.bind(d.step.decider);
  return { state: d.events.reduce((x, e) => evolve(x, e), d.state), events: d.events };
}

/** Loads an aggregate's current state without deciding anything. */
export function loadState<State, Event extends DomainEvent>(store: EventStore, streamId: string, decider: Evolver<State, Event>): Promise<{ state: State; version: number | 'no_stream' }> {
  return cacheOf(store).load(store, streamId, decider);
}

/**
 * The base of an aggregate's command service: runs commands on one instance's stream (by id) and
 * loads its state, so each service states only its stream naming, decider and default policy.
 */
export abstract class CommandService<Command, State, Event extends DomainEvent> {
  protected constructor(
    private readonly eventStore: EventStore,
    private readonly streamOf: (id: string) => string,
    private readonly decider: Decider<Command, State, Event>,
    private readonly defaults: HandleOptions & { conflictMessageOf?: (command: Command) => string | undefined } = {},
  ) {}

  protected run(id: string, command: Command, metadata: EventMetadata, onConflict = this.defaults.onConflict ?? 'none'): Promise<HandleResult<State, Event>> {
    const { conflictMessageOf, ...options } = this.defaults;
    const conflictMessage = conflictMessageOf?.(command) ?? options.conflictMessage;
    return handleCommand(this.eventStore, this.streamOf(id), this.decider, command, metadata, { ...options, onConflict, ...(conflictMessage !== undefined ? { conflictMessage } : {}) });
  }

  /** The aggregate's current state (its initial state when the stream does not exist). */
  load(id: string): Promise<{ state: State; version: number | 'no_stream' }> {
    return loadState(this.eventStore, this.streamOf(id), this.decider);
  }

  /**
   * The state this process remembers for the aggregate, without reading its stream; loaded when
   * none is remembered (docs/performance.md). Another process may have appended since, so it is
   * fit for what never changes once written (the owner, the amount) and for checks the command's
   * decider makes again on the state its append proves current; `remembered` says which it is.
   */
  async recall(id: string): Promise<{ state: State; remembered: boolean }> {
    const hit = cacheOf(this.eventStore).recall<State>(this.streamOf(id), this.decider);
    return hit ? { state: hit.state, remembered: true } : { state: (await this.load(id)).state, remembered: false };
  }
}
