import type { Clock } from '#packages/core/clock.js';

/**
 * A value loaded from a provider (its configuration, its bank list) and kept for `refreshMs` of the injected clock. When a refresh fails
 * and an older value exists, the older value is served (and the failure reported) until the next
 * try, `retryMs` later; with no value at all the failure is thrown. Concurrent callers share one load.
 */
export class Cached<T> {
  private value: T | undefined;
  private validUntil = 0;
  private loading: Promise<T> | undefined;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly clock: Clock,
    private readonly refreshMs: number,
    private readonly retryMs: number,
    private readonly onStale: (err: unknown) => void,
  ) {}

  /** The value held now, however old; undefined before the first load. */
  current(): T | undefined {
    return this.value;
  }

  async get(): Promise<T> {
    if (this.value !== undefined && this.clock.now().getTime() < this.validUntil) return this.value;
    return this.refresh();
  }

  /** Loads now, whatever the age of the value held. */
  refresh(): Promise<T> {
    this.loading ??= this.load().then(
      (value) => {
        this.value = value;
        this.validUntil = this.clock.now().getTime() + this.refreshMs;
        this.loading = undefined;
        return value;
      },
      (err: unknown) => {
        this.loading = undefined;
        if (this.value === undefined) throw err;
        this.validUntil = this.clock.now().getTime() + this.retryMs;
        this.onStale(err);
        return this.value;
      },
    );
    return this.loading;
  }
}
