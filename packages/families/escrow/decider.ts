import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned, unreachable } from '#packages/core/aggregate.js';
import type { ContractCreated, ContractStatus, Dispute, DisputeOutcome, EscrowEvent, Milestone, Participant, Refund, Release, ReleaseDestination } from './events.js';
import type { Owner } from '#packages/core/owner.js';

export const MAX_PARTICIPANTS = 20;
export const MAX_MILESTONES = 100;

export type EscrowCommand =
  | { type: 'create'; contract: ContractCreated; fundFromBalance: boolean }
  /** Funds arrived in escrow (a payment intent's posting, seen on the ledger). Internal: no owner check. */
  | { type: 'record_funding'; at: Date; source: string; amountMinor: number; lateRefund: Refund | null }
  /** The payout a release was executed to failed and its money went back to escrow (committed with that). Internal. */
  | { type: 'return_release'; at: Date; releaseId: string; payoutId: string }
  | ({ owner: Owner; at: Date } & (
      | { type: 'submit_funding'; paymentIntentId: string }
      | { type: 'add_participant'; participant: Participant }
      | { type: 'add_milestone'; milestone: Milestone }
      | { type: 'complete_milestone'; milestoneId: string }
      | { type: 'create_release'; release: Release }
      | { type: 'execute_release'; releaseId: string; destination: ReleaseDestination }
      | { type: 'cancel_release'; releaseId: string }
      | { type: 'refund'; refund: Refund }
      | { type: 'open_dispute'; dispute: Dispute }
      | { type: 'resolve_dispute'; disputeId: string; outcome: DisputeOutcome; outcomeMetadata: string | null; plan: ResolutionPlan }
      | { type: 'cancel'; refund: Refund | null }
    ));

export interface EscrowState {
  contract: ContractCreated | null;
  paymentIntentId: string | null;
  fundingSources: Set<string>;
  fundedMinor: number;
  releasedMinor: number;
  refundedMinor: number;
  /** Refunds made, by id: a refund retried with its Idempotency-Key is not made twice. */
  refundIds: ReadonlySet<string>;
  participants: Participant[];
  milestones: Milestone[];
  releases: Map<string, Release>;
  disputes: Map<string, Dispute>;
  openDisputeId: string | null;
  fundedAt: string | null;
  canceledAt: string | null;
}

export const initialEscrowState: EscrowState = {
  contract: null,
  paymentIntentId: null,
  fundingSources: new Set(),
  fundedMinor: 0,
  releasedMinor: 0,
  refundedMinor: 0,
  refundIds: new Set(),
  participants: [],
  milestones: [],
  releases: new Map(),
  disputes: new Map(),
  openDisputeId: null,
  fundedAt: null,
  canceledAt: null,
};

export const heldMinor = (s: EscrowState) => s.fundedMinor - s.releasedMinor - s.refundedMinor;
export const pendingReleaseMinor = (s: EscrowState) => [...s.releases.values()].filter((r) => r.status === 'pending').reduce((sum, r) => sum + r.amountMinor, 0);
/** What a new release or refund may take: held funds not promised to pending releases. */
export const disposableMinor = (s: EscrowState) => heldMinor(s) - pendingReleaseMinor(s);

export function contractStatus(s: EscrowState): ContractStatus {
  if (s.canceledAt) return 'canceled';
  if (s.openDisputeId) return 'disputed';
  if (s.fundedMinor > 0) return heldMinor(s) === 0 ? 'completed' : 'funded';
  return s.paymentIntentId ? 'pending_funding' : 'draft';
}

/** How a dispute's outcome divides what the contract holds once its pending releases are canceled. */
export interface ResolutionPlan {
  releaseMinor: number;
  refundMinor: number;
  /** The beneficiary's share as a release (in the contract's default mode), when there is one. */
  release: Release | null;
  refund: Refund | null;
}

/** The split of `held` an outcome asks for; `splitReleaseMinor` is the beneficiary's part of a split. */
export function resolutionAmounts(held: number, outcome: DisputeOutcome, splitReleaseMinor: number | undefined): { releaseMinor: number; refundMinor: number } {
  switch (outcome) {
    case 'release_to_beneficiary':
      return { releaseMinor: held, refundMinor: 0 };
    case 'refund_to_payer':
      return { releaseMinor: 0, refundMinor: held };
    case 'split': {
      if (splitReleaseMinor === undefined) throw new Refusal('IKW-VAL-001', 'A split needs splitReleaseMinor: the part released to the beneficiary', 'splitReleaseMinor');
      if (splitReleaseMinor > held) throw new Refusal('IKW-ESC-004', `The contract holds ${held}; a split cannot release ${splitReleaseMinor}`, 'splitReleaseMinor');
      return { releaseMinor: splitReleaseMinor, refundMinor: held - splitReleaseMinor };
    }
    case 'dismissed':
      return { releaseMinor: 0, refundMinor: 0 };
    default:
      return unreachable(outcome);
  }
}

