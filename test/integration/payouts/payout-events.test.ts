/**
 * GET /api/v1/payouts/{id}/events: a payout's history from the same read model as the payment
 * intents' (read.object_events), newest first, cursor-paged, each event with the payout as it left
 * it, the event ids its webhooks carry, and who caused it; another merchant's or environment's
 * payout, or an unknown id, is a 404; a dashboard user's token reads it too.
 */
import t from '#tap';
import { publicEventId } from '#packages/core/ids.js';
import { payoutStream } from '#packages/families/payouts/payout/events.js';
import { advance, fundedMerchant, getPayout, mobileMoney, payout, retrievePayout } from '../../support/payouts.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);

interface HistoryEvent {
  id: string;
  object: string;
  type: string;
  created: number;
  livemode: boolean;
  actor: string | null;
  data: Record<string, unknown>;
}
const history = (key: string, id: string, query = '', environment = 'sandbox') => svc.request('GET', `/api/v1/payouts/${id}/events${query}`, { key, headers: { 'x-environment': environment } });

t.test('a paid payout: every public event, newest first, with the payout as it was and who caused it', async (t) => {
  const { key } = await fundedMerchant(svc, 100_000);
  const created = await payout(svc, key, { destination: mobileMoney('67') });
  await advance(svc);
  await advance(svc);
  const final = await retrievePayout(svc, key, created.id);
  t.equal(final.status, 'paid');

  const res = await history(key, created.id);
  t.equal(res.status, 200);
  t.match(res.body, { object: 'list', has_more: false, url: `/api/v1/payouts/${created.id}/events` });
  const events = res.body.data as HistoryEvent[];
  t.same(
    events.map((e) => e.type),
    ['payout.paid', 'payout.updated', 'payout.created'],
  );
  for (const e of events) t.match(e, { id: /^evt_[0-9A-Za-z]{24}$/, object: 'event', livemode: false });
  t.same(events[0]!.data, final, 'the newest carries the payout as GET shows it');
  t.match(events[2]!.data, { id: created.id, object: 'payout', status: 'pending', amount: 10_000 }, 'the oldest, as it was created');
  t.equal(events[1]!.data.status, 'in_transit');

  const recorded = await svc.system.store.readStream(payoutStream(created.id));
  const keyId = recorded[0]!.metadata.actor;
  t.ok(keyId, 'the creation recorded its actor');
  t.equal(events[2]!.actor, keyId, 'created by the API key');
  t.ok(events[0]!.actor && events[0]!.actor !== keyId, `paid by the service (${events[0]!.actor})`);
  const publicIds = recorded.filter((e) => ['payout.created', 'payout.updated', 'payout.paid'].includes(e.type)).map((e) => publicEventId(e.eventId));
  t.same(
    events.map((e) => e.id),
    publicIds.reverse(),
    'each history event has the id its webhook carries',
  );

  const first = await history(key, created.id, '?limit=1');
  t.same(
    first.body.data.map((e: HistoryEvent) => e.id),
    [events[0]!.id],
  );
  t.equal(first.body.has_more, true);
  const next = await history(key, created.id, `?limit=2&starting_after=${events[0]!.id}`);
  t.same(
    next.body.data.map((e: HistoryEvent) => e.id),
    events.slice(1).map((e) => e.id),
    'the next page',
  );
});

t.test('a failed payout shows its failure; the intents’ histories are not mixed in', async (t) => {
  const { key } = await fundedMerchant(svc, 100_000);
  const created = await payout(svc, key, { destination: mobileMoney('01') });
  await advance(svc);
  await advance(svc);
  const events = (await history(key, created.id)).body.data as HistoryEvent[];
  t.equal(events[0]!.type, 'payout.failed');
  t.match(events[0]!.data, { status: 'failed', failure_code: /\w+/ });
  t.ok(
    events.every((e) => e.data.id === created.id),
    'only this payout',
  );
});

t.test('refusals: unknown, another merchant’s, the other environment’s payout is not found; bad paging is refused', async (t) => {
  const { key } = await fundedMerchant(svc, 100_000);
  const created = await payout(svc, key, { destination: mobileMoney('67') });
  const other = await fundedMerchant(svc, 1_000);

  const unknown = await history(key, 'po_000000000000000000000000');
  t.match(unknown, { status: 404, body: { code: 'IKW-RES-001' } });
  const foreign = await history(other.key, created.id);
  t.match(foreign, { status: 404, body: { code: 'IKW-RES-001' } }, "another merchant's payout");
  t.equal((await getPayout(svc, other.key, created.id)).status, 404, 'as its retrieve is');
  const m = await svc.merchant();
  const live = await history(m.api_keys.live, created.id, '', 'live');
  t.match(live, { status: 404, body: { code: 'IKW-RES-001' } }, 'another environment');
  t.match(await history(key, created.id, '?limit=0'), { status: 400, body: { code: 'IKW-VAL-001', param: 'limit' } });
  t.match(await history(key, created.id, '?unknown=1'), { status: 400 });
  t.equal((await svc.request('GET', `/api/v1/payouts/${created.id}/events`, { headers: { 'x-environment': 'sandbox' } })).status, 401, 'no credential');
});

t.test('a dashboard user with payouts.read reads the history; one without a payouts scope is refused', async (t) => {
  const { merchant, key } = await fundedMerchant(svc, 100_000);
  const created = await payout(svc, key, { destination: mobileMoney('67') });
  await svc.member(merchant, 'finance@history.example', 'correct horse battery', 'finance');
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'finance@history.example', password: 'correct horse battery' } });
  const res = await svc.request('GET', `/api/v1/payouts/${created.id}/events`, { key: login.body.accessToken, headers: { 'x-environment': 'sandbox' } });
  t.equal(res.status, 200);
  // The operator may already have it in transit: its first event is its creation either way.
  t.equal((res.body.data as HistoryEvent[]).at(-1)?.type, 'payout.created');
  const { secret } = await svc.apiKey(merchant.id, ['payments.read']);
  t.match(await svc.request('GET', `/api/v1/payouts/${created.id}/events`, { key: secret, headers: { 'x-environment': 'sandbox' } }), { status: 403, body: { code: 'IKW-AUT-004' } });
});
