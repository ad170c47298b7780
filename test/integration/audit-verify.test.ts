import t, { type Test } from '#tap';
import { CheckpointedConsumer } from '#packages/bus/consumer.js';
import { chainSealer, verifyLog } from '#packages/eventstore/audit-chain.js';
import { eventHash } from '#packages/eventstore/hash-chain.js';
import { balanceStream } from '#packages/families/ledger/events.js';
import { startProcess } from '../support/child-process.js';
import { migratedDatabase, postgresStore } from '../support/db.js';
import { migrate, MIGRATIONS } from '../../infra/migrations.js';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import { startService, type TestService } from '../support/system.js';
import { fund, fundedMerchant, mobileMoney, payout } from '../support/payouts.js';

/**
 * Issue 20 §1: the hash chains and `sika audit verify`. Rows are altered, deleted and inserted
 * with SQL behind the service's back; verify must name the first event that no longer matches.
 */

interface EventRow {
  event_id: string;
  stream_id: string;
  version: string;
  type: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  hash: string;
}

/** A service with two merchants' ledgers (a funding and a payout each), everything sealed. */
async function ledgerLog(t: Test) {
  const svc = await startService(t);
  const a = await fundedMerchant(svc, 50_000);
  const b = await fundedMerchant(svc, 80_000);
  await payout(svc, a.key, { amount: 10_000, destination: mobileMoney('11') });
  await payout(svc, b.key, { amount: 20_000, destination: mobileMoney('12') });
  await svc.system.drain();
  const balance = (merchantId: string) => balanceStream(merchantId, 'sandbox', 'xof');
  const rows = async (streamId: string) => (await svc.system.knex.raw<{ rows: EventRow[] }>('SELECT event_id, stream_id, version, type, data, metadata, hash FROM events WHERE stream_id = ? ORDER BY version', [streamId])).rows;
  const verify = (options: { merchantId?: string; from?: string } = {}) => verifyLog(svc.system.store, svc.system.knex, options);
  return { svc, a: a.merchant.id, b: b.merchant.id, balance, rows, verify };
}

function cli(svc: TestService, args: string[]) {
  return startProcess('bin/cli.js', { DATABASE_URL: svc.system.db.url, LOG_LEVEL: 'silent' }, ['audit', 'verify', ...args]);
}

t.test('an untouched log verifies: every stream chain and the sealed head', async (t) => {
  const { svc, verify } = await ledgerLog(t);
  const report = await verify();
  t.equal(report.firstBad, null);
  t.ok(report.events > 10, `${report.events} events checked`);
  t.ok(report.checkpoints >= 1, 'the head checkpoint matched');
  const run = cli(svc, []);
  t.equal(await run.exit, 0, run.output());
  t.match(run.output(), /^ok: \d+ events in \d+ streams, \d+ sealed checkpoints/);
});

t.test('an edited amount is named: stored hash no longer matches the content', async (t) => {
  const { svc, a, balance, rows, verify } = await ledgerLog(t);
  const [funding] = await rows(balance(a));
  await svc.system.knex.raw(`UPDATE events SET data = jsonb_set(data, '{amount}', '5000000') WHERE event_id = ?`, [funding!.event_id]);
  const report = await verify();
  t.same(report.firstBad?.event, { streamId: balance(a), version: 0, eventId: funding!.event_id });
  t.match(report.firstBad?.reason, /stored hash does not match/);
  const run = cli(svc, ['--json']);
  t.equal(await run.exit, 1, 'verify exits non-zero');
  t.equal(JSON.parse(run.output()).firstBad.event.eventId, funding!.event_id, 'the CLI names the same event');
});

