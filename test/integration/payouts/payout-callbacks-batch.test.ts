/**
 * The operators' answers (`payout.callback` jobs) run as a batch kind, with the payout's overdue
 * and reconcile jobs in its lanes (packages/families/payouts/processes/payout-callback.ts), on the real server,
 * database and scheduler with a manual clock: many answers in one scheduler round, their ledger
 * sides in few commits; duplicate answers paid once; a failing answer among successful ones; a
 * payout's timers and its answer in the order they fell due; an ended payout's overdue check
 * dropped, or, where the drop fails, left to run and do nothing.
 */
import t from '#tap';
import { balanceStream } from '#packages/families/ledger/events.js';
import { payoutStream } from '#packages/families/payouts/payout/events.js';
import type { PayoutReport } from '#packages/connectors/port.js';
import { balance, fundedMerchant, MINUTE, mobileMoney, OPERATOR_DELAY_MS, postPayout } from '../../support/payouts.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);
const AMOUNT = 1_000;
const FEE = 100; // Orange Money SN: 1 %, at least XOF 100

/** `n` payouts of one funded merchant, in transit, their operator's answers not yet due. */
async function inTransit(n: number, funds = n * (AMOUNT + FEE)) {
  const { merchant, key } = await fundedMerchant(svc, funds);
  const answers = await Promise.all(Array.from({ length: n }, () => postPayout(svc, key, { amount: AMOUNT, currency: 'xof', destination: mobileMoney('67') })));
  for (const a of answers) if (a.status !== 200 || a.body.status !== 'in_transit') throw new Error(`payout: ${a.status} ${a.text}`);
  return { merchant, key, ids: answers.map((a) => a.body.id as string) };
}

/** The ledger entries of these payouts other than their holds, with the transaction of each. */
async function ledgerSides(merchantId: string, ids: readonly string[]) {
  const rows: { source: string; kind: string; tx: string }[] = await svc.system
    .knex('events')
    .where({ stream_id: balanceStream(merchantId, 'sandbox', 'xof') })
    .whereRaw("data->>'source' = ANY(?)", [[...ids]])
    .whereRaw("data->>'kind' <> 'payout_hold'")
    .select(svc.system.knex.raw("data->>'source' AS source, data->>'kind' AS kind, transaction_id::text AS tx"));
  return rows;
}

const types = async (id: string) => (await svc.system.store.readStream(payoutStream(id))).map((e) => e.type);
const lastEvents = (ids: readonly string[]) => Promise.all(ids.map(async (id) => (await types(id)).at(-1)));
const jobsLeft = async (kind: string) => svc.system.knex('scheduled_jobs').where({ kind }).select('key', 'last_error', 'attempts');

t.test('120 answers due at once: all applied in one scheduler round, their ledger sides in a few commits', async (t) => {
  const { merchant, key, ids } = await inTransit(120);
  svc.clock.advance(OPERATOR_DELAY_MS);
  // One round: without the batch path it claims 50 answers and runs them 16 at a time.
  await svc.system.scheduler.runDue();
  t.same(
    await lastEvents(ids),
    ids.map(() => 'payout.paid'),
    'every payout paid in the first round',
  );
  const sides = await ledgerSides(merchant.id, ids);
  t.equal(sides.length, 120, 'one ledger side per payout');
  t.equal(new Set(sides.map((s) => s.source)).size, 120);
  const commits = new Set(sides.map((s) => s.tx)).size;
  t.ok(commits <= 3, `${commits} commits for 120 ledger sides`);
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 }, 'the holds spent, exactly');
  t.same(await jobsLeft('payout.callback'), [], 'every answer done');
  const overdue = await svc.system.knex('scheduled_jobs').where({ kind: 'payout.overdue' }).whereRaw("payload->>'payoutId' = ANY(?)", [ids]).count<{ n: string }[]>({ n: '*' });
  t.equal(overdue[0]!.n, '0', 'every payout ended, so none keeps its overdue check');
});

