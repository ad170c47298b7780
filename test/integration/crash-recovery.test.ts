/**
 * What a crash must not do to money: a payout request retried after a crash lands on the payout
 * the first attempt made (never a second one), a balance hold is never written without its
 * payout, and work a dead process held (scheduler jobs) resumes at once.
 */
import t from '#tap';
import { ProcessInstance } from '#packages/core/instance.js';
import { advance, balance, balanceTransactions, fund, mobileMoney, PayoutProbe, payoutFee, retrievePayout } from '../support/payouts.js';
import { startService } from '../support/system.js';
import { UNATTENDED } from '#packages/core/owner.js';

t.test('a payout retried with the same request after the operator call was lost is carried on, not made twice', async (t) => {
  const probe = new PayoutProbe();
  // The first attempt dies between the payout and the operator's answer.
  probe.throwNext = true;
  const svc = await startService(t, { rails: probe.wrap });
  const m = await svc.merchant();
  await fund(svc, m.id, 10_000);
  const owner = { merchantId: m.id, environment: 'sandbox' as const };
  const input = { amount: 1_000, currency: 'XOF', destination: mobileMoney() };
  const first = await svc.system.payouts.create(owner, input, UNATTENDED, 'api', { actor: 'test' }, 'key-1|body-a');
  t.equal(first.status, 'pending', 'left pending: whether the operator has it is unknown');
  const retried = await svc.system.payouts.create(owner, input, UNATTENDED, 'api', { actor: 'test' }, 'key-1|body-a');
  t.equal(retried.id, first.id, 'the retry names the same payout');
  t.same(
    probe.calls.map((c) => c.payoutId),
    [first.id, first.id],
    'and asks the operator again for it (it dedupes by payout id)',
  );
  t.equal(retried.status, 'in_transit', 'and hands it to the operator');
  const other = await svc.system.payouts.create(owner, input, UNATTENDED, 'api', { actor: 'test' }, 'key-2|body-a');
  t.not(other.id, first.id, 'another request is another payout');

  await advance(svc);
  t.equal((await retrievePayout(svc, m.api_keys.sandbox, first.id)).status, 'paid');
  const fee = payoutFee(1_000, { type: 'mobile_money', country: 'SN', operator: 'orange_money' });
  t.same(await balance(svc, m.api_keys.sandbox), { available: 10_000 - 2 * (1_000 + fee), pending: 0, reserved: 0 }, 'two payouts, two holds');
  const holds = (await balanceTransactions(svc, m.api_keys.sandbox, '?limit=100')).filter((b) => b.source === first.id);
  t.equal(holds.length, 1, 'one balance transaction for the payout');
});

t.test('the balance hold and its payout are one commit on the Postgres store', async (t) => {
  const svc = await startService(t);
  const m = await svc.merchant();
  await fund(svc, m.id, 5_000);
  const owner = { merchantId: m.id, environment: 'sandbox' as const };
  const created = await svc.system.payouts.create(owner, { amount: 1_000, currency: 'xof', destination: mobileMoney() }, UNATTENDED, 'api', { actor: 'test' });
  const rows: { type: string; data: { kind?: string; source?: string }; transaction_id: string }[] = await svc.system
    .knex('events')
    .select('type', 'data', 'transaction_id')
    .whereIn('stream_id', [`payout-${created.id}`, `balance-${m.id}-sandbox-xof`]);
  const hold = rows.find((r) => r.data.kind === 'payout_hold' && r.data.source === created.id);
  const payoutCreated = rows.find((r) => r.type === 'payout.created');
  t.ok(hold && payoutCreated, 'both written');
  t.equal(hold!.transaction_id, payoutCreated!.transaction_id, 'in the same transaction');
  t.same((await balanceTransactions(svc, m.api_keys.sandbox)).filter((b) => b.source === created.id).length, 1);
});

t.test('a job leased by a process that died is taken over at once; a live one keeps its lease', async (t) => {
  const svc = await startService(t);
  const ran: string[] = [];
  const kind = { name: 'test.takeover', key: (p: { n: string }) => `takeover:${p.n}`, lane: (p: { n: string }) => p.n };
  svc.system.scheduler.register(kind, async (p) => void ran.push(p.n));
  const other = await ProcessInstance.start(svc.system.db.url);
  await svc.system.scheduler.enqueuer(kind)({ n: 'a' }, svc.clock.now());
  // Another process claimed it for five minutes and is still alive.
  await svc.system
    .knex('scheduled_jobs')
    .where({ key: 'takeover:a' })
    .update({ locked_until: new Date(svc.clock.now().getTime() + 300_000), locked_by: other.id });
  await svc.system.scheduler.runUntilIdle();
  t.same(ran, [], 'a live process keeps its lease');
  await other.stop();
  await svc.system.scheduler.runUntilIdle();
  t.same(ran, ['a'], 'a dead process loses it at once');
});
