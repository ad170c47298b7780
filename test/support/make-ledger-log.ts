/**
 * Writes test/fixtures/ledger-log.json: the scenario of ledger-log.ts run once on a fresh service,
 * its whole log and the merchant's balances as the ledger of the day folds them. Run it (after
 * `make build`) with `node dist/test/support/make-ledger-log.js`; the fixture was written by the code
 * before the open ledger (issue 54) and is kept as that code's log, not regenerated.
 */
import fs from 'node:fs';
import t from '#tap';
import { fold } from '#packages/core/decider.js';
import { familiesLedger } from './ledger.js';
import type { LedgerEvent } from '#packages/families/ledger/events.js';
import { startPaymentsService } from './system.js';
import { LEDGER_LOG, loggedEvents, runLedgerScenario, type LedgerLog } from './ledger-log.js';

const svc = await startPaymentsService(t);
const { merchantId, key } = await runLedgerScenario(svc);
const events = await loggedEvents(svc);
const balances: LedgerLog['balances'] = {};
for (const streamId of new Set(events.filter((e) => e.stream_id.startsWith(`balance-${merchantId}-`)).map((e) => e.stream_id))) {
  const state = fold(
    familiesLedger.decider,
    events.filter((e) => e.stream_id === streamId).map((e) => ({ type: e.type, data: e.data }) as unknown as LedgerEvent),
  );
  balances[streamId] = Object.fromEntries(state.balances.entries());
}
const log: LedgerLog = { merchantId, key, events, balances };
fs.writeFileSync(LEDGER_LOG, `${JSON.stringify(log, null, 1)}\n`);
t.pass(`${events.length} events written to ${LEDGER_LOG}`);
