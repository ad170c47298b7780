/**
 * Escrow's pure parts: the contract decider (funding, releases against what is held, the dispute
 * freeze, each dispute outcome, cancel, idempotent repeats, the owner check, the transition table
 * walked) and the ledger's escrow entries (funding, release, payout hold, refund: each balances,
 * the escrow account never goes below zero, none is posted twice).
 */
import { fundEscrow, fundEscrowFromPayment, holdOnEscrow, refundEscrow, releaseEscrow } from '#packages/families/escrow/postings.js';
import { completePayout } from '#packages/families/payouts/payout/postings.js';
import t from '#tap';
import { isRefused } from '#packages/core/refusal.js';
import { fold } from '#packages/core/decider.js';
import { contractStatus, ESCROW_TRANSITIONS, resolutionAmounts, type EscrowCommand, type EscrowState } from '#packages/families/escrow/decider.js';
import { escrowAggregate } from '#packages/families/escrow/render.js';
import type { ContractCreated, ContractStatus, Release } from '#packages/families/escrow/events.js';
import { balanceOf, type LedgerCommand } from '#packages/ledger/decider.js';
import { familiesLedger } from '../../support/ledger.js';
import { isBalanced } from '#packages/ledger/entry.js';
import { escrowAccount } from '#packages/families/escrow/postings.js';
import { spec } from '../../support/decider-spec.js';

const owner = { merchantId: 'acct_1', environment: 'sandbox' } as const;
const stranger = { merchantId: 'acct_2', environment: 'sandbox' } as const;
const T0 = new Date('2026-01-01T00:00:00Z');
const contract: ContractCreated = {
  id: 'c1',
  ...owner,
  currency: 'xof',
  amountMinor: 10_000,
  fundingSourceType: 'payment_intent',
  fundingSourceLedgerAccountCode: null,
  defaultReleaseMode: 'manual',
  ledgerDestinationType: 'merchant_balance',
  ledgerDestinationAccountCode: null,
  defaultPayoutMethodId: null,
  autoReleaseAtUtc: null,
  metadata: null,
  createdAt: T0.toISOString(),
};
const contracts = spec(escrowAggregate);
const create: EscrowCommand = { type: 'create', contract, fundFromBalance: false };
const submit: EscrowCommand = { type: 'submit_funding', owner, at: T0, paymentIntentId: 'pi_1' };
const funding = (amountMinor: number, source = 'pi_1'): EscrowCommand => ({ type: 'record_funding', at: T0, source, amountMinor, lateRefund: null });
const release = (id: string, amountMinor: number, extra: Partial<Release> = {}): EscrowCommand => ({
  type: 'create_release',
  owner,
  at: T0,
  release: {
    id,
    contractId: 'c1',
    amountMinor,
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
    ...extra,
  },
});
const execute = (releaseId: string): EscrowCommand => ({ type: 'execute_release', owner, at: T0, releaseId, destination: { type: 'ledger_transfer', beneficiaryParticipantId: null, accountCode: null } });
const refund = (amountMinor: number, id = 'rf1'): EscrowCommand => ({ type: 'refund', owner, at: T0, refund: { id, amountMinor, reason: 'requested', at: T0.toISOString() } });
const dispute: EscrowCommand = {
  type: 'open_dispute',
  owner,
  at: T0,
  dispute: { id: 'd1', contractId: 'c1', reason: 'r', openedByRole: 'payer', status: 'open', outcome: null, outcomeMetadata: null, releasedMinor: 0, refundedMinor: 0, openedAt: T0.toISOString(), resolvedAt: null },
};
const funded = contracts.history(create, submit, funding(9_800));

/** The code a call is refused with (or the error's text), null when it is accepted. */
function refusalOf(call: () => unknown): string | null {
  try {
    call();
    return null;
  } catch (e) {
    return isRefused(e) ? e.code : String(e);
  }
}

t.test('funding: submitted, then funded once per source', async (t) => {
  t.equal(contractStatus(contracts.state(contracts.history(create))), 'draft');
  t.equal(contractStatus(contracts.state(contracts.history(create, submit))), 'pending_funding');
  contracts.given(funded).when(funding(9_800)).thenNothing(t, 'the same posting again');
  contracts
    .given(funded)
    .when({ ...submit })
    .thenNothing(t, 'the same payment intent again');
  contracts
    .given(funded)
    .when({ ...submit, paymentIntentId: 'pi_2' })
    .thenThrows(t, { code: 'IKW-ESC-001', param: 'contractId' });
  contracts
    .given(contracts.history(create, submit))
    .when({ ...submit, paymentIntentId: 'pi_2' })
    .thenThrows(t, { code: 'IKW-ESC-001', param: 'paymentIntentId' });
  contracts
    .given(funded)
    .when({ ...submit, owner: stranger })
    .thenThrows(t, { code: 'IKW-RES-001', param: 'contractId' });
  contracts
    .given(funded)
    .when(release('r1', 1))
    .thenState((s) => t.equal(contractStatus(s), 'funded'));
});

