/** A domain event as deciders produce it: a type and its data. */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/**
 * An event as a decider decides it: the domain fact, without the public object (`data.object`)
 * that the command handler attaches to the stored event where the aggregate has a `render`
 * (`Rendered` names the keys it attaches, where an event carries more than `object`).
 */
export type Fact<E extends DomainEvent, Rendered extends string = 'object'> = E extends { type: infer T; data: infer D } ? { type: T; data: Omit<D, Rendered> } : never;

/**
 * An aggregate as a Decider: pure functions, no I/O, no clock (time comes inside the command).
 * `decide` returns the new events or throws a Refusal (packages/core/refusal.ts) when the command is refused.
 */
export interface Decider<Command, State, Event extends DomainEvent> {
  initialState: State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
  /** Set where the aggregate's stored events carry its public object (see Render); deciders never render. */
  render?: Render<State, Event>;
}

/**
 * How an aggregate's stored events carry its public object (docs/architecture.md, "Decide, render,
 * append"): after `decide`, the command handler applies each event in turn and attaches
 * `object(state after it, event)` as `data.object`, so webhooks and read models get the resource as
 * it was at that event. Internal events (locks, bookkeeping) carry no object.
 */
export interface Render<State, Event extends DomainEvent> {
  object(state: State, event: Event): unknown;
  /** Other objects an event carries after `object`, by key (a funding contribution's events carry its campaign too). */
  alongside?(state: State, event: Event): Record<string, unknown> | undefined;
  internal?: readonly Event['type'][];
}

/**
 * The events as they are stored: each fact followed by the public object of the aggregate as it
 * stands after it, where the aggregate renders one (`{ ...fact, data: { ...data, object } }`, so
 * the bytes are those deciders wrote when they attached it themselves), and any objects `alongside` after it.
 */
export function rendered<State, Event extends DomainEvent>(aggregate: Pick<Decider<unknown, State, Event>, 'evolve' | 'render'>, state: State, facts: Event[]): Event[] {
  const render = aggregate.render;
  if (!render) return facts;
  let s = state;
  return facts.map((fact) => {
    s = aggregate.evolve(s, fact);
    return render.internal?.includes(fact.type) ? fact : ({ ...fact, data: { ...(fact.data as object), object: render.object(s, fact), ...render.alongside?.(s, fact) } } as Event);
  });
}

/** The part of a decider that rebuilds state: what loading a stream needs. */
export type Evolver<State, Event extends DomainEvent> = Pick<Decider<unknown, State, Event>, 'initialState' | 'evolve'>;

export function fold<State, Event extends DomainEvent>(decider: Evolver<State, Event>, events: readonly Event[]): State {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState);
}
