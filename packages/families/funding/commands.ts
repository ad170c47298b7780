import type { Clock } from '#packages/core/clock.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import { CommandService, handleSteps, loadState, step, type ConflictPolicy, type HandleResult } from '#packages/eventstore/command-handler.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import type { Enqueue } from '#packages/scheduler/scheduler.js';
import { ledgerCommand } from '#packages/families/ledger/index.js';
import type { Ledger } from '#packages/ledger/decider.js';
import { moveCampaignFunds, type CampaignMove } from './postings.js';
import { balanceStream } from '#packages/families/ledger/index.js';
import type { PaymentIntents } from '#packages/families/payments/index.js';
import { paymentIntentAggregate } from '#packages/families/payments/index.js';
import { paymentIntentStream } from '#packages/families/payments/index.js';
import type { PayoutCreation } from '#packages/families/payouts/index.js';
import type { CountPublicPush } from '#packages/core/public-pushes.js';
import type { RailRefunds } from '#packages/families/payments/index.js';
import type { RailRefundRecord } from '#packages/families/payments/index.js';
import type { FundingCampaignCommand, FundingCampaignState } from './decider.js';
import { fundingCampaignAggregate } from './render.js';
import { fundingCampaignStream, type Clearing, type FundingCampaignFact } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

/** A campaign as its timers and jobs name it. */
export type CampaignRef = Owner & { campaignId: string };
/** A payout of a campaign's released funds, as its crash mend names it. */
export type CampaignPayoutRef = CampaignRef & { campaignPayoutId: string };
/** A contribution's payment intent reached a final status. */
export type ContributionPaymentRef = CampaignRef & { contributionId: string; paymentIntentId: string };

export interface FundingDeps {
  store: EventStore;
  ledger: Ledger;
  clock: Clock;
  publicUrl: string;
  paymentIntents: PaymentIntents;
  payouts: PayoutCreation;
  /** Contributions paid through a rail keeping Sika's money are given back through it (docs/connectors.md, "Refunds through a rail"). */
  railRefunds: RailRefunds;
  /** The campaign a contribution belongs to, if the contribution is this owner's (read model). */
  campaignOfContribution(owner: Owner, contributionId: string): Promise<string | undefined>;
  /** The deadline timer of a published campaign. */
  scheduleDeadline: Enqueue<CampaignRef>;
  /** The mend of a payout claimed on the campaign but not made (a crash in between). */
  schedulePayoutMend: Enqueue<CampaignPayoutRef>;
  /** Contributions from the campaign's public page push to a phone with no credential behind them: counted. */
  countPublicPush: CountPublicPush;
}

/** Attempts at a move of held funds that keeps meeting a changed campaign (each lost race means another succeeded). */
const MOVE_ATTEMPTS = 50;

/** The ledger moves that a campaign's new events make (docs/funding.md has their diagrams). */
export function movesOf(state: FundingCampaignState, events: FundingCampaignFact[]): CampaignMove[] {
  const moves: CampaignMove[] = [];
  const clearings = new Map<string, Clearing>();
  for (const e of events) {
    switch (e.type) {
      case 'funding_campaign.contribution_received':
        clearings.set(e.data.contributionId, e.data.clearing);
        moves.push({ kind: 'contribution', source: e.data.contributionId, clearing: e.data.clearing, amount: state.contributions.get(e.data.contributionId)!.amountMinor });
        break;
      case 'funding_campaign.contribution_refunded': {
        const id = e.data.contributionId;
        const clearing = clearings.get(id) ?? state.contributions.get(id)!.clearing!;
        moves.push({ kind: e.data.fromReleased ? 'refund_released' : 'refund', source: id, clearing, amount: state.contributions.get(id)!.amountMinor });
        break;
      }
      case 'funding_campaign.closed':
        if (e.data.released > 0) moves.push({ kind: 'release', source: state.campaign!.id, amount: e.data.released, fee: e.data.fee });
        break;
      default:
        break;
    }
  }
  return moves;
}

/**
 * A campaign's stream and its ledger side, the collaborator every funding use case is given
 * (docs/funding.md): contributions' funds held on the campaign's ledger account
 * (`campaign:<id>`), every change of them the campaign's event and its ledger entry in one commit.
 * Decides nothing a use case asks.
 */
export class FundingCampaignCommits extends CommandService<FundingCampaignCommand, FundingCampaignState, FundingCampaignFact> {
  constructor(private readonly deps: FundingDeps) {
    super(deps.store, fundingCampaignStream, fundingCampaignAggregate, { onConflict: 'contended' });
  }