t.test('releases and refunds take only what is held beyond pending releases', async (t) => {
  const withPending = contracts
    .given(funded)
    .when(release('r1', 6_000))
    .thenMatch(t, [{ type: 'escrow_contract.release_created', data: { release: { id: 'r1', amountMinor: 6_000 } } }]);
  contracts.given(withPending).when(release('r2', 3_801)).thenThrows(t, { code: 'IKW-ESC-004', param: 'amountMinor' });
  contracts.given(withPending).when(refund(3_801)).thenThrows(t, { code: 'IKW-ESC-004', param: 'amountMinor' });
  const first = contracts
    .given(withPending)
    .when(refund(100, 'rf-once'))
    .thenMatch(t, [{ type: 'escrow_contract.refunded' }]);
  contracts.given(withPending, first).when(refund(100, 'rf-once')).thenNothing(t, 'a refund with the same id is the one already made');
  contracts.given(withPending).when(release('r1', 6_000)).thenNothing(t, 'the same release id (idempotencyKey) again');
  const executed = contracts
    .given(withPending)
    .when(execute('r1'))
    .thenState((s) => {
      t.equal(s.releasedMinor, 6_000);
      t.equal(s.releases.get('r1')!.status, 'executed');
    });
  contracts.given(executed).when(execute('r1')).thenNothing(t, 'executing twice');
  contracts.given(executed).when({ type: 'cancel_release', owner, at: T0, releaseId: 'r1' }).thenThrows(t, 'IKW-ESC-005');
  const rest = contracts
    .given(executed)
    .when(refund(3_800))
    .thenState((s) => t.equal(contractStatus(s), 'completed'));
  contracts.given(rest).when(release('r3', 1)).thenThrows(t, { code: 'IKW-ESC-001', param: 'contractId' });
  const canceled = contracts
    .given(withPending)
    .when({ type: 'cancel_release', owner, at: T0, releaseId: 'r1' })
    .thenState((s) => t.equal(s.releases.get('r1')!.status, 'canceled'));
  contracts.given(canceled).when(execute('r1')).thenThrows(t, 'IKW-ESC-005');
  contracts
    .given(canceled)
    .when(release('r4', 9_800))
    .thenState((s) => t.equal(s.releases.get('r4')!.amountMinor, 9_800));
});

t.test('an open dispute freezes the money; each outcome divides what is held', async (t) => {
  const open = contracts
    .given(contracts.history(create, submit, funding(10_000), release('r1', 2_000)))
    .when(dispute)
    .thenState((s) => t.equal(contractStatus(s), 'disputed'));
  contracts.given(open).when(release('r2', 1)).thenThrows(t, 'IKW-ESC-003');
  contracts.given(open).when(execute('r1')).thenThrows(t, 'IKW-ESC-003');
  contracts.given(open).when(refund(1)).thenThrows(t, 'IKW-ESC-003');
  contracts.given(open).when({ type: 'cancel', owner, at: T0, refund: null }).thenThrows(t, 'IKW-ESC-003');
  contracts
    .given(open)
    .when({ ...dispute, dispute: { ...(dispute as Extract<EscrowCommand, { type: 'open_dispute' }>).dispute, id: 'd2' } } as EscrowCommand)
    .thenThrows(t, 'IKW-ESC-003');
  contracts.given(open).when(dispute).thenNothing(t, 'the same dispute id (its Idempotency-Key) again: the dispute it opened');

  t.same(resolutionAmounts(10_000, 'release_to_beneficiary', undefined), { releaseMinor: 10_000, refundMinor: 0 });
  t.same(resolutionAmounts(10_000, 'refund_to_payer', undefined), { releaseMinor: 0, refundMinor: 10_000 });
  t.same(resolutionAmounts(10_000, 'split', 2_500), { releaseMinor: 2_500, refundMinor: 7_500 });
  t.same(resolutionAmounts(10_000, 'dismissed', 2_500), { releaseMinor: 0, refundMinor: 0 });
  t.equal(
    refusalOf(() => resolutionAmounts(10_000, 'split', 10_001)),
    'IKW-ESC-004',
  );
  t.equal(
    refusalOf(() => resolutionAmounts(10_000, 'split', undefined)),
    'IKW-VAL-001',
  );

  const split = contracts
    .given(open)
    .when({
      type: 'resolve_dispute',
      owner,
      at: T0,
      disputeId: 'd1',
      outcome: 'split',
      outcomeMetadata: null,
      plan: { releaseMinor: 2_500, refundMinor: 7_500, refund: { id: 'rf', amountMinor: 7_500, reason: 'dispute', at: T0.toISOString() }, release: null },
    })
    .thenMatch(t, [
      { type: 'escrow_contract.release_canceled', data: { releaseId: 'r1' } },
      { type: 'escrow_contract.dispute_resolved', data: { outcome: 'split', releasedMinor: 2_500, refundedMinor: 7_500 } },
      { type: 'escrow_contract.refunded', data: { refund: { amountMinor: 7_500 } } },
    ]);
  t.equal(contractStatus(contracts.state(split)), 'funded', '2,500 still held for the beneficiary');
  contracts
    .given(split)
    .when({ type: 'resolve_dispute', owner, at: T0, disputeId: 'd1', outcome: 'dismissed', outcomeMetadata: null, plan: { releaseMinor: 0, refundMinor: 0, refund: null, release: null } })
    .thenThrows(t, 'IKW-ESC-006');
  contracts
    .given(open)
    .when({ type: 'resolve_dispute', owner, at: T0, disputeId: 'd1', outcome: 'dismissed', outcomeMetadata: null, plan: { releaseMinor: 0, refundMinor: 0, refund: null, release: null } })
    .thenState((s) => {
      t.equal(contractStatus(s), 'funded');
      t.equal(s.releases.get('r1')!.status, 'pending', 'a dismissal leaves pending releases');
    });
});