export function milestoneStatus(s: EscrowState, m: Milestone): Milestone['status'] {
  const released = [...s.releases.values()].some((r) => r.milestoneId === m.id && r.status !== 'canceled');
  return released ? 'released' : m.status;
}

function withRelease(s: EscrowState, r: Release): EscrowState {
  return { ...s, releases: new Map(s.releases).set(r.id, r) };
}

/** The statuses in which each client command acts; outside them it is refused (IKW-ESC-001), a dispute first (IKW-ESC-003). */
type ClientCommand = Exclude<EscrowCommand, { type: 'create' | 'record_funding' | 'return_release' }>;

export const ESCROW_TRANSITIONS: Readonly<Record<ClientCommand['type'], readonly ContractStatus[]>> = {
  submit_funding: ['draft', 'pending_funding'],
  add_participant: ['draft', 'pending_funding', 'funded', 'disputed'],
  add_milestone: ['draft', 'pending_funding', 'funded'],
  complete_milestone: ['draft', 'pending_funding', 'funded', 'disputed'],
  create_release: ['funded'],
  execute_release: ['funded'],
  cancel_release: ['funded', 'disputed'],
  refund: ['funded'],
  open_dispute: ['funded'],
  resolve_dispute: ['disputed'],
  cancel: ['draft', 'pending_funding', 'funded', 'canceled'], // canceling again changes nothing
};

function refuseOutside(command: ClientCommand, status: ContractStatus): void {
  if (ESCROW_TRANSITIONS[command.type].includes(status)) return;
  if (status === 'disputed') throw new Refusal('IKW-ESC-003', 'An open dispute freezes this contract: resolve it first', 'contractId');
  throw new Refusal('IKW-ESC-001', `This operation is not allowed on a ${status} escrow contract`, 'contractId');
}

function assertAmount(s: EscrowState, amount: number, field: string): void {
  const disposable = disposableMinor(s);
  if (amount > disposable) {
    throw new Refusal('IKW-ESC-004', `The contract holds ${disposable} not promised to other releases; ${amount} is more`, field);
  }
}

/**
 * An escrow contract, its participants, milestones, releases and disputes in one stream: every
 * money decision (release, refund, dispute) is checked against one version of the contract, so of
 * racing requests only those the held funds cover succeed (docs/escrow.md).
 */
