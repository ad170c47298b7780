/**
 * Escrow releases through the real server: create (amount, milestone, mode, idempotencyKey),
 * execute as a ledger transfer (to the merchant's balance, for a beneficiary participant) or as a
 * payout to a payout method (paid by the sandbox operator), cancel, list and get; the
 * auto-release timer on a manual clock; tenant isolation, Idempotency-Key replays; and the money
 * races: 20 releases and refunds at once never take more than the contract holds.
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { assertInvariants, escrow, fundedContract, ok, paidContract } from '../../support/escrow.js';
import { balance, balanceObject, balanceTransactions, fund, payoutFee, retrievePayout, saveDestination } from '../../support/payouts.js';
import { advance, failCommitOnce, loseAnswerInCrash, startPaymentsService } from '../../support/system.js';
import { escrowContractStream } from '#packages/families/escrow/events.js';

const svc = await startPaymentsService(t);
const wallet = { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' };

t.test('a manual release waits for execute; a ledger transfer credits the merchant’s available balance', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 10_000, { ledgerDestinationAccountCode: 'seller:7' });
  const r = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 4_000 }));
  t.match(r, { object: 'escrow_release', contractId: c.id, amountMinor: 4_000, mode: 'manual', trigger: 'manual', status: 'pending', destination: null, currency: 'xof' });
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { heldMinor: 10_000, pendingReleaseMinor: 4_000 });
  t.equal((await balance(svc, key)).available, 0, 'nothing moves before execute');

  const done = await ok(await escrow(svc, key, 'POST', `/releases/${r.id}/execute`, {}));
  t.match(done, { status: 'executed', executedAt: /T/, destination: { type: 'ledger_transfer', beneficiaryParticipantId: null, accountCode: 'seller:7' } });
  t.equal((await balance(svc, key)).available, 4_000);
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { releasedMinor: 4_000, heldMinor: 6_000, pendingReleaseMinor: 0, status: 'funded' });
  t.same((await balanceObject(svc, key)).escrowed, [{ amount: 6_000, currency: 'xof' }]);
  assertOk(t, await escrow(svc, key, 'POST', `/releases/${r.id}/execute`, {}), 200);
  t.equal((await balance(svc, key)).available, 4_000, 'executing twice moves nothing more');

  // Without an amount: the rest; then the contract is completed.
  const rest = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { mode: 'immediate' }));
  t.match(rest, { amountMinor: 6_000, status: 'executed' });
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { status: 'completed', heldMinor: 0, releasedMinor: 10_000 });
  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, {}), 'IKW-ESC-001', 'id');
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test('release refusals: more than is held, an unfunded contract, bad bodies', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 5_000);
  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 5_001 }), 'IKW-ESC-004', 'amountMinor');
  await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 3_000 }));
  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 2_001 }), 'IKW-ESC-004', 'amountMinor');
  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: -1 }), 'IKW-VAL-001', 'amountMinor');
  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { mode: 'later' }), 'IKW-VAL-001', 'mode');
  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { trigger: 'auto_release' }), 'IKW-VAL-001', 'trigger');
  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { idempotencyKey: 'k'.repeat(65) }), 'IKW-VAL-001', 'idempotencyKey');
  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { manualOverride: 'yes' }), 'IKW-VAL-001', 'manualOverride');
  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { milestoneId: '0190a8f4-6b7e-7c55-9a55-51ca0c0f1f0e' }), 'IKW-ESC-007', 'milestoneId');
  const draft = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof' }));
  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${draft.id}`, { amountMinor: 1 }), 'IKW-ESC-001', 'id');
  assertError(t, await escrow(svc, key, 'POST', '/releases/contract/0190a8f4-6b7e-7c55-9a55-51ca0c0f1f0e', {}), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, key, 'POST', '/releases/0190a8f4-6b7e-7c55-9a55-51ca0c0f1f0e/execute', {}), 'IKW-RES-001', 'id');
});

t.test('milestones: released once completed, or before with manualOverride; the milestone amount by default', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 9_000);
  const withMilestones = await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/milestones`, { title: 'Design', amountMinor: 3_000 }));
  const design = withMilestones.milestones[0].id;
  const build = (await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/milestones`, { title: 'Build', amountMinor: 6_000 }))).milestones[1].id;
  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { milestoneId: design }), 'IKW-ESC-009', 'milestoneId');
  await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/milestones/${design}/complete`));
  const r = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { milestoneId: design }));
  t.match(r, { amountMinor: 3_000, milestoneId: design, trigger: 'milestone' });
  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { milestoneId: design }), 'IKW-ESC-009', 'milestoneId');
  const early = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { milestoneId: build, manualOverride: true }));
  t.match(early, { amountMinor: 6_000, manualOverride: true });
  const contract = await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`));
  t.same(
    contract.milestones.map((m: { status: string }) => m.status),
    ['released', 'released'],
  );
  await ok(await escrow(svc, key, 'POST', `/releases/${early.id}/cancel`));
  t.same(
    (await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`))).milestones.map((m: { status: string }) => m.status),
    ['released', 'open'],
    'a canceled release frees its milestone',
  );
});

t.test('execute to a beneficiary participant, and its refusals', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 2_000);
  const withPeople = await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/participants`, { role: 'beneficiary', displayName: 'Seller' }));
  const seller = withPeople.participants[0].id;
  const payer = (await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/participants`, { role: 'payer', displayName: 'Buyer' }))).participants[1].id;
  const r = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 2_000 }));
  assertError(t, await escrow(svc, key, 'POST', `/releases/${r.id}/execute`, { beneficiaryParticipantId: payer }), 'IKW-ESC-007', 'beneficiaryParticipantId');
  assertError(t, await escrow(svc, key, 'POST', `/releases/${r.id}/execute`, { beneficiaryParticipantId: seller, payoutMethodId: seller }), 'IKW-ESC-008', 'beneficiaryParticipantId');
  assertError(t, await escrow(svc, key, 'POST', `/releases/${r.id}/execute`, { payoutMethodId: 'x' }), 'IKW-VAL-001', 'payoutMethodId');
  const done = await ok(await escrow(svc, key, 'POST', `/releases/${r.id}/execute`, { beneficiaryParticipantId: seller }));
  t.match(done.destination, { type: 'ledger_transfer', beneficiaryParticipantId: seller });
  t.equal((await balance(svc, key)).available, 2_000);
});

t.test('execute to a payout method: the payout draws on escrow, not on available, and is paid', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const methodId = await saveDestination(svc, key, wallet);
  const c = await fundedContract(svc, merchant.id, key, 20_000);
  await fund(svc, merchant.id, 1_000); // the merchant's own money, untouched by the release
  const r = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 15_000 }));
  const done = await ok(await escrow(svc, key, 'POST', `/releases/${r.id}/execute`, { payoutMethodId: methodId }));
  const fee = payoutFee(15_000, { type: 'mobile_money', country: 'SN', operator: 'orange_money' });
  t.match(done.destination, { type: 'payout', payoutMethodId: methodId, payoutId: /^po_/, fee });
  const payout = await retrievePayout(svc, key, done.destination.payoutId);
  t.match(payout, { amount: 15_000 - fee, currency: 'xof', metadata: { escrow_contract: c.id, escrow_release: r.id } });
  t.same(await balance(svc, key), { available: 1_000, pending: 0, reserved: 15_000 }, 'held for the payout, from escrow');
  await advance(svc, 15 * 60_000);
  t.equal((await retrievePayout(svc, key, done.destination.payoutId)).status, 'paid');
  t.same(await balance(svc, key), { available: 1_000, pending: 0, reserved: 0 });
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { releasedMinor: 15_000, heldMinor: 5_000 });
  const unknownMethod = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 1_000 }));
  assertError(t, await escrow(svc, key, 'POST', `/releases/${unknownMethod.id}/execute`, { payoutMethodId: '0190a8f4-6b7e-7c55-9a55-51ca0c0f1f0e' }), 'IKW-PAY-002', 'payoutMethodId');
  t.match(await ok(await escrow(svc, key, 'GET', `/releases/${unknownMethod.id}`)), { status: 'pending' }, 'a refused payout leaves the release pending');
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test("a release's payout that fails goes back to the contract's escrow, in the failure's commit; the contract takes the release back", async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const failing = await saveDestination(svc, key, { ...wallet, msisdn: '+221771234501' }); // the sandbox's recipient_not_found
  const c = await fundedContract(svc, merchant.id, key, 20_000);
  await fund(svc, merchant.id, 1_000);
  const r = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 15_000 }));
  const done = await ok(await escrow(svc, key, 'POST', `/releases/${r.id}/execute`, { payoutMethodId: failing }));
  t.same(await balanceTransactions(svc, key, `?source=${done.destination.payoutId}`), [], 'escrow to the payee never touches the balance: no balance transaction');
  await advance(svc, 15 * 60_000);
  t.match(await retrievePayout(svc, key, done.destination.payoutId), { status: 'failed', failure_code: 'recipient_not_found' });
  t.same(await balance(svc, key), { available: 1_000, pending: 0, reserved: 0 }, 'not in available: back in escrow');
  t.same((await balanceObject(svc, key)).escrowed, [{ amount: 20_000, currency: 'xof' }]);
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { status: 'funded', releasedMinor: 0, heldMinor: 20_000 });
  t.match(await ok(await escrow(svc, key, 'GET', `/releases/${r.id}`)), { status: 'returned', returnedAt: /Z$/, destination: { payoutId: done.destination.payoutId } });
  t.same(
    (await ok(await escrow(svc, key, 'GET', `/releases/contract/${c.id}?status=returned`))).data.map((x: { id: string }) => x.id),
    [r.id],
  );
  const nets = (await balanceTransactions(svc, key, '?limit=100')).reduce((sum, b) => sum + b.net, 0);
  t.equal(nets, 1_000, 'the nets of the balance transactions still add up to the balance');
  const rows: { type: string; data: { kind?: string; source?: string }; transaction_id: string }[] = await svc.system
    .knex('events')
    .select('type', 'data', 'transaction_id')
    .whereIn('stream_id', [`payout-${done.destination.payoutId}`, `escrow_contract-${c.id}`, `balance-${merchant.id}-sandbox-xof`]);
  const failed = rows.find((x) => x.type === 'payout.failed')!;
  const back = rows.find((x) => x.data.kind === 'escrow_payout_release' && x.data.source === done.destination.payoutId)!;
  const returned = rows.find((x) => x.type === 'escrow_contract.release_returned')!;
  t.ok(failed && back && returned, 'the failure, the money back in escrow, the release taken back');
  t.same([back.transaction_id, returned.transaction_id], [failed.transaction_id, failed.transaction_id], 'in one commit');
  await assertInvariants(t, svc, merchant.id, key, c.id);
  const again = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 20_000 }));
  t.match(await ok(await escrow(svc, key, 'POST', `/releases/${again.id}/execute`, {})), { status: 'executed' }, 'all of it can be released again');
  t.same(await balance(svc, key), { available: 21_000, pending: 0, reserved: 0 });
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test('the contract default: ledgerDestinationType payout_method pays out to defaultPayoutMethodId', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const methodId = await saveDestination(svc, key, wallet);
  assertError(t, await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', defaultPayoutMethodId: '0190a8f4-6b7e-7c55-9a55-51ca0c0f1f0e' }), 'IKW-PAY-002', 'defaultPayoutMethodId');
  const c = await fundedContract(svc, merchant.id, key, 8_000, { defaultPayoutMethodId: methodId, defaultReleaseMode: 'immediate' });
  t.equal(c.ledgerDestinationType, 'payout_method');
  const r = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, {}));
  t.match(r, { status: 'executed', amountMinor: 8_000, destination: { type: 'payout', payoutMethodId: methodId } });
});

t.test('cancel of a release; list and get', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 6_000);
  const a = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 1_000 }));
  const b = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 2_000 }));
  const canceled = await ok(await escrow(svc, key, 'POST', `/releases/${a.id}/cancel`));
  t.match(canceled, { status: 'canceled', canceledAt: /T/ });
  assertOk(t, await escrow(svc, key, 'POST', `/releases/${a.id}/cancel`), 200);
  assertError(t, await escrow(svc, key, 'POST', `/releases/${a.id}/execute`, {}), 'IKW-ESC-005', 'id');
  await ok(await escrow(svc, key, 'POST', `/releases/${b.id}/execute`, {}));
  assertError(t, await escrow(svc, key, 'POST', `/releases/${b.id}/cancel`), 'IKW-ESC-005', 'id');
  const list = await ok(await escrow(svc, key, 'GET', `/releases/contract/${c.id}`));
  t.same(
    list.data.map((r: { id: string; status: string }) => [r.id, r.status]),
    [
      [b.id, 'executed'],
      [a.id, 'canceled'],
    ],
  );
  t.equal(list.url, `/api/v1/escrow/releases/contract/${c.id}`);
  t.same(
    (await ok(await escrow(svc, key, 'GET', `/releases/contract/${c.id}?status=canceled`))).data.map((r: { id: string }) => r.id),
    [a.id],
  );
  t.match(await ok(await escrow(svc, key, 'GET', `/releases/${b.id}`)), { id: b.id, status: 'executed', amountMinor: 2_000 });
  assertError(t, await escrow(svc, key, 'GET', '/releases/0190a8f4-6b7e-7c55-9a55-51ca0c0f1f0e'), 'IKW-RES-001', 'id');
});

t.test('idempotency: the body idempotencyKey and the Idempotency-Key header each give one release', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 10_000);
  const answers = await Promise.all(Array.from({ length: 10 }, () => escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 1_000, idempotencyKey: 'delivery-1', mode: 'immediate' })));
  const ids = new Set(answers.filter((r) => r.status === 200).map((r) => r.body.id));
  t.equal(ids.size, 1, 'one release for the key');
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { releasedMinor: 1_000 }, 'released once');

  const first = await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 500 }, 'hdr-1');
  const replay = await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 500 }, 'hdr-1');
  t.equal(replay.headers.get('idempotent-replayed'), 'true');
  t.equal(replay.body.id, first.body.id);
  const exec1 = await escrow(svc, key, 'POST', `/releases/${first.body.id}/execute`, {}, 'exec-1');
  const exec2 = await escrow(svc, key, 'POST', `/releases/${first.body.id}/execute`, {}, 'exec-1');
  t.equal(exec2.text, exec1.text, 'the execution replays byte for byte');
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { releasedMinor: 1_500 });
});

t.test('tenant isolation of releases', async (t) => {
  const owner = await svc.sandboxMerchant();
  const stranger = await svc.sandboxMerchant();
  const c = await fundedContract(svc, owner.merchant.id, owner.key, 1_000);
  const r = await ok(await escrow(svc, owner.key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 500 }));
  assertError(t, await escrow(svc, stranger.key, 'GET', `/releases/${r.id}`), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, stranger.key, 'POST', `/releases/${r.id}/execute`, {}), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, stranger.key, 'POST', `/releases/${r.id}/cancel`), 'IKW-RES-001', 'id');
  t.match(await ok(await escrow(svc, owner.key, 'GET', `/releases/${r.id}`)), { status: 'pending' });
});

t.test('race: 20 releases and refunds at once never take more than the contract holds', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 10_000);
  const calls = Array.from({ length: 20 }, (_, i) =>
    i % 2 === 0 ? escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 1_500, mode: 'immediate' }) : escrow(svc, key, 'POST', `/contracts/${c.id}/refund`, { amountMinor: 1_500 }),
  );
  const answers = await Promise.all(calls);
  for (const r of answers) t.ok(r.status === 200 || (r.status === 400 && r.body.code === 'IKW-ESC-004') || (r.status === 409 && r.body.code === 'IKW-ESC-001'), `success or a refusal on the merits (${r.status} ${r.body?.code ?? ''})`);
  const succeeded = answers.filter((r) => r.status === 200).length;
  t.equal(succeeded, 6, 'six of 1,500 fit in 10,000');
  const after = await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`));
  t.equal(after.releasedMinor + after.refundedMinor, 9_000);
  t.equal(after.heldMinor, 1_000);
  t.same(await balance(svc, key), { available: 9_000, pending: 0, reserved: 0 }, 'released and refunded (to the balance it came from) once each');
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test('a refund retried with its Idempotency-Key after a crash lost the answer is made once', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 10_000);
  const owner = { merchantId: merchant.id, environment: 'sandbox' as const };
  // The idempotency record is what a crash loses: the retry reaches the command with the same key.
  await svc.system.escrowRefunds.refund(owner, c.id, { amountMinor: 2_000 }, { actor: 'test' }, 'retry-key|body');
  const again = await svc.system.escrowRefunds.refund(owner, c.id, { amountMinor: 2_000 }, { actor: 'test' }, 'retry-key|body');
  t.equal(again.refundedMinor, 2_000, 'the first refund, answered again');
  t.same(await balance(svc, key), { available: 2_000, pending: 0, reserved: 0 }, 'one refund reached the balance');
  const other = await svc.system.escrowRefunds.refund(owner, c.id, { amountMinor: 1_000 }, { actor: 'test' }, 'another-key|body');
  t.equal(other.refundedMinor, 3_000, 'another key is another refund');
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

/** The releases of a contract, oldest first, as [id, status]. */
async function releasesOf(key: string, contractId: string): Promise<[string, string][]> {
  const list = await ok(await escrow(svc, key, 'GET', `/releases/contract/${contractId}`));
  return list.data.map((r: { id: string; status: string }) => [r.id, r.status]).reverse();
}

