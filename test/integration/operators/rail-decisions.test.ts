/**
 * The router's recent decisions for operators (docs/operator.md, "Rails"): payments and payouts of
 * two live merchants through pawaPay and Hub2 (their stand-ins on loopback), pawaPay declared
 * CLOSED midway so Hub2 carries with pawaPay passed over; the list newest first across merchants
 * and directions, the detours alone, a limit, the sandbox apart; what a merchant's key and a bad
 * query get; and the read model's new columns as its migration fills them from the log and as a
 * rebuild does.
 */
import t, { type Test } from '#tap';
import { MIGRATIONS, migrate } from '../../../infra/migrations.js';
import { startProcess } from '../../support/child-process.js';
import { goLive, startHub2Live } from '../../support/live.js';
import { operatorSession } from '../../support/operators.js';
import { confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from '../../support/payments.js';
import { fund, postPayout } from '../../support/payouts.js';

const live = await startHub2Live(t, { pawapay: true });
const { svc } = live;
const pawapay = live.pawapay!;
const SECOND = 1_000;
const ORANGE_SN = { rail: 'mobile_money', country: 'SN', operator: 'orange_money', currency: 'xof' } as const;
const reviewer = await operatorSession(svc, 'reviewer');

type Decision = { at: string; direction: string; rail: string; merchant_id: string | null; object_id: string | null; passed_over: { rail: string; why: string }[]; outcome: string };

const decisions = async (query = '') => {
  const res = await svc.request('GET', `/api/v1/operator/rails/decisions${query}`, { key: reviewer.token });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.data as Decision[];
};

/** One Orange Senegal payment, a second after the last decision, so the order is the clock's. */
async function pay(t: Test, key: string): Promise<string> {
  svc.clock.advance(SECOND);
  const intent = await createIntent(svc, key);
  t.equal((await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) })).status, 200);
  return intent.id as string;
}

async function payOut(t: Test, key: string, idempotencyKey: string): Promise<string> {
  svc.clock.advance(SECOND);
  const res = await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: snNumber('67') } }, { idempotencyKey });
  t.equal(res.status, 200, res.text);
  return res.body.id as string;
}

const ada = await goLive(svc, 'Ada Couture');
const bintou = await goLive(svc, 'Bintou Market');
await fund(svc, ada.merchant.id, 100_000, 'live');

t.test('newest first across merchants and directions, each with the rail chosen and what was passed over and why', async (t) => {
  const usual = await pay(t, ada.key);
  pawapay.availability.set('ORANGE_SEN/DEPOSIT', 'CLOSED');
  pawapay.availability.set('ORANGE_SEN/PAYOUT', 'CLOSED');
  svc.clock.advance(2 * 60 * SECOND);
  t.equal(await svc.system.connectors.named('live', 'pawapay')!.availability('collect', ORANGE_SN), 'unavailable', 'pawaPay’s availability read again');
  const detour = await pay(t, ada.key);
  const payout = await payOut(t, ada.key, 'decisions-payout');
  const other = await pay(t, bintou.key);
  pawapay.availability.clear();

  const closed = [{ rail: 'pawapay', why: 'declared_unavailable' }];
  const list = await decisions();
  t.match(list, [
    { direction: 'collect', rail: 'hub2', kind: 'mobile_money', country: 'SN', operator: 'orange_money', currency: 'xof', merchant_id: bintou.merchant.id, object_id: other, passed_over: closed },
    { direction: 'payout', rail: 'hub2', kind: 'mobile_money', country: 'SN', operator: 'orange_money', currency: 'xof', merchant_id: ada.merchant.id, object_id: payout, passed_over: closed },
    { direction: 'collect', rail: 'hub2', merchant_id: ada.merchant.id, object_id: detour, passed_over: closed },
    { direction: 'collect', rail: 'pawapay', merchant_id: ada.merchant.id, object_id: usual, passed_over: [] },
  ]);
  t.equal(list.length, 4, 'live holds these four, and nothing of the sandbox');
  t.ok(
    list.every((d) => ['pending', 'succeeded', 'failed'].includes(d.outcome)),
    'each with how it ended',
  );
  t.same(
    list.map((d) => d.at),
    list
      .map((d) => d.at)
      .sort()
      .reverse(),
    'newest first',
  );
  t.equal(new Date(list[0]!.at).getTime(), svc.clock.now().getTime(), 'at: when the attempt started');

  t.same(await decisions('?passed_over_only=true'), list.slice(0, 3), 'the detours alone');
  t.same(await decisions('?passed_over_only=false&limit=2'), list.slice(0, 2), 'the newest two');
  t.same(await decisions('?environment=live&passed_over_only=true&limit=1'), list.slice(0, 1));
});

