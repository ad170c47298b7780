/**
 * Payout batches under the rule of new destinations (docs/decisions.md, "Payouts"): a batch's
 * destinations, inline or saved recipients, wait no safety delay, so in live a signed-in user
 * executes (or retries) a batch paying a destination this merchant never paid only with a fresh
 * `payouts/new-destination` challenge, used up in the execution's commit; an API key executes one
 * as the merchant's settings allow inline destinations to keys; sandbox asks for none. And an
 * execution retried with its Idempotency-Key after the first died answers the execution it
 * started: nothing held or paid twice. Users answer with e-mailed codes (a real SMTP server on
 * loopback); live payouts go to an operator that accepts them and counts its calls.
 */
import t from '#tap';
import type { PayoutRequest } from '#packages/connectors/port.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { ENGINE, settle, walletInstruction } from '../../support/payout-engine.js';
import { balance, fund, liveOperator, OPERATOR_DELAY_MS } from '../../support/payouts.js';
import { activateLive, startService } from '../../support/system.js';
import { mailedCode, startSmtp } from '../../support/webhooks.js';
import type { Environment } from '#packages/core/owner.js';

const PASSWORD = 'correct horse battery';
const SETTINGS = '/api/v1/merchant/settings/payouts';

/** Every live payout the operator was asked for; while `rejecting`, it refuses them at once (they fail). */
const sent: PayoutRequest[] = [];
let rejecting = false;
const smtp = await startSmtp(t);
const svc = await startService(t, {
  env: { SMTP_URL: smtp.url },
  rails: (environment, base) => {
    if (environment !== 'live') return base;
    const rails = liveOperator()(environment, base);
    rails.payout = async (req) => {
      sent.push(req);
      return rejecting ? { status: 'rejected', failureCode: 'account_blocked', failureMessage: 'The wallet is blocked' } : { status: 'accepted' };
    };
    return rails;
  },
});

/** Runs the batch's runs with the operator refusing every payout. */
async function whileRejecting(run: () => Promise<void>): Promise<void> {
  rejecting = true;
  try {
    await run();
  } finally {
    rejecting = false;
  }
}

/** A merchant funded in both environments and live, its finance member signed in. */
async function team(name: string) {
  const m = await svc.merchant(name);
  const email = `finance-${name.toLowerCase().replace(/\W+/g, '-')}@shop.example`;
  await svc.member(m, email, PASSWORD, 'finance');
  await fund(svc, m.id, 1_000_000, 'live');
  await activateLive(svc, m.id);
  await fund(svc, m.id, 1_000_000, 'sandbox');
  return { m, key: m.api_keys.live, email, finance: await svc.signIn(email, PASSWORD) };
}

async function verifiedChallenge(token: string, email: string, purpose = 'payouts/new-destination'): Promise<string> {
  const asked = await svc.request('POST', '/api/v1/auth/mfa/challenge', { key: token, body: { purpose } });
  if (asked.status !== 200) throw new Error(asked.text);
  const verified = await svc.request('POST', '/api/v1/auth/mfa/verify', { body: { challengeId: asked.body.challengeId, code: mailedCode(smtp.mails, email) } });
  if (verified.status !== 200) throw new Error(verified.text);
  return asked.body.challengeId as string;
}

let keys = 0;
const call = (token: string, method: string, path: string, body?: unknown, options: { environment?: Environment; idempotencyKey?: string } = {}) =>
  svc.request(method, `${ENGINE}${path}`, {
    key: token,
    ...(body !== undefined ? { body } : {}),
    headers: { 'x-environment': options.environment ?? 'live', 'idempotency-key': options.idempotencyKey ?? `engine-new-destinations-${++keys}` },
  });

async function batchOf(token: string, instructions: unknown[], environment: Environment = 'live'): Promise<string> {
  const res = await call(token, 'POST', '/batches', { currency: 'xof', instructions }, { environment });
  if (res.status !== 200) throw new Error(`batch refused: ${res.status} ${res.text}`);
  return res.body.id as string;
}

const batchStatus = async (token: string, id: string, environment: Environment = 'live') => (await call(token, 'GET', `/batches/${id}`, undefined, { environment })).body;

