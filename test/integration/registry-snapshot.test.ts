/**
 * The safety net of the family-modules work (docs/architecture.md): every registry the service is
 * assembled from, written out and compared with test/snapshots/registries.json. Moving code between
 * homes must leave it equal; a change that means to alter a registry (a new route, read model,
 * migration, job kind, consumer, public event type or error code) rewrites the file with
 * `UPDATE_SNAPSHOTS=1` and shows the change in its diff.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';
import { ERROR_CODES } from '#packages/families/index.js';
import { PUBLIC_EVENTS } from '#packages/families/index.js';
import { PROCESSES } from '#packages/families/index.js';
import { testEventPayload } from '#packages/families/webhooks/test-events.js';
import { ALL_PROJECTIONS } from '#packages/families/read-model-registry.js';
import { MIGRATIONS } from '../../infra/migrations.js';
import { apiFamilies } from '../../services/api/app.js';
import { operationIdOf } from '../../services/api/openapi.js';
import { startService } from '../support/system.js';

const FILE = path.resolve(import.meta.dirname, '../../../test/snapshots/registries.json');

/**
 * A payload whose every field reads as its own name (`{payoutId}`), nested objects too: a job
 * kind's key and lane applied to it show which fields they are derived from, and how.
 */
function namedFields(prefix = ''): Record<string, unknown> {
  return new Proxy(
    {},
    {
      get(_, property) {
        if (property === Symbol.toPrimitive || property === 'toString') return () => `{${prefix.slice(0, -1)}}`;
        if (typeof property === 'symbol') return undefined;
        return namedFields(`${prefix}${property}.`);
      },
    },
  );
}

/** The shape of a JSON value: each key's shape, or the type of a leaf (values are random in test events). */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shapeOf(value[0])];
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shapeOf(v)]));
  return value === null ? 'null' : typeof value;
}

const svc = await startService(t);
const AT = new Date('2026-01-02T03:04:05.000Z');

const registries = {
  routes: apiFamilies(svc.system).flatMap((family) => family.routes.map((r) => `${family.name} ${r.method.toUpperCase()} ${r.path} ${operationIdOf(r)}`)),
  readModels: ALL_PROJECTIONS.map((p) => `${p.name}${p.followsLog ? ' (follows the log)' : ''}`),
  migrations: MIGRATIONS.map((m) => m.name),
  jobKinds: PROCESSES.map((p) => ({
    name: p.job.name,
    key: p.job.key(namedFields() as never, AT),
    lane: p.job.lane(namedFields() as never),
    ...(p.batch ? { batch: { claimLimit: p.batch.claimLimit, companions: p.batch.companions ?? [] } } : {}),
  })),
  consumers: svc.system.busConsumers.map((c) => ({ name: c.name, checkpointTable: c.checkpointTable, handles: c.handles ?? 'every event', batchSize: c.batchSize ?? null })),
  publicEventTypes: PUBLIC_EVENTS.types.map((e) => e.type),
  testEventShapes: Object.fromEntries(PUBLIC_EVENTS.types.map((e) => [e.type, shapeOf(JSON.parse(testEventPayload(PUBLIC_EVENTS, 'evt_test', e.type, AT, false)))])),
  errorCodes: Object.entries(ERROR_CODES).map(([code, e]) => `${code} ${e.status}${e.retryable ? ' retryable' : ''}`),
};

t.test('the registries are those of test/snapshots/registries.json (UPDATE_SNAPSHOTS=1 rewrites it)', async (t) => {
  const written = `${JSON.stringify(registries, null, 2)}\n`;
  if (process.env['UPDATE_SNAPSHOTS'] === '1') fs.writeFileSync(FILE, written);
  const kept = JSON.parse(fs.readFileSync(FILE, 'utf8'));
  for (const [name, value] of Object.entries(registries)) t.same(value, kept[name], `${name} unchanged`);
  t.same(Object.keys(kept), Object.keys(registries), 'no registry added or dropped');
});

t.test('the snapshot sees what it is meant to guard', async (t) => {
  t.ok(
    registries.routes.some((r) => r.includes('POST /api/v1/payouts postPayouts')),
    'routes carry their operationId',
  );
  const payoutCallback = registries.jobKinds.find((j) => j.name === 'payout.callback');
  t.ok(payoutCallback, 'the payout callback job kind is listed');
  t.notMatch(String(payoutCallback?.key), /\[object|undefined/, 'a key reads as the fields it is made of');
  t.ok(registries.consumers.length > 0 && registries.migrations.length > 50 && registries.errorCodes.length > 100);
});