t.test('duplicate answers in one round: each payout paid once, its ledger side once, every job done', async (t) => {
  const { merchant, key, ids } = await inTransit(3);
  const now = svc.clock.now();
  const paid: PayoutReport = { type: 'paid' };
  // The operator's answer delivered three times more (at-least-once), and a late contrary one.
  for (const id of ids) {
    const payload = { payoutId: id, merchantId: merchant.id, environment: 'sandbox', report: paid };
    for (let n = 0; n < 3; n++) await svc.system.scheduler.schedule({ kind: 'payout.callback', key: `dup:${id}:${n}`, runAt: now, payload });
    await svc.system.scheduler.schedule({ kind: 'payout.callback', key: `late:${id}`, runAt: now, payload: { ...payload, report: { type: 'failed', failureCode: 'recipient_not_found', failureMessage: 'late' } } });
  }
  svc.clock.advance(OPERATOR_DELAY_MS);
  await svc.system.scheduler.runDue();
  for (const id of ids) t.same(await types(id), ['payout.created', 'payout.updated', 'payout.paid'], `${id}: paid once, the late failure ignored`);
  const sides = await ledgerSides(merchant.id, ids);
  t.same(sides.map((s) => s.source).sort(), [...ids].sort(), 'one ledger side each');
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 });
  t.same(await jobsLeft('payout.callback'), [], 'every duplicate answered done');
});

t.test('a failing answer among 60 successful ones in one round: the others commit, it alone is retried', async (t) => {
  const { merchant, key, ids } = await inTransit(60);
  const [odd] = ids;
  // An answer naming another merchant for a real payout: refused by the payout's decider.
  await svc.system.scheduler.schedule({
    kind: 'payout.callback',
    key: `misrouted:${odd}`,
    runAt: svc.clock.now(),
    payload: { payoutId: odd, merchantId: 'mer_000000000000000000000000', environment: 'sandbox', report: { type: 'paid' } },
  });
  svc.clock.advance(OPERATOR_DELAY_MS);
  await svc.system.scheduler.runDue();
  t.same(
    await lastEvents(ids),
    ids.map(() => 'payout.paid'),
    'all paid: the misrouted answer held back neither the others nor its own payout',
  );
  const sides = await ledgerSides(merchant.id, ids);
  t.equal(sides.length, 60);
  t.ok(new Set(sides.map((s) => s.tx)).size <= 3, 'the others still share commits');
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 });
  const left = await jobsLeft('payout.callback');
  t.equal(left.length, 1, 'only the misrouted answer is left');
  t.match(left[0], { key: `misrouted:${odd}`, attempts: 1, last_error: /No such payout/ });
  await svc.system
    .knex('scheduled_jobs')
    .where({ key: `misrouted:${odd}` })
    .delete();
});

t.test('a payout that ends drops its overdue check; one still open keeps it and is marked late at expected_by', async (t) => {
  const { ids } = await inTransit(3);
  const [open, ...ended] = ids as [string, string, string];
  await svc.system
    .knex('scheduled_jobs')
    .where({ kind: 'payout.callback' })
    .whereRaw("payload->>'payoutId' = ?", [open])
    .update({ run_at: new Date(svc.clock.now().getTime() + 11 * MINUTE) });
  const overdueOf = async () => (await svc.system.knex('scheduled_jobs').where({ kind: 'payout.overdue' }).whereRaw("payload->>'payoutId' = ANY(?)", [ids]).select('key')).map((r: { key: string }) => r.key);
  t.same((await overdueOf()).sort(), ids.map((id) => `overdue:${id}`).sort(), 'each payout has its overdue check while in transit');
  svc.clock.advance(OPERATOR_DELAY_MS);
  await svc.system.scheduler.runDue();
  t.same(await lastEvents(ended), ['payout.paid', 'payout.paid']);
  t.same(await overdueOf(), [`overdue:${open}`], 'the paid ones dropped theirs');
  svc.clock.advance(12 * MINUTE);
  await svc.system.scheduler.runUntilIdle();
  t.same(await types(open), ['payout.created', 'payout.updated', 'payout.delayed', 'payout.paid'], 'the open one: late at expected_by, then paid');
  t.same(await overdueOf(), []);
});

