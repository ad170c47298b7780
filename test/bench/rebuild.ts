/**
 * Projection rebuild (`sika projections rebuild`): every inline read model rebuilt from position
 * zero over a log of BENCH_REBUILD_EVENTS events (default 200 000). The log is a real one — a few
 * merchants funded, paying out and taking payments over HTTP, with the sandbox operator's answers
 * — cloned with fresh ids until it has that many events, so every read model has its share.
 */
import { postPayment } from '#packages/families/payments/payment-intent/postings.js';
import { performance } from 'node:perf_hooks';
import { newUuid } from '#packages/core/ids.js';
import { runLedger } from '#packages/families/ledger/commands.js';
import { createMerchant } from '#packages/families/merchants/merchant/commands.js';
import { chainHashes, GENESIS_HASH } from '#packages/eventstore/hash-chain.js';
import { fixed, numberFromEnv, progress, round } from './common.js';
import { createScratchDatabase } from './database.js';
import { callJson, inParallel, startService } from './service.js';

const REBUILD_EVENTS = Math.round(numberFromEnv('BENCH_REBUILD_EVENTS', 200_000, 1000));
const TEMPLATE_MERCHANTS = 4;
const PER_MERCHANT = 15;

export interface RebuildResult {
  events: number;
  templateEvents: number;
  seconds: number;
  eventsPerSecond: number;
}

interface TemplateEvent {
  stream_id: string;
  version: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const PREFIXED_ID = /\b([a-z]{2,8})_([0-9A-Za-z]{12,})\b/g;
const HEX_64 = /\b[0-9a-f]{64}\b/g;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++, n = Math.floor(n / 62)) out = BASE62[n % 62]! + out;
  return out;
}

/** The template's text with every id made the clone's own: same shapes, no collisions between clones. */
function cloneText(text: string, clone: number): string {
  const hex = clone.toString(16).padStart(8, '0');
  return text
    .replace(UUID, (u) => u.slice(0, 28) + hex)
    .replace(HEX_64, (h) => h.slice(0, 56) + hex)
    .replace(PREFIXED_ID, (_, prefix: string, rest: string) => `${prefix}_${rest.slice(0, -4)}${base62(clone, 4)}`);
}

export async function benchRebuild(serverUrl: string): Promise<RebuildResult> {
  const database = await createScratchDatabase(serverUrl, 'rebuild');
  const service = await startService(database.url, { poolMax: 16, env: { SANDBOX_OPERATOR_DELAY_MS: '0' } });
  try {
    const { system } = service;
    progress(`  a template log: ${TEMPLATE_MERCHANTS} merchants, ${PER_MERCHANT} payouts and ${PER_MERCHANT} confirmed payment intents each…`);
    await inParallel(TEMPLATE_MERCHANTS, TEMPLATE_MERCHANTS, async (n) => {
      const merchant = await createMerchant(system.store, system.clock, `Bench rebuild ${n}`, 'bench');
      const key = merchant.api_keys.sandbox;
      const meta = { merchant_id: merchant.id, environment: 'sandbox' as const, actor: 'bench', occurred_at: system.clock.now().toISOString() };
      // The funding's source has the shape of an id (prefix, 12+ letters and digits), so each clone
      // gets its own: a source shared by every clone made each clone's settlement settle the
      // funding rows of all the clones before it again (quadratic work no real log has).
      await runLedger(system, merchant.id, 'sandbox', 'xof', postPayment({ source: `pi_${n}BenchFunding0000`, clearing: 'operator_clearing:wave', amount: 1e9, fee: 0, availableOn: system.clock.now() }), meta);
      for (let i = 0; i < PER_MERCHANT; i++) {
        await callJson(service.baseUrl, 'POST', '/api/v1/payouts', key, { amount: 1000 + i, currency: 'xof', destination: { type: 'mobile_money', country: 'SN', operator: 'wave', msisdn: '+221771234599' } });
        const intent = await callJson<{ id: string }>(service.baseUrl, 'POST', '/api/v1/payment-intents', key, { amount: 5000 + i, currency: 'xof', transaction_country: 'SN' });
        await callJson(service.baseUrl, 'POST', `/api/v1/payment-intents/${intent.id}/confirm`, key, {
          payment_method: { type: 'mobile_money', mobile_money: { country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } },
        });
      }
    });
    // The sandbox operator answers at once: its callbacks settle the payouts and payments. No
    // background consumer runs, so nothing but the rebuild works during the measurement.
    await system.scheduler.runUntilIdle();

    const template = (await system.knex('events').select('stream_id', 'version', 'type', 'data', 'metadata').orderBy('global_position')) as TemplateEvent[];
    const clones = Math.ceil((REBUILD_EVENTS - template.length) / template.length);
    progress(`  ${template.length} events in the template, cloned ${clones} times…`);
    const templateText = JSON.stringify(template);
    for (let c = 1; c <= clones; c++) {
      const events = (JSON.parse(cloneText(templateText, c)) as TemplateEvent[]).slice(0, Math.min(template.length, REBUILD_EVENTS - c * template.length));
      await insertClone(system.knex, events);
    }
    const total = Number((await system.knex('events').count<{ n: string }[]>({ n: '*' }))[0]!.n);

    progress(`  rebuilding every projection over ${total} events…`);
    const from = performance.now();
    const applied = await system.rebuildProjections();
    const seconds = (performance.now() - from) / 1000;
    return { events: applied, templateEvents: template.length, seconds, eventsPerSecond: applied / seconds };
  } finally {
    await service.close();
    await database.drop();
  }
}

