/**
 * Escrow's public events reach a merchant's webhook endpoint on loopback, signed, each carrying the
 * contract as it stood: created, funded, release executed, refunded, dispute opened and resolved,
 * canceled; an endpoint subscribed to one type gets only that one.
 */
import t from '#tap';
import { escrow, ok } from '../../support/escrow.js';
import { fund } from '../../support/payouts.js';
import { listeningEndpoint, settle, startWebhookService, verify } from '../../support/webhooks.js';

const svc = await startWebhookService(t);

t.test('a contract’s life as webhooks, each with the contract as it stood', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const { receiver, endpoint } = await listeningEndpoint(t, svc, key, ['*']);
  const { receiver: fundedOnly } = await listeningEndpoint(t, svc, key, ['escrow_contract.funded']);
  await fund(svc, merchant.id, 10_000);
  const c = await ok(await escrow(svc, key, 'POST', '/contracts', { currency: 'xof', amountMinor: 10_000, fundingSourceType: 'merchant_balance', defaultReleaseMode: 'immediate' }));
  await ok(await escrow(svc, key, 'POST', `/releases/contract/${c.id}`, { amountMinor: 3_000 }));
  await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/refund`, { amountMinor: 1_000 }));
  const d = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${c.id}`, { reason: 'late' }));
  await ok(await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'dismissed' }));
  await ok(await escrow(svc, key, 'POST', `/contracts/${c.id}/cancel`));
  await settle(svc);

  const payloads = receiver.requests.map((r) => verify(endpoint.secret, r));
  const escrowEvents = payloads.filter((p) => p.type.startsWith('escrow_contract.'));
  // Deliveries run side by side, so they may arrive in any order: compare what arrived, by type.
  t.same(escrowEvents.map((p) => p.type).sort(), [
    'escrow_contract.canceled',
    'escrow_contract.created',
    'escrow_contract.dispute_opened',
    'escrow_contract.dispute_resolved',
    'escrow_contract.funded',
    'escrow_contract.refunded',
    'escrow_contract.refunded',
    'escrow_contract.release_executed',
  ]);
  const of = (type: string) => escrowEvents.filter((p) => p.type === `escrow_contract.${type}`).map((p) => p.data);
  for (const p of escrowEvents) t.match(p.data, { id: c.id, object: 'escrow_contract', livemode: false });
  t.match(of('funded'), [{ fundedMinor: 10_000, heldMinor: 10_000 }]);
  t.match(of('release_executed'), [{ releasedMinor: 3_000, heldMinor: 7_000 }]);
  t.same(
    of('refunded')
      .map((d) => d.refundedMinor)
      .sort(),
    [1_000, 7_000],
    'the refund, then the cancel’s',
  );
  t.match(of('dispute_opened'), [{ status: 'disputed' }]);
  t.match(of('canceled'), [{ status: 'canceled', heldMinor: 0, refundedMinor: 7_000 }]);
  t.same(fundedOnly.types(), ['escrow_contract.funded'], 'an endpoint gets only the types it enabled');
});
