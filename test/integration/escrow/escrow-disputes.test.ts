/**
 * Escrow disputes through the real server: open (reason, openedByRole), the freeze of releases,
 * refunds and cancel while open, and each outcome of resolve (release to the beneficiary, refund to
 * the payer, split, dismissed), list and get, tenant isolation, idempotency, and a race of
 * resolutions and releases.
 */
import t from '#tap';
import { assertError, assertOk } from '../../support/assertions.js';
import { assertInvariants, escrow, fundedContract, ok, paidContract } from '../../support/escrow.js';
import { balance } from '../../support/payouts.js';
import { advance, startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);

t.test('an open dispute freezes releases, refunds and cancel; dismissing it lifts the freeze', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 10_000);
  const pending = await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 2_000 }));
  const d = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: 'Item not delivered', openedByRole: 'payer' }));
  t.match(d, { object: 'escrow_dispute', contractId: c.id, reason: 'Item not delivered', openedByRole: 'payer', status: 'open', outcome: null });
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { status: 'disputed', openDisputeId: d.id });

  assertError(t, await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 1 }), 'IKW-ESC-003', 'id');
  assertError(t, await escrow(svc, key, 'POST', `/releases/${pending.id}/execute`, {}), 'IKW-ESC-003', 'id');
  assertError(t, await escrow(svc, key, 'POST', `/contracts/${c.id}/refund`, {}), 'IKW-ESC-003', 'id');
  assertError(t, await escrow(svc, key, 'POST', `/contracts/${c.id}/cancel`), 'IKW-ESC-003', 'id');
  assertError(t, await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: 'again' }), 'IKW-ESC-003', 'id');
  t.equal((await balance(svc, key)).available, 0, 'nothing moved');

  const dismissed = await ok(await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'dismissed', outcomeMetadata: '{"note":"delivered"}' }));
  t.match(dismissed, { status: 'resolved', outcome: 'dismissed', outcomeMetadata: '{"note":"delivered"}', releasedMinor: 0, refundedMinor: 0, resolvedAt: /T/ });
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { status: 'funded', openDisputeId: null, pendingReleaseMinor: 2_000 }, 'a dismissal leaves pending releases');
  assertOk(t, await escrow(svc, key, 'POST', `/releases/${pending.id}/execute`, {}));
  assertError(t, await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'refund_to_payer' }), 'IKW-ESC-006', 'id');
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test('refund_to_payer: pending releases are canceled and everything held goes back to the payer', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const { contract } = await paidContract(svc, key, 10_000);
  const pending = await ok(await escrow(svc, key, 'POST', `/releases/contract/${contract.id}`, { amountMinor: 3_000 }));
  const d = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${contract.id}`, { reason: 'Broken on arrival' }));
  t.equal(d.openedByRole, 'payer', 'the payer by default');
  const resolved = await ok(await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'refund_to_payer' }));
  t.match(resolved, { outcome: 'refund_to_payer', refundedMinor: contract.fundedMinor, releasedMinor: 0 });
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${contract.id}`)), { status: 'completed', heldMinor: 0, refundedMinor: contract.fundedMinor });
  t.match(await ok(await escrow(svc, key, 'GET', `/releases/${pending.id}`)), { status: 'canceled' });
  t.same(await balance(svc, key), { available: 0, pending: 0, reserved: 0 }, 'none of it reached the merchant');
  await assertInvariants(t, svc, merchant.id, key, contract.id);
});