t.test('an edit whose hash is recomputed breaks the next link, or at a stream end the sealed global chain', async (t) => {
  const { svc, a, balance, rows, verify } = await ledgerLog(t);
  const [first, second] = await rows(balance(a));
  const forge = async (row: EventRow, previous: string) => {
    const data = { ...row.data, amount: 1 };
    const hash = eventHash(previous, { streamId: row.stream_id, version: Number(row.version), eventId: row.event_id, type: row.type, data, metadata: row.metadata });
    await svc.system.knex.raw('UPDATE events SET data = ?::jsonb, hash = ? WHERE event_id = ?', [JSON.stringify(data), hash, row.event_id]);
  };
  await forge(first!, '0'.repeat(64));
  t.same((await verify()).firstBad?.event, { streamId: balance(a), version: 1, eventId: second!.event_id }, 'the event after it no longer chains');

  const later = await ledgerLog(t);
  const tail = (await later.rows(later.balance(later.a))).at(-1)!;
  const before = (await later.rows(later.balance(later.a))).at(-2)!;
  await (async () => {
    const data = { ...tail.data, amount: 1 };
    const hash = eventHash(before.hash, { streamId: tail.stream_id, version: Number(tail.version), eventId: tail.event_id, type: tail.type, data, metadata: tail.metadata });
    await later.svc.system.knex.raw('UPDATE events SET data = ?::jsonb, hash = ? WHERE event_id = ?', [JSON.stringify(data), hash, tail.event_id]);
  })();
  const report = await later.verify();
  t.match(report.firstBad?.reason, /global chain does not match its checkpoint/, 'a consistent forgery at a stream end is caught by the sealed chain');
});

t.test('a deleted event is named: inside a stream as a version gap, at its end by the sealed chain', async (t) => {
  const { svc, a, b, balance, rows, verify } = await ledgerLog(t);
  const events = await rows(balance(a));
  t.ok(events.length >= 2);
  await svc.system.knex.raw('DELETE FROM events WHERE event_id = ?', [events[0]!.event_id]);
  const report = await verify();
  t.same(report.firstBad?.event, { streamId: balance(a), version: 1, eventId: events[1]!.event_id });
  t.match(report.firstBad?.reason, /should continue at version 0 but the next event is version 1/);

  const tail = (await rows(balance(b))).at(-1)!;
  await svc.system.knex.raw('DELETE FROM events WHERE event_id = ?', [tail.event_id]);
  const scoped = await verify({ merchantId: b });
  t.equal(scoped.firstBad, null, "a stream's last event removed leaves its own chain whole…");
  const whole = await verify();
  t.not(whole.firstBad, null, '…but not the global chain');
});

t.test('an inserted event is named', async (t) => {
  const { svc, a, balance, rows, verify } = await ledgerLog(t);
  const events = await rows(balance(a));
  const last = events.at(-1)!;
  await svc.system.knex.raw(
    `INSERT INTO events (stream_id, version, event_id, type, data, metadata, hash)
     VALUES (?, ?, gen_random_uuid(), 'ledger.entry_posted', ?::jsonb, ?::jsonb, ?)`,
    [last.stream_id, Number(last.version) + 1, JSON.stringify({ ...last.data, amount: 999_999 }), JSON.stringify(last.metadata), last.hash],
  );
  const report = await verify();
  t.equal(report.firstBad?.event?.streamId, balance(a));
  t.equal(report.firstBad?.event?.version, Number(last.version) + 1);
  t.match(report.firstBad?.reason, /stored hash does not match/);
});

t.test("--merchant checks only that merchant's streams; --from only what follows a position", async (t) => {
  const { svc, a, b, balance, rows, verify } = await ledgerLog(t);
  const [victim] = await rows(balance(b));
  await svc.system.knex.raw(`UPDATE events SET data = jsonb_set(data, '{amount}', '1') WHERE event_id = ?`, [victim!.event_id]);
  t.equal((await verify({ merchantId: a })).firstBad, null, "another merchant's tampering is not in this merchant's report");
  t.equal((await verify({ merchantId: b })).firstBad?.event?.eventId, victim!.event_id);

  const head = await svc.system.knex('audit.chain_head').first<{ position: string }>('position');
  await fund(svc, b, 1_000);
  await svc.system.drain();
  const fromHead = await verify({ from: head.position });
  t.equal(fromHead.firstBad, null, 'events before the position are not re-read');
  const total = Number((await svc.system.knex('events').count<{ count: string }[]>('* as count'))[0]!.count);
  t.ok(fromHead.events >= 1 && fromHead.events < total, `the ${fromHead.events} events after it are (the funding, chained to the stream event before it), not all ${total}`);
  const run = cli(svc, ['--from', head.position, '--merchant', b]);
  t.equal(await run.exit, 0, run.output());
});