t.test('the sandbox apart: its own rail, nothing passed over', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const intent = await createIntent(svc, key, { amount: 1_000 });
  t.equal((await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) })).status, 200);
  await operatorAnswers(svc);
  t.match(await decisions('?environment=sandbox'), [{ direction: 'collect', rail: 'sandbox', merchant_id: merchant.id, object_id: intent.id, passed_over: [], outcome: 'succeeded' }]);
  t.same(await decisions('?environment=sandbox&passed_over_only=true'), []);
});

t.test("a merchant's key finds no such route; a bad query is refused with the field at fault", async (t) => {
  const asMerchant = await svc.request('GET', '/api/v1/operator/rails/decisions', { key: ada.key });
  const unknown = await svc.request('GET', '/api/v1/operator/no-such-route', { key: ada.key });
  t.equal(asMerchant.status, 404);
  t.match(asMerchant.body, { code: unknown.body.code, message: 'No such route: GET /api/v1/operator/rails/decisions' }, 'answered as a path that does not exist');
  t.equal((await svc.request('GET', '/api/v1/operator/rails/decisions')).status, 404, 'nor does no credential');
  for (const [query, param] of [
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=many', 'limit'],
    ['passed_over_only=maybe', 'passed_over_only'],
    ['environment=staging', 'environment'],
  ] as const) {
    t.match(await svc.request('GET', `/api/v1/operator/rails/decisions?${query}`, { key: reviewer.token }), { status: 400, body: { code: 'IKW-VAL-001', param } }, query);
  }
  t.match(await svc.request('GET', '/api/v1/operator/rails/decisions?merchant=acct_1', { key: reviewer.token }), { status: 400, body: { code: 'IKW-VAL-002' } }, 'an unknown parameter');
  t.equal((await decisions('?limit=200')).length, 4, 'up to 200');
});

t.test('the migration fills rows already there from the log, and a rebuild gives the same rows', async (t) => {
  const before = await decisions('?limit=200');
  const { knex } = svc.system;
  // The tables as they were before their second migration.
  for (const table of ['read.payment_rail_attempts', 'read.payout_rail_attempts']) await knex.raw(`ALTER TABLE ${table} DROP COLUMN merchant_id, DROP COLUMN object_id, DROP COLUMN passed_over`);
  await knex('schema_migrations').whereIn('name', ['payment-rail-attempts/002-decisions', 'payout-rail-attempts/002-decisions']).delete();
  t.same(await migrate(knex, MIGRATIONS), ['payment-rail-attempts/002-decisions', 'payout-rail-attempts/002-decisions']);
  t.same(await decisions('?limit=200'), before, 'the migration fills them from the log');

  for (const name of ['payment-rail-attempts', 'payout-rail-attempts']) {
    const run = startProcess('bin/cli.js', { DATABASE_URL: svc.databaseUrl, LOG_LEVEL: 'silent' }, ['projections', 'verify', name]);
    t.equal(await run.exit, 0, run.output());
    t.match(run.output(), /^ok: /m, `${name}: a rebuild gives the rows the live run wrote`);
  }
});