t.test('release_to_beneficiary: the held funds become a release in the contract’s default mode', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const manual = await fundedContract(svc, merchant.id, key, 4_000);
  const d1 = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${manual.id}`, { reason: 'Late', openedByRole: 'beneficiary' }));
  await ok(await escrow(svc, key, 'POST', `/disputes/${d1.id}/resolve`, { outcome: 'release_to_beneficiary' }));
  const [release] = (await ok(await escrow(svc, key, 'GET', `/releases/contract/${manual.id}`))).data;
  t.match(release, { trigger: 'dispute_resolution', amountMinor: 4_000, status: 'pending' });
  await ok(await escrow(svc, key, 'POST', `/releases/${release.id}/execute`, {}));
  t.equal((await balance(svc, key)).available, 4_000);

  const immediate = await fundedContract(svc, merchant.id, key, 5_000, { defaultReleaseMode: 'immediate' });
  const d2 = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${immediate.id}`, { reason: 'Late', openedByRole: 'platform' }));
  const r2 = await ok(await escrow(svc, key, 'POST', `/disputes/${d2.id}/resolve`, { outcome: 'release_to_beneficiary' }));
  t.match(r2, { releasedMinor: 5_000, refundedMinor: 0 });
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${immediate.id}`)), { status: 'completed', releasedMinor: 5_000 });
  t.equal((await balance(svc, key)).available, 9_000);
  await assertInvariants(t, svc, merchant.id, key, immediate.id);
});

t.test('split: splitReleaseMinor to the beneficiary, the rest to the payer', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 10_000, { defaultReleaseMode: 'immediate' });
  const d = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: 'Half done' }));
  assertError(t, await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'split' }), 'IKW-VAL-001', 'splitReleaseMinor');
  assertError(t, await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'split', splitReleaseMinor: 10_001 }), 'IKW-ESC-004', 'splitReleaseMinor');
  const r = await ok(await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'split', splitReleaseMinor: 6_000, outcomeMetadata: 'mediator: 60/40' }));
  t.match(r, { outcome: 'split', releasedMinor: 6_000, refundedMinor: 4_000 });
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { status: 'completed', releasedMinor: 6_000, refundedMinor: 4_000 });
  t.equal((await balance(svc, key)).available, 10_000, 'released to the merchant, refunded to the balance that funded it');
  await assertInvariants(t, svc, merchant.id, key, c.id);
});

t.test('dispute refusals and bodies', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const draft = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof' }));
  assertError(t, await escrow(svc, key, 'POST', `/disputes/contract/${draft.id}`, { reason: 'x' }), 'IKW-ESC-001', 'id');
  const c = await fundedContract(svc, merchant.id, key, 1_000);
  assertError(t, await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, {}), 'IKW-VAL-001', 'reason');
  assertError(t, await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: '' }), 'IKW-VAL-001', 'reason');
  assertError(t, await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: 'x'.repeat(1001) }), 'IKW-VAL-001', 'reason');
  assertError(t, await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: 'x', openedByRole: 'judge' }), 'IKW-VAL-001', 'openedByRole');
  const d = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: 'x'.repeat(1000) }));
  assertError(t, await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, {}), 'IKW-VAL-001', 'outcome');
  assertError(t, await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'coin_toss' }), 'IKW-VAL-001', 'outcome');
  assertError(t, await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'dismissed', outcomeMetadata: 'x'.repeat(8001) }), 'IKW-VAL-001', 'outcomeMetadata');
  assertError(t, await escrow(svc, key, 'POST', '/disputes/0190a8f4-6b7e-7c55-9a55-51ca0c0f1f0e/resolve', { outcome: 'dismissed' }), 'IKW-RES-001', 'id');
});

t.test('list and get; tenant isolation', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const stranger = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 1_000);
  const first = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: 'one' }));
  await ok(await escrow(svc, key, 'POST', `/disputes/${first.id}/resolve`, { outcome: 'dismissed' }));
  const second = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: 'two' }));
  const list = await ok(await escrow(svc, key, 'GET', `/disputes/contract/${c.id}`));
  t.same(
    list.data.map((d: { id: string; status: string }) => [d.id, d.status]),
    [
      [second.id, 'open'],
      [first.id, 'resolved'],
    ],
  );
  t.same(
    (await ok(await escrow(svc, key, 'GET', `/disputes/contract/${c.id}?status=resolved`))).data.map((d: { id: string }) => d.id),
    [first.id],
  );
  t.match(await ok(await escrow(svc, key, 'GET', `/disputes/${first.id}`)), { id: first.id, outcome: 'dismissed' });
  assertError(t, await escrow(svc, stranger.key, 'GET', `/disputes/${second.id}`), 'IKW-RES-001', 'id');
  assertError(t, await escrow(svc, stranger.key, 'POST', `/disputes/${second.id}/resolve`, { outcome: 'refund_to_payer' }), 'IKW-RES-001', 'id');
  t.match(await ok(await escrow(svc, key, 'GET', `/disputes/${second.id}`)), { status: 'open' });
});

t.test('idempotency: a resolve replayed with its Idempotency-Key moves the money once', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 2_000);
  const d = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: 'r' }, 'open-1'));
  const again = await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: 'r' }, 'open-1');
  t.equal(again.body.id, d.id, 'one dispute');
  const a = await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'refund_to_payer' }, 'resolve-1');
  const b = await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'refund_to_payer' }, 'resolve-1');
  assertOk(t, a);
  t.equal(b.text, a.text);
  t.equal((await balance(svc, key)).available, 2_000);
});

t.test('a dispute opened again with its Idempotency-Key after a crash lost the answer is opened once', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 2_000);
  const owner = { merchantId: merchant.id, environment: 'sandbox' as const };
  const input = { reason: 'Not delivered' };
  // The idempotency record is what a crash loses: the retry reaches the command with the same key.
  const first = await svc.system.escrowDisputes.openDispute(owner, c.id, input, { actor: 'test' }, 'open-key|body');
  const again = await svc.system.escrowDisputes.openDispute(owner, c.id, input, { actor: 'test' }, 'open-key|body');
  t.equal(again.id, first.id, 'the dispute the first attempt opened');
  await ok(await escrow(svc, key, 'POST', `/disputes/${first.id}/resolve`, { outcome: 'dismissed' }));
  const late = await svc.system.escrowDisputes.openDispute(owner, c.id, input, { actor: 'test' }, 'open-key|body');
  t.match(late, { id: first.id, status: 'resolved' }, 'a retry after it was resolved answers it, and opens no second one');
  t.same(
    (await ok(await escrow(svc, key, 'GET', `/disputes/contract/${c.id}`))).data.map((d: { id: string }) => d.id),
    [first.id],
    'one dispute',
  );
  t.match(await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`)), { status: 'funded', openDisputeId: null });
  const other = await svc.system.escrowDisputes.openDispute(owner, c.id, input, { actor: 'test' }, 'another-key|body');
  t.not(other.id, first.id, 'another key is another dispute');
});