/** Writes a clone's events and streams directly, chain hashes included (the audit verify would pass). */
async function insertClone(knex: import('knex').Knex, events: TemplateEvent[]): Promise<void> {
  const byStream = new Map<string, TemplateEvent[]>();
  for (const e of events) {
    const list = byStream.get(e.stream_id);
    if (list) list.push(e);
    else byStream.set(e.stream_id, [e]);
  }
  const hashOf = new Map<TemplateEvent, { id: string; hash: string }>();
  for (const [streamId, list] of byStream) {
    const ids = list.map(() => newUuid());
    const hashes = chainHashes(
      GENESIS_HASH,
      list.map((e, i) => ({ streamId, version: Number(e.version), eventId: ids[i]!, type: e.type, data: e.data, metadata: e.metadata })),
    );
    list.forEach((e, i) => hashOf.set(e, { id: ids[i]!, hash: hashes[i]! }));
  }
  await knex.transaction(async (trx) => {
    await trx.raw('INSERT INTO streams (stream_id, version) SELECT * FROM unnest(?::text[], ?::bigint[])', [[...byStream.keys()], [...byStream.values()].map((l) => Number(l[l.length - 1]!.version))]);
    await trx.raw(
      `INSERT INTO events (stream_id, version, event_id, type, data, metadata, hash)
       SELECT * FROM unnest(?::text[], ?::bigint[], ?::uuid[], ?::text[], ?::jsonb[], ?::jsonb[], ?::text[])`,
      [
        events.map((e) => e.stream_id),
        events.map((e) => Number(e.version)),
        events.map((e) => hashOf.get(e)!.id),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.data)),
        events.map((e) => JSON.stringify(e.metadata)),
        events.map((e) => hashOf.get(e)!.hash),
      ],
    );
  });
}

export function rebuildText(r: RebuildResult): string[] {
  return [
    `Projection rebuild (every inline read model from position zero, one transaction; the log: a real ${r.templateEvents}-event template of payouts and payments, cloned with fresh ids)`,
    `  ${r.events} events in ${fixed(r.seconds, 2)} s = ${fixed(r.eventsPerSecond, 0)} events/s`,
  ];
}

export function rebuildJson(r: RebuildResult) {
  return { events: r.events, template_events: r.templateEvents, seconds: round(r.seconds, 3), events_per_s: round(r.eventsPerSecond, 1) };
}
