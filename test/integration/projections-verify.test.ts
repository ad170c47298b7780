import t from '#tap';
import { balanceStream } from '#packages/families/ledger/events.js';
import { PostgresEventStore } from '#packages/eventstore/postgres/store.js';
import type { Projection } from '#packages/read-models/projection.js';
import { verifyProjections } from '#packages/read-models/verify.js';
import { startProcess } from '../support/child-process.js';
import { startPaymentsService, type TestService } from '../support/system.js';
import { advance, fund, fundedMerchant, mobileMoney, payout } from '../support/payouts.js';
import { REVIEWER, submitApplication } from '../support/activation.js';
import { activateLive } from '../support/system.js';

/** Issue 20 §3: `sika projections verify` rebuilds into a shadow schema and diffs with the live tables. */

async function workload(svc: TestService) {
  const a = await fundedMerchant(svc, 100_000);
  const b = await fundedMerchant(svc, 100_000);
  await payout(svc, a.key, { amount: 10_000, destination: mobileMoney('71') });
  await payout(svc, b.key, { amount: 20_000, destination: mobileMoney('72') });
  await advance(svc);
  return { a: a.merchant.id, b: b.merchant.id };
}

function cli(svc: TestService, args: string[]) {
  return startProcess('bin/cli.js', { DATABASE_URL: svc.system.db.url, LOG_LEVEL: 'silent' }, ['projections', 'verify', ...args]);
}

