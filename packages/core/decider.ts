/** A domain event as deciders produce it: a type and its data. */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/**
 * An aggregate as a Decider: pure functions, no I/O, no clock (time comes inside the command).
 * `decide` returns the new events or throws a Refusal (packages/core/refusal.ts) when the command is refused.
 */
export interface Decider<Command, State, Event extends DomainEvent> {
  initialState: State;
  evolve(state: State, event: Event): State;
  decide(command: Command, state: State): Event[];
}

/** The part of a decider that rebuilds state: what loading a stream needs. */
export type Evolver<State, Event extends DomainEvent> = Pick<Decider<unknown, State, Event>, 'initialState' | 'evolve'>;

export function fold<State, Event extends DomainEvent>(decider: Evolver<State, Event>, events: readonly Event[]): State {
  return events.reduce((state, event) => decider.evolve(state, event), decider.initialState);
}
