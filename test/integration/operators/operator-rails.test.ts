/**
 * The operator API's rails and reconciliation (docs/operator.md, "Rails" and "Reconciliation"):
 * measured health for every operator, reconciliations of live pawaPay (its stand-in over loopback,
 * configured in the service's own environment) run by finance and kept in a history, and the roles
 * and credentials the edge turns away.
 */
import t from '#tap';
import { PawapayStandin } from '../../support/pawapay-standin.js';
import { confirm, createIntent, mobileMoney as payWith, operatorAnswers, snNumber } from '../../support/payments.js';
import { operatorSession } from '../../support/operators.js';
import { startService } from '../../support/system.js';
import { ManualClock } from '#packages/core/clock.js';

const TOKEN = 'operator-rails-pawapay-token';
const standin = await PawapayStandin.start({ token: TOKEN, clock: new ManualClock(new Date()) });
t.teardown(() => standin.close());
const svc = await startService(t, { env: { PAWAPAY_API_TOKEN: TOKEN, PAWAPAY_API_URL: standin.url } });
const finance = await operatorSession(svc, 'finance');
const reviewer = await operatorSession(svc, 'reviewer');
const { key } = await svc.sandboxMerchant();

t.test("every operator reads the rails' health; a merchant's key finds no such route", async (t) => {
  for (const lastTwo of ['67', '04']) {
    const intent = await createIntent(svc, key, { amount: 1_000 });
    t.equal((await confirm(svc, key, intent.id, { payment_method: payWith(snNumber(lastTwo)) })).status, 200);
  }
  await operatorAnswers(svc);
  const health = await svc.request('GET', '/api/v1/operator/rails?environment=sandbox', { key: reviewer.token });
  t.equal(health.status, 200, health.text);
  t.match(health.body, { object: 'rail_health', environment: 'sandbox', rails: ['sandbox'] });
  t.match(health.body.lines, [
    { rail: 'sandbox', direction: 'collect', kind: 'mobile_money', country: 'SN', operator: 'orange_money', availability: 'available', lastHour: { attempts: 2, succeeded: 1, failed: 1, railFaults: 1, successRate: 0.5 } },
  ]);
  const live = await svc.request('GET', '/api/v1/operator/rails', { key: reviewer.token });
  t.match(live.body, { environment: 'live', rails: ['pawapay'], lines: [] }, 'live by default: pawaPay configured, nothing carried');

  t.match(await svc.request('GET', '/api/v1/operator/rails/review', { key: finance.token }), { status: 200, body: { object: 'list', data: [] } }, 'nothing left open');
  const asMerchant = await svc.request('GET', '/api/v1/operator/rails', { key });
  const unknown = await svc.request('GET', '/api/v1/operator/no-such-route', { key });
  t.equal(asMerchant.status, 404);
  t.same(Object.keys(asMerchant.body).sort(), Object.keys(unknown.body).sort());
  t.match(asMerchant.body, { code: unknown.body.code, message: 'No such route: GET /api/v1/operator/rails' }, 'answered as a path that does not exist');
});

t.test("finance reconciles pawaPay with the service's configuration; the run is in the history with its actor", async (t) => {
  const run = await svc.request('POST', '/api/v1/operator/reconciliation-runs', { key: finance.token, body: { rail: 'pawapay' } });
  t.equal(run.status, 201, run.text);
  t.match(run.body, { runId: /^recon_/, rail: 'pawapay', environment: 'live', actor: `operator:${finance.operatorId}`, checked: 0, attempts: [] });
  t.ok(run.body.wallets.length > 0, "the stand-in's wallets hold money the ledger does not explain: listed");
  t.same((await svc.request('GET', `/api/v1/operator/reconciliation-runs/${run.body.runId}`, { key: finance.token })).body, run.body, 'kept whole');
  const second = await svc.request('POST', '/api/v1/operator/reconciliation-runs', { key: finance.token, body: { rail: 'pawapay', environment: 'live' } });
  const history = await svc.request('GET', '/api/v1/operator/reconciliation-runs?rail=pawapay&environment=live', { key: finance.token });
  t.same(
    history.body.data.map((r: { runId: string }) => r.runId),
    [second.body.runId, run.body.runId],
    'newest first',
  );

  t.match(await svc.request('POST', '/api/v1/operator/reconciliation-runs', { key: finance.token, body: { rail: 'paystack' } }), { status: 404, body: { code: 'IKW-RES-001' } }, 'a rail not configured');
  t.match(await svc.request('POST', '/api/v1/operator/reconciliation-runs', { key: finance.token, body: { rail: 'sandbox', environment: 'sandbox' } }), { status: 400, body: { code: 'IKW-VAL-001' } }, 'the sandbox keeps no money of Sika’s');
  t.match(await svc.request('GET', '/api/v1/operator/reconciliation-runs/recon_nope', { key: finance.token }), { status: 404, body: { code: 'IKW-RES-001' } });
  t.match(await svc.request('POST', '/api/v1/operator/reconciliation-runs', { key: finance.token, body: { rail: 'pawapay', extra: 1 } }), { status: 400, body: { code: 'IKW-VAL-002' } }, 'an unknown field');
});

t.test('a reviewer may not reconcile (403); a merchant credential does not find it (404)', async (t) => {
  t.match(await svc.request('POST', '/api/v1/operator/reconciliation-runs', { key: reviewer.token, body: { rail: 'pawapay' } }), { status: 403, body: { code: 'IKW-OPR-001' } });
  t.match(await svc.request('GET', '/api/v1/operator/reconciliation-runs', { key: reviewer.token }), { status: 403, body: { code: 'IKW-OPR-001' } });
  t.equal((await svc.request('GET', '/api/v1/operator/reconciliation-runs', { key })).status, 404);
});
