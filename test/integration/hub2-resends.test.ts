/**
 * Hub2 takes no idempotency key: a payout sent again must never become a second transfer
 * (docs/connectors.md, "Payouts: Hub2 names its transfers"). The two ways the simulator found
 * (docs/reliability.md): a status check that comes while the first send may still be on its way,
 * and a send again after a crash (the client's retry with its key) without asking Hub2 first. The
 * first status check comes 10 s after a send here, well inside the minute a send is given to settle.
 */
import t from '#tap';
import { balance, fund, getPayout, payoutFee, postPayout } from '../support/payouts.js';
import { goLive, startHub2Live } from '../support/live.js';
import { advance, loseAnswerInCrash } from '../support/system.js';

const live = await startHub2Live(t, { service: { env: { HUB2_STATUS_CHECK_AFTER: '10s' } } });
const { svc, standin } = live;
const ML = '+22376123456';
const transferPosts = (payoutId: string) => standin.requests.filter((r) => r.method === 'POST' && r.path === '/transfers' && r.body.includes(payoutId)).length;
const destination = { type: 'mobile_money', country: 'ML', operator: 'orange_money', msisdn: ML };
const fee = payoutFee(10_000, { type: 'mobile_money', country: 'ML', operator: 'orange_money' });

/** Runs the status checks due over `seconds` of the clock, a second at a time (a check that must wait runs again after its back-off). */
async function during(seconds: number): Promise<void> {
  for (let i = 0; i < seconds; i++) await advance(svc, 1_000);
}

t.test('a check while the send may still be on its way sends nothing; after a minute, Hub2’s empty list lets it go once', async (t) => {
  const { merchant, key } = await goLive(svc, 'Settling sends');
  await fund(svc, merchant.id, 50_000, 'live');
  standin.next({ type: 'server_error', taken: false });
  const res = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination }, { idempotencyKey: 'settling' });
  t.equal(res.status, 200, res.text);
  const id = res.body.id as string;
  t.equal(standin.transfersByReference(id).length, 0, 'Hub2 kept nothing');

  await during(50);
  t.equal(transferPosts(id), 1, 'fifty seconds of checks: Hub2 lists none, and nothing is sent again while the first send may be on its way');
  await during(45);
  t.equal(transferPosts(id), 2, 'past the minute, the empty list is Hub2’s word: sent again, once');
  t.equal(standin.transfersByReference(id).length, 1, 'one transfer at Hub2');
  standin.settle('transfer', standin.transfersByReference(id)[0]!.id, 'successful');
  await advance(svc, 5 * 60_000);
  t.match((await getPayout(svc, key, id)).body, { status: 'paid' }, 'paid at the next check');
  t.same(await balance(svc, key), { available: 50_000 - 10_000 - fee, pending: 0, reserved: 0 }, 'paid once');
  t.same(standin.deviations.splice(0), []);
});

t.test('a payout sent again after a crash asks Hub2 first: the transfer it kept is followed, never posted twice', async (t) => {
  const { merchant, key } = await goLive(svc, 'Crashed sends');
  await fund(svc, merchant.id, 50_000, 'live');
  standin.next({ type: 'lose_answer' });
  const first = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination }, { idempotencyKey: 'crashed' });
  t.equal(first.status, 200, first.text);
  const id = first.body.id as string;
  t.equal(standin.transfersByReference(id).length, 1, 'Hub2 kept it; its answer was lost');

  await loseAnswerInCrash(svc, 'crashed');
  svc.clock.advance(31_000);
  const retried = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination }, { idempotencyKey: 'crashed' });
  t.equal(retried.status, 200, retried.text);
  t.equal(retried.body.id, id, 'the retry answers the payout the first request made');
  t.equal(transferPosts(id), 1, 'the send again listed Hub2’s transfers by reference first, and found it');

  standin.settle('transfer', standin.transfersByReference(id)[0]!.id, 'successful');
  await during(40);
  t.match((await getPayout(svc, key, id)).body, { status: 'paid' });
  t.same(await balance(svc, key), { available: 50_000 - 10_000 - fee, pending: 0, reserved: 0 }, 'paid once');
  t.same(standin.deviations.splice(0), []);
});