t.test('an immediate release retried with its Idempotency-Key after a crash lost the answer is made and moved once', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 10_000);
  const first = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 4_000, mode: 'immediate' }, 'release-crash-1'));
  t.match(first, { status: 'executed', amountMinor: 4_000 });
  await loseAnswerInCrash(svc, 'release-crash-1');
  const retried = await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 4_000, mode: 'immediate' }, 'release-crash-1');
  t.equal(retried.headers.get('idempotent-replayed'), null, 'run again: the first answer was never stored');
  t.same(await ok(retried), first, 'the release the first attempt made and executed');
  t.same(await releasesOf(key, c.id), [[first.id, 'executed']], 'one release');
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { releasedMinor: 4_000, heldMinor: 6_000 });
  t.equal((await balance(svc, key)).available, 4_000, 'its money moved once');
  t.equal((await balanceTransactions(svc, key, '?limit=100')).filter((b) => b.source === first.id).length, 1, 'one ledger entry');
  const stranger = await svc.sandboxMerchant();
  assertError(t, await escrow(svc, stranger.key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 4_000, mode: 'immediate' }, 'release-crash-1'), 'IKW-RES-001', 'id');
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test('an immediate release whose execution died after its creation is executed by the retry, once; no second release', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 10_000);
  // The release is committed; the commit that executes it fails, as a crash between the two would leave it.
  const commits = failCommitOnce(t, svc, (writes) => writes.some((w) => w.streamId === escrowContractStream(c.id) && w.events.some((e) => e.type === 'escrow_contract.release_executed')));
  const lost = await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 3_000, mode: 'immediate' }, 'release-crash-2');
  t.equal(lost.status, 500);
  t.equal(commits.failed, 1, 'the execution was tried and failed');
  const [[releaseId, status]] = await releasesOf(key, c.id);
  t.equal(status, 'pending', 'created, not executed');
  t.equal((await balance(svc, key)).available, 0, 'nothing moved');

  const retried = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 3_000, mode: 'immediate' }, 'release-crash-2'));
  t.match(retried, { id: releaseId, status: 'executed', amountMinor: 3_000 }, 'the first attempt’s release, carried on');
  t.same(await releasesOf(key, c.id), [[releaseId, 'executed']], 'one release');
  t.equal((await balance(svc, key)).available, 3_000, 'its money moved once');
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test('race: 20 executions of the same release move its funds once', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 3_000);
  const r = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 3_000 }));
  const answers = await Promise.all(Array.from({ length: 20 }, () => escrow(svc, key, 'POST', `/releases/${r.id}/execute`, {})));
  for (const a of answers) t.equal(a.status, 200);
  t.equal((await balance(svc, key)).available, 3_000);
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test('auto-release: at autoReleaseAtUtc a funded contract releases what it holds to its default destination', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const at = new Date(svc.clock.now().getTime() + 3_600_000).toISOString();
  const c = await fundedContract(svc, merchant.id, key, 7_000, { autoReleaseAtUtc: at });
  const pending = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 2_000 }));
  await advance(svc, 3_599_000);
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { heldMinor: 7_000, releasedMinor: 0 }, 'not before its time');
  await advance(svc, 1_000);
  const after = await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`));
  t.match(after, { releasedMinor: 5_000, heldMinor: 2_000, pendingReleaseMinor: 2_000 }, 'what pending releases do not hold');
  const releases = (await ok(await escrow(svc, key, 'GET', `/releases/contract/${c.id}`))).data;
  t.match(releases[0], { trigger: 'auto_release', status: 'executed', amountMinor: 5_000 });
  t.match(await ok(await escrow(svc, key, 'GET', `/releases/${pending.id}`)), { status: 'pending' });
  t.equal((await balance(svc, key)).available, 5_000);
  await advance(svc, 3_600_000);
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { releasedMinor: 5_000 }, 'the timer runs once');
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test('auto-release of a contract paid later: the timer is set again when the funds arrive', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const at = new Date(svc.clock.now().getTime() + 1_000).toISOString();
  const { contract } = await paidContract(svc, key, 10_000, { autoReleaseAtUtc: at });
  await advance(svc, 1_000);
  const after = await ok(await escrow(svc, key, 'GET', `/contracts/${contract.id}`));
  t.match(after, { status: 'completed', heldMinor: 0, releasedMinor: contract.fundedMinor });
  t.equal((await balance(svc, key)).available, contract.fundedMinor);
  await assertInvariants(t, svc, merchant.id, key, contract.id);
});