export const escrowDecider: Decider<EscrowCommand, EscrowState, Fact<EscrowEvent>> = {
  initialState: initialEscrowState,

  evolve(s, event) {
    switch (event.type) {
      case 'escrow_contract.created':
        return { ...s, contract: event.data };
      case 'escrow_contract.funding_submitted':
        return { ...s, paymentIntentId: event.data.paymentIntentId };
      case 'escrow_contract.funded':
        return { ...s, fundingSources: new Set(s.fundingSources).add(event.data.source), fundedMinor: s.fundedMinor + event.data.amountMinor, fundedAt: s.fundedAt ?? event.data.at };
      case 'escrow_contract.participant_added':
        return { ...s, participants: [...s.participants, event.data.participant] };
      case 'escrow_contract.milestone_added':
        return { ...s, milestones: [...s.milestones, event.data.milestone] };
      case 'escrow_contract.milestone_completed':
        return { ...s, milestones: s.milestones.map((m) => (m.id === event.data.milestoneId ? { ...m, status: 'completed', completedAt: event.data.at } : m)) };
      case 'escrow_contract.release_created':
        return withRelease(s, event.data.release);
      case 'escrow_contract.release_executed': {
        const r = s.releases.get(event.data.releaseId)!;
        return { ...withRelease(s, { ...r, status: 'executed', destination: event.data.destination, executedAt: event.data.at }), releasedMinor: s.releasedMinor + r.amountMinor };
      }
      case 'escrow_contract.release_canceled': {
        const r = s.releases.get(event.data.releaseId)!;
        return withRelease(s, { ...r, status: 'canceled', canceledAt: event.data.at });
      }
      case 'escrow_contract.release_returned': {
        const r = s.releases.get(event.data.releaseId)!;
        return { ...withRelease(s, { ...r, status: 'returned', returnedAt: event.data.at }), releasedMinor: s.releasedMinor - r.amountMinor };
      }
      case 'escrow_contract.refunded':
        return { ...s, refundedMinor: s.refundedMinor + event.data.refund.amountMinor, refundIds: new Set(s.refundIds).add(event.data.refund.id) };
      case 'escrow_contract.dispute_opened':
        return { ...s, disputes: new Map(s.disputes).set(event.data.dispute.id, event.data.dispute), openDisputeId: event.data.dispute.id };
      case 'escrow_contract.dispute_resolved':
        return { ...s, disputes: new Map(s.disputes).set(event.data.disputeId, event.data.dispute), openDisputeId: null };
      case 'escrow_contract.canceled':
        return { ...s, canceledAt: event.data.at };
    }
  },

  decide(command, s) {
    if (command.type === 'create') {
      if (s.contract) return []; // the same request again (its id derives from the Idempotency-Key)
      const c = command.contract;
      const drafts: Fact<EscrowEvent>[] = [{ type: 'escrow_contract.created', data: c }];
      if (command.fundFromBalance) drafts.push({ type: 'escrow_contract.funded', data: { source: c.id, amountMinor: c.amountMinor!, at: c.createdAt } });
      return drafts;
    }
    if (command.type === 'record_funding') {
      if (!s.contract || s.fundingSources.has(command.source)) return [];
      const at = command.at.toISOString();
      const drafts: Fact<EscrowEvent>[] = [{ type: 'escrow_contract.funded', data: { source: command.source, amountMinor: command.amountMinor, at } }];
      // Funds that arrive after a cancel go straight back to the payer.
      if (s.canceledAt && command.lateRefund) drafts.push({ type: 'escrow_contract.refunded', data: { refund: command.lateRefund } });
      return drafts;
    }
    if (command.type === 'return_release') {
      // Only the payout the release was executed to, once: a repeated failure changes nothing.
      const r = s.releases.get(command.releaseId);
      if (!r || r.status !== 'executed' || r.destination?.type !== 'payout' || r.destination.payoutId !== command.payoutId) return [];
      const at = command.at.toISOString();
      const release: Release = { ...r, status: 'returned', returnedAt: at };
      return [{ type: 'escrow_contract.release_returned', data: { releaseId: r.id, payoutId: command.payoutId, at, release } }];
    }
    assertOwned(s.contract, command.owner, 'No such escrow contract', 'contractId');
    const at = command.at.toISOString();
    const status = contractStatus(s);
    switch (command.type) {
      case 'submit_funding': {
        if (s.paymentIntentId === command.paymentIntentId) return [];
        refuseOutside(command, status);
        if (s.paymentIntentId) throw new Refusal('IKW-ESC-001', `This contract is already funded by payment intent ${s.paymentIntentId}`, 'paymentIntentId');
        return [{ type: 'escrow_contract.funding_submitted', data: { paymentIntentId: command.paymentIntentId, at } }];
      }
      case 'add_participant': {
        refuseOutside(command, status);
        if (s.participants.length >= MAX_PARTICIPANTS) throw new Refusal('IKW-VAL-001', `A contract has at most ${MAX_PARTICIPANTS} participants`, 'role');
        return [{ type: 'escrow_contract.participant_added', data: { participant: command.participant } }];
      }
      case 'add_milestone': {
        refuseOutside(command, status);
        if (s.milestones.length >= MAX_MILESTONES) throw new Refusal('IKW-VAL-001', `A contract has at most ${MAX_MILESTONES} milestones`, 'title');
        return [{ type: 'escrow_contract.milestone_added', data: { milestone: command.milestone } }];
      }
      case 'complete_milestone': {
        const m = s.milestones.find((x) => x.id === command.milestoneId);
        if (!m) throw new Refusal('IKW-RES-001', `No such milestone: '${command.milestoneId}'`, 'milestoneId');
        if (m.status !== 'open') return [];
        refuseOutside(command, status);
        return [{ type: 'escrow_contract.milestone_completed', data: { milestoneId: m.id, at } }];
      }
      case 'create_release': {
        const r = command.release;
        if (s.releases.has(r.id)) return []; // the same idempotencyKey: the release it made
        refuseOutside(command, status);
        if (r.milestoneId !== null) {
          const m = s.milestones.find((x) => x.id === r.milestoneId);
          if (!m) throw new Refusal('IKW-ESC-007', `milestoneId '${r.milestoneId}' is not a milestone of this contract`, 'milestoneId');
          const status = milestoneStatus(s, m);
          if (status === 'released') throw new Refusal('IKW-ESC-009', 'This milestone has been released already', 'milestoneId');
          if (status === 'open' && !r.manualOverride) throw new Refusal('IKW-ESC-009', 'This milestone is not completed; complete it, or release with manualOverride', 'milestoneId');
        }
        if (r.amountMinor < 1) throw new Refusal('IKW-ESC-004', 'Nothing left to release', 'amountMinor');
        assertAmount(s, r.amountMinor, 'amountMinor');
        return [{ type: 'escrow_contract.release_created', data: { release: r } }];
      }
      case 'execute_release': {
        const r = s.releases.get(command.releaseId);
        if (!r) throw new Refusal('IKW-RES-001', `No such escrow release: '${command.releaseId}'`, 'releaseId');
        if (r.status === 'executed') return [];
        if (r.status === 'canceled') throw new Refusal('IKW-ESC-005', 'This release was canceled', 'releaseId');
        refuseOutside(command, status);
        const after: Release = { ...r, status: 'executed', destination: command.destination, executedAt: at };
        return [{ type: 'escrow_contract.release_executed', data: { releaseId: r.id, destination: command.destination, at, release: after } }];
      }
      case 'cancel_release': {
        const r = s.releases.get(command.releaseId);
        if (!r) throw new Refusal('IKW-RES-001', `No such escrow release: '${command.releaseId}'`, 'releaseId');
        if (r.status === 'canceled') return [];
        if (r.status === 'executed') throw new Refusal('IKW-ESC-005', 'This release has been executed', 'releaseId');
        refuseOutside(command, status);
        return [{ type: 'escrow_contract.release_canceled', data: { releaseId: r.id, at, release: { ...r, status: 'canceled', canceledAt: at } } }];
      }
      case 'refund': {
        if (s.refundIds.has(command.refund.id)) return []; // the same Idempotency-Key: the refund it made
        refuseOutside(command, status);
        if (command.refund.amountMinor < 1) throw new Refusal('IKW-ESC-004', 'Nothing left to refund', 'amountMinor');
        assertAmount(s, command.refund.amountMinor, 'amountMinor');
        return [{ type: 'escrow_contract.refunded', data: { refund: command.refund } }];
      }
      case 'open_dispute': {
        if (s.disputes.has(command.dispute.id)) return []; // the same Idempotency-Key: the dispute it opened
        refuseOutside(command, status);
        return [{ type: 'escrow_contract.dispute_opened', data: { dispute: command.dispute } }];
      }
      case 'resolve_dispute': {
        const d = s.disputes.get(command.disputeId);
        if (!d) throw new Refusal('IKW-RES-001', `No such escrow dispute: '${command.disputeId}'`, 'disputeId');
        if (d.status === 'resolved') throw new Refusal('IKW-ESC-006', 'This dispute has been resolved already', 'disputeId');
        refuseOutside(command, status);
        const p = command.plan;
        const drafts: Fact<EscrowEvent>[] = [];
        // A money outcome first takes back what pending releases were promised; a dismissal leaves them.
        if (command.outcome !== 'dismissed') {
          for (const r of s.releases.values()) {
            if (r.status === 'pending') drafts.push({ type: 'escrow_contract.release_canceled', data: { releaseId: r.id, at, release: { ...r, status: 'canceled', canceledAt: at } } });
          }
          if (p.releaseMinor + p.refundMinor !== heldMinor(s)) throw new Refusal('IKW-RES-003', 'The contract changed while the dispute was being resolved; retry');
        }
        const resolved: Dispute = { ...d, status: 'resolved', outcome: command.outcome, outcomeMetadata: command.outcomeMetadata, releasedMinor: p.releaseMinor, refundedMinor: p.refundMinor, resolvedAt: at };
        drafts.push({
          type: 'escrow_contract.dispute_resolved',
          data: { disputeId: d.id, outcome: command.outcome, outcomeMetadata: command.outcomeMetadata, releasedMinor: p.releaseMinor, refundedMinor: p.refundMinor, at, dispute: resolved },
        });
        if (p.refund) drafts.push({ type: 'escrow_contract.refunded', data: { refund: p.refund } });
        if (p.release) drafts.push({ type: 'escrow_contract.release_created', data: { release: p.release } });
        return drafts;
      }
      case 'cancel': {
        if (status === 'canceled') return [];
        refuseOutside(command, status);
        const drafts: Fact<EscrowEvent>[] = [];
        for (const r of s.releases.values()) {
          if (r.status === 'pending') drafts.push({ type: 'escrow_contract.release_canceled', data: { releaseId: r.id, at, release: { ...r, status: 'canceled', canceledAt: at } } });
        }
        const held = heldMinor(s);
        if ((command.refund?.amountMinor ?? 0) !== held) throw new Refusal('IKW-RES-003', 'The contract changed while it was being canceled; retry');
        if (command.refund && held > 0) drafts.push({ type: 'escrow_contract.refunded', data: { refund: command.refund } });
        drafts.push({ type: 'escrow_contract.canceled', data: { at } });
        return drafts;
      }
      default:
        return unreachable(command);
    }
  },
};
