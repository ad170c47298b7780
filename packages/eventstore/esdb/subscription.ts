import { START, type AllStreamResolvedEvent, type AllStreamSubscription } from '@eventstore/db-client';
import type { RecordedEvent, SubscribeOptions, Subscription } from '../port.js';
import { decodePosition, fromRecorded, type StreamScope } from './mapping.js';
import type { EsdbClient } from './client.js';

const MAX_RESUBSCRIBE_DELAY_MS = 10_000;

export interface EsdbSubscriptionOptions extends SubscribeOptions {
  client: Pick<EsdbClient, 'subscribeToAll'>;
  scope: StreamScope;
  /** Position of the newest event of this store (for caughtUp). */
  head(): Promise<string | null>;
  /** Wait before retrying a failed batch or resubscribing after a drop. */
  retryDelayMs: number;
}

/**
 * A catch-up subscription to $all (server-side filter: this store's streams, no system events)
 * from a checkpoint, handing batches to the handler one at a time, in log order. The checkpoint
 * moves only when a batch's handler resolves; a failed batch is retried as is; a dropped
 * subscription (server restart, "reading buffer overflow" for slow consumers) is resubscribed
 * from the checkpoint, so nothing is skipped; while it keeps failing the back-off doubles, up to
 * 10 s. Events are buffered up to a few batches and the gRPC stream is paused beyond that
 * (backpressure).
 */
export class EsdbSubscription implements Subscription {
  private checkpoint: string | null;
  private readonly batchSize: number;
  private readonly highWater: number;
  private queue: RecordedEvent[] = [];
  /** The batch being handled: retried as is until its handler resolves. */
  private pending: RecordedEvent[] | null = null;
  private live: AllStreamSubscription | null = null;
  private broken: unknown = null;
  private stopped = false;
  /** Drops in a row without an event in between: the resubscription back-off doubles with each (server down). */
  private drops = 0;
  private wake: (() => void) | null = null;
  private readonly stopSignals = new Set<() => void>();
  private readonly waiters: { target: string; resolve: () => void }[] = [];
  private readonly loop: Promise<void>;

  constructor(private readonly options: EsdbSubscriptionOptions) {
    this.checkpoint = options.after;
    this.batchSize = Math.max(1, options.batchSize ?? 100);
    this.highWater = this.batchSize * 4;
    this.loop = this.run();
  }

  private connect(): void {
    const from = this.checkpoint;
    const sub = this.options.client.subscribeToAll({
      fromPosition: from === null ? START : decodePosition(from),
      filter: this.options.scope.filter(),
    });
    // The last position queued: guards against a resubscription or an inclusive start repeating one.
    let lastQueued = from;
    sub.on('data', (resolved: AllStreamResolvedEvent) => {
      if (this.live !== sub || !resolved.event) return;
      let event: RecordedEvent | null;
      try {
        event = fromRecorded(resolved.event, this.options.scope);
      } catch (err) {
        return this.fail(sub, err);
      }
      if (!event || (lastQueued !== null && event.position <= lastQueued)) return;
      lastQueued = event.position;
      this.drops = 0;
      this.queue.push(event);
      if (this.queue.length >= this.highWater) sub.pause();
      this.signal();
    });
    sub.on('error', (err: Error) => this.fail(sub, err));
    sub.on('end', () => this.fail(sub, new Error('EventStoreDB subscription ended')));
    this.live = sub;
  }

  private fail(sub: AllStreamSubscription, err: unknown): void {
    if (this.live !== sub || this.stopped || this.broken !== null) return;
    // What was queued before the drop is good and is handled first; nothing more comes from this one.
    sub.removeAllListeners('data');
    this.broken = err;
    this.signal();
  }

  private signal(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /** Waits for new events, a drop or stop. */
  private idle(): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopped || this.broken !== null || this.queue.length > 0) return resolve();
      this.wake = resolve;
    });
  }

  /** Waits `ms` (a retry's back-off); only stop cuts it short. */
  private delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopped) return resolve();
      const done = () => {
        clearTimeout(timer);
        this.stopSignals.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.stopSignals.add(done);
    });
  }

  private async drop(): Promise<void> {
    const sub = this.live;
    this.live = null;
    this.queue = [];
    if (sub) {
      sub.removeAllListeners('data');
      sub.on('error', () => undefined);
      await sub.unsubscribe().catch(() => undefined);
    }
  }

  private async run(): Promise<void> {
    this.connect();
    while (!this.stopped) {
      if (this.broken !== null && this.pending === null && this.queue.length === 0) {
        const err = this.broken;
        this.broken = null;
        this.options.onError?.(err);
        await this.drop();
        this.drops++;
        await this.delay(Math.min(this.options.retryDelayMs * 2 ** (this.drops - 1), MAX_RESUBSCRIBE_DELAY_MS));
        if (this.stopped) break;
        this.connect();
        continue;
      }
      if (this.pending === null) {
        if (this.queue.length === 0) {
          await this.idle();
          continue;
        }
        this.pending = this.queue.splice(0, this.batchSize);
        if (this.queue.length < this.batchSize && this.live?.isPaused()) this.live.resume();
      }
      const batch = this.pending;
      try {
        await this.options.handle(batch);
      } catch (err) {
        this.options.onError?.(err);
        await this.delay(this.options.retryDelayMs);
        continue;
      }
      this.pending = null;
      this.checkpoint = batch[batch.length - 1]!.position;
      this.settleWaiters();
    }
    await this.drop();
  }

  private settleWaiters(): void {
    for (let i = this.waiters.length - 1; i >= 0; i--) {
      const w = this.waiters[i]!;
      if (this.checkpoint !== null && this.checkpoint >= w.target) {
        this.waiters.splice(i, 1);
        w.resolve();
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.signal();
    for (const done of [...this.stopSignals]) done();
    await this.loop;
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  async caughtUp(): Promise<void> {
    const target = await this.options.head();
    if (this.stopped || target === null || (this.checkpoint !== null && this.checkpoint >= target)) return;
    await new Promise<void>((resolve) => this.waiters.push({ target, resolve }));
  }
}
