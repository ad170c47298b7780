/**
 * GET /metrics: Prometheus text behind the configured token, with request, event-store,
 * scheduler, bus, webhook and pool figures that move with what the service does.
 */
import t from '#tap';
import { fund, mobileMoney, OPERATOR_DELAY_MS, postPayout } from '../support/payouts.js';
import { startService, type TestService } from '../support/system.js';

const TOKEN = 'metrics-test-token';

/** The value of one series in Prometheus text, or undefined. */
function series(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(m[3]);
  }
  return undefined;
}

async function scrape(svc: TestService): Promise<string> {
  const res = await svc.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  if (res.status !== 200) throw new Error(`metrics: ${res.status} ${res.text}`);
  return res.text;
}

t.test('the token is required when configured; a wrong one is refused with a coded error', async (t) => {
  const svc = await startService(t, { env: { METRICS_TOKEN: TOKEN } });
  const none = await svc.request('GET', '/metrics');
  t.equal(none.status, 401);
  t.equal(none.body.code, 'IKW-AUT-001');
  const wrong = await svc.request('GET', '/metrics', { headers: { authorization: 'Bearer nope' } });
  t.equal(wrong.status, 401);
  t.equal(wrong.body.code, 'IKW-AUT-002');
  const ok = await svc.request('GET', '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  t.equal(ok.status, 200);
  t.match(ok.headers.get('content-type'), /^text\/plain/);
  t.ok(series(ok.text, 'sika_process_cpu_user_seconds_total') !== undefined, 'process metrics are there');
});

t.test('without METRICS_TOKEN /metrics is not served at all: no figures for anyone who asks', async (t) => {
  const svc = await startService(t);
  const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer ' }, { authorization: 'Bearer anything' }];
  for (const headers of attempts) {
    const res = await svc.request('GET', '/metrics', { headers });
    t.equal(res.status, 404);
    t.equal(res.body.code, 'IKW-RTE-001');
    t.match(res.body.message, /METRICS_TOKEN/, 'the message says how to turn it on');
    t.notMatch(res.text, /sika_/, 'no metric in the answer');
  }
});

t.test('requests by route pattern, appends and conflicts, scheduler backlog and lateness, deliveries, pool', async (t) => {
  const svc = await startService(t, { env: { METRICS_TOKEN: TOKEN } });
  const m = await svc.merchant();
  const key = m.api_keys.sandbox;
  await fund(svc, m.id, 1_000_000);
  const created = await Promise.all(Array.from({ length: 20 }, () => postPayout(svc, key, { amount: 1_000, currency: 'xof', destination: mobileMoney() })));
  t.ok(created.every((r) => r.status === 200));
  await svc.request('GET', `/api/v1/payouts/${created[0]!.body.id}`, { key, headers: { 'x-environment': 'sandbox' } });
  await svc.request('GET', '/api/v1/payouts/po_nope', { key, headers: { 'x-environment': 'sandbox' } });
  await svc.request('GET', '/no/such/route');

  let text = await scrape(svc);
  t.equal(series(text, 'sika_http_requests_total', { method: 'POST', route: '/api/v1/payouts', status: '200' }), 20);
  t.equal(series(text, 'sika_http_requests_total', { method: 'GET', route: '/api/v1/payouts/:id', status: '200' }), 1, 'by pattern, not by id');
  t.equal(series(text, 'sika_http_requests_total', { method: 'GET', route: '/api/v1/payouts/:id', status: '404' }), 1);
  t.equal(series(text, 'sika_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1);
  t.ok((series(text, 'sika_http_request_duration_seconds_count', { method: 'POST', route: '/api/v1/payouts', status: '200' }) ?? 0) === 20);
  // Each payout's operator answer is its own commit; the holds of payouts that queued on the
  // balance meanwhile share commits (docs/performance.md), so at least 20 + 1.
  t.ok((series(text, 'sika_eventstore_append_duration_seconds_count', { outcome: 'appended' }) ?? 0) >= 21, 'holds and payouts appended');
  t.equal(series(text, 'sika_eventstore_append_conflicts_total'), 0);
  // A writer that read an old version (another process, say) loses its append: counted.
  const stream = `metrics-test-${m.id}`;
  const event = { type: 'test.happened', data: {}, metadata: {} };
  await svc.system.store.append(stream, [event], { expectedVersion: 'no_stream' });
  await t.rejects(svc.system.store.append(stream, [event], { expectedVersion: 'no_stream' }));
  text = await scrape(svc);
  t.equal(series(text, 'sika_eventstore_append_conflicts_total'), 1, 'a lost append is a conflict');
  t.equal(series(text, 'sika_eventstore_append_duration_seconds_count', { outcome: 'conflict' }), 1);
  t.equal(series(text, 'sika_db_pool_connections', { state: 'waiting' }), 0);
  t.ok(series(text, 'sika_db_pool_connections', { state: 'free' }) !== undefined);

  // The sandbox answers after OPERATOR_DELAY_MS: those jobs fall due, then wait unclaimed.
  await svc.system.drain();
  svc.clock.advance(OPERATOR_DELAY_MS + 30_000);
  text = await scrape(svc);
  t.ok((series(text, 'sika_scheduler_due_jobs') ?? 0) >= 20, 'the operator answers are due');
  t.ok((series(text, 'sika_scheduler_lateness_seconds') ?? 0) >= 30, 'and late by the time the clock moved past them');
  await svc.system.drain();
  text = await scrape(svc);
  t.equal(series(text, 'sika_scheduler_due_jobs'), 0, 'nothing due once the scheduler ran');
  t.equal(series(text, 'sika_scheduler_lateness_seconds'), 0);
  t.equal(series(text, 'sika_bus_consumer_lag_events', { consumer: 'webhook-dispatcher' }), 0, 'consumers caught up');
  t.equal(series(text, 'sika_bus_consumer_lag_events', { consumer: 'billing-payments' }), 0);
  t.equal(series(text, 'sika_webhook_deliveries', { status: 'failed' }), 0, 'every status is reported, zero included');
});
