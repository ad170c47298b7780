import t from '#tap';
import { fold } from '#packages/core/decider.js';
import { familiesLedger } from '../support/ledger.js';
import type { LedgerEvent } from '#packages/families/ledger/events.js';
import { startProcess } from '../support/child-process.js';
import { migratedDatabase } from '../support/db.js';
import { loggedEvents, normalizedEntries, readLedgerLog, runLedgerScenario } from '../support/ledger-log.js';
import { balance, mobileMoney, payout } from '../support/payouts.js';
import { startPaymentsService, startService } from '../support/system.js';

/**
 * Issue 54, item 1: the log written by the ledger before it was opened to families
 * (test/fixtures/ledger-log.json, written once by test/support/make-ledger-log.ts) is a database
 * today's code opens: it folds to the balances that code folded, verifies, and takes new commands;
 * and the same scenario run today posts the same entries, byte for byte but for ids (and the
 * order of a batch's items, which run at once).
 */

const log = readLedgerLog();

t.test('the log of the closed ledger opens: it folds to the same balances, its read models and hash chains verify, and it takes new commands', async (t) => {
  const { url, knex } = await migratedDatabase(t);
  // The rows as that code wrote them, hashes included; the read models are rebuilt from them.
  for (const e of log.events) {
    await knex.raw('INSERT INTO events (stream_id, version, event_id, type, data, metadata, hash) VALUES (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?)', [
      e.stream_id,
      e.version,
      e.event_id,
      e.type,
      JSON.stringify(e.data),
      JSON.stringify(e.metadata),
      e.hash,
    ]);
  }
  await knex.raw('INSERT INTO streams (stream_id, version) SELECT stream_id, max(version) FROM events GROUP BY stream_id ON CONFLICT (stream_id) DO UPDATE SET version = EXCLUDED.version');

  for (const [streamId, expected] of Object.entries(log.balances)) {
    const entries = log.events.filter((e) => e.stream_id === streamId).map((e) => ({ type: e.type, data: e.data }) as unknown as LedgerEvent);
    const state = fold(familiesLedger.decider, entries);
    t.same(Object.fromEntries(state.balances.entries()), expected, `${streamId} folds to the balances the closed ledger folded`);
  }

  const cli = async (...args: string[]) => {
    const run = startProcess('bin/cli.js', { DATABASE_URL: url, LOG_LEVEL: 'silent' }, args);
    const code = await run.exit;
    return { code, output: run.output() };
  };
  const rebuilt = await cli('projections', 'rebuild');
  t.equal(rebuilt.code, 0, rebuilt.output);
  const projections = await cli('projections', 'verify');
  t.equal(projections.code, 0, projections.output);
  t.match(projections.output, /^ok: all read models equal their rebuild from the log/m);
  const audit = await cli('audit', 'verify');
  t.equal(audit.code, 0, audit.output);
  t.match(audit.output, new RegExp(`^ok: ${log.events.length} events in \\d+ streams`, 'm'));

  // The service on that database: the merchant's balance is the folded one, and a payout is held and paid from it.
  const svc = await startService(t, { databaseUrl: url });
  const { key } = log;
  const stream = Object.keys(log.balances)[0]!;
  const available = log.balances[stream]!.available!;
  t.equal((await balance(svc, key)).available, available, 'GET /api/v1/balance shows the folded available balance');
  await payout(svc, key, { amount: 1_000, destination: mobileMoney('67') });
  t.ok((await balance(svc, key)).available < available, 'a new payout is held on the opened balance');
  const after = await cli('audit', 'verify');
  t.equal(after.code, 0, after.output);
});

t.test('the scenario posts today the entries the closed ledger posted, byte for byte but for ids and order', async (t) => {
  const svc = await startPaymentsService(t);
  await runLedgerScenario(svc);
  const today = normalizedEntries(await loggedEvents(svc));
  const before = normalizedEntries(log.events);
  t.equal(today.length, before.length, 'as many entries');
  t.strictSame(today, before);
});
