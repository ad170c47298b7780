/**
 * Escrow contracts through the real server, on the sandbox operator and a manual clock: create
 * (validation, defaults, funding from the merchant balance), list, get, submit-for-funding (a
 * payment intent whose payment lands in escrow, not in the merchant's balance), participants,
 * milestones, refunds, cancel (held funds back to the payer), the balance's `escrowed` figure,
 * tenant isolation and idempotency.
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { assertInvariants, escrow, fundedContract, ok, paidContract } from '../../support/escrow.js';
import { confirm, createIntent, mobileMoney, snNumber } from '../../support/payments.js';
import { balance, balanceObject, balanceTransactions, fund } from '../../support/payouts.js';
import { advance, startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);

t.test('create: defaults, every field as given, and the limits of the body', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const res = await escrow(svc, key, 'POST', '/contracts', { currency: 'XOF' });
  assertOk(t, res);
  t.match(res.body, {
    id: /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/,
    object: 'escrow_contract',
    livemode: false,
    status: 'draft',
    currency: 'xof',
    amountMinor: null,
    fundedMinor: 0,
    heldMinor: 0,
    fundingSourceType: 'payment_intent',
    defaultReleaseMode: 'manual',
    ledgerDestinationType: 'merchant_balance',
    participants: [],
    milestones: [],
  });
  const full = await ok(
    await escrow(svc, key, 'POST', '/contracts', {
      currency: 'xof',
      amountMinor: 50_000,
      fundingSourceType: 'payment_intent',
      fundingSourceLedgerAccountCode: 'buyers:4711',
      defaultReleaseMode: 'immediate',
      ledgerDestinationType: 'merchant_balance',
      ledgerDestinationAccountCode: 'sellers:42',
      autoReleaseAtUtc: '2026-03-01T00:00:00Z',
      metadata: 'x'.repeat(8000),
    }),
  );
  t.match(full, { amountMinor: 50_000, fundingSourceLedgerAccountCode: 'buyers:4711', defaultReleaseMode: 'immediate', ledgerDestinationAccountCode: 'sellers:42', autoReleaseAtUtc: '2026-03-01T00:00:00.000Z' });
  t.equal(full.metadata.length, 8000);

  assertError(t, await escrow(svc, key, 'POST', '/contracts', {}), 'IKW-VAL-001', 'currency');
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xo' }), 'IKW-VAL-001', 'currency');
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'zzz' }), 'IKW-VAL-003', 'currency');
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', metadata: 'x'.repeat(8001) }), 'IKW-VAL-001', 'metadata');
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', amountMinor: 0 }), 'IKW-VAL-001', 'amountMinor');
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', amountMinor: 1.5 }), 'IKW-VAL-001', 'amountMinor');
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', fundingSourceType: 'cash' }), 'IKW-VAL-001', 'fundingSourceType');
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', defaultPayoutMethodId: 'nope' }), 'IKW-VAL-001', 'defaultPayoutMethodId');
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', ledgerDestinationAccountCode: 'x'.repeat(101) }), 'IKW-VAL-001', 'ledgerDestinationAccountCode');
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', autoReleaseAtUtc: 'tomorrow' }), 'IKW-VAL-001', 'autoReleaseAtUtc');
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', ledgerDestinationType: 'payout_method' }), 'IKW-VAL-001', 'defaultPayoutMethodId');
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', fundingSourceType: 'merchant_balance' }), 'IKW-VAL-001', 'amountMinor');
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', surprise: 1 }), 'IKW-VAL-002', 'surprise');
});

t.test('funding from the merchant balance: available moves to escrow, shown apart on the balance; refused when short', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', amountMinor: 5_000, fundingSourceType: 'merchant_balance' }), 'IKW-BAL-001', 'amountMinor');
  t.equal((await ok(await escrow(svc, key, 'GET', '/contracts'))).data.length, 0, 'a refused funding creates no contract');
  const c = await fundedContract(svc, merchant.id, key, 30_000);
  t.match(c, { status: 'funded', fundedMinor: 30_000, heldMinor: 30_000 });
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 }, 'none of it is available');
  t.same((await balanceObject(svc, key)).escrowed, [{ amount: 30_000, currency: 'xof' }], 'the balance shows it escrowed');
  t.match(await balanceTransactions(svc, key, '?type=escrow_funding'), [{ type: 'escrow_funding', amount: -30_000, net: -30_000 }]);
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test('submit-for-funding: the payment of the intent lands in escrow, never in pending or available', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const { contract, intent } = await paidContract(svc, key, 10_000);
  t.equal(contract.paymentIntentId, intent.id);
  t.equal(contract.status, 'funded');
  const fee = 10_000 - contract.fundedMinor;
  t.ok(fee > 0 && fee < 1_000, `funded net of the payment fee (${fee})`);
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 }, 'the merchant cannot pay it out');
  t.same((await balanceObject(svc, key)).escrowed, [{ amount: contract.fundedMinor, currency: 'xof' }]);
  t.same(await balanceTransactions(svc, key), [], 'no balance transaction: the funds are not the merchant’s');
  await assertInvariants(t, svc, merchant.id, key, contract.id);
  const rows: { type: string; data: { kind?: string; source?: string }; transaction_id: string }[] = await svc.system
    .knex('events')
    .select('type', 'data', 'transaction_id')
    .whereIn('stream_id', [`payment_intent-${intent.id}`, `escrow_contract-${contract.id}`, `balance-${merchant.id}-sandbox-xof`]);
  const succeeded = rows.find((r) => r.type === 'payment_intent.succeeded')!;
  const posted = rows.find((r) => r.data.kind === 'escrow_funding' && r.data.source === intent.id)!;
  const funded = rows.find((r) => r.type === 'escrow_contract.funded')!;
  t.same([posted.transaction_id, funded.transaction_id], [succeeded.transaction_id, succeeded.transaction_id], 'the success, the money in escrow and the contract funded: one commit');

  // Submitting the same intent again answers the contract as it is.
  const again = await escrow(svc, key, 'POST', `/contracts/${contract.id}/submit-for-funding`, { paymentIntentId: intent.id });
  assertOk(t, again);
  t.equal(again.body.fundedMinor, contract.fundedMinor);
});

t.test('submit-for-funding racing a confirm, or another contract: a payment never lands in the balance meant for escrow', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  let submittedFirst = 0;
  for (let round = 0; round < 8; round++) {
    const c = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', amountMinor: 2_000 }));
    const intent = await createIntent(svc, key, { amount: 2_000 });
    // Odd rounds give the submit a head start of one request, so that both orders happen.
    const submitting = escrow(svc, key, 'POST', `/contracts/${c.id}/submit-for-funding`, { paymentIntentId: intent.id });
    if (round % 2 === 1) await svc.request('GET', '/healthz');
    const [submitted, confirmed] = await Promise.all([submitting, confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) })]);
    await advance(svc);
    await svc.system.drain();
    const rows: { data: { kind: string } }[] = await svc.system
      .knex('events')
      .where({ stream_id: `balance-${merchant.id}-sandbox-xof` })
      .whereRaw(`data->>'source' = ?`, [intent.id])
      .select('data');
    const kinds = rows.map((r) => r.data.kind).filter((k) => k !== 'payment_settlement');
    if (submitted.status === 200) {
      submittedFirst++;
      t.same(kinds, ['escrow_funding'], `round ${round}: submitted, so the payment went to escrow (confirm ${confirmed.status})`);
      t.equal((await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`))).status, 'funded');
    } else {
      t.ok([400, 409].includes(submitted.status), `round ${round}: the submit lost (${submitted.status} ${submitted.body.code})`);
      t.same(kinds, ['payment'], `round ${round}: not submitted, so an ordinary payment`);
    }
  }
  t.comment(`${submittedFirst} of 8 submits went first`);

  // Two contracts claiming one intent at once: one wins.
  const intent = await createIntent(svc, key, { amount: 3_000 });
  const a = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', amountMinor: 3_000 }));
  const b = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', amountMinor: 3_000 }));
  const answers = await Promise.all([a, b, a, b].map((c) => escrow(svc, key, 'POST', `/contracts/${c.id}/submit-for-funding`, { paymentIntentId: intent.id })));
  const winners = new Set(answers.filter((r) => r.status === 200).map((r) => r.body.id));
  t.equal(winners.size, 1, `one contract takes the intent (${answers.map((r) => r.status).join(', ')})`);
  for (const r of answers.filter((x) => x.status !== 200)) t.ok(r.body.code === 'IKW-ESC-002' || r.body.code === 'IKW-RES-003', `the other is refused (${r.body.code})`);
  assertOk(t, await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) }));
  await advance(svc);
  await svc.system.drain();
  const [winner] = [...winners];
  t.equal((await ok(await escrow(svc, key, 'GET', `/contracts/${winner}`))).fundedMinor > 0, true, 'the winner is funded');
  const loser = winner === a.id ? b : a;
  t.equal((await ok(await escrow(svc, key, 'GET', `/contracts/${loser.id}`))).fundedMinor, 0, 'the other is not');
});

t.test('submit-for-funding refusals', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const other = await svc.sandboxMerchant();
  const c = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', amountMinor: 10_000 }));
  const path = `/contracts/${c.id}/submit-for-funding`;
  assertError(t, await escrow(svc, key, 'POST', path, {}), 'IKW-VAL-001', 'paymentIntentId');
  assertError(t, await escrow(svc, key, 'POST', path, { paymentIntentId: 'not-an-id' }), 'IKW-VAL-001', 'paymentIntentId');
  assertError(t, await escrow(svc, key, 'POST', path, { paymentIntentId: '0190a8f4-6b7e-7c55-9a55-51ca0c0f1f0e' }), 'IKW-ESC-002', 'paymentIntentId');
  const wrongAmount = await createIntent(svc, key, { amount: 9_999 });
  assertError(t, await escrow(svc, key, 'POST', path, { paymentIntentId: wrongAmount.id }), 'IKW-ESC-002', 'paymentIntentId');
  const othersIntent = await createIntent(svc, other.key, { amount: 10_000 });
  assertError(t, await escrow(svc, key, 'POST', path, { paymentIntentId: othersIntent.id }), 'IKW-ESC-002', 'paymentIntentId');
  const confirmed = await createIntent(svc, key, { amount: 10_000 });
  assertOk(t, await confirm(svc, key, confirmed.id, { payment_method: mobileMoney(snNumber('67')) }));
  assertError(t, await escrow(svc, key, 'POST', path, { paymentIntentId: confirmed.id }), 'IKW-ESC-002', 'paymentIntentId');
  const good = await createIntent(svc, key, { amount: 10_000 });
  assertOk(t, await escrow(svc, key, 'POST', path, { paymentIntentId: good.id }));
  const second = await createIntent(svc, key, { amount: 10_000 });
  assertError(t, await escrow(svc, key, 'POST', path, { paymentIntentId: second.id }), 'IKW-ESC-001', 'paymentIntentId');
  const c2 = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof' }));
  assertError(t, await escrow(svc, key, 'POST', `/contracts/${c2.id}/submit-for-funding`, { paymentIntentId: good.id }), 'IKW-ESC-002', 'paymentIntentId');
  const fromBalance = await fundedContract(svc, merchant.id, key, 1_000);
  const anotherIntent = await createIntent(svc, key, { amount: 1_000 });
  assertError(t, await escrow(svc, key, 'POST', `/contracts/${fromBalance.id}/submit-for-funding`, { paymentIntentId: anotherIntent.id }), 'IKW-ESC-002', 'paymentIntentId');
});

t.test('participants and milestones', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const c = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof' }));
  const withBuyer = await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/participants`, { role: 'payer', displayName: 'Awa', email: 'awa@example.com' }));
  t.match(withBuyer.participants, [{ role: 'payer', displayName: 'Awa', email: 'awa@example.com' }]);
  const withSeller = await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/participants`, { role: 'beneficiary', displayName: 'Moussa' }));
  t.equal(withSeller.participants.length, 2);
  assertError(t, await escrow(svc, key, 'POST', `/contracts/${c.id}/participants`, { role: 'judge', displayName: 'X' }), 'IKW-VAL-001', 'role');
  assertError(t, await escrow(svc, key, 'POST', `/contracts/${c.id}/participants`, { role: 'payer' }), 'IKW-VAL-001', 'displayName');

  const m = await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/milestones`, { title: 'Design', amountMinor: 4_000 }));
  const milestone = m.milestones[0];
  t.match(milestone, { title: 'Design', amountMinor: 4_000, status: 'open', completedAt: null });
  const done = await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/milestones/${milestone.id}/complete`));
  t.match(done.milestones[0], { status: 'completed', completedAt: /T/ });
  assertOk(t, await escrow(svc, key, 'POST', `/contracts/${c.id}/milestones/${milestone.id}/complete`), 200);
  assertError(t, await escrow(svc, key, 'POST', `/contracts/${c.id}/milestones/nope/complete`), 'IKW-RES-001', 'milestoneId');
  assertError(t, await escrow(svc, key, 'POST', `/contracts/${c.id}/milestones`, { title: 'No amount' }), 'IKW-VAL-001', 'amountMinor');
});

t.test('refund to the payer: part, then the rest; never more than is held', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 20_000);
  const fundedAt = Math.floor(svc.clock.now().getTime() / 1000);
  svc.clock.advance(2_000);
  assertError(t, await escrow(svc, key, 'POST', `/contracts/${c.id}/refund`, { amountMinor: 20_001 }), 'IKW-ESC-004', 'amountMinor');
  const part = await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/refund`, { amountMinor: 5_000 }));
  t.match(part, { refundedMinor: 5_000, heldMinor: 15_000, status: 'funded' });
  t.same((await balanceObject(svc, key)).escrowed, [{ amount: 15_000, currency: 'xof' }]);
  t.same((await ok(await svc.request('GET', `/api/v1/balance?as_of=${fundedAt}`, { key }))).escrowed, [{ amount: 20_000, currency: 'xof' }], 'as_of: escrowed as it stood then');
  t.equal((await balance(svc, key)).available, 5_000, 'a contract funded from the balance is refunded to it');
  const rest = await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/refund`, {}));
  t.match(rest, { refundedMinor: 20_000, heldMinor: 0, status: 'completed' });
  assertError(t, await escrow(svc, key, 'POST', `/contracts/${c.id}/refund`, {}), 'IKW-ESC-001', 'id');
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test('refund of a contract paid by a payment intent goes back to the payer’s rail, not to the merchant', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const { contract } = await paidContract(svc, key, 10_000);
  const after = await ok(await escrow(svc, key, 'POST', `/contracts/${contract.id}/refund`, {}));
  t.match(after, { status: 'completed', heldMinor: 0, refundedMinor: contract.fundedMinor });
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 });
  t.same((await balanceObject(svc, key)).escrowed, [{ amount: 0, currency: 'xof' }]);
  await assertInvariants(t, svc, merchant.id, key, contract.id);
});

t.test('cancel: a draft, a funded contract (held funds refunded), and what cannot be canceled', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const draft = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof' }));
  const canceled = await ok(await escrow(svc, key, 'POST', `/contracts/${draft.id}/cancel`));
  t.match(canceled, { status: 'canceled', canceledAt: /T/ });
  assertOk(t, await escrow(svc, key, 'POST', `/contracts/${draft.id}/cancel`), 200);
  assertError(t, await escrow(svc, key, 'POST', `/contracts/${draft.id}/participants`, { role: 'payer', displayName: 'A' }), 'IKW-ESC-001', 'id');

  const funded = await fundedContract(svc, merchant.id, key, 12_000);
  const pending = await ok(await escrow(svc, key, 'POST', `/releases/contract/${funded.id}`, { amountMinor: 2_000 }));
  const after = await ok(await escrow(svc, key, 'POST', `/contracts/${funded.id}/cancel`));
  t.match(after, { status: 'canceled', refundedMinor: 12_000, heldMinor: 0, pendingReleaseMinor: 0 });
  t.match(await ok(await escrow(svc, key, 'GET', `/releases/${pending.id}`)), { status: 'canceled' }, 'its pending release is canceled');
  t.equal((await balance(svc, key)).available, 12_000);
  await assertInvariants(t, svc, merchant.id, key, funded.id);

  const done = await fundedContract(svc, merchant.id, key, 1_000);
  await ok(await escrow(svc, key, 'POST', `/contracts/${done.id}/refund`, {}));
  assertError(t, await escrow(svc, key, 'POST', `/contracts/${done.id}/cancel`), 'IKW-ESC-001', 'id');
});

t.test('a payment that arrives after its contract was canceled goes straight back to the payer', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', amountMinor: 10_000 }));
  const intent = await createIntent(svc, key, { amount: 10_000 });
  await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/submit-for-funding`, { paymentIntentId: intent.id }));
  assertOk(t, await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) }));
  await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/cancel`));
  await advance(svc);
  await svc.system.drain();
  const after = await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`));
  t.match(after, { status: 'canceled', heldMinor: 0 });
  t.ok(after.fundedMinor > 0 && after.refundedMinor === after.fundedMinor, 'recorded, then refunded');
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 });
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test('list and get: newest first, by status, cursor-paged', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const a = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof' }));
  const b = await fundedContract(svc, merchant.id, key, 1_000);
  const c = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof' }));
  const all = await ok(await escrow(svc, key, 'GET', '/contracts'));
  t.same(
    all.data.map((x: { id: string }) => x.id),
    [c.id, b.id, a.id],
  );
  t.match(all, { object: 'list', has_more: false, url: '/api/v1/escrow/contracts' });
  t.same(
    (await ok(await escrow(svc, key, 'GET', '/contracts?status=funded'))).data.map((x: { id: string }) => x.id),
    [b.id],
  );
  const page = await ok(await escrow(svc, key, 'GET', '/contracts?limit=2'));
  t.equal(page.has_more, true);
  const next = await ok(await escrow(svc, key, 'GET', `/contracts?limit=2&starting_after=${page.data[1].id}`));
  t.same(
    next.data.map((x: { id: string }) => x.id),
    [a.id],
  );
  assertError(t, await escrow(svc, key, 'GET', '/contracts?status=lost'), 'IKW-VAL-001', 'status');
  t.same(await ok(await escrow(svc, key, 'GET', `/contracts/${b.id}`)), b);
  assertError(t, await escrow(svc, key, 'GET', '/contracts/0190a8f4-6b7e-7c55-9a55-51ca0c0f1f0e'), 'IKW-RES-001', 'id');
});

t.test('tenant isolation: another merchant’s contract is a 404 to every operation', async (t) => {
  const owner = await svc.sandboxMerchant();
  const stranger = await svc.sandboxMerchant();
  const c = await fundedContract(svc, owner.merchant.id, owner.key, 3_000);
  const intent = await createIntent(svc, stranger.key, { amount: 3_000 });
  const k = stranger.key;
  assertError(t, await escrow(svc, k, 'GET', `/contracts/${c.id}`), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, k, 'POST', `/contracts/${c.id}/cancel`), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, k, 'POST', `/contracts/${c.id}/submit-for-funding`, { paymentIntentId: intent.id }), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, k, 'POST', `/contracts/${c.id}/participants`, { role: 'payer', displayName: 'X' }), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, k, 'POST', `/contracts/${c.id}/milestones`, { title: 'X', amountMinor: 1 }), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, k, 'POST', `/contracts/${c.id}/refund`, {}), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, k, 'POST', `/releases/contract/${c.id}`, {}), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, k, 'GET', `/releases/contract/${c.id}`), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, k, 'POST', `/disputes/contract/${c.id}`, { reason: 'x' }), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, k, 'GET', `/disputes/contract/${c.id}`), 'IKW-RES-001', 'id');
  t.same((await ok(await escrow(svc, k, 'GET', '/contracts'))).data, []);
  t.notOk('escrowed' in (await balanceObject(svc, k)), 'no escrow: no escrowed figure');
  // The live key of the same merchant does not see its sandbox contract either.
  assertError(t, await escrow(svc, owner.merchant.api_keys.live, 'GET', `/contracts/${c.id}`), 'IKW-RES-001', 'id');
});

t.test('idempotency: an Idempotency-Key replays the creation; the same contract, funded once', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  await fund(svc, merchant.id, 8_000);
  const body = { currency: 'xof', amountMinor: 8_000, fundingSourceType: 'merchant_balance' };
  const answers = await Promise.all(Array.from({ length: 5 }, () => escrow(svc, key, 'POST', '/contracts', body, 'contract-1')));
  const first = answers.find((r) => r.status === 200);
  t.ok(first, 'one of them is answered');
  for (const r of answers) t.ok(r.status === 200 ? r.body.id === first!.body.id : r.status === 409 && r.body.code === 'IKW-IDM-003', `the same contract, or a retryable in-progress answer (${r.status})`);
  const replay = await escrow(svc, key, 'POST', '/contracts', body, 'contract-1');
  assertOk(t, replay);
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  t.equal(replay.body.id, first!.body.id);
  t.equal((await ok(await escrow(svc, key, 'GET', '/contracts'))).data.length, 1, 'one contract');
  t.equal((await balance(svc, key)).available, 0, 'funded once');
  const other = await escrow(svc, key, 'POST', '/contracts', { ...body, amountMinor: 7_000 }, 'contract-1');
  t.equal(other.status, 422, 'same key, another body');
});
