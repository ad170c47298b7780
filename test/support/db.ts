import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Test } from 'tap';
import { startEmbeddedPostgres } from '../../packages/core/database.js';

let serverUrl: Promise<string> | null = null;

/** The admin URL of the run's PostgreSQL; a file run on its own starts one of its own. */
function adminUrl(t: Test): Promise<string> {
  if (process.env.SIKA_TEST_PG) return Promise.resolve(process.env.SIKA_TEST_PG);
  serverUrl ??= (async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-test-'));
    fs.chmodSync(dir, 0o755);
    const server = await startEmbeddedPostgres(dir, { persistent: false, fast: true });
    t.teardown(() => server.stop());
    return server.url('postgres');
  })();
  return serverUrl;
}

/** A fresh, empty database for one test; dropped when the test ends. */
export async function freshDatabase(t: Test): Promise<string> {
  const admin = await adminUrl(t);
  const name = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  t.teardown(async () => {
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await c.end();
  });
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}
