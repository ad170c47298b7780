/**
 * GET /api/v1/balance from the accounts of the one ledger: held funds of every family in one shape
 * (`held`: escrow, campaign and seller accounts per kind and currency), agreeing with a fold of the
 * log and with the older `escrowed` and `seller_funds` fields, and read without summing history.
 */
import t from '#tap';
import { fold } from '#packages/core/decider.js';
import { familiesLedger } from '../../support/ledger.js';
import { balanceStream, type LedgerEvent } from '#packages/families/ledger/events.js';
import { fundedContract } from '../../support/escrow.js';
import { activeCampaign, contribute, settle } from '../../support/funding.js';
import { createOrder, createSeller, payOrder } from '../../support/marketplace.js';
import { fund } from '../../support/payouts.js';
import { startPaymentsService } from '../../support/system.js';

const svc = await startPaymentsService(t);

t.test('held funds of escrow, a campaign and sellers in one shape, equal to the log', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  await fund(svc, merchant.id, 30_000);
  await fundedContract(svc, merchant.id, key, 12_000);
  const campaign = await activeCampaign(svc, key);
  const contribution = await contribute(svc, key, campaign.id, { amountMinor: 7_000 });
  t.equal(contribution.status, 200, contribution.text);
  await settle(svc, 60_000);
  await createSeller(svc, key, 'held-a');
  const paid = await payOrder(svc, key, await createOrder(svc, key, [{ sellerId: 'held-a', amountMinor: 4_000 }]));
  t.equal(paid.status, 'paid');

  const queries: string[] = [];
  const listen = (q: { sql: string }) => void queries.push(q.sql);
  svc.system.knex.on('query', listen);
  const res = await svc.request('GET', '/api/v1/balance', { key });
  svc.system.knex.off('query', listen);
  t.equal(res.status, 200);
  const body = res.body as { held: { kind: string; amount: number; currency: string }[]; escrowed: unknown; seller_funds: unknown };
  t.same(
    body.held,
    [
      { kind: 'campaign', currency: 'xof', amount: 7_000 },
      { kind: 'escrow', currency: 'xof', amount: 12_000 },
      { kind: 'seller_pending', currency: 'xof', amount: 4_000 },
    ],
    'one shape for every family, campaign funds included',
  );
  t.same(body.escrowed, [{ amount: 12_000, currency: 'xof' }], 'escrowed agrees');
  t.same(body.seller_funds, [{ currency: 'xof', pending: 4_000, available: 0 }], 'seller_funds agrees');

  const events = (await svc.system.store.readStream(balanceStream(merchant.id, 'sandbox', 'xof'))) as unknown as LedgerEvent[];
  const state = fold(familiesLedger.decider, events);
  const byKind = new Map<string, number>();
  for (const [account, amount] of state.balances) {
    const kind = account.split(':')[0]!;
    if (['escrow', 'campaign', 'seller_pending', 'seller_available', 'seller_payouts'].includes(kind) && amount !== 0) byKind.set(kind, (byKind.get(kind) ?? 0) + amount);
  }
  t.same(Object.fromEntries(byKind), Object.fromEntries(body.held.filter((h) => h.amount !== 0).map((h) => [h.kind, h.amount])), 'the accounts projection equals a fold of the log');
  t.notOk(
    queries.some((q) => q.includes('ledger_entries') || q.includes('marketplace_entries')),
    'read from the accounts, not summed over the entries',
  );

  const other = await svc.sandboxMerchant('Other');
  t.notOk('held' in (await svc.request('GET', '/api/v1/balance', { key: other.key })).body, 'another merchant sees none of it');
});
