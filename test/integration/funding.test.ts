/**
 * Funding campaigns against the real server: the campaign's lifecycle, contributions paid through
 * payment intents, refunds, close and release, payouts of released funds, updates, the CSV export,
 * the public API, tenant isolation, idempotency, and the money invariants.
 */
import t from 'tap';
import { assertOk } from '../support/assertions.js';
import { activeCampaign, campaignAccountBalance, contribute, getCampaign, settle } from '../support/funding.js';
import { balance } from '../support/payouts.js';
import { OPERATOR_DELAY_MS, startPaymentsService } from '../support/system.js';

const svc = await startPaymentsService(t);
const { merchant, key } = await svc.sandboxMerchant('Association');

t.test('a contribution paid by mobile money is counted and held on the campaign account', async (t) => {
  const campaign = await activeCampaign(svc, key);
  t.match(campaign, { object: 'funding.campaign', status: 'active', raisedAmountMinor: 0, contributorCount: 0, percentFunded: 0, currency: 'xof', country: 'SN', fundingModel: 'keep_what_you_raise' });
  const res = await contribute(svc, key, campaign.id, { amountMinor: 25_000, contributorName: 'Awa', contributorEmail: 'awa@example.com' });
  assertOk(t, res);
  t.match(res.body, { object: 'funding.contribution', status: 'pending', amountMinor: 25_000, campaignId: campaign.id, paymentIntentId: /^pi_/ });
  await settle(svc, OPERATOR_DELAY_MS);
  const got = await svc.request('GET', `/api/v1/funding/contributions/${res.body.id}`, { key });
  t.match(got.body, { status: 'succeeded', feeMinor: Number, succeededAt: String });
  const after = await getCampaign(svc, key, campaign.id);
  t.match(after, { raisedAmountMinor: 25_000, contributorCount: 1, percentFunded: 25, heldAmountMinor: 25_000 });
  t.equal(await campaignAccountBalance(svc, merchant.id, campaign.id), 25_000, 'the campaign account holds the gross amount');
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 }, "held funds are not the merchant's balance");
});