t.test('a drop that fails leaves the overdue check, which then finds the payout final and does nothing', async (t) => {
  const { knex } = svc.system;
  // The database refuses to delete overdue checks until the answers are applied.
  await knex.raw(`CREATE FUNCTION refuse_overdue_drop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'overdue checks may not be deleted now'; END $$`);
  await knex.raw(`CREATE TRIGGER refuse_overdue_drop BEFORE DELETE ON scheduled_jobs FOR EACH ROW WHEN (OLD.kind = 'payout.overdue') EXECUTE FUNCTION refuse_overdue_drop()`);
  const { key, ids } = await inTransit(2);
  svc.clock.advance(OPERATOR_DELAY_MS);
  await svc.system.scheduler.runDue();
  await knex.raw('DROP TRIGGER refuse_overdue_drop ON scheduled_jobs; DROP FUNCTION refuse_overdue_drop()');
  t.same(await lastEvents(ids), ['payout.paid', 'payout.paid'], 'the answers applied all the same');
  t.same(await jobsLeft('payout.callback'), [], 'and their jobs are done');
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 });
  const overdueOf = () => knex('scheduled_jobs').where({ kind: 'payout.overdue' }).whereRaw("payload->>'payoutId' = ANY(?)", [ids]).select('key');
  t.equal((await overdueOf()).length, 2, 'the checks are still there');
  svc.clock.advance(11 * MINUTE);
  await svc.system.scheduler.runUntilIdle();
  t.same(
    await Promise.all(ids.map(types)),
    ids.map(() => ['payout.created', 'payout.updated', 'payout.paid']),
    'no delay reported for a paid payout',
  );
  t.same(await overdueOf(), [], 'the checks ran and are gone');
});

t.test("a payout's overdue check and its answer run in the order they fell due, in one claim", async (t) => {
  // Two payouts: the late one's answer comes after its expected_by (10 minutes), the other's before.
  const { merchant, key, ids } = await inTransit(2);
  const [late, prompt] = ids as [string, string];
  await svc.system
    .knex('scheduled_jobs')
    .where({ kind: 'payout.callback' })
    .whereRaw("payload->>'payoutId' = ?", [late])
    .update({ run_at: new Date(svc.clock.now().getTime() + 11 * MINUTE) });
  await svc.system
    .knex('scheduled_jobs')
    .where({ kind: 'payout.callback' })
    .whereRaw("payload->>'payoutId' = ?", [prompt])
    .update({ run_at: new Date(svc.clock.now().getTime() + 9 * MINUTE) });
  svc.clock.advance(12 * MINUTE);
  // One claim holds each payout's answer and overdue check (+10 min); the hold and the payout were
  // one commit, so there is no reconcile job to run.
  const due = await svc.system
    .knex('scheduled_jobs')
    .whereRaw("payload->>'payoutId' = ANY(?)", [[...ids]])
    .count<{ n: string }[]>({ n: '*' });
  t.equal(Number(due[0]!.n), 4);
  await svc.system.scheduler.runDue();
  t.same(await types(late), ['payout.created', 'payout.updated', 'payout.delayed', 'payout.paid'], 'late: overdue first (delayed), then its answer');
  t.same(await types(prompt), ['payout.created', 'payout.updated', 'payout.paid'], 'prompt: paid before its overdue check, which then finds nothing to do');
  const sides = await ledgerSides(merchant.id, ids);
  t.same(sides.map((s) => s.source).sort(), [...ids].sort(), 'one ledger side each, posted by the answer');
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 });
  t.equal(
    (
      await svc.system
        .knex('scheduled_jobs')
        .whereRaw("payload->>'payoutId' = ANY(?)", [[...ids]])
        .count<{ n: string }[]>({ n: '*' })
    )[0]!.n,
    '0',
    'all done',
  );
});
