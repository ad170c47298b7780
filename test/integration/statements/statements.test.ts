/**
 * Statements through the real server on a fresh database and a manual clock (docs/statements.md).
 * A property (fast-check): over random histories of a merchant's ledger (payments with fees and
 * rolling reserves, settlements, refunds, payouts paid, failed or in flight, the clock moved on),
 * posted through the families' own recipes as the ledger's tests post them, the statement of a
 * random period opens at GET /api/v1/balance `as_of` its start, closes at `as_of` its end, and
 * opening + Σ lines = closing on each balance; its CSV's entries add up to each line. Then the
 * routes: the default month, a long period computed by the job with `statement.ready`, the
 * refusals, another merchant's statement, the Idempotency-Key, and `projections verify`.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { PDFParse } from 'pdf-parse';
import t, { type Test } from '#tap';
import { Refusal } from '#packages/core/refusal.js';
import { runLedger } from '#packages/families/ledger/commands.js';
import { refundPayment } from '#packages/families/billing/refund/postings.js';
import { postPayment, settleDue } from '#packages/families/payments/payment-intent/postings.js';
import { completePayout, holdOnAvailable, releasePayout } from '#packages/families/payouts/payout/postings.js';
import type { LedgerAction } from '#packages/ledger/decider.js';
import { positiveEnv } from '../../support/env.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { startService } from '../../support/system.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const SEED = positiveEnv(process.env.STATEMENT_SEED ?? process.env.FUZZ_SEED, 20261128);
const RUNS = positiveEnv(process.env.STATEMENT_RUNS, 8);
const CLEARING = 'operator_clearing:wave';
const ACCOUNTS = ['available', 'pending', 'reserved'] as const;
type Balances = Record<(typeof ACCOUNTS)[number], number>;

const svc = await startService(t);

/** Posts one recipe on the merchant's XOF sandbox balance; a refusal on the merits (funds short) posts nothing, as for a client. */
async function post(merchantId: string, action: LedgerAction): Promise<void> {
  try {
    await runLedger({ ledger: svc.system.ledger, store: svc.system.store, clock: svc.clock }, merchantId, 'sandbox', 'xof', action, {
      merchant_id: merchantId,
      environment: 'sandbox',
      actor: 'test',
      occurred_at: svc.clock.now().toISOString(),
    });
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
  }
}

const day = (at: number) => new Date(at).toISOString().slice(0, 10);
const startOfDay = (at: number) => Math.floor(at / DAY) * DAY;

async function balanceAsOf(key: string, seconds: number): Promise<Balances> {
  const res = await svc.request('GET', `/api/v1/balance?as_of=${seconds}`, { key });
  assertOk(t, res);
  const of = (a: (typeof ACCOUNTS)[number]) => (res.body[a] as { amount: number; currency: string }[]).find((x) => x.currency === 'xof')?.amount ?? 0;
  return { available: of('available'), pending: of('pending'), reserved: of('reserved') };
}

const only = (b: Balances) => ({ available: b.available, pending: b.pending, reserved: b.reserved });

/** CSV of a statement, parsed: its records by `row`. */
async function csvOf(key: string, url: string) {
  const res = await svc.request('GET', url, { key });
  if (res.status !== 200) throw new Error(`csv: ${res.status} ${res.text}`);
  const [header, ...lines] = res.text
    .trim()
    .split('\n')
    .map((l) => l.trim().split(','));
  return lines.map((cells) => Object.fromEntries(header!.map((h, i) => [h, cells[i]!])) as Record<string, string>);
}

/** The identity at both ends, and the CSV adding up to each line. */
async function checkStatement(tt: Test, key: string, statement: StatementBody): Promise<void> {
  tt.equal(statement.status, 'ready');
  tt.same(only(statement.opening), await balanceAsOf(key, statement.period_start - 1), 'opening = the ledger at the start');
  tt.same(only(statement.closing), await balanceAsOf(key, statement.period_end - 1), 'closing = the ledger at the end');
  for (const a of ACCOUNTS) tt.equal(statement.opening[a] + statement.lines.reduce((s, l) => s + l[a], 0), statement.closing[a], `opening + Σ lines = closing (${a})`);
  const rows = await csvOf(key, statement.csv_url);
  tt.same(
    rows.filter((r) => r.row === 'opening').map((r) => Number(r.total)),
    [statement.opening.total],
  );
  for (const line of statement.lines) {
    const entries = rows.filter((r) => r.row === 'entry' && r.category === line.category);
    for (const a of ACCOUNTS)
      tt.equal(
        entries.reduce((s, r) => s + Number(r[a]), 0),
        line[a],
        `CSV entries add up to ${line.category} (${a})`,
      );
    tt.equal(entries.length, line.count, `${line.category}: one CSV entry per entry counted`);
  }
  tt.ok(
    rows.filter((r) => r.row === 'entry').every((r) => r.entry && r.balance_transaction),
    'each entry names its balance transaction',
  );
}

