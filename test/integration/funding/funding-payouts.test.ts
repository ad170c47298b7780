/**
 * POST /api/v1/funding/campaigns/{id}/payouts against the real server: an Idempotency-Key replays
 * its answer and pays once, another body under the same key is refused, each refusal has its code,
 * and parallel requests never pay out more than the campaign released (the organizer's balance
 * holds other money too, so only the campaign's claim can stop them).
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { activeCampaign, contribute, createCampaign, DAY, getCampaign, settle } from '../../support/funding.js';
import { balance, fund, saveDestination } from '../../support/payouts.js';
import { OPERATOR_DELAY_MS, startPaymentsService, type TestService } from '../../support/system.js';

const svc = await startPaymentsService(t);

const wave = { type: 'mobile_money', country: 'SN', operator: 'wave', msisdn: '+221771234567', currency: 'XOF' };
/** Other money on the balance: a payout the campaign should refuse would not be stopped by the ledger. */
const OTHER_FUNDS = 1_000_000;

/** A merchant with a payout method, other funds, and a campaign closed with `raised` released (no payout method on it: nothing is paid out at close). */
async function closedCampaign(s: TestService, raised: number) {
  const { merchant, key } = await s.sandboxMerchant();
  const methodId = await saveDestination(s, key, wave);
  s.clock.advance(2 * DAY); // past the payout method's safety delay
  await fund(s, merchant.id, OTHER_FUNDS);
  const campaign = await activeCampaign(s, key);
  const res = await contribute(s, key, campaign.id, { amountMinor: raised });
  if (res.status !== 200) throw new Error(`contribute failed: ${res.status} ${res.text}`);
  await settle(s, OPERATOR_DELAY_MS);
  const closed = await s.request('POST', `/api/v1/funding/campaigns/${campaign.id}/close`, { key });
  if (closed.status !== 200) throw new Error(`close failed: ${closed.status} ${closed.text}`);
  return { merchant, key, methodId, campaign: closed.body as { id: string; releasedAmountMinor: number; releasedFeeMinor: number } };
}

/** The ordinary payouts made for the campaign (their metadata names it), of any merchant: the public API lists none. */
async function payoutsOf(s: TestService, campaignId: string) {
  const rows = await s.system.knex('read.payouts').whereRaw(`object->'metadata'->>'funding_campaign_id' = ?`, [campaignId]).select<{ object: { amount: number; fee: number } }[]>('object');
  return rows.map((r) => r.object);
}