t.test('race: 20 resolutions of one dispute, mixed with releases, move the held funds once', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const c = await fundedContract(svc, merchant.id, key, 10_000, { defaultReleaseMode: 'immediate' });
  const d = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: 'r' }));
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      i % 4 === 3 ? escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 1_000 }) : escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: i % 2 === 0 ? 'split' : 'refund_to_payer', splitReleaseMinor: 2_500 }),
    ),
  );
  const resolved = answers.filter((r) => r.status === 200 && r.body.object === 'escrow_dispute');
  t.equal(resolved.length, 1, 'one resolution wins');
  for (const r of answers) t.ok(r.status === 200 || r.status === 409 || r.status === 400, `no 5xx (${r.status} ${r.body?.code ?? ''})`);
  await advance(svc, 0);
  await assertInvariants(t, svc, merchant.id, key, c.id);
  const after = await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`));
  t.equal(after.releasedMinor + after.refundedMinor + after.heldMinor, 10_000);
  t.equal(after.refundedMinor, resolved[0]!.body.refundedMinor);
});

t.test('concurrent opens: one Idempotency-Key opens one dispute; identical requests without one open one too', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const keyed = await fundedContract(svc, merchant.id, key, 2_000);
  const answers = await Promise.all(Array.from({ length: 20 }, () => escrow(svc, key, 'POST', `/disputes/contract/${keyed.id}`, { reason: 'Not delivered' }, 'open-once')));
  const opened = answers.filter((r) => r.status === 200);
  t.ok(opened.length >= 1, 'answered');
  t.equal(new Set(opened.map((r) => r.body.id)).size, 1, 'every answer is the one dispute');
  t.ok(
    answers.filter((r) => r.status !== 200).every((r) => r.body.code === 'IKW-IDM-003'),
    'the rest are told it is in progress',
  );
  const retried = await escrow(svc, key, 'POST', `/disputes/contract/${keyed.id}`, { reason: 'Not delivered' }, 'open-once');
  t.equal(retried.body.id, opened[0]!.body.id, 'a retry afterwards answers the same dispute');
  t.same(
    (await ok(await escrow(svc, key, 'GET', `/disputes/contract/${keyed.id}`))).data.map((d: { id: string }) => d.id),
    [opened[0]!.body.id],
    'one dispute on the contract',
  );
  // The route hands the key to the command: with the stored answer lost (a crash), the retry still finds the dispute.
  t.equal(await svc.system.knex('idempotency_keys').where({ merchant_id: merchant.id, key: 'open-once' }).delete(), 1, 'the stored answer is gone');
  const afterLoss = await escrow(svc, key, 'POST', `/disputes/contract/${keyed.id}`, { reason: 'Not delivered' }, 'open-once');
  assertOk(t, afterLoss);
  t.equal(afterLoss.body.id, opened[0]!.body.id, 'the retry answers the dispute the first request opened');

  const bare = await fundedContract(svc, merchant.id, key, 2_000);
  const racing = await Promise.all(Array.from({ length: 2 }, () => escrow(svc, key, 'POST', `/disputes/contract/${bare.id}`, { reason: 'Not delivered' })));
  t.equal(racing.filter((r) => r.status === 200).length, 1, 'one of two identical requests without a key opens it');
  t.ok(
    racing.filter((r) => r.status !== 200).every((r) => r.body.code === 'IKW-ESC-003'),
    'the other finds the contract frozen by it',
  );
  t.equal((await ok(await escrow(svc, key, 'GET', `/disputes/contract/${bare.id}`))).data.length, 1, 'one dispute on that contract');
  await assertInvariants(t, svc, merchant.id, key, keyed.id);
});