interface StatementBody {
  id: string;
  status: string;
  period_start: number;
  period_end: number;
  opening: Balances & { total: number };
  closing: Balances & { total: number };
  lines: (Balances & { category: string; total: number; count: number; url: string })[];
  csv_url: string;
}

type Op =
  | { op: 'pay'; amount: number; feePercent: number; delayDays: number; reservePercent: number }
  | { op: 'settle' }
  | { op: 'refund'; amount: number }
  | { op: 'payout'; amount: number; fee: number }
  | { op: 'payout_end'; pick: number; paid: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({ op: fc.constant('pay' as const), amount: fc.integer({ min: 100, max: 100_000 }), feePercent: fc.integer({ min: 0, max: 5 }), delayDays: fc.integer({ min: 0, max: 3 }), reservePercent: fc.constantFrom(0, 0, 10) }),
  },
  { weight: 3, arbitrary: fc.constant({ op: 'settle' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('refund' as const), amount: fc.integer({ min: 100, max: 30_000 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('payout' as const), amount: fc.integer({ min: 100, max: 50_000 }), fee: fc.integer({ min: 0, max: 500 }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('payout_end' as const), pick: fc.nat(20), paid: fc.boolean() }) },
);
const history = fc.array(fc.record({ op: opArb, hours: fc.integer({ min: 0, max: 60 }) }), { minLength: 1, maxLength: 25 });

t.test('a random period of a random history: opening and closing are the ledger at both ends, opening + Σ lines = closing', async (t) => {
  await fc.assert(
    fc.asyncProperty(history, fc.nat(1_000), fc.nat(1_000), async (steps, fromPick, lengthPick) => {
      const { merchant, key } = await svc.sandboxMerchant();
      const began = startOfDay(svc.clock.now().getTime());
      const open: string[] = [];
      for (const { op, hours } of steps) {
        const now = svc.clock.now();
        switch (op.op) {
          case 'pay': {
            const fee = Math.floor((op.amount * op.feePercent) / 100);
            const reserve = Math.floor(((op.amount - fee) * op.reservePercent) / 100);
            await post(
              merchant.id,
              postPayment({
                source: `pi_test_${randomUUID().replace(/-/g, '')}`,
                clearing: CLEARING,
                amount: op.amount,
                fee,
                availableOn: new Date(now.getTime() + op.delayDays * DAY),
                ...(reserve > 0 ? { reserve: { amount: reserve, releaseOn: new Date(now.getTime() + 5 * DAY) } } : {}),
              }),
            );
            break;
          }
          case 'settle':
            await post(merchant.id, settleDue());
            break;
          case 'refund':
            await post(merchant.id, refundPayment({ source: `re_test_${randomUUID().replace(/-/g, '')}`, clearing: CLEARING, amount: op.amount }));
            break;
          case 'payout': {
            const source = `po_test_${randomUUID().replace(/-/g, '')}`;
            await post(merchant.id, holdOnAvailable({ source, amount: op.amount, fee: op.fee }));
            open.push(source);
            break;
          }
          case 'payout_end': {
            const source = open.splice(op.pick % Math.max(open.length, 1), 1)[0];
            if (source) await post(merchant.id, op.paid ? completePayout(source, CLEARING) : releasePayout(source));
            break;
          }
        }
        svc.clock.advance(hours * HOUR);
      }
      // Every day of the history has ended: a statement may cover any of them.
      const days = Math.floor((svc.clock.now().getTime() - began) / DAY) + 1;
      svc.clock.set(new Date(began + days * DAY + HOUR));
      const from = began + (fromPick % days) * DAY;
      const to = from + (lengthPick % Math.min(days - (from - began) / DAY, 92)) * DAY;
      const res = await svc.request('POST', '/api/v1/statements', { key, body: { currency: 'xof', from: day(from), to: day(to) } });
      assertOk(t, res);
      t.equal(res.body.period_start, from / 1000);
      t.equal(res.body.period_end, to / 1000 + 86_400);
      await checkStatement(t, key, res.body as StatementBody);
      // The whole history too: it opens at nothing.
      const whole = await svc.request('POST', '/api/v1/statements', { key, body: { currency: 'xof', from: day(began), to: day(began + (days - 1) * DAY) } });
      assertOk(t, whole);
      t.same(only(whole.body.opening), { available: 0, pending: 0, reserved: 0 });
      await checkStatement(t, key, whole.body as StatementBody);
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
});

t.test('the default is the last full calendar month (UTC); the fee apart from the payment; its PDF', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant('Statement merchant');
  const now = svc.clock.now();
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  await post(merchant.id, postPayment({ source: `pi_test_${randomUUID().replace(/-/g, '')}`, clearing: CLEARING, amount: 10_000, fee: 300, availableOn: svc.clock.now() }));
  await post(merchant.id, settleDue());
  svc.clock.set(new Date(nextMonth + DAY));
  const res = await svc.request('POST', '/api/v1/statements', { key, body: { currency: 'XOF' } });
  assertOk(t, res);
  t.match(res.body, { object: 'statement', status: 'ready', currency: 'xof', period_start: monthStart / 1000, period_end: nextMonth / 1000, livemode: false });
  const line = (category: string) => res.body.lines.find((l: { category: string }) => l.category === category);
  t.match(line('payments'), { pending: 10_000, total: 10_000, count: 1 });
  t.match(line('fees'), { pending: -300, total: -300, count: 1 });
  t.match(line('settlements'), { available: 9_700, pending: -9_700, total: 0 });
  t.match(line('disputes'), { total: 0, count: 0 });
  t.match(res.body.closing, { available: 9_700, pending: 0, reserved: 0, total: 9_700 });
  await checkStatement(t, key, res.body as StatementBody);
  const fees = await csvOf(key, line('fees').url);
  t.same(
    fees.map((r) => [r.row, r.category, r.total]),
    [['entry', 'fees', '-300']],
    "a line's url: its entries alone",
  );
  const got = await svc.request('GET', `/api/v1/statements/${res.body.id}`, { key });
  assertOk(t, got);
  t.same(got.body, res.body);
  // The PDF, parsed back: the merchant's name and Sika's, the totals, in English and in French.
  const pdfOf = async (lang: string) => {
    const answer = await fetch(`${svc.baseUrl}/api/v1/statements/${res.body.id}/pdf${lang}`, { headers: { authorization: `Bearer ${key}` } });
    t.equal(answer.status, 200);
    t.equal(answer.headers.get('content-type'), 'application/pdf');
    const parser = new PDFParse({ data: new Uint8Array(await answer.arrayBuffer()) });
    try {
      return (await parser.getText()).text.replace(/\s+/g, ' ');
    } finally {
      await parser.destroy();
    }
  };
  const english = await pdfOf('');
  t.match(english, /Statement — Statement merchant/);
  t.match(english, /Closing balance: F CFA 9,700 \/ F CFA 0 \/ F CFA 0 = F CFA 9,700/);
  t.match(english, /Fees \(1 entries\): F CFA 0 \/ -F CFA 300 \/ F CFA 0 = -F CFA 300/);
  t.match(english, /Issued by Sika/);
  const french = await pdfOf('?lang=fr');
  t.match(french, /Relevé — Statement merchant/);
  t.match(french, /Solde de clôture: /);
  t.match(french, /9 700/);
  assertError(t, await svc.request('GET', `/api/v1/statements/${res.body.id}/pdf?lang=de`, { key }), 'IKW-VAL-001', 'lang');
});

t.test('a period longer than 92 days is computed in the background, then statement.ready', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const start = startOfDay(svc.clock.now().getTime());
  for (let i = 0; i < 4; i++) {
    await post(merchant.id, postPayment({ source: `pi_test_${randomUUID().replace(/-/g, '')}`, clearing: CLEARING, amount: 5_000 + i, fee: 50, availableOn: new Date(svc.clock.now().getTime() + DAY) }));
    svc.clock.advance(40 * DAY);
    await post(merchant.id, settleDue());
  }
  svc.clock.set(new Date(start + 200 * DAY));
  const res = await svc.request('POST', '/api/v1/statements', { key, body: { currency: 'xof', from: day(start), to: day(start + 180 * DAY) } });
  assertOk(t, res);
  t.match(res.body, { status: 'pending', opening: null, closing: null, lines: [], ready_at: null });
  assertError(t, await svc.request('GET', `${res.body.csv_url}`, { key }), 'IKW-RES-002', 'id');
  assertError(t, await svc.request('GET', `/api/v1/statements/${res.body.id}/pdf`, { key }), 'IKW-RES-002', 'id');
  await svc.system.drain();
  const ready = await svc.request('GET', `/api/v1/statements/${res.body.id}`, { key });
  assertOk(t, ready);
  t.equal(ready.body.status, 'ready');
  t.match(
    ready.body.lines.find((l: { category: string }) => l.category === 'payments'),
    { count: 4, pending: 20_006 },
  );
  await checkStatement(t, key, ready.body as StatementBody);
  const events = await svc.request('GET', '/api/v1/events?type=statement.ready', { key });
  assertOk(t, events);
  const sent = events.body.data.filter((e: { data: { id: string } }) => e.data.id === res.body.id);
  t.equal(sent.length, 1, 'one statement.ready');
  t.match(sent[0], { type: 'statement.ready', data: { object: 'statement', status: 'ready', closing: ready.body.closing } });
  await svc.system.drain();
  t.equal((await svc.system.store.readStream(`statement-${res.body.id}`)).length, 2, 'computed once');
});

t.test('refusals', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const now = svc.clock.now().getTime();
  const make = (body: Record<string, unknown>) => svc.request('POST', '/api/v1/statements', { key, body });
  assertError(t, await make({ currency: 'xof', from: day(now - 10 * DAY), to: day(now - 20 * DAY) }), 'IKW-VAL-001', 'to');
  assertError(t, await make({ currency: 'xof', from: day(now - 400 * DAY), to: day(now - 2 * DAY) }), 'IKW-VAL-001', 'to');
  assertError(t, await make({ currency: 'xof', from: day(now - 10 * DAY), to: day(now) }), 'IKW-VAL-001', 'to');
  assertError(t, await make({ currency: 'xof', from: day(now - 10 * DAY) }), 'IKW-VAL-001', 'to');
  assertError(t, await make({ currency: 'xof', to: day(now - 10 * DAY) }), 'IKW-VAL-001', 'from');
  assertError(t, await make({ currency: 'xof', from: '2026-13-01', to: '2026-13-02' }), 'IKW-VAL-001', 'from');
  assertError(t, await make({ currency: 'francs' }), 'IKW-VAL-001', 'currency');
  assertError(t, await make({}), 'IKW-VAL-001', 'currency');
  assertError(t, await make({ currency: 'xof', period: 'month' }), 'IKW-VAL-002', 'period');
  // 366 days is a year that may be a leap year: accepted.
  assertOk(t, await make({ currency: 'xof', from: day(now - 367 * DAY), to: day(now - 2 * DAY) }));
  assertError(t, await svc.request('GET', '/api/v1/statements/stmt_nope/csv?category=tips', { key }), 'IKW-VAL-001', 'category');
});

t.test("another merchant's statement is not found; each lists its own", async (t) => {
  const mine = await svc.sandboxMerchant();
  const theirs = await svc.sandboxMerchant();
  const res = await svc.request('POST', '/api/v1/statements', { key: mine.key, body: { currency: 'xof' } });
  assertOk(t, res);
  assertError(t, await svc.request('GET', `/api/v1/statements/${res.body.id}`, { key: theirs.key }), 'IKW-RES-001');
  assertError(t, await svc.request('GET', `/api/v1/statements/${res.body.id}/csv`, { key: theirs.key }), 'IKW-RES-001');
  assertError(t, await svc.request('GET', `/api/v1/statements/${res.body.id}/pdf`, { key: theirs.key }), 'IKW-RES-001');
  const live = await svc.request('GET', `/api/v1/statements/${res.body.id}`, { key: mine.merchant.api_keys.live });
  t.not(live.status, 200, 'not in the other environment');
  const list = await svc.request('GET', '/api/v1/statements', { key: mine.key });
  assertOk(t, list);
  t.same(
    list.body.data.map((s: { id: string }) => s.id),
    [res.body.id],
  );
  const other = await svc.request('GET', '/api/v1/statements?currency=XOF', { key: theirs.key });
  assertOk(t, other);
  t.same(other.body.data, []);
});

t.test('an Idempotency-Key makes one statement', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const headers = { 'Idempotency-Key': 'statement-once' };
  const first = await svc.request('POST', '/api/v1/statements', { key, body: { currency: 'xof' }, headers });
  const again = await svc.request('POST', '/api/v1/statements', { key, body: { currency: 'xof' }, headers });
  assertOk(t, first);
  assertOk(t, again);
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  t.equal(again.body.id, first.body.id);
  const list = await svc.request('GET', '/api/v1/statements', { key });
  t.equal(list.body.data.length, 1);
});

t.test('projections verify', async (t) => {
  t.same(await svc.system.verifyProjections(['statements', 'ledger_entries', 'balance_transactions']), []);
});
