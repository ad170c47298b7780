import type { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from './logger.js';

/**
 * What a listener is told: a notification's payload, or null when notifications may have been
 * lost (the listening connection dropped and is back): whatever it keeps up to date, it reads again.
 */
export type NotificationHandler = (payload: string | null) => void;

/** A lost listening connection is opened again after this long. */
const RECONNECT_MS = 1_000;
/** Channel names are written into LISTEN as identifiers: lower-case words only. */
const CHANNEL = /^[a-z_][a-z0-9_]*$/;

/**
 * PostgreSQL LISTEN/NOTIFY for one process: one connection, opened with the first `listen`,
 * listening on every channel asked for. A notification sent in a transaction reaches every
 * process listening on the database when, and only if, that transaction commits, so whoever hears
 * it reads what the transaction wrote. A lost connection is opened again; its listeners are then
 * called with null, since what was sent meanwhile is gone.
 */
export class DatabaseNotifications {
  private readonly channels = new Map<string, { handlers: Set<NotificationHandler>; listening: Promise<void> }>();
  private client: pg.Client | null = null;
  private connecting: Promise<pg.Client | null> | null = null;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly log?: Logger,
  ) {}

  /**
   * Calls `handler` with each notification on `channel` from now on, in the order listeners were
   * added; resolves once the channel is listened to (or could not be: then at the reconnection).
   * Returns what stops this handler.
   */
  async listen(channel: string, handler: NotificationHandler): Promise<() => void> {
    if (!CHANNEL.test(channel)) throw new Error(`Not a channel name: ${channel}`);
    let entry = this.channels.get(channel);
    if (!entry) {
      const listening = this.connection().then(async (client) => {
        await client?.query(`LISTEN ${channel}`).catch((err: unknown) => this.log?.warn({ err, channel }, 'LISTEN failed'));
      });
      entry = { handlers: new Set(), listening };
      this.channels.set(channel, entry);
    }
    const { handlers, listening } = entry;
    handlers.add(handler);
    await listening;
    return () => void handlers.delete(handler);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    await this.connecting;
    await this.client?.end().catch(() => undefined);
    this.client = null;
  }

  private connection(): Promise<pg.Client | null> {
    return (this.connecting ??= this.connect());
  }

  private async connect(): Promise<pg.Client | null> {
    if (this.closed) return null;
    const client = new pg.Client({ connectionString: this.url, application_name: 'sika-listen' });
    client.on('notification', (n) => this.deliver(n.channel, n.payload ?? ''));
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      // After a reconnection: every channel asked for so far.
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      this.lost(client, err);
      return null;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return null;
    }
    this.client = client;
    return client;
  }

  /** The connection failed or ended: open another after a pause, then tell every listener it may have missed some. */
  private lost(client: pg.Client, err?: unknown): void {
    client.removeAllListeners('end');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    if (this.client === client) this.client = null;
    if (this.closed || this.retry) return;
    this.log?.warn({ err }, 'the listening connection was lost; notifications resume after reconnecting');
    this.retry = setTimeout(() => {
      this.retry = null;
      this.connecting = this.connect();
      void this.connecting.then((reconnected) => {
        if (reconnected) for (const channel of this.channels.keys()) this.deliver(channel, null);
      });
    }, RECONNECT_MS);
    this.retry.unref();
  }

  private deliver(channel: string, payload: string | null): void {
    for (const handler of this.channels.get(channel)?.handlers ?? []) {
      try {
        handler(payload);
      } catch (err) {
        this.log?.error({ err, channel }, 'a notification handler failed');
      }
    }
  }
}

/** Sends `payload` on `channel` to every listening process when `db`'s transaction commits (at once outside one). */
export async function notify(db: Knex | Knex.Transaction, channel: string, payloads: readonly string[]): Promise<void> {
  if (payloads.length === 0) return;
  await db.raw('SELECT pg_notify(?, p) FROM unnest(?::text[]) AS p', [channel, [...payloads]]);
}
