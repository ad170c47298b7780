/**
 * Escrow's read models: a rebuild from the log gives the rows the live run gave (contracts,
 * releases, disputes, and the ledger read models escrow entries touch), and events in give rows
 * out on a fresh schema (a release and a dispute follow their contract's events; a batch applied
 * again changes nothing).
 */
import type { Knex } from 'knex';
import t from '#tap';
import type { EscrowCommand } from '#packages/families/escrow/decider.js';
import { escrowAggregate } from '#packages/families/escrow/render.js';
import type { ContractCreated, Release } from '#packages/families/escrow/events.js';
import { escrowContractsProjection } from '#packages/families/escrow/read/escrow-contracts.js';
import { escrowDisputesProjection } from '#packages/families/escrow/read/escrow-disputes.js';
import { escrowReleasesProjection } from '#packages/families/escrow/read/escrow-releases.js';
import { spec } from '../../support/decider-spec.js';
import { escrow, fundedContract, ok, paidContract } from '../../support/escrow.js';
import { projectionSpec, readModelRows } from '../../support/projection-spec.js';
import { saveDestination } from '../../support/payouts.js';
import { advance, startPaymentsService } from '../../support/system.js';

const TABLES = ['read.escrow_contracts', 'read.escrow_releases', 'read.escrow_disputes', 'read.ledger_entries', 'read.balances', 'read.balance_transactions'];
const snapshot = (knex: Knex) => readModelRows(knex, TABLES);

t.test('rebuild: the escrow read models come back identical', async (t) => {
  const svc = await startPaymentsService(t);
  const { merchant, key } = await svc.sandboxMerchant();
  const methodId = await saveDestination(svc, key, { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' });
  const a = await fundedContract(svc, merchant.id, key, 20_000, { defaultReleaseMode: 'immediate' });
  await ok(await escrow(svc, key, 'POST', `/releases/contract/${a.id}`, { amountMinor: 5_000 }));
  const pending = await ok(await escrow(svc, key, 'POST', `/releases/contract/${a.id}`, { amountMinor: 4_000, mode: 'manual' }));
  await ok(await escrow(svc, key, 'POST', `/releases/${pending.id}/execute`, { payoutMethodId: methodId }));
  const d = await ok(await escrow(svc, key, 'POST', `/disputes/contract/${a.id}`, { reason: 'late' }));
  await ok(await escrow(svc, key, 'POST', `/disputes/${d.id}/resolve`, { outcome: 'split', splitReleaseMinor: 3_000 }));
  const { contract: b } = await paidContract(svc, key, 10_000);
  await ok(await escrow(svc, key, 'POST', `/contracts/${b.id}/refund`, { amountMinor: 2_000 }));
  await ok(await escrow(svc, key, 'POST', `/contracts/${b.id}/cancel`));
  await advance(svc, 15 * 60_000);

  const before = await snapshot(svc.system.knex);
  t.equal(before['read.escrow_contracts']!.length, 2);
  t.equal(before['read.escrow_releases']!.length, 3);
  t.equal(before['read.escrow_disputes']!.length, 1);
  for (const table of TABLES) await svc.system.knex(table).delete();
  const applied = await svc.system.rebuildProjections(['escrow_contracts', 'escrow_releases', 'escrow_disputes', 'ledger_entries', 'balances', 'balance_transactions']);
  t.ok(applied > 0, `${applied} events replayed`);
  t.same(await snapshot(svc.system.knex), before, 'the same rows');
});

const owner = { merchantId: 'acct_1', environment: 'sandbox' } as const;
const T0 = new Date('2026-01-01T00:00:00Z');
const contract: ContractCreated = {
  id: 'c1',
  ...owner,
  currency: 'xof',
  amountMinor: 5_000,
  fundingSourceType: 'merchant_balance',
  fundingSourceLedgerAccountCode: null,
  defaultReleaseMode: 'manual',
  ledgerDestinationType: 'merchant_balance',
  ledgerDestinationAccountCode: null,
  defaultPayoutMethodId: null,
  autoReleaseAtUtc: null,
  metadata: null,
  createdAt: T0.toISOString(),
};
const release: Release = {
  id: 'r1',
  contractId: 'c1',
  amountMinor: 2_000,
  milestoneId: null,
  mode: 'manual',
  trigger: 'manual',
  idempotencyKey: null,
  manualOverride: false,
  status: 'pending',
  destination: null,
  createdAt: T0.toISOString(),
  executedAt: null,
  canceledAt: null,
};

t.test('events in, rows out: contracts, their releases and disputes', async (t) => {
  const commands: EscrowCommand[] = [
    { type: 'create', contract, fundFromBalance: true },
    { type: 'create_release', owner, at: T0, release },
    { type: 'execute_release', owner, at: T0, releaseId: 'r1', destination: { type: 'ledger_transfer', beneficiaryParticipantId: null, accountCode: null } },
    {
      type: 'open_dispute',
      owner,
      at: T0,
      dispute: { id: 'd1', contractId: 'c1', reason: 'r', openedByRole: 'payer', status: 'open', outcome: null, outcomeMetadata: null, releasedMinor: 0, refundedMinor: 0, openedAt: T0.toISOString(), resolvedAt: null },
    },
  ];
  const events = spec(escrowAggregate)
    .history(...commands)
    .map((e) => ({ ...e, streamId: 'escrow_contract-c1', metadata: { merchant_id: 'acct_1', environment: 'sandbox' as const } }));
  const read = await projectionSpec(t, escrowContractsProjection, escrowReleasesProjection, escrowDisputesProjection);
  await read.given(events);
  await read.thenRows(t, 'read.escrow_contracts', [{ id: 'c1', merchant_id: 'acct_1', environment: 'sandbox', currency: 'xof', status: 'disputed', payment_intent_id: null }]);
  const releases = await read.thenRows(t, 'read.escrow_releases', [{ id: 'r1', contract_id: 'c1', merchant_id: 'acct_1', status: 'executed' }]);
  t.match(releases[0]!.object, { id: 'r1', object: 'escrow_release', amountMinor: 2_000, status: 'executed', destination: { type: 'ledger_transfer' }, currency: 'xof', livemode: false });
  const disputes = await read.thenRows(t, 'read.escrow_disputes', [{ id: 'd1', contract_id: 'c1', status: 'open' }]);
  t.match(disputes[0]!.object, { object: 'escrow_dispute', reason: 'r', outcome: null });
  const contracts = await read.rows('read.escrow_contracts');
  t.match(contracts[0]!.object, { heldMinor: 3_000, releasedMinor: 2_000, openDisputeId: 'd1' });
  await read.given(events);
  t.same(await read.rows('read.escrow_releases'), releases, 'a batch applied again changes nothing');
});