t.test('Idempotency-Key: the same request replays its answer and pays once; another body under the key is refused', async (t) => {
  const { key, methodId, campaign } = await closedCampaign(svc, 30_000);
  const headers = { 'Idempotency-Key': 'payout-1' };
  const body = { payoutMethodId: methodId, amountMinor: 10_000 };
  const first = await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/payouts`, { key, headers, body });
  assertOk(t, first);
  t.match(first.body, { status: 'created', amountMinor: 10_000, payoutMethodId: methodId, payoutId: /^po_/ });
  const again = await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/payouts`, { key, headers, body });
  t.equal(again.text, first.text, 'the first answer, byte for byte');
  t.equal(again.headers.get('idempotent-replayed'), 'true');
  assertError(t, await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/payouts`, { key, headers, body: { ...body, amountMinor: 9_000 } }), 'IKW-IDM-002');
  const claims = (await svc.request('GET', `/api/v1/funding/campaigns/${campaign.id}/payouts`, { key })).body.data;
  t.equal(claims.length, 1, 'one claim on the campaign');
  const made = await payoutsOf(svc, campaign.id);
  t.equal(made.length, 1, 'one payout made');
  t.equal(made[0]!.amount, 10_000);
  t.equal((await getCampaign(svc, key, campaign.id)).paidOutAmountMinor, 10_000 + first.body.feeMinor, 'counted once');
});

t.test('refusals: more than the released funds, a campaign not closed, no payout method, and what is not the merchant’s', async (t) => {
  const { key, methodId, campaign } = await closedCampaign(svc, 20_000);
  const payable = campaign.releasedAmountMinor - campaign.releasedFeeMinor;
  const path = `/api/v1/funding/campaigns/${campaign.id}/payouts`;
  assertError(t, await svc.request('POST', path, { key, body: { payoutMethodId: methodId, amountMinor: payable } }), 'IKW-FND-005', 'amountMinor');
  assertError(t, await svc.request('POST', path, { key, body: { amountMinor: 1_000 } }), 'IKW-VAL-001', 'payoutMethodId');
  assertError(t, await svc.request('POST', path, { key, body: { payoutMethodId: '0193a1b2-0000-7000-8000-000000000000', amountMinor: 1_000 } }), 'IKW-PAY-002', 'payoutMethodId');
  // All that remains (less at most one minor unit where no amount fits exactly), then nothing that covers the smallest payout.
  const all = await svc.request('POST', path, { key, body: { payoutMethodId: methodId } });
  assertOk(t, all);
  const taken = all.body.amountMinor + all.body.feeMinor;
  t.ok(taken <= payable && taken >= payable - 1, `without an amount it takes all that remains, its fee included (${taken} of ${payable})`);
  assertError(t, await svc.request('POST', path, { key, body: { payoutMethodId: methodId, amountMinor: 100 } }), 'IKW-FND-005', 'amountMinor');
  t.equal((await getCampaign(svc, key, campaign.id)).paidOutAmountMinor, taken, 'only the one payout is counted');

  const draft = await createCampaign(svc, key);
  const active = await activeCampaign(svc, key);
  const canceled = await activeCampaign(svc, key);
  assertOk(t, await svc.request('POST', `/api/v1/funding/campaigns/${canceled.id}/cancel`, { key }));
  for (const c of [draft, active, canceled]) {
    assertError(t, await svc.request('POST', `/api/v1/funding/campaigns/${c.id}/payouts`, { key, body: { payoutMethodId: methodId, amountMinor: 1_000 } }), 'IKW-FND-001', 'id');
  }

  const other = await closedCampaign(svc, 20_000);
  const theirs = await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/payouts`, { key: other.key, body: { payoutMethodId: other.methodId, amountMinor: 1_000 } });
  t.equal(theirs.status, 404, "another merchant's campaign is not found");
  assertError(t, theirs, 'IKW-RES-001', 'id');
  assertError(t, await svc.request('POST', `/api/v1/funding/campaigns/${other.campaign.id}/payouts`, { key, body: { payoutMethodId: methodId, amountMinor: 1_000 } }), 'IKW-RES-001', 'id');
  assertError(t, await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/payouts`, { key, body: { payoutMethodId: other.methodId, amountMinor: 1_000 } }), 'IKW-PAY-002', 'payoutMethodId');
  t.equal((await payoutsOf(svc, campaign.id)).length, 1, "the other merchant's attempts made no payout");
  t.equal((await payoutsOf(svc, other.campaign.id)).length, 0, 'nor this one’s on theirs');
});

t.test('20 parallel payouts never pay out more than the campaign released', async (t) => {
  for (const keyed of [true, false]) {
    const { key, methodId, campaign } = await closedCampaign(svc, 50_000);
    const payable = campaign.releasedAmountMinor - campaign.releasedFeeMinor;
    const before = await balance(svc, key);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/payouts`, {
          key,
          body: { payoutMethodId: methodId, amountMinor: 9_000 },
          ...(keyed ? { headers: { 'Idempotency-Key': `parallel-${i}` } } : {}),
        }),
      ),
    );
    const made = answers.filter((r) => r.status === 200);
    t.ok(
      answers.filter((r) => r.status !== 200).every((r) => r.body.code === 'IKW-FND-005'),
      `the others are refused for want of released funds (${keyed ? 'keyed' : 'no key'})`,
    );
    const claimed = made.reduce((sum, r) => sum + r.body.amountMinor + r.body.feeMinor, 0);
    t.ok(claimed <= payable, `${made.length} payouts claim ${claimed} of ${payable}`);
    t.equal(made.length, Math.floor(payable / (9_000 + made[0]!.body.feeMinor)), 'as many as fit, no fewer');
    const payouts = await payoutsOf(svc, campaign.id);
    t.equal(payouts.length, made.length, 'each accepted request made one payout, and no other was made');
    t.equal(
      payouts.reduce((sum, p) => sum + p.amount + p.fee, 0),
      claimed,
    );
    t.equal((await getCampaign(svc, key, campaign.id)).paidOutAmountMinor, claimed);
    await settle(svc, OPERATOR_DELAY_MS); // the operator pays them
    const after = await balance(svc, key);
    t.same({ lost: before.available - after.available, reserved: after.reserved }, { lost: claimed, reserved: 0 }, 'the balance paid out exactly what was claimed');
  }
});

