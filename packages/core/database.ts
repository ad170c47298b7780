import knexFactory, { type Knex } from 'knex';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import type { Logger } from './logger.js';
import { DatabaseNotifications } from './notifications.js';

// bigint columns (global positions, amounts) come back as strings by default; int8 values we
// store fit in a JS number only when they are amounts, so parsing stays explicit at each reader.

export interface Database {
  knex: Knex;
  /** Connection string of the server in use (embedded or external). */
  url: string;
  /** True when this process started the embedded server and so must stop it. */
  ownsServer: boolean;
  /** This process's LISTEN connection (opened by the first listener), closed with the database. */
  notifications: DatabaseNotifications;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl: string | null;
  dataDir: string;
  poolMax?: number;
  log?: Logger;
}

export interface PoolOptions {
  /**
   * Renames schemas in every identifier the query builder writes (not in raw SQL text):
   * `{ read: 'shadow_1' }` sends the read models' writes to a shadow copy.
   */
  schemaAliases?: Record<string, string>;
  /**
   * Each statement is sent as soon as it is made, before the answers to those ahead of it are read
   * (node-postgres's pipelining): statements made side by side keep the backend busy while Node
   * computes the next ones. A statement's error is its own; inside a transaction, the statements
   * sent behind it fail too, the transaction having failed.
   */
  pipeline?: boolean;
}

/** A connection pool. */
export function createKnex(url: string, poolMax = 20, { schemaAliases = {}, pipeline = false }: PoolOptions = {}): Knex {
  // knex hands the connection's settings to node-postgres's Client, whose option `pipeline` its types do not list.
  const connection: Knex.PgConnectionConfig & { pipeline?: boolean } = { connectionString: url, application_name: 'sika', ...(pipeline ? { pipeline: true } : {}) };
  return knexFactory({
    client: 'pg',
    connection,
    pool: { min: 0, max: poolMax },
    ...(Object.keys(schemaAliases).length > 0 ? { wrapIdentifier: (value: string, wrap: (v: string) => string) => wrap(schemaAliases[value] ?? value) } : {}),
  });
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const knex = createKnex(opts.databaseUrl, opts.poolMax);
    const notifications = new DatabaseNotifications(opts.databaseUrl, opts.log);
    return {
      knex,
      url: opts.databaseUrl,
      ownsServer: false,
      notifications,
      close: async () => {
        await notifications.close();
        await knex.destroy();
      },
    };
  }
  const server = await startEmbeddedPostgres(opts.dataDir, { log: opts.log });
  const url = server.url(server.database);
  const knex = createKnex(url, opts.poolMax);
  const notifications = new DatabaseNotifications(url, opts.log);
  return {
    knex,
    url,
    ownsServer: server.owned,
    notifications,
    close: async () => {
      await notifications.close();
      await knex.destroy();
      await server.stop();
    },
  };
}

let preparedUid = 0;

/**
 * Runs `text` as a named prepared statement on a connection of `db` (the pool, or the
 * transaction's own connection): PostgreSQL parses and plans it once per connection instead of at
 * every call, which is most of what a hot one-row statement costs (docs/performance.md). knex's
 * `query` and `query-response` events are emitted as for its own statements, so statement
 * counters still see it. `text` uses `$1`-style parameters and must never change for a `name`.
 */
export async function preparedQuery<R>(db: Knex | Knex.Transaction, name: string, text: string, values: unknown[]): Promise<{ rows: R[] }> {
  const client = db.client as Knex.Client & { emit(event: string, ...args: unknown[]): boolean };
  const event = { sql: text, bindings: values, method: 'raw', __knexQueryUid: `prepared-${++preparedUid}` };
  client.emit('query', event);
  const connection = (await client.acquireConnection()) as { query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[] }> };
  try {
    const result = await connection.query({ name, text, values });
    client.emit('query-response', result, event);
    return result;
  } catch (err) {
    client.emit('query-error', err, event);
    throw err;
  } finally {
    await client.releaseConnection(connection);
  }
}