  /** A campaign command run on its stream (the use cases' commands that move no money). */
  override run(id: string, command: FundingCampaignCommand, metadata: EventMetadata, onConflict?: ConflictPolicy): Promise<HandleResult<FundingCampaignState, FundingCampaignFact>> {
    return super.run(id, command, metadata, onConflict);
  }

  metadata(owner: Owner, id: string, actor: Actor): EventMetadata {
    return auditMetadata(this.deps.clock, owner, id, actor);
  }

  /** The campaign of this owner's contribution (read model); IKW-RES-001 when there is none. */
  async campaignOf(owner: Owner, contributionId: string): Promise<string> {
    const campaignId = await this.deps.campaignOfContribution(owner, contributionId);
    if (!campaignId) throw new Refusal('IKW-RES-001', `No such contribution: '${contributionId}'`, 'contributionId');
    return campaignId;
  }

  /**
   * A change of the held funds: the campaign's events and their ledger entry in one commit. The
   * command is decided on the state read here to know the moves; should the campaign have moved
   * meanwhile, the decider refuses it as stale and it is decided again on the fresh state.
   */
  async moveFunds(id: string, meta: EventMetadata, command: (state: FundingCampaignState) => FundingCampaignCommand): Promise<FundingCampaignState> {
    for (let attempt = 0; ; attempt++) {
      const { state } = await this.load(id);
      const next = command(state);
      try {
        const moves = movesOf(state, fundingCampaignAggregate.decide(next, state));
        const campaignStep = step({ streamId: fundingCampaignStream(id), decider: fundingCampaignAggregate, command: next, metadata: meta });
        const steps = [campaignStep];
        const railRefunds: RailRefundRecord[] = [];
        if (moves.length > 0) {
          const c = state.campaign!;
          const balance = { merchantId: c.merchantId, environment: c.environment, currency: c.currency };
          const ledger = ledgerCommand(this.deps.clock, balance, moveCampaignFunds(id, moves));
          steps.push(step({ streamId: balanceStream(c.merchantId, c.environment, c.currency), decider: this.deps.ledger.decider, command: ledger, metadata: meta }));
          railRefunds.push(...(await this.railRefundsOf(state, moves)));
          for (const refund of railRefunds) steps.push(await this.deps.railRefunds.request(refund, meta));
        }
        const [result] = await handleSteps(this.deps.store, steps, { onConflict: 'none' });
        for (const refund of railRefunds) await this.deps.railRefunds.send(refund);
        return result!.state as FundingCampaignState;
      } catch (err) {
        if (isRefused(err, 'IKW-RES-003') && attempt < MOVE_ATTEMPTS) continue;
        throw err;
      }
    }
  }

  /**
   * The refunds among a campaign's moves that go back through a rail keeping Sika's money: each
   * contribution given back is refunded through the rail its payment came in by, under the
   * contribution's id (the source of its ledger entry). IKW-PRV-006 when that rail's connector is
   * not configured any more: nothing could carry it, nothing is recorded (a job retries).
   */
  async railRefundsOf(state: FundingCampaignState, moves: CampaignMove[]): Promise<RailRefundRecord[]> {
    const c = state.campaign!;
    const refunds: RailRefundRecord[] = [];
    for (const move of moves) {
      if ((move.kind !== 'refund' && move.kind !== 'refund_released') || !move.clearing.startsWith('rail_clearing:')) continue;
      const contribution = state.contributions.get(move.source)!;
      const { state: payment } = await loadState(this.deps.store, paymentIntentStream(contribution.paymentIntentId), paymentIntentAggregate);
      const connector = move.clearing.slice('rail_clearing:'.length);
      if (!this.deps.railRefunds.canRefund(c.environment, connector)) {
        throw new Refusal('IKW-PRV-006', `The contribution came in through ${connector}, which is not configured on this service any more: nothing can carry its refund; nothing was refunded`, 'contributionId');
      }
      refunds.push({
        id: move.source,
        connector,
        operationId: payment.confirmation!.operationId,
        merchantId: c.merchantId,
        environment: c.environment,
        amount: move.amount,
        currency: c.currency,
        origin: { family: 'funding_contribution', campaignId: c.id },
        requestedAt: this.deps.clock.now().toISOString(),
      });
    }
    return refunds;
  }
}
