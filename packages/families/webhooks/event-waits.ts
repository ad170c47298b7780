import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { Refusal } from '#packages/core/refusal.js';
import { instanceIsDead } from '#packages/core/instance.js';
import { sqlMigration, type Migration } from '#packages/core/migration.js';
import type { DatabaseNotifications } from '#packages/core/notifications.js';
import type { Owner } from '#packages/core/owner.js';

/** The channel on which the dispatcher names the owners (`ownerKey`) it stored new public events for, as it commits them. */
export const PUBLIC_EVENTS_CHANNEL = 'sika_public_events';

export const ownerKey = (owner: Owner): string => `${owner.merchantId}:${owner.environment}`;

/**
 * Seconds of waiting one request stands for: a wait counts against the rate limit as one request
 * more for each further started period (docs/webhooks.md, "Missed webhooks").
 */
export const WAIT_SECONDS_PER_REQUEST = 10;

/** Requests that waiting `ms` counts for, beyond the request itself (which covers the first period). */
export function requestsWaited(ms: number): number {
  return Math.max(0, Math.ceil(ms / (WAIT_SECONDS_PER_REQUEST * 1000)) - 1);
}

/** Waits that may run at once, over every API process (EVENT_WAITS_PER_CREDENTIAL, EVENT_WAITS_PER_MERCHANT). */
export interface WaitLimits {
  perCredential: number;
  perMerchant: number;
}

/** The first key of the advisory locks that serialise the slot counts of one merchant ("EW"). */
const LOCK_NAMESPACE = 0x4557;
/** A slot its process failed to give back (a lost connection) is taken back this long after its wait's end. */
const FORGOTTEN_AFTER_MS = 60_000;

/** The running waits, one row each, so every API process counts the same slots. */
export const eventWaitMigrations: Migration[] = [
  sqlMigration(
    'event-waits/001-create',
    `CREATE TABLE event_waits (
        id bigserial PRIMARY KEY,
        merchant_id text NOT NULL,
        credential text NOT NULL,
        instance integer NOT NULL,
        ends_at timestamptz NOT NULL
      );
      CREATE INDEX event_waits_merchant ON event_waits (merchant_id)`,
  ),
];

export interface Wait {
  owner: Owner;
  /** Who waits: an API key's id, or `user:<id>`. */
  credential: string;
  seconds: number;
  /** Aborted when the client has gone: the wait ends and gives its slot back. */
  signal: AbortSignal;
}

export interface EventWaitsDeps {
  knex: Knex;
  notifications: DatabaseNotifications;
  clock: Clock;
  /** This process's instance id (packages/core/instance.ts): the slots of a process that died are free. */
  instanceId: number;
  limits: WaitLimits;
}

/**
 * Long polls of the events API. A wait reads the database when it starts and again only when the
 * dispatcher says, through a notification of its commit, that the owner has new events; it ends
 * when something is found, when its seconds are up, or when the client goes away. While it
 * waits it holds a slot of its credential and of its merchant, counted in PostgreSQL across
 * processes: none free is 429 IKW-LIM-002, with Retry-After the seconds until the first of the
 * waits in the way ends.
 */
export class EventWaits {
  /** The waits of this process by owner, each woken by the owner's notifications. */
  private readonly waiting = new Map<string, Set<() => void>>();
  private listening: Promise<unknown> | null = null;

  constructor(private readonly deps: EventWaitsDeps) {}

  /**
   * `look()`'s answer once `found` says it holds something, or when the wait ends; and how long
   * it waited (by the clock). A look that finds something at once takes no slot.
   */
  async wait<T>(wait: Wait, look: () => Promise<T>, found: (answer: T) => boolean): Promise<{ answer: T; waitedMs: number }> {
    await (this.listening ??= this.deps.notifications.listen(PUBLIC_EVENTS_CHANNEL, (payload) => this.wake(payload)));
    let woken = false;
    let ended = false;
    let resume: (() => void) | null = null;
    const wake = () => {
      woken = true;
      resume?.();
    };
    const end = () => {
      ended = true;
      wake();
    };
    // Woken from before the first look, so an event stored in between is not missed.
    const key = ownerKey(wait.owner);
    const waiters = this.waiting.get(key) ?? new Set();
    this.waiting.set(key, waiters.add(wake));
    let slot: string | null = null;
    let timer: NodeJS.Timeout | undefined;
    try {
      let answer = await look();
      if (found(answer) || wait.signal.aborted) return { answer, waitedMs: 0 };
      const started = this.deps.clock.now().getTime();
      slot = await this.takeSlot(wait);
      timer = setTimeout(end, wait.seconds * 1000);
      wait.signal.addEventListener('abort', end, { once: true });
      if (wait.signal.aborted) end();
      while (!found(answer) && !ended) {
        if (!woken) await new Promise<void>((resolve) => (resume = resolve));
        resume = null;
        woken = false;
        if (!ended) answer = await look();
      }
      return { answer, waitedMs: this.deps.clock.now().getTime() - started };
    } finally {
      clearTimeout(timer);
      wait.signal.removeEventListener('abort', end);
      waiters.delete(wake);
      if (waiters.size === 0 && this.waiting.get(key) === waiters) this.waiting.delete(key);
      if (slot !== null) await this.deps.knex('event_waits').where({ id: slot }).delete();
    }
  }

  /** A notification: the waits of the owner it names look again; null (some may be lost): all of them. */
  private wake(payload: string | null): void {
    const woken = payload === null ? [...this.waiting.values()] : [this.waiting.get(payload) ?? []];
    for (const waiters of woken) for (const wake of waiters) wake();
  }

  /** Records a running wait, if its credential and merchant have a slot free (the merchant's rows locked meanwhile). */
  private takeSlot(wait: Wait): Promise<string> {
    const { knex, clock, instanceId, limits } = this.deps;
    const now = clock.now().getTime();
    const merchantId = wait.owner.merchantId;
    return knex.transaction(async (trx) => {
      await trx.raw('SELECT pg_advisory_xact_lock(?, hashtext(?))', [LOCK_NAMESPACE, merchantId]);
      await trx('event_waits')
        .where({ merchant_id: merchantId })
        .andWhere((q) => {
          q.whereRaw(instanceIsDead('instance')).orWhere('ends_at', '<', new Date(now - FORGOTTEN_AFTER_MS));
        })
        .delete();
      const running = await trx('event_waits').where({ merchant_id: merchantId }).select<{ credential: string; ends_at: Date }[]>('credential', 'ends_at');
      const mine = running.filter((r) => r.credential === wait.credential);
      const [inTheWay, whose] = mine.length >= limits.perCredential ? [mine, 'This credential'] : running.length >= limits.perMerchant ? [running, 'This merchant'] : [null, ''];
      if (inTheWay) {
        const retryAfter = Math.max(1, Math.ceil((Math.min(...inTheWay.map((r) => r.ends_at.getTime())) - now) / 1000));
        throw new Refusal('IKW-LIM-002', `${whose} has as many waits running as it may at once (${inTheWay.length}); retry after the seconds in Retry-After`, 'wait', retryAfter);
      }
      const [row] = await trx('event_waits')
        .insert({ merchant_id: merchantId, credential: wait.credential, instance: instanceId, ends_at: new Date(now + wait.seconds * 1000) })
        .returning<{ id: string }[]>('id');
      return row!.id;
    });
  }
}