t.test('live read models equal their rebuild; edited, removed and added rows are listed', async (t) => {
  const svc = await startPaymentsService(t);
  const { a, b } = await workload(svc);
  t.same(await svc.system.verifyProjections(), [], 'every read model equals its rebuild');
  const clean = cli(svc, []);
  t.equal(await clean.exit, 0, clean.output());
  t.match(clean.output(), /^ok: all read models equal their rebuild from the log/);

  const knex = svc.system.knex;
  await knex('read.balances').where({ merchant_id: a }).increment('available', 1);
  const removed = await knex('read.balance_transactions').where({ merchant_id: b }).orderBy('seq').first<{ id: string }>('id');
  await knex('read.balance_transactions').where({ id: removed.id }).delete();
  await knex('read.ledger_entries').insert({
    entry_id: 'txn_forged',
    seq: 'z',
    merchant_id: a,
    environment: 'sandbox',
    currency: 'xof',
    kind: 'payment',
    source: 'pi_forged',
    amount: 1,
    fee: 0,
    net: 1,
    available: 1,
    pending: 0,
    reserved: 0,
    posted_at: new Date(),
  });

  const differences = await svc.system.verifyProjections(['balances', 'balance_transactions', 'ledger_entries']);
  t.equal(differences.length, 3, JSON.stringify(differences));
  const edited = differences.find((d) => d.table === 'read.balances')!;
  t.same(edited.key, { merchant_id: a, environment: 'sandbox', currency: 'xof' });
  t.equal(Number(edited.live!.available), Number(edited.rebuilt!.available) + 1, 'the edited amount, live and rebuilt');
  t.match(
    differences.find((d) => d.table === 'read.balance_transactions'),
    { key: { id: removed.id }, live: null, rebuilt: { id: removed.id } },
    'a row missing from the live table',
  );
  t.match(
    differences.find((d) => d.table === 'read.ledger_entries'),
    { key: { entry_id: 'txn_forged' }, live: { entry_id: 'txn_forged' }, rebuilt: null },
    'a row the log never made',
  );

  t.same(await svc.system.verifyProjections(['payouts', 'merchants']), [], 'only the named read models are compared');
  const failing = cli(svc, ['balances', '--json']);
  t.equal(await failing.exit, 1, 'a difference exits 1');
  t.equal(JSON.parse(failing.output()).differences.length, 1);
  const unknown = cli(svc, ['no_such_model']);
  t.equal(await unknown.exit, 1);
  t.equal((await svc.system.knex.raw(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname LIKE 'shadow_%'`)).rows[0].n, 0, 'no shadow schema is left behind');
  t.ok((await svc.system.store.readStream(balanceStream(a, 'sandbox', 'xof'))).length > 0);
});

t.test('issue 69: merchants in every status of their application, with and without live, rebuild together', async (t) => {
  const svc = await startPaymentsService(t);
  const decide = svc.system.activationApplications;
  const applied = async (name: string) => {
    const m = await svc.merchant(name);
    await submitApplication(svc, m.api_keys.sandbox);
    return m.id;
  };
  await svc.merchant('Never applied');
  await applied('Under review');
  const asked = await applied('Information requested');
  await decide.requestInformation(asked, [{ field: 'business.address', message: 'Give the street number' }], REVIEWER);
  const active = await applied('Active');
  await decide.approve(active, REVIEWER);
  const rejected = await applied('Rejected');
  await decide.reject(rejected, 'Unsupported business', REVIEWER);
  const suspended = await applied('Suspended');
  await decide.approve(suspended, REVIEWER);
  await decide.suspend(suspended, 'Fraud reports', REVIEWER);
  const reinstated = await applied('Reinstated');
  await decide.approve(reinstated, REVIEWER);
  await decide.suspend(reinstated, 'Checks', REVIEWER);
  await decide.reinstate(reinstated, REVIEWER);
  // A live merchant of the tests' fixture, and one more never activated after all of them.
  await activateLive(svc, (await svc.merchant('Fixture live')).id);
  await svc.merchant('Last, never applied');

  const statuses = (await svc.system.knex('read.activation_applications').select('status')).map((r: { status: string }) => r.status).sort();
  t.same(statuses, ['active', 'active', 'information_requested', 'rejected', 'suspended', 'under_review'], 'every status of an application');
  const live = (await svc.system.knex('read.merchants').select('live_status', 'live_suspended')).map((r: { live_status: string; live_suspended: boolean }) => `${r.live_status}${r.live_suspended ? ' (suspended)' : ''}`).sort();
  t.same(live, ['active', 'active', 'active', 'deactivated (suspended)', 'inactive', 'inactive', 'inactive', 'inactive', 'inactive'], 'merchants with and without live');
  t.same(await svc.system.verifyProjections(), [], 'every read model equals its rebuild');
  const run = cli(svc, []);
  t.equal(await run.exit, 0, run.output());
  t.match(run.output(), /^ok: all read models equal their rebuild from the log/, 'bin/sika projections verify');
});

t.test('safe while the service serves: appends go on during a verify, which still sees one consistent moment', async (t) => {
  const svc = await startPaymentsService(t);
  const { a, b } = await workload(svc);
  const verifying = svc.system.verifyProjections();
  const writes = Promise.all(Array.from({ length: 20 }, (_, i) => fund(svc, i % 2 ? a : b, 1_000 + i)));
  const [differences] = await Promise.all([verifying, writes]);
  t.same(differences, [], 'no difference while writes went on');
  t.same(await svc.system.verifyProjections(['balances']), []);
});

t.test('a projection whose raw SQL names the read schema cannot reach the live tables from a shadow rebuild', async (t) => {
  const svc = await startPaymentsService(t);
  await workload(svc);
  const before = await svc.system.knex('read.balances').select('*').orderBy('merchant_id');
  const careless: Projection = {
    name: 'careless',
    tables: [],
    migrations: [],
    handles: ['ledger.entry_posted'],
    apply: async (trx) => void (await trx.raw('UPDATE read.balances SET available = 0')),
  };
  const store = new PostgresEventStore(svc.system.knex);
  await t.rejects(
    verifyProjections(svc.system.knex, svc.system.db.url, [careless], [careless], (trx, after, limit) => store.readCommitted(trx, after, limit)),
    /names the read schema/,
  );
  t.same(await svc.system.knex('read.balances').select('*').orderBy('merchant_id'), before, 'the live table is untouched');
});
