/**
 * Funding campaigns and time: the deadline is a durable timer that survives a restart of the
 * service on the same database (manual clock). An all-or-nothing campaign below target is
 * refunded in full; one that reached its target, and a keep-what-you-raise one, close and release.
 * And the webhooks organizers follow a campaign by: contribution received, target reached, closed.
 */
import t from '#tap';
import { activeCampaign, campaignAccountBalance, contribute, DAY, getCampaign, settle } from '../../support/funding.js';
import { balance } from '../../support/payouts.js';
import { OPERATOR_DELAY_MS, startPaymentsService } from '../../support/system.js';
import { listeningEndpoint, startWebhookService, verify } from '../../support/webhooks.js';

t.test('the deadline timer survives a restart: all-or-nothing below target is refunded, at target it closes', async (t) => {
  const first = await startPaymentsService(t);
  const { merchant, key } = await first.sandboxMerchant('Tontine');
  const deadline = new Date(first.clock.now().getTime() + 7 * DAY).toISOString();
  const short = await activeCampaign(first, key, { fundingModel: 'all_or_nothing', targetAmountMinor: 50_000, deadline });
  const reached = await activeCampaign(first, key, { fundingModel: 'all_or_nothing', targetAmountMinor: 10_000, deadline });
  const kept = await activeCampaign(first, key, { targetAmountMinor: 1_000_000, deadline });
  for (const [campaign, amount] of [
    [short, 20_000],
    [short, 5_000],
    [reached, 12_000],
    [kept, 3_000],
  ] as const) {
    const res = await contribute(first, key, campaign.id, { amountMinor: amount });
    t.equal(res.status, 200);
  }
  const pending = await contribute(first, key, short.id, { amountMinor: 1_000, paymentMethod: undefined });
  await settle(first, OPERATOR_DELAY_MS);
  t.equal((await getCampaign(first, key, short.id)).raisedAmountMinor, 25_000);
  const before = first.clock.now().getTime();
  await first.stop();

  // The same database, a new process: the timers are rows, not memory.
  const second = await startPaymentsService(t, { databaseUrl: first.databaseUrl, clockStart: before });
  second.clock.advance(7 * DAY - OPERATOR_DELAY_MS - 1);
  await second.system.drain();
  t.equal((await getCampaign(second, key, short.id)).status, 'active', 'not before the deadline');
  second.clock.advance(1);
  await second.system.drain();
  const failed = await getCampaign(second, key, short.id);
  t.match(failed, { status: 'failed', raisedAmountMinor: 0, heldAmountMinor: 0, refundedAmountMinor: 25_000 });
  const list = (await second.request('GET', `/api/v1/funding/campaigns/${short.id}/contributions`, { key })).body.data as { id: string; status: string; refundReason: string | null }[];
  t.same(
    list.filter((c) => c.status === 'refunded').map((c) => c.refundReason),
    ['campaign_failed', 'campaign_failed'],
  );
  t.equal(list.find((c) => c.id === pending.body.id)?.status, 'canceled', 'a pending contribution is canceled');
  t.equal(await campaignAccountBalance(second, merchant.id, short.id), 0, 'every contribution given back');
  t.match(await getCampaign(second, key, reached.id), { status: 'closed', releasedAmountMinor: 12_000, heldAmountMinor: 0 });
  t.match(await getCampaign(second, key, kept.id), { status: 'closed', releasedAmountMinor: 3_000, heldAmountMinor: 0 });
  const fees = (await getCampaign(second, key, reached.id)).releasedFeeMinor + (await getCampaign(second, key, kept.id)).releasedFeeMinor;
  t.same(await balance(second, key), { available: 15_000 - fees, pending: 0, reserved: 0 }, 'released once each');
  // The timer ran once: running the jobs again changes nothing.
  second.clock.advance(DAY);
  await second.system.drain();
  t.same(await balance(second, key), { available: 15_000 - fees, pending: 0, reserved: 0 });
  const events = await second.system.store.readStream(`funding_campaign-${reached.id}`);
  t.equal(events.filter((e) => e.type === 'funding_campaign.closed').length, 1);
});

t.test('webhooks: contribution received, target reached, campaign closed', async (t) => {
  const svc = await startWebhookService(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });
  const { key } = await svc.sandboxMerchant('Creator');
  const { receiver, endpoint } = await listeningEndpoint(t, svc, key, ['funding_campaign.contribution_received', 'funding_campaign.target_reached', 'funding_campaign.closed']);
  const campaign = await activeCampaign(svc, key, { targetAmountMinor: 5_000 });
  const a = await contribute(svc, key, campaign.id, { amountMinor: 3_000 });
  const b = await contribute(svc, key, campaign.id, { amountMinor: 3_000 });
  await settle(svc, OPERATOR_DELAY_MS);
  await svc.request('POST', `/api/v1/funding/campaigns/${campaign.id}/close`, { key });
  await svc.system.drain();
  const events = receiver.requests.map((r) => {
    t.ok(verify(endpoint.secret, r), 'signed');
    return JSON.parse(r.body) as { type: string; data: { id: string; object: string; status: string } };
  });
  const received = events.filter((e) => e.type === 'funding_campaign.contribution_received');
  t.same(received.map((e) => e.data.id).sort(), [a.body.id, b.body.id].sort());
  t.ok(received.every((e) => e.data.object === 'funding.contribution' && e.data.status === 'succeeded'));
  t.match(
    events.filter((e) => e.type === 'funding_campaign.target_reached'),
    [{ data: { id: campaign.id, object: 'funding.campaign' } }],
  );
  t.match(
    events.filter((e) => e.type === 'funding_campaign.closed'),
    [{ data: { id: campaign.id, status: 'closed' } }],
  );
  t.equal(events.length, 4, 'nothing else, nothing twice');
});
