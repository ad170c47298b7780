/** The PostgreSQL server of a bench run, and one scratch database per service section. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createKnex } from '#packages/core/database.js';
import { startEmbeddedPostgres } from '#packages/core/embedded-postgres.js';

export interface BenchDatabase {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/** DATABASE_URL when given; otherwise a throwaway embedded server with fsync on (the real cost of a commit). */
export async function openBenchDatabase(): Promise<BenchDatabase> {
  const external = process.env.DATABASE_URL;
  if (external) return { url: external, embedded: false, stop: async () => undefined };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-bench-'));
  try {
    const server = await startEmbeddedPostgres(dataDir, { persistent: false, fast: false });
    return {
      url: server.url('sika'),
      embedded: true,
      stop: async () => {
        await server.stop();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

export interface ServerSettings {
  version: string;
  fsync: string;
  synchronousCommit: string;
}

export async function serverSettings(knex: Knex): Promise<ServerSettings> {
  const res = await knex.raw<{ rows: { version: string; fsync: string; synchronous_commit: string }[] }>(
    `SELECT current_setting('server_version') AS version, current_setting('fsync') AS fsync,
            current_setting('synchronous_commit') AS synchronous_commit`,
  );
  const row = res.rows[0]!;
  return { version: row.version, fsync: row.fsync, synchronousCommit: row.synchronous_commit };
}

export interface ScratchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * A fresh database on the bench's server, so a section starts from an empty event log and an empty
 * job table: the webhook section's drain must not run another section's jobs, nor its dispatcher
 * read the event store section's hundred thousand appends.
 */
export async function createScratchDatabase(serverUrl: string, label: string): Promise<ScratchDatabase> {
  const url = new URL(serverUrl);
  const name = `${url.pathname.slice(1) || 'sika'}_bench_${label}_${process.pid}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const admin = createKnex(serverUrl, 1);
  try {
    await admin.raw(`DROP DATABASE IF EXISTS "${name}"`);
    await admin.raw(`CREATE DATABASE "${name}"`);
  } catch (err) {
    throw new Error(`the ${label} section needs a database of its own and could not create "${name}" (CREATEDB privilege?): ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  } finally {
    await admin.destroy();
  }
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const again = createKnex(serverUrl, 1);
      try {
        await again.raw(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await again.destroy();
      }
    },
  };
}