t.test('cancel refunds exactly what is held, and is refused on a stale amount', async (t) => {
  const held = contracts.history(create, submit, funding(5_000));
  contracts.given(held).when({ type: 'cancel', owner, at: T0, refund: null }).thenThrows(t, 'IKW-RES-003');
  contracts
    .given(held)
    .when({ type: 'cancel', owner, at: T0, refund: { id: 'rf', amountMinor: 5_000, reason: 'canceled', at: T0.toISOString() } })
    .thenMatch(t, [{ type: 'escrow_contract.refunded' }, { type: 'escrow_contract.canceled' }]);
  const draftCanceled = contracts
    .given(contracts.history(create))
    .when({ type: 'cancel', owner, at: T0, refund: null })
    .thenMatch(t, [{ type: 'escrow_contract.canceled' }]);
  contracts.given(draftCanceled).when({ type: 'cancel', owner, at: T0, refund: null }).thenNothing(t);
  // A payment that lands after the cancel is recorded and refunded at once.
  contracts
    .given(contracts.history(create, submit, { type: 'cancel', owner, at: T0, refund: null }))
    .when({ type: 'record_funding', at: T0, source: 'pi_1', amountMinor: 900, lateRefund: { id: 'late', amountMinor: 900, reason: 'late_funding', at: T0.toISOString() } })
    .thenState((s) => t.same([s.fundedMinor, s.refundedMinor, contractStatus(s)], [900, 900, 'canceled']));
});