t.test('live: a user executes a batch paying destinations never paid only with a fresh challenge, used up by the execution', async (t) => {
  const { m, key, finance, email } = await team('Batch user');
  const before = await balance(svc, key);
  const recipient = await call(finance, 'POST', '/recipients', { display_name: 'New', destination_type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234512' });
  assertOk(t, recipient);
  const inline = await batchOf(finance, [walletInstruction(5_000, '11')]);
  const saved = await batchOf(finance, [{ amount: 5_000, recipient_id: recipient.body.id }]);

  assertError(t, await call(finance, 'POST', `/batches/${inline}/execute`), 'IKW-PAY-007', 'challenge_id');
  // A saved recipient has no safety delay: new all the same.
  assertError(t, await call(finance, 'POST', `/batches/${saved}/execute`), 'IKW-PAY-007', 'challenge_id');
  assertError(t, await call(finance, 'POST', `/batches/${inline}/execute`, { challenge_id: await verifiedChallenge(finance, email, 'payout-settings/delay') }), 'IKW-ACC-007', 'challenge_id');
  t.equal((await batchStatus(finance, inline)).status, 'validated', 'not executed');
  t.same(await balance(svc, key), before, 'nothing held');

  const challengeId = await verifiedChallenge(finance, email);
  const executed = await call(finance, 'POST', `/batches/${inline}/execute`, { challenge_id: challengeId });
  assertOk(t, executed);
  t.equal(executed.body.status, 'executing');
  // A challenge pays one execution.
  assertError(t, await call(finance, 'POST', `/batches/${saved}/execute`, { challenge_id: challengeId }), 'IKW-ACC-006', 'challenge_id');
  assertOk(t, await call(finance, 'POST', `/batches/${saved}/execute`, { challenge_id: await verifiedChallenge(finance, email) }));
  await settle(svc, OPERATOR_DELAY_MS);
  t.equal(sent.filter((r) => r.merchantId === m.id).length, 2, 'both sent (the live operator leaves them pending)');

  // Both destinations paid now: a batch to them needs no challenge, nor does a single payout.
  const again = await batchOf(finance, [walletInstruction(1_000, '11'), { amount: 1_000, recipient_id: recipient.body.id }]);
  assertOk(t, await call(finance, 'POST', `/batches/${again}/execute`));
  // One new destination among paid ones is enough to need one.
  const mixed = await batchOf(finance, [walletInstruction(1_000, '11'), walletInstruction(1_000, '13')]);
  assertError(t, await call(finance, 'POST', `/batches/${mixed}/execute`), 'IKW-PAY-007', 'challenge_id');

  // Another merchant's batch is no batch, challenge or not.
  const other = await team('Batch stranger');
  assertError(t, await call(other.finance, 'POST', `/batches/${mixed}/execute`, { challenge_id: await verifiedChallenge(other.finance, other.email) }), 'IKW-RES-001');
  t.equal((await batchStatus(finance, mixed)).status, 'validated');
  t.ok(m.id);
});

t.test('live: a retry of failed items to a destination never paid needs a challenge too', async (t) => {
  const { key, finance, email } = await team('Batch retry');
  const id = await batchOf(finance, [walletInstruction(2_000, '21')]);
  const challengeId = await verifiedChallenge(finance, email);
  await whileRejecting(async () => {
    assertOk(t, await call(finance, 'POST', `/batches/${id}/execute`, { challenge_id: challengeId }));
    await settle(svc, OPERATOR_DELAY_MS);
  });
  t.equal((await batchStatus(finance, id)).status, 'failed');
  // A failed payout paid nothing.
  assertError(t, await call(finance, 'POST', `/batches/${id}/retry`), 'IKW-PAY-007', 'challenge_id');
  assertOk(t, await call(finance, 'POST', `/batches/${id}/retry`, { challenge_id: await verifiedChallenge(finance, email) }));
  t.ok(key);
});

t.test('API keys execute batches as the settings allow inline destinations to keys; sandbox asks for no challenge', async (t) => {
  const { m, key, finance } = await team('Batch keys');
  const first = await batchOf(key, [walletInstruction(1_000, '31')]);
  assertError(t, await call(key, 'POST', `/batches/${first}/execute`, { challenge_id: '0190c6a8-0000-7000-8000-000000000001' }), 'IKW-VAL-002', 'challenge_id');
  assertOk(t, await call(key, 'POST', `/batches/${first}/execute`)); // open by default, as for single payouts

  assertOk(t, await svc.request('PATCH', SETTINGS, { key, body: { inline_destinations_for_api_keys: false }, headers: { 'x-environment': 'live' } }));
  const closed = await batchOf(key, [walletInstruction(1_000, '32')]);
  assertError(t, await call(key, 'POST', `/batches/${closed}/execute`), 'IKW-PAY-008', 'batchId');
  const recipient = await call(key, 'POST', '/recipients', { display_name: 'Fresh', destination_type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234533' });
  const toRecipient = await batchOf(key, [{ amount: 1_000, recipient_id: recipient.body.id }]);
  // A recipient saved by a key a moment ago is no saved payout method.
  assertError(t, await call(key, 'POST', `/batches/${toRecipient}/execute`), 'IKW-PAY-008', 'batchId');
  t.equal((await batchStatus(key, closed)).status, 'validated');
  // A signed-in user is not bound by the setting (the second factor is theirs to give).
  assertError(t, await call(finance, 'POST', `/batches/${closed}/execute`), 'IKW-PAY-007', 'challenge_id');

  const sandboxKey = m.api_keys.sandbox;
  const sandbox = await batchOf(sandboxKey, [walletInstruction(1_000, '34')], 'sandbox');
  assertOk(t, await call(sandboxKey, 'POST', `/batches/${sandbox}/execute`, undefined, { environment: 'sandbox' })); // the setting is the environment’s own
  const bySandboxUser = await batchOf(finance, [walletInstruction(1_000, '35')], 'sandbox');
  assertOk(t, await call(finance, 'POST', `/batches/${bySandboxUser}/execute`, undefined, { environment: 'sandbox' })); // sandbox moves no money: no challenge
});

t.test('an execution retried with its Idempotency-Key after the first died answers the execution it started: held and paid once', async (t) => {
  const { m, key } = await team('Batch crash');
  const id = await batchOf(key, [walletInstruction(3_000, '41'), walletInstruction(4_000, '42')]);
  const before = await balance(svc, key);
  const first = await call(key, 'POST', `/batches/${id}/execute`, undefined, { idempotencyKey: 'execute-once' });
  assertOk(t, first);
  const held = await balance(svc, key);
  t.ok(held.available < before.available, 'the first held the total');
  // The service died before it stored its answer: the key's row is gone (or abandoned) and the request runs again.
  t.equal(await svc.system.knex('idempotency_keys').where({ merchant_id: m.id, key: 'execute-once' }).delete(), 1, 'the stored answer is gone');
  const retried = await call(key, 'POST', `/batches/${id}/execute`, undefined, { idempotencyKey: 'execute-once' });
  assertOk(t, retried);
  t.match(retried.body, { id, status: 'executing', attempt: 1 }, 'the execution the first request started');
  t.same(await balance(svc, key), held, 'nothing held twice');
  // Another request (another key) is still refused: the batch is executing.
  assertError(t, await call(key, 'POST', `/batches/${id}/execute`, undefined, { idempotencyKey: 'execute-again' }), 'IKW-PEN-005', 'batchId');
  await settle(svc, OPERATOR_DELAY_MS);
  t.match(await batchStatus(key, id), { status: 'executing', attempt: 1 });
  t.same(
    sent
      .filter((r) => r.merchantId === m.id)
      .map((r) => r.amount)
      .sort(),
    [3_000, 4_000],
    'each item sent to the operator once',
  );

  // A retry that started attempt 2, retried after it ended: still attempt 2, nothing paid again.
  const failing = await batchOf(key, [walletInstruction(5_000, '43')]);
  await whileRejecting(async () => {
    assertOk(t, await call(key, 'POST', `/batches/${failing}/execute`));
    await settle(svc, OPERATOR_DELAY_MS);
    assertOk(t, await call(key, 'POST', `/batches/${failing}/retry`, undefined, { idempotencyKey: 'retry-once' }));
    await settle(svc, OPERATOR_DELAY_MS);
    t.match(await batchStatus(key, failing), { status: 'failed', attempt: 2 });
    const calls = sent.length;
    await svc.system.knex('idempotency_keys').where({ merchant_id: m.id, key: 'retry-once' }).delete();
    const retriedRetry = await call(key, 'POST', `/batches/${failing}/retry`, undefined, { idempotencyKey: 'retry-once' });
    assertOk(t, retriedRetry);
    t.match(retriedRetry.body, { status: 'failed', attempt: 2 }, 'the retry it started, as it is now: no third attempt');
    await settle(svc, OPERATOR_DELAY_MS);
    t.equal(sent.length, calls, 'nothing sent again');
  });

  // Another merchant's request with the same key is its own, and their batch is no batch.
  const other = await team('Batch crash stranger');
  assertError(t, await call(other.key, 'POST', `/batches/${id}/execute`, undefined, { idempotencyKey: 'execute-once' }), 'IKW-RES-001');
});
