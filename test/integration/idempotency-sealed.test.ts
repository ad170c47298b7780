/**
 * Stored idempotent answers are sealed at rest. The answer to creating a webhook endpoint or
 * rotating its secret holds the signing secret, shown once: a replay must return it byte for byte,
 * but the idempotency_keys table (and so the WAL and backups) must never hold it in clear. Replays
 * work after a restart (a new system, the same secrets key), and answers stored in clear before
 * sealing existed still replay until they expire.
 */
import type { AddressInfo } from 'node:net';
import t, { type Test } from '#tap';
import { loadServiceConfig } from '../../services/config.js';
import { createLogger } from '#packages/core/logger.js';
import { createMerchant } from '#packages/families/merchants/merchant/commands.js';
import { buildApi } from '../../services/api/app.js';
import { listen } from '../../services/api/server.js';
import { openSystem, type System } from '../../services/system.js';
import { freshDatabase } from '../support/db.js';

const SECRETS_KEY = Buffer.alloc(32, 5).toString('base64');

interface Answer {
  status: number;
  text: string;
  replayed: string | null;
}

interface Running {
  system: System;
  post(path: string, apiKey: string, idempotencyKey: string, body?: unknown): Promise<Answer>;
  close(): Promise<void>;
}

/** A whole service on the database at `url`; a second one on the same url is the service after a restart. */
async function serve(t: Test, url: string): Promise<Running> {
  const config = loadServiceConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', SECRETS_KEY, WEBHOOK_ALLOW_PRIVATE_URLS: '127.0.0.0/8,::1' });
  const system = await openSystem(config, { log: createLogger('silent') });
  const server = await listen(buildApi(system), 0, system.log, '127.0.0.1');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await system.close();
  };
  t.teardown(close);
  return {
    system,
    close,
    async post(path, apiKey, idempotencyKey, body) {
      const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, 'idempotency-key': idempotencyKey };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, text: await res.text(), replayed: res.headers.get('idempotent-replayed') };
    },
  };
}

/** Every column of every stored key, as text: what a dump, a replica or the WAL would show. */
async function storedText(system: System): Promise<string[]> {
  const rows = await system.knex.raw<{ rows: { row: string }[] }>('SELECT k::text AS row FROM idempotency_keys k');
  return rows.rows.map((r) => r.row);
}

t.test('webhook secrets in stored answers: sealed at rest, replayed byte for byte, also after a restart', async (t) => {
  const url = await freshDatabase(t);
  const first = await serve(t, url);
  const merchant = await createMerchant(first.system.store, first.system.clock, 'Sealed answers', 'test');
  const apiKey = merchant.api_keys.sandbox;

  const create = await first.post('/api/v1/webhook-endpoints', apiKey, 'create-1', { url: 'http://127.0.0.1:9/hooks', enabled_events: ['*'] });
  t.equal(create.status, 200, 'created');
  const endpoint = JSON.parse(create.text) as { id: string; secret: string };
  t.match(endpoint.secret, /^whsec_/);
  const rotatePath = `/api/v1/webhook-endpoints/${endpoint.id}/rotate_secret`;
  const rotation = await first.post(rotatePath, apiKey, 'rotate-1');
  t.equal(rotation.status, 200, 'rotated');
  const rotated = (JSON.parse(rotation.text) as { secret: string }).secret;
  t.not(rotated, endpoint.secret, 'rotation gave a new secret');

  const stored = await storedText(first.system);
  t.equal(stored.length, 2, 'both answers are stored');
  for (const row of stored) {
    t.notOk(row.includes('whsec_'), 'no whsec_ in a stored row');
    for (const secret of [endpoint.secret, rotated]) t.notOk(row.includes(secret.slice('whsec_'.length)), "no secret's base64 body in a stored row");
  }

  const replayCreate = await first.post('/api/v1/webhook-endpoints', apiKey, 'create-1', { url: 'http://127.0.0.1:9/hooks', enabled_events: ['*'] });
  t.same(replayCreate, { status: 200, text: create.text, replayed: 'true' }, 'creation replays byte for byte, secret included');
  const replayRotation = await first.post(rotatePath, apiKey, 'rotate-1');
  t.same(replayRotation, { status: 200, text: rotation.text, replayed: 'true' }, 'rotation replays byte for byte');

  await first.close();
  const restarted = await serve(t, url);
  t.same(await restarted.post('/api/v1/webhook-endpoints', apiKey, 'create-1', { url: 'http://127.0.0.1:9/hooks', enabled_events: ['*'] }), { status: 200, text: create.text, replayed: 'true' }, 'creation replays after a restart');
  t.same(await restarted.post(rotatePath, apiKey, 'rotate-1'), { status: 200, text: rotation.text, replayed: 'true' }, 'rotation replays after a restart');
});

t.test('every stored answer is sealed, errors included', async (t) => {
  const url = await freshDatabase(t);
  const svc = await serve(t, url);
  const merchant = await createMerchant(svc.system.store, svc.system.clock, 'Sealed errors', 'test');
  const refused = await svc.post('/api/v1/webhook-endpoints', merchant.api_keys.sandbox, 'bad-1', { url: 'not a url', enabled_events: ['*'] });
  t.equal(refused.status, 400, 'refused');
  const rows = await svc.system.knex('idempotency_keys').select<{ body: string }[]>('body');
  t.equal(rows.length, 1, 'the refusal is stored (a final answer)');
  t.notOk(rows[0]!.body.includes(JSON.parse(refused.text).request_id as string), 'not in clear');
  t.same(await svc.post('/api/v1/webhook-endpoints', merchant.api_keys.sandbox, 'bad-1', { url: 'not a url', enabled_events: ['*'] }), { ...refused, replayed: 'true' });
});

t.test('an answer stored in clear before sealing still replays, byte for byte', async (t) => {
  const url = await freshDatabase(t);
  const svc = await serve(t, url);
  const merchant = await createMerchant(svc.system.store, svc.system.clock, 'Legacy answers', 'test');
  const body = { url: 'http://127.0.0.1:9/old', enabled_events: ['*'] };
  // The row a previous version wrote: request hash of the same body, the answer in clear.
  const fresh = await svc.post('/api/v1/webhook-endpoints', merchant.api_keys.sandbox, 'old-1', body);
  const { request_hash } = await svc.system.knex('idempotency_keys').where({ key: 'old-1' }).first<{ request_hash: string }>('request_hash');
  await svc.system.knex('idempotency_keys').where({ key: 'old-1' }).delete();
  const legacy = '{"id":"we_legacy","object":"webhook_endpoint","secret":"whsec_legacy"}';
  const now = new Date();
  await svc.system.knex('idempotency_keys').insert({
    merchant_id: merchant.id,
    environment: 'sandbox',
    method: 'POST',
    path: '/api/v1/webhook-endpoints',
    key: 'old-1',
    request_hash,
    state: 'done',
    status: 200,
    body: legacy,
    locked_at: now,
    expires_at: new Date(now.getTime() + 3_600_000),
  });
  t.equal(fresh.status, 200);
  t.same(await svc.post('/api/v1/webhook-endpoints', merchant.api_keys.sandbox, 'old-1', body), { status: 200, text: legacy, replayed: 'true' });
});