t.test('the transition table: each client command acts in its statuses and is refused outside them', async (t) => {
  const histories: Record<ContractStatus, EscrowState> = {
    draft: contracts.state(contracts.history(create)),
    pending_funding: contracts.state(contracts.history(create, submit)),
    funded: contracts.state(funded),
    disputed: contracts.state(contracts.history(create, submit, funding(9_800), dispute)),
    completed: contracts.state(contracts.history(create, submit, funding(9_800), refund(9_800))),
    canceled: contracts.state(contracts.history(create, { type: 'cancel', owner, at: T0, refund: null })),
  };
  for (const [status, state] of Object.entries(histories) as [ContractStatus, EscrowState][]) t.equal(contractStatus(state), status, `a ${status} history`);
  const probes: Record<keyof typeof ESCROW_TRANSITIONS, EscrowCommand> = {
    submit_funding: { ...submit, paymentIntentId: 'pi_9' } as EscrowCommand,
    add_participant: { type: 'add_participant', owner, at: T0, participant: { id: 'p', role: 'payer', displayName: 'A', email: null, addedAt: T0.toISOString() } },
    add_milestone: { type: 'add_milestone', owner, at: T0, milestone: { id: 'm', title: 'M', amountMinor: 1, status: 'open', createdAt: T0.toISOString(), completedAt: null } },
    complete_milestone: { type: 'complete_milestone', owner, at: T0, milestoneId: 'none' },
    create_release: release('rx', 1),
    execute_release: execute('none'),
    cancel_release: { type: 'cancel_release', owner, at: T0, releaseId: 'none' },
    refund: refund(1, 'rf-probe'),
    open_dispute: { ...dispute, dispute: { ...(dispute as Extract<EscrowCommand, { type: 'open_dispute' }>).dispute, id: 'd-probe' } } as EscrowCommand,
    resolve_dispute: { type: 'resolve_dispute', owner, at: T0, disputeId: 'd1', outcome: 'dismissed', outcomeMetadata: null, plan: { releaseMinor: 0, refundMinor: 0, refund: null, release: null } },
    cancel: { type: 'cancel', owner, at: T0, refund: null },
  };
  // Commands whose object (milestone, release, dispute) must exist are refused as "no such" before
  // the status matters, and a submit names its intent again idempotently: the scenarios above cover them.
  const needsObject = new Set(['complete_milestone', 'execute_release', 'cancel_release', 'resolve_dispute', 'submit_funding']);
  for (const [type, allowed] of Object.entries(ESCROW_TRANSITIONS) as [keyof typeof ESCROW_TRANSITIONS, readonly ContractStatus[]][]) {
    if (needsObject.has(type)) continue;
    for (const [status, state] of Object.entries(histories) as [ContractStatus, EscrowState][]) {
      const refusal = refusalOf(() => escrowAggregate.decide(probes[type], state));
      const accepted = refusal === null || !['IKW-ESC-001', 'IKW-ESC-003'].includes(refusal);
      t.equal(accepted, allowed.includes(status), `${type} on ${status}: ${refusal ?? 'accepted'}`);
    }
  }
});

t.test('the ledger’s escrow entries balance, never overdraw escrow, and post once', async (t) => {
  const ctx = { merchantId: 'acct_1', environment: 'sandbox' as const, currency: 'xof', at: T0 };
  let n = 0;
  const cmd = (c: Record<string, unknown>): LedgerCommand => ({ ...ctx, newEntryId: () => `txn_${++n}`, ...c }) as LedgerCommand;
  const pay = familiesLedger.decider.decide(cmd(fundEscrowFromPayment({ source: 'pi_1', clearing: 'operator_clearing:wave', amount: 10_000, fee: 150, contract: 'c1' })), familiesLedger.decider.initialState);
  t.equal(pay.length, 1, 'no settlement: escrow funds never become available by themselves');
  t.equal(pay[0]!.data.kind, 'escrow_funding');
  let state = fold(familiesLedger.decider, pay);
  t.equal(balanceOf(state, escrowAccount('c1')), 9_850);
  t.equal(balanceOf(state, 'pending') + balanceOf(state, 'available'), 0);
  t.same(familiesLedger.decider.decide(cmd(fundEscrowFromPayment({ source: 'pi_1', clearing: 'operator_clearing:wave', amount: 10_000, fee: 150, contract: 'c1' })), state), [], 'posted once');

  const moves = [
    cmd(releaseEscrow({ source: 'r1', contract: 'c1', amount: 4_000 })),
    cmd(holdOnEscrow({ source: 'po_1', amount: 2_900, fee: 100, contract: 'c1' })),
    cmd(refundEscrow({ source: 'rf1', contract: 'c1', amount: 2_850, to: 'operator_clearing:wave' })),
  ];
  for (const m of moves) {
    const events = familiesLedger.decider.decide(m, state);
    t.ok(
      events.every((e) => isBalanced(e.data.lines)),
      `${m.type} balances`,
    );
    state = events.reduce((st, e) => familiesLedger.decider.evolve(st, e), state);
    t.same(familiesLedger.decider.decide(m, state), [], `${m.type} is posted once`);
  }
  t.same([balanceOf(state, escrowAccount('c1')), balanceOf(state, 'available'), balanceOf(state, 'reserved')], [0, 4_000, 3_000]);
  t.throws(() => familiesLedger.decider.decide(cmd(releaseEscrow({ source: 'r2', contract: 'c1', amount: 1 })), state), /holds 0/, 'escrow never goes below zero');
  const paid = familiesLedger.decider.decide(cmd(completePayout('po_1', 'operator_clearing:wave')), state);
  t.match(
    paid[0]!.data.lines,
    [
      { account: 'reserved', amount: -3_000 },
      { account: 'operator_clearing:wave', amount: 2_900 },
      { account: 'fees', amount: 100 },
    ],
    'the payout sends the release less its fee',
  );
  t.equal(
    refusalOf(() => familiesLedger.decider.decide(cmd(fundEscrow({ source: 'c2', contract: 'c2', amount: 4_001 })), state)),
    'IKW-BAL-001',
  );
});
