import type { EventEmitter } from 'node:events';
import type { RecordedEvent, SubscribeOptions, Subscription } from './port.js';

interface PollingOptions extends SubscribeOptions {
  read(after: string | null, limit: number): Promise<RecordedEvent[]>;
  head(): Promise<string | null>;
  /** Emits 'wake' when new events may be readable. */
  wakeups: EventEmitter;
  pollIntervalMs: number;
}

/**
 * A pull loop over the global log: read a batch after the checkpoint, hand it over, move on; when
 * nothing is readable, wait for a wake-up or the poll interval. One batch at a time, in order.
 */
export function pollingSubscription(options: PollingOptions): Subscription {
  const batchSize = options.batchSize ?? 100;
  let checkpoint = options.after;
  let stopped = false;
  let wake: (() => void) | null = null;
  let woken = false;
  const waiters: { target: string; resolve: () => void }[] = [];

  const onWake = () => {
    woken = true;
    wake?.();
  };
  options.wakeups.on('wake', onWake);

  const settleWaiters = () => {
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i]!;
      if (checkpoint !== null && checkpoint >= w.target) {
        waiters.splice(i, 1);
        w.resolve();
      }
    }
  };

  /**
   * Waits for a wake-up or the poll interval. After a read that found the subscription caught up
   * (`spacedFrom`, when it started), a wake-up reads no sooner than `caughtUpReadEveryMs` after it
   * (commits that come meanwhile share the one read); one asked for by `caughtUp()` or `stop()`
   * goes at once.
   */
  const idle = (spacedFrom: number | null) =>
    new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        wake = null;
        resolve();
      };
      const spacing = () => (spacedFrom === null || stopped || waiters.length > 0 ? 0 : spacedFrom + (options.caughtUpReadEveryMs ?? 0) - performance.now());
      const woke = () => {
        const wait = spacing();
        if (wait <= 0) return done();
        clearTimeout(timer);
        timer = setTimeout(done, wait);
        wake = () => void ((stopped || waiters.length > 0) && done());
      };
      if (woken || stopped) return woke();
      timer = setTimeout(done, Math.max(options.pollIntervalMs, spacing()));
      wake = woke;
    });

  const loop = (async () => {
    while (!stopped) {
      woken = false;
      const startedAt = performance.now();
      let batch: RecordedEvent[];
      try {
        batch = await options.read(checkpoint, batchSize);
        if (batch.length > 0 && !stopped) {
          await options.handle(batch);
          checkpoint = batch[batch.length - 1]!.position;
          settleWaiters();
        }
      } catch (err) {
        options.onError?.(err);
        await idle(null);
        continue;
      }
      if (batch.length < batchSize) await idle(options.caughtUpReadEveryMs ? startedAt : null);
    }
  })();

  return {
    async stop() {
      stopped = true;
      options.wakeups.off('wake', onWake);
      wake?.();
      await loop;
      for (const w of waiters.splice(0)) w.resolve();
    },
    async caughtUp() {
      const target = await options.head();
      // A subscription stopped meanwhile (while the head was read) reads no more: nothing to wait for.
      if (stopped || target === null || (checkpoint !== null && checkpoint >= target)) return;
      await new Promise<void>((resolve) => {
        waiters.push({ target, resolve });
        onWake();
      });
    },
  };
}

/**
 * The subscriptions a store has open, so that closing the store stops them: `track` hands out a
 * subscription that leaves the set when it is stopped.
 */
export class OpenSubscriptions {
  private readonly open = new Set<Subscription>();

  track(sub: Subscription): Subscription {
    this.open.add(sub);
    return {
      caughtUp: () => sub.caughtUp(),
      stop: async () => {
        this.open.delete(sub);
        await sub.stop();
      },
    };
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.open].map((s) => s.stop()));
  }
}
