/**
 * Long polls of the events API (docs/webhooks.md, "Missed webhooks"): `GET /api/v1/events?wait=`
 * reads the database when it starts and again only when the dispatcher's notification says its
 * merchant has new events; it ends when the client goes away, giving its slot back; a few run at
 * once per credential and per merchant (beyond: 429 IKW-LIM-002 with Retry-After); and the time
 * it waited counts against the rate limit, one request per started 10 seconds.
 */
import t from '#tap';
import type { TestService } from '../../support/system.js';
import { startService } from '../../support/system.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { createIntentEvent, settle } from '../../support/webhooks.js';

// One wait per credential, two per merchant; 20 requests a minute per credential.
const svc = await startService(t, { env: { EVENT_WAITS_PER_CREDENTIAL: '1', EVENT_WAITS_PER_MERCHANT: '2', RATE_LIMIT: '20/1m' } });

/** Resolves at the next statement of the service's pool that matches `pattern` and names `merchantId`. */
function statement(s: TestService, pattern: RegExp, merchantId?: string): Promise<void> {
  return new Promise((resolve) => {
    const seen = (q: { sql: string; bindings?: unknown[] }) => {
      if (!pattern.test(q.sql) || (merchantId !== undefined && !(q.bindings ?? []).includes(merchantId))) return;
      s.system.knex.off('query', seen);
      resolve();
    };
    s.system.knex.on('query', seen);
  });
}

/** Resolves once a wait of the merchant has taken its slot (it is waiting from then on). */
const waiting = (merchantId: string) => statement(svc, /^insert into "event_waits"/i, merchantId);

/** The newest event of the merchant, so that a wait `ending_before` it waits for the next one. */
async function newestEvent(key: string): Promise<string> {
  await createIntentEvent(svc, key);
  await settle(svc);
  const res = await svc.request('GET', '/api/v1/events?limit=1', { key });
  return res.body.data[0].id as string;
}

const waitFor = (key: string, after: string, headers: Record<string, string> = {}) => svc.request('GET', `/api/v1/events?ending_before=${after}&wait=30`, { key, headers });

t.test('a wait is answered when the dispatcher notifies a new event, having read the events once before and once after', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const after = await newestEvent(key);
  let reads = 0;
  const count = (q: { sql: string; bindings?: unknown[] }) => {
    if (/^select .* from "webhook_events"/i.test(q.sql) && (q.bindings ?? []).includes(merchant.id)) reads++;
  };
  const started = waiting(merchant.id);
  svc.system.knex.on('query', count);
  t.teardown(() => void svc.system.knex.off('query', count));
  const answer = waitFor(key, after);
  await started;
  const intent = await createIntentEvent(svc, key);
  await settle(svc);
  const res = await answer;
  assertOk(t, res);
  t.same(
    res.body.data.map((e: { data: { id: string } }) => e.data.id),
    [intent.id],
    'the new event',
  );
  // Each look reads the cursor's event and the page: one look when the wait started, one when woken.
  t.equal(reads, 4, 'no polling: a look when the wait started and one when the notification came');
});

// Well within the first wait's 30 seconds: its slot must come back because its client left, not because it ended.
t.test('a client that goes away gives its slot back: the next wait is accepted at the limit', { timeout: 15_000 }, async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const after = await newestEvent(key);
  const gone = new AbortController();
  const started = waiting(merchant.id);
  const first = fetch(`${svc.baseUrl}/api/v1/events?ending_before=${after}&wait=30`, { headers: { authorization: `Bearer ${key}` }, signal: gone.signal }).catch((err: unknown) => err);
  await started;
  const released = statement(svc, /^delete from "event_waits" where "id"/i);
  gone.abort();
  t.type(await first, Error, 'the first client gave up');
  await released;

  const restarted = waiting(merchant.id);
  const second = waitFor(key, after);
  await restarted;
  const intent = await createIntentEvent(svc, key);
  await settle(svc);
  const res = await second;
  assertOk(t, res);
  t.same(
    res.body.data.map((e: { data: { id: string } }) => e.data.id),
    [intent.id],
    'the second wait, at the limit of one, was accepted and answered',
  );
});

t.test('beyond the waits a credential or a merchant may run: 429 IKW-LIM-002 with Retry-After; found events need no slot', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const second = (await svc.apiKey(merchant.id, ['*'])).secret;
  const third = (await svc.apiKey(merchant.id, ['*'])).secret;
  const after = await newestEvent(key);

  let started = waiting(merchant.id);
  const first = waitFor(key, after);
  await started;
  const refused = await waitFor(key, after);
  assertError(t, refused, 'IKW-LIM-002', 'wait');
  t.equal(refused.headers.get('retry-after'), '30', 'Retry-After: when the wait in the way ends');
  t.match(refused.body.message, /^This credential/);
  const found = await svc.request('GET', '/api/v1/events?wait=30', { key });
  assertOk(t, found);
  t.equal(found.body.data[0].id, after, 'a wait that finds events at once is answered, limit or not');

  started = waiting(merchant.id);
  const other = waitFor(second, after);
  await started;
  const overMerchant = await waitFor(third, after);
  assertError(t, overMerchant, 'IKW-LIM-002', 'wait');
  t.match(overMerchant.body.message, /^This merchant/);
  t.ok(Number(overMerchant.headers.get('retry-after')) >= 1, 'Retry-After');

  const elsewhere = await svc.sandboxMerchant();
  const elsewhereAfter = await newestEvent(elsewhere.key);
  started = waiting(elsewhere.merchant.id);
  const unaffected = waitFor(elsewhere.key, elsewhereAfter);
  await started;
  t.pass("another merchant's wait takes a slot of its own");

  await createIntentEvent(svc, key);
  await createIntentEvent(svc, elsewhere.key);
  await settle(svc);
  for (const res of await Promise.all([first, other, unaffected])) assertOk(t, res);
});

t.test('waiting counts against the rate limit: one request per started 10 seconds', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const writer = (await svc.apiKey(merchant.id, ['*'])).secret;
  await createIntentEvent(svc, writer);
  await settle(svc);
  const after = (await svc.request('GET', '/api/v1/events?limit=1', { key: writer })).body.data[0].id as string;
  // The start of a minute, so the rate limit's window does not turn during the test.
  svc.clock.set(new Date(Math.ceil((svc.clock.now().getTime() + 1) / 60_000) * 60_000));
  const before = await svc.request('GET', '/api/v1/events?limit=1', { key });
  t.equal(before.headers.get('ratelimit-remaining'), '19');

  const started = waiting(merchant.id);
  const answer = waitFor(key, after);
  await started;
  svc.clock.advance(25_000);
  await createIntentEvent(svc, writer);
  await settle(svc);
  const res = await answer;
  assertOk(t, res);
  t.equal(res.headers.get('ratelimit-remaining'), '16', 'the wait: one request when it started, two more for its second and third started 10 seconds');
  const next = await svc.request('GET', '/api/v1/events?limit=1', { key });
  t.equal(next.headers.get('ratelimit-remaining'), '15');
});
