/** The only source of time for domain code: injected, so tests drive it by hand. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that moves only when told to. Tests use it instead of sleeping. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | number = Date.UTC(2026, 0, 1)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): Date {
    this.current += ms;
    return this.now();
  }
  set(to: Date): void {
    this.current = to.getTime();
  }
}

export function unixSeconds(d: Date): number {
  return Math.floor(d.getTime() / 1000);
}