t.test('20 parallel requests under one Idempotency-Key pay once', async (t) => {
  const { key, methodId, campaign } = await closedCampaign(svc, 50_000);
  const headers = { 'Idempotency-Key': 'one-payout' };
  const answers = await Promise.all(Array.from({ length: 20 }, () => svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/payouts`, { key, headers, body: { payoutMethodId: methodId, amountMinor: 9_000 } })));
  const ok = answers.filter((r) => r.status === 200);
  t.ok(ok.length >= 1, 'answered');
  t.equal(new Set(ok.map((r) => r.body.id)).size, 1, 'every answer is the one payout');
  t.ok(
    answers.filter((r) => r.status !== 200).every((r) => r.body.code === 'IKW-IDM-003'),
    'the rest are told it is in progress',
  );
  t.equal((await payoutsOf(svc, campaign.id)).length, 1, 'paid once');
});

t.test('without an amount the payout takes all that remains: no remainder the fee estimate left behind', async (t) => {
  // 20,000 raised releases 19,700: a fee priced on all of it (197) suggested 19,503 + 195, which
  // left 2 no payout could take; 19,505 + 195 is exactly 19,700.
  const { key, methodId, campaign } = await closedCampaign(svc, 20_000);
  const payable = campaign.releasedAmountMinor - campaign.releasedFeeMinor;
  t.equal(payable, 19_700);
  const all = await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/payouts`, { key, body: { payoutMethodId: methodId } });
  assertOk(t, all);
  t.match(all.body, { amountMinor: 19_505, feeMinor: 195, status: 'created' });
  const after = await getCampaign(svc, key, campaign.id);
  t.equal(after.releasedAmountMinor - after.releasedFeeMinor - after.paidOutAmountMinor, 0, 'nothing is left to pay out');
  t.same(
    (await payoutsOf(svc, campaign.id)).map((p) => p.amount + p.fee),
    [19_700],
    'one payout of it all, fee included',
  );
});

t.test('without an amount, to an operator that takes whole currency units only: whole units, as much as fits', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const methodId = await saveDestination(svc, key, { type: 'mobile_money', country: 'KE', operator: 'mpesa', msisdn: '+254712345678', currency: 'KES' });
  svc.clock.advance(2 * DAY); // past the payout method's safety delay
  const campaign = await activeCampaign(svc, key, { currency: 'KES', country: 'KE' });
  const mpesa = { type: 'mobile_money', mobileMoney: { country: 'KE', operator: 'mpesa', msisdn: '+254712345678' } };
  const res = await contribute(svc, key, campaign.id, { amountMinor: 1_000_000, currency: 'KES', paymentMethod: mpesa });
  assertOk(t, res);
  await settle(svc, OPERATOR_DELAY_MS);
  const closed = await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/close`, { key });
  assertOk(t, closed);
  const payable = closed.body.releasedAmountMinor - closed.body.releasedFeeMinor;
  t.equal(payable, 985_000, 'KES 9,850.00 released');
  // M-Pesa takes whole shillings: 975,100 (the fee priced on all of it) would leave 150; 975,200 + 9,752 leaves 48.
  const all = await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/payouts`, { key, body: { payoutMethodId: methodId } });
  assertOk(t, all);
  t.match(all.body, { amountMinor: 975_200, feeMinor: 9_752, status: 'created' });
  const after = await getCampaign(svc, key, campaign.id);
  t.equal(after.releasedAmountMinor - after.releasedFeeMinor - after.paidOutAmountMinor, 48, 'less than a shilling and its fee is left');
  t.same(
    (await payoutsOf(svc, campaign.id)).map((p) => p.amount),
    [975_200],
    'one payout, in whole shillings',
  );
});