t.test('sealed checkpoints: each one anchors the global chain, and --from starts at one', async (t) => {
  const { knex, store } = await postgresStore(t);
  const sealer = new CheckpointedConsumer(knex, store, chainSealer(3));
  await sealer.start();
  t.teardown(() => sealer.stop());
  for (let i = 0; i < 10; i++) await store.append(`s-${i % 4}`, [{ type: 'e', data: { amount: i }, metadata: { merchant_id: 'acct_x' } }], { expectedVersion: i < 4 ? 'no_stream' : Math.floor(i / 4) - 1 });
  await sealer.caughtUp();
  const checkpoints = await knex('audit.chain_checkpoints').orderBy('events').select('events', 'position');
  t.same(
    checkpoints.map((c) => Number(c.events)),
    [3, 6, 9],
    'a checkpoint every 3 events',
  );
  const clean = await verifyLog(store, knex);
  t.equal(clean.firstBad, null);
  t.equal(clean.checkpoints, 4, 'three checkpoints and the head match');

  // A consistent forgery: s-1's versions 1 and 2 (the log's 6th and 10th events) rewritten with
  // recomputed hashes, so the stream's own chain holds; the global checkpoint at #6 no longer does.
  const rows = (await knex.raw<{ rows: EventRow[] }>(`SELECT event_id, stream_id, version, type, data, metadata, hash FROM events WHERE stream_id = 's-1' ORDER BY version`)).rows;
  let previous = rows[0]!.hash;
  for (const row of rows.slice(1)) {
    const data = { amount: 1_000_000 };
    const hash = eventHash(previous, { streamId: row.stream_id, version: Number(row.version), eventId: row.event_id, type: row.type, data, metadata: row.metadata });
    await knex.raw('UPDATE events SET data = ?::jsonb, hash = ? WHERE event_id = ?', [JSON.stringify(data), hash, row.event_id]);
    previous = hash;
  }
  const forged = await verifyLog(store, knex);
  t.match(forged.firstBad?.reason, /checkpoint at event #6/, 'the first checkpoint after the forged event');
  t.equal(forged.checkpoints, 1, 'the checkpoint before it still matched');
  const fromLater = await verifyLog(store, knex, { from: checkpoints[2]!.position });
  t.equal(fromLater.firstBad?.reason.match(/#\d+/)?.[0], '#10', 'from checkpoint #9: the forged v2 (#10) is past the anchor, caught by the head');
});

t.test('events written before the hashes existed get them from the migration, chained per stream', async (t) => {
  const before = MIGRATIONS.findIndex((m) => m.name === 'eventstore/002-event-hashes');
  const { knex } = await migratedDatabase(t, { migrations: MIGRATIONS.slice(0, before) });
  for (let i = 0; i < 1500; i++) {
    const stream = `old-${i % 7}`;
    const version = Math.floor(i / 7);
    if (version === 0) await knex.raw('INSERT INTO streams (stream_id, version) VALUES (?, 0)', [stream]);
    else await knex.raw('UPDATE streams SET version = ? WHERE stream_id = ?', [version, stream]);
    await knex.raw(`INSERT INTO events (stream_id, version, event_id, type, data, metadata) VALUES (?, ?, gen_random_uuid(), 'old', ?::jsonb, ?::jsonb)`, [
      stream,
      version,
      JSON.stringify({ b: i, a: [i, { z: 1, y: 2 }] }),
      JSON.stringify({ merchant_id: 'acct_old' }),
    ]);
  }
  t.ok((await migrate(knex)).includes('eventstore/002-event-hashes'));
  const store = new PostgresEventStore(knex);
  const report = await verifyLog(store, knex);
  t.equal(report.firstBad, null, 'every stream chains from its first event');
  t.equal(report.events, 1500);
  await store.append('old-3', [{ type: 'new', data: {} }], { expectedVersion: (await store.streamVersion('old-3')) as number });
  t.equal((await verifyLog(store, knex)).firstBad, null, 'a new event chains on from the migrated ones');
});
