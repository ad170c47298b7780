/**
 * The sandbox's disputed test card (docs/disputes.md, "In the sandbox"; docs/sandbox-testing.md):
 * a sandbox card payment with `tok_visa_disputed` succeeds, then the sandbox's card network opens a
 * dispute, due in a week; evidence with the payer's e-mail `win@example.com` wins it at once, any
 * other loses it; accepting accepts it. The ledger moves as for a live dispute.
 */
import t, { type Test } from '#tap';
import { assertError } from '../../support/assertions.js';
import { confirm, createIntent } from '../../support/payments.js';
import { balance, fund } from '../../support/payouts.js';
import { advance, startPaymentsService } from '../../support/system.js';
import { readCheckpoint } from '#packages/bus/consumer.js';
import { encodePosition } from '#packages/eventstore/postgres/store.js';

const svc = await startPaymentsService(t);
const DAY = 86_400_000;
const FEE = 150_000;
const funds = (key: string) => balance(svc, key, 'ngn');
const evidence = { customer_email: 'win@example.com', customer_name: 'Ada Obi', customer_phone: '08012345678', service_details: 'Two cups' };
const post = (key: string, path: string, body: object, idempotencyKey?: string) => svc.request('POST', path, { key, body, ...(idempotencyKey ? { headers: { 'Idempotency-Key': idempotencyKey } } : {}) });

/** Until the sandbox disputes' consumer has read every event and no job is due: the dispute opened, if it opens. */
async function settled(): Promise<void> {
  const { knex } = svc.system;
  const deadline = Date.now() + 20_000;
  for (;;) {
    await svc.system.scheduler.runUntilIdle();
    const head = await knex.raw<{ rows: { tx: string; pos: string }[] }>('SELECT transaction_id::text AS tx, global_position::text AS pos FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1');
    const last = head.rows[0];
    const checkpoint = await readCheckpoint(knex, 'bus_checkpoints', 'dispute-sandbox-open');
    const due = await knex('scheduled_jobs').where('run_at', '<=', svc.clock.now()).first('id');
    if ((!last || (checkpoint !== null && checkpoint >= encodePosition(last.tx, last.pos))) && !due) return;
    if (Date.now() > deadline) throw new Error('the sandbox disputes did not catch up within 20 s');
    await new Promise<void>((resolve) => setTimeout(resolve, 10));
  }
}

/** A sandbox NGN card payment with `token`, answered by the sandbox operator, and funds for the dispute to hold. */
async function paid(merchantId: string, key: string, token: string, amount = 500_000): Promise<string> {
  await fund(svc, merchantId, 1_000_000, 'sandbox', 'ngn');
  const intent = await createIntent(svc, key, { amount, currency: 'ngn', transaction_country: 'NG', customer_email: 'ada@example.com' });
  const res = await confirm(svc, key, intent.id, { payment_method: { type: 'card', card: { token } } });
  if (res.status !== 200) throw new Error(res.text);
  await advance(svc);
  await settled();
  return intent.id as string;
}

const disputesOf = async (key: string, paymentId: string) => (await svc.request('GET', `/api/v1/disputes?payment_intent=${paymentId}`, { key })).body.data as Record<string, unknown>[];

async function balanced(t: Test, merchantId: string) {
  const rows = await svc.system.knex('read.ledger_accounts').where({ merchant_id: merchantId, environment: 'sandbox' }).sum<{ total: string }[]>({ total: 'amount' });
  t.equal(Number(rows[0]!.total), 0, 'the ledger balances');
}

t.test('the disputed test card: the payment succeeds, then a dispute opens; evidence from win@example.com wins it', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant('Sandbox disputed shop');
  const plain = await paid(merchant.id, key, 'tok_visa');
  t.same(await disputesOf(key, plain), [], 'tok_visa: no dispute');

  const paymentId = await paid(merchant.id, key, 'tok_visa_disputed');
  t.match((await svc.request('GET', `/api/v1/payment-intents/${paymentId}`, { key })).body, { status: 'succeeded' });
  const [d] = await disputesOf(key, paymentId);
  t.match(d, { object: 'dispute', livemode: false, status: 'needs_response', amount: 500_000, currency: 'ngn', fee: FEE, shortfall: 0, reason: 'fraud' });
  t.equal(Date.parse(d!.evidence_due_by as string) - Date.parse(d!.created as string), 7 * DAY, 'due in a week');
  const held = await funds(key);
  await settled();
  t.equal((await disputesOf(key, paymentId)).length, 1, 'one dispute');

  const other = await svc.sandboxMerchant('Sandbox other shop');
  assertError(t, await post(other.key, `/api/v1/disputes/${d!.id}/evidence`, evidence), 'IKW-RES-001');
  const won = await post(key, `/api/v1/disputes/${d!.id}/evidence`, evidence, 'sandbox-evidence');
  t.equal(won.status, 200, won.text);
  t.match(won.body, { status: 'won', evidence: { customer_email: 'win@example.com' }, closed_at: String });
  t.same((await post(key, `/api/v1/disputes/${d!.id}/evidence`, evidence, 'sandbox-evidence')).body, won.body, 'the same Idempotency-Key: the first answer');
  t.same(await funds(key), { ...held, available: held.available + 500_000, reserved: held.reserved - 500_000 }, 'won: the amount back, the fee kept');
  assertError(t, await post(key, `/api/v1/disputes/${d!.id}/evidence`, evidence), 'IKW-DSP-001');
  await balanced(t, merchant.id);
});

t.test('any other payer e-mail loses it; accepting accepts it; both debit the hold', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant('Sandbox losing shop');
  const lostId = await paid(merchant.id, key, 'tok_visa_disputed', 300_000);
  const [lost] = await disputesOf(key, lostId);
  const before = await funds(key);
  const res = await post(key, `/api/v1/disputes/${lost!.id}/evidence`, { ...evidence, customer_email: 'ada@example.com' });
  t.match(res.body, { status: 'lost' });
  t.same(await funds(key), { ...before, reserved: before.reserved - 300_000 }, 'lost: out of reserved for good');

  const acceptedId = await paid(merchant.id, key, 'tok_visa_disputed', 200_000);
  const [accepted] = await disputesOf(key, acceptedId);
  const mid = await funds(key);
  const done = await post(key, `/api/v1/disputes/${accepted!.id}/accept`, {}, 'sandbox-accept');
  t.match(done.body, { status: 'accepted' });
  t.same(await funds(key), { ...mid, reserved: mid.reserved - 200_000 });
  assertError(t, await post(key, `/api/v1/disputes/${accepted!.id}/accept`, {}), 'IKW-DSP-003');
  await balanced(t, merchant.id);
  t.same(await svc.system.verifyProjections(), [], 'projections verify');
});
