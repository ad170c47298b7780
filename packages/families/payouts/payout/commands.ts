import { getOperator } from '#packages/catalog/index.js';
import type { Clock } from '#packages/core/clock.js';
import type { Logger } from '#packages/core/logger.js';
import { Refusal } from '#packages/core/refusal.js';
import { derivedId } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import type { Fact } from '#packages/core/decider.js';
import type { Enqueue, Unschedule } from '#packages/scheduler/scheduler.js';
import type { StatusCheck } from '#packages/connectors/callbacks.js';
import type { Rails } from '#packages/connectors/port.js';
import { CommandService, handleCommand, handleCommandsAtomically, handleSteps, loadState, step, type AnyStep, type ConflictPolicy, type HandleResult, type StepOutcome } from '#packages/eventstore/command-handler.js';
import { ledgerStep } from '#packages/families/ledger/index.js';
import { clearingOf } from '#packages/ledger/clearing.js';
import type { Ledger, LedgerAction, LedgerState } from '#packages/ledger/decider.js';
import type { LedgerEntryEvent } from '#packages/ledger/entry.js';
import type { Account } from '#packages/families/ledger/index.js';
import { completePayout, releasePayout } from './postings.js';
import type { PayoutSettings } from '#packages/families/merchants/index.js';
import type { DestinationInput } from '../payout-method/destination.js';
import type { Destination } from '../payout-method/events.js';
import type { CapabilityGate } from '#packages/families/platform/index.js';
import type { ActivationGate } from '#packages/families/platform/index.js';
import type { PayoutHistory } from '#packages/families/read-ports.js';
import { withinPayoutLimits, type LimitsGate, type RiskGate } from '#packages/families/risk/index.js';
import type { Verifications } from '#packages/families/accounts/index.js';
import { FINAL_PAYOUT_STATUSES, type Owner, type PayoutCommand, type PayoutState } from './decider.js';
import { payoutAggregate } from './render.js';
import type { PayoutFundingSources } from './funding.js';
import { payoutStream, type PayoutCreated, type PayoutEvent, type PayoutFunding, type PayoutSource } from './events.js';
import type { Actor, Environment } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

export interface CreatePayoutInput {
  amount: number;
  currency: string;
  destination?: DestinationInput;
  payout_method_id?: string;
  metadata?: Record<string, string>;
}

export interface PayoutDeps {
  store: EventStore;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  /** The rails of an environment: the connectors the router picks (packages/connectors). */
  rails(environment: Environment): Rails;
  /** The merchant's payment capabilities: a disabled or suspended method is refused. */
  capabilities: CapabilityGate;
  /** The merchant's activations: a country not activated for payouts, an amount out of bounds, or live not opened by the operator (IKW-PRV-005) is refused. */
  activations: ActivationGate;
  /** The merchant's earlier payouts: a signed-in user pays a destination paid before without a fresh second factor. */
  history: PayoutHistory;
  /** The risk operators' limits (docs/limits.md): a payout frozen, above the per-transaction maximum or the day's cap is refused at its hold. */
  limits: LimitsGate;
  /** The merchant's risk rules (docs/risk.md), asked before a payout's money is held: blocked (IKW-LIM-007), held for review, or scored. */
  risk: RiskGate;
  /** The merchant's payout settings as remembered per process (whether API keys may pay inline destinations). */
  settings(owner: Owner): Promise<PayoutSettings>;
  /** Uses up a user's `payouts/new-destination` challenge in the payout's commit. */
  verifications: Pick<Verifications, 'consumption'>;
  /**
   * Counts a check of a bank account holder's name against the merchant and the credential asking
   * (429 IKW-LIM-001 with Retry-After when over); `giveBack` when the bank gave the name as given.
   */
  nameChecks(owner: Owner, credential: string): Promise<{ giveBack(): Promise<void> }>;
  /** Where payouts' money comes from and returns to: payouts' own sources and those the families register. */
  funding: PayoutFundingSources;
  /** Durable timers: the overdue check at expected_by, and the crash mend of a hold. */
  scheduleOverdueCheck: Enqueue<PayoutRef>;
  /** A payout that ends drops its overdue check (the check would find it final and do nothing). */
  dropOverdueCheck: Unschedule<PayoutRef>;
  scheduleReconcile: Enqueue<PayoutRef & { currency: string }>;
  /** Durable timer of the status checks of a payout whose connector has a schedule (docs/connectors.md). */
  scheduleStatusCheck: Enqueue<PayoutStatusCheck>;
}

/** A payout's status check, as its job carries it. */
export type PayoutStatusCheck = StatusCheck & { direction: 'payout' };

/** A payout as timers and callbacks name it. */
export type PayoutRef = Owner & { payoutId: string };

/** The payout of one item of a payout batch, as the batch's runner queues it (docs/payout-engine.md). */
export interface BatchPayoutInput {
  batchId: string;
  index: number;
  attempt: number;
  payoutId: string;
  amount: number;
  fee: number;
  destination: Destination;
  metadata: Record<string, string>;
}

/** Bank transfers settle in a day; mobile money in the operator's minutes (10 by default). */
const BANK_EXPECTED_MS = 24 * 3_600_000;
/** How long after a hold the reconcile job checks that its payout exists (crash mend). */
const RECONCILE_AFTER_MS = 60_000;

export function expectedMs(destination: Destination): number {
  if (destination.type === 'bank') return BANK_EXPECTED_MS;
  return (getOperator(destination.country, destination.operator)?.payoutExpectedMinutes ?? 10) * 60_000;
}

/**
 * The id of the payout a request makes (`requestRef`: the Idempotency-Key with the request's
 * fingerprint, or a family's own reference): a retry after a crash finds the payout, and a family
 * may name the payout before it exists. The one place this derivation lives.
 */
export function payoutIdOf(owner: Owner, source: PayoutSource, requestRef: string): string {
  return derivedId('po', `${owner.merchantId}|${owner.environment}|${source}|${requestRef}`);
}

/** Where a paid payout's money went out: its rail's clearing account, or the operator's or banks' (payouts that recorded no connector). */
function clearingAccount(p: PayoutCreated): Account {
  return clearingOf(p.connector, p.destination.type === 'mobile_money' ? `operator_clearing:${p.destination.operator}` : 'bank_clearing');
}
/**
 * A payout's stream and its ledger side, the collaborator every payout use case is given: the
 * creation command and the commits that open a payout (its hold with it, or as a saga), and those
 * that end it with its posting. Decides nothing a use case asks of the merchant or the operator.
 */
export class PayoutCommits extends CommandService<PayoutCommand, PayoutState, Fact<PayoutEvent>> {
  constructor(private readonly deps: PayoutDeps) {
    super(deps.store, payoutStream, payoutAggregate, { onConflict: 'internal' });
  }

  /** A payout command run on its stream (the use cases' own commands, outside the commits below). */
  override run(id: string, command: PayoutCommand, metadata: EventMetadata, onConflict?: ConflictPolicy): Promise<HandleResult<PayoutState, Fact<PayoutEvent>>> {
    return super.run(id, command, metadata, onConflict);
  }

  metadata(owner: Owner, id: string, actor: Actor): EventMetadata {
    return auditMetadata(this.deps.clock, owner, id, actor);
  }

  /**
   * The creation command of a payout, once its overdue check is set: it does nothing for a payout
   * that was never created. (Saga mode sets the reconcile job too: scheduleMend.)
   */
  async prepare(
    owner: Owner,
    id: string,
    p: {
      amount: number;
      fee: number;
      destination: Destination;
      payoutMethodId: string | null;
      metadata: Record<string, string>;
      source: PayoutSource;
      batch?: PayoutCreated['batch'];
      funding?: PayoutFunding;
      escrow?: PayoutCreated['escrow'];
      review?: PayoutCreated['review'];
    },
  ): Promise<PayoutCommand & { type: 'create' }> {
    const now = this.deps.clock.now();
    const expectedBy = new Date(now.getTime() + expectedMs(p.destination));
    // The rail's wallet pays the amount and the provider's fee; Sika's fee stands in for the latter.
    const { clearingRail: connector, passedOver, refusal } = this.deps.rails(owner.environment).choose('payout', p.destination, { money: { amount: p.amount + p.fee, currency: p.destination.currency } });
    // Refused before anything is held. A batch's item, its money held with the batch, is not: precedence sends it, and the rail's answer settles it.
    if (refusal !== undefined && !p.batch) throw new Refusal('IKW-PRV-001', refusal, 'destination');
    await this.deps.scheduleOverdueCheck({ ...owner, payoutId: id }, expectedBy);
    return {
      type: 'create',
      payout: {
        id,
        merchantId: owner.merchantId,
        environment: owner.environment,
        amount: p.amount,
        currency: p.destination.currency,
        fee: p.fee,
        destination: p.destination,
        payoutMethodId: p.payoutMethodId,
        // Only on payouts of the payout engine does the platform add or replace `source` and `environment` (docs/decisions.md, payouts).
        metadata: p.source === 'payout_engine' ? { ...p.metadata, source: p.source, environment: owner.environment } : { ...p.metadata },
        source: p.source,
        ...(p.batch ? { batch: p.batch } : {}),
        ...(p.funding ? { funding: p.funding } : {}),
        ...(p.escrow ? { escrow: p.escrow } : {}),
        ...(connector !== null ? { connector } : {}),
        ...(passedOver.length > 0 ? { passedOver } : {}),
        ...(p.review ? { review: p.review } : {}),
        expectedBy: expectedBy.toISOString(),
        createdAt: now.toISOString(),
      },
    };
  }

  /**
   * The one way a payout comes to exist, whatever family asks: its hold on the account it is
   * funded from and its creation in one commit, after the caller's own steps (`before`: an escrow
   * release's execution). Null on a store without atomic commits: the caller runs its saga.
   */
  async open(payout: PayoutCommand & { type: 'create' }, meta: EventMetadata, onConflict: ConflictPolicy, before: AnyStep[] = []): Promise<PayoutState | null> {
    const p = payout.payout;
    const steps = [...before, await this.holdStep(p, p, meta), step({ streamId: payoutStream(p.id), decider: payoutAggregate, command: payout, metadata: meta })];
    const atomic = handleCommandsAtomically(this.deps.store, steps, { onConflict });
    return atomic ? ((await atomic).at(-1)!.state as PayoutState) : null;
  }

  /**
   * The same as a saga, for stores that append one stream at a time: should the process die
   * between the hold and the payout, the reconcile job gives the funds back. The caller's own steps
   * (`before`: a user's challenge) go first, so that no payout is recorded without them.
   */
  async holdThenCreate(payout: PayoutCommand & { type: 'create' }, meta: EventMetadata, before: AnyStep[] = []): Promise<PayoutState> {
    await this.scheduleMend(payout.payout);
    if (before.length > 0) await handleSteps(this.deps.store, before);
    const hold = await this.holdStep(payout.payout, payout.payout, meta);
    const held = (await handleCommand(this.deps.store, hold.streamId, hold.decider, hold.command, meta, { onConflict: 'contended' })) as HandleResult<LedgerState, LedgerEntryEvent>;
    // A retry whose hold the mend already gave back must not create a payout without funds.
    if (held.events.length === 0 && !held.state.holds.has(payout.payout.id)) throw new Refusal('IKW-RES-003', 'This payout was abandoned after a failure; retry with a new Idempotency-Key');
    return (await this.run(payout.payout.id, payout, meta, 'none')).state;
  }

  /**
   * Saga mode only (a store without atomic commits, EventStoreDB): the reconcile job, set before
   * the payout's first commit, mends a crash between its hold and the payout, or between its end
   * and its ledger side. Where the store commits atomically both pairs share one commit and there
   * is nothing to mend, so no job is set (as for refunds; docs/performance.md step 38).
   */
  scheduleMend(p: PayoutCreated): Promise<void> {
    const at = new Date(this.deps.clock.now().getTime() + RECONCILE_AFTER_MS);
    return this.deps.scheduleReconcile({ merchantId: p.merchantId, environment: p.environment, currency: p.currency, payoutId: p.id }, at);
  }

  /**
   * Refuses a payout its funding source cannot hold now (IKW-BAL-001, a seller's IKW-MKT-007), or
   * whose steps before it refuse (a challenge already used), committing nothing: the provider's
   * check of a bank account comes after. The commit decides them all again.
   */
  async assertCovered(p: PayoutCreated, meta: EventMetadata, before: AnyStep[] = []): Promise<void> {
    // Only a bank account's check can tell a name; elsewhere the dry run would only cost reads of
    // streams the commit reads again (outside the remembered states: test/integration/stream-cache.test.ts).
    if (p.destination.type !== 'bank') return;
    for (const s of [...before, await this.holdStep(p, p, meta)]) s.decider.decide(s.command, (await loadState(this.deps.store, s.streamId, s.decider)).state);
  }

  /**
   * A payout's hold of amount + fee on the account its funding source holds from (its source's
   * recipe), within the account's limits (docs/limits.md): the one place every payout's hold is
   * made, so a freeze, a maximum and the day's cap hold for every entry point. A batch's payouts
   * were decided with their batch's execution (`withinLimits`), so their carvings are not again.
   */
  async holdStep(owner: Owner, p: PayoutCreated, meta: EventMetadata): Promise<AnyStep> {
    const hold = this.deps.funding.hold(p);
    const action = p.batch ? hold : await this.withinLimits(owner, { source: p.id, amount: p.amount, largest: p.amount }, hold);
    return ledgerStep(this.deps, { ...owner, currency: p.currency }, action, meta);
  }

  /** A hold of payouts (one payout's, a batch execution's: `largest` its largest item) decided within the account's limits as its commit finds the balance. */
  async withinLimits(owner: Owner, payouts: { source: string; amount: number; largest: number }, hold: LedgerAction): Promise<LedgerAction> {
    return withinPayoutLimits(await this.deps.limits.limitsOf(owner), payouts, hold);
  }

  /**
   * The steps a payout's end commits with its own event: its ledger side first (the contended
   * stream): paid → clearing + fees, failed or canceled → the hold back to where it came from
   * (the ledger's hold knows), with what its funding source returns besides (an escrow contract
   * taking its release back). Idempotent.
   */
  endSteps(p: PayoutCreated, outcome: 'paid' | 'released', meta: EventMetadata): { ledger: AnyStep; others: AnyStep[] } {
    const others = outcome === 'released' ? this.deps.funding.returnSteps(p, this.deps.clock.now(), meta) : [];
    const action = outcome === 'paid' ? completePayout(p.id, clearingAccount(p)) : releasePayout(p.id);
    return { ledger: ledgerStep(this.deps, { merchantId: p.merchantId, environment: p.environment, currency: p.currency }, action, meta), others };
  }

  /**
   * A payout command that may end the payout (an operator refusing it at once, a cancel), in one
   * commit with the end's ledger side: the posting runs only if the payout is final after the
   * command (`when`), so a repeat posts nothing twice and still finishes what a crash left on a
   * store without atomic commits.
   */
  async commitWithEnd(p: PayoutCreated, command: PayoutCommand, outcome: 'paid' | 'released' | null, meta: EventMetadata, onConflict: ConflictPolicy = 'internal'): Promise<PayoutState> {
    if (!outcome) return (await this.run(p.id, command, meta, onConflict)).state;
    const { ledger, others } = this.endSteps(p, outcome, meta);
    const ended = ([payout]: readonly StepOutcome[]) => FINAL_PAYOUT_STATUSES.includes((payout!.state as PayoutState).status);
    const [result] = await handleSteps(this.deps.store, [step({ streamId: payoutStream(p.id), decider: payoutAggregate, command, metadata: meta }), ...[ledger, ...others].map((s) => ({ ...s, when: ended }))], { onConflict });
    await this.dropOverdueCheckIfEnded(result!.state as PayoutState);
    return result!.state as PayoutState;
  }

  /**
   * An ended payout's overdue check would find it final and do nothing, yet cost a claim, a read
   * of its stream and a delete at expected_by: dropped now instead, in one statement with the
   * other payouts ending meanwhile. A drop that fails leaves the check, which does nothing.
   */
  async dropOverdueCheckIfEnded(state: PayoutState): Promise<void> {
    const p = state.payout;
    if (!p || !FINAL_PAYOUT_STATUSES.includes(state.status)) return;
    try {
      await this.deps.dropOverdueCheck({ merchantId: p.merchantId, environment: p.environment, payoutId: p.id }, new Date(p.expectedBy));
    } catch (err) {
      this.deps.log.warn({ err, payout_id: p.id }, 'the overdue check of an ended payout was not dropped; it will find the payout final');
    }
  }

  /** Posts the ledger side of a final payout (a payout not final has none). */
  async settleLedger(state: PayoutState, meta: EventMetadata): Promise<void> {
    if (!FINAL_PAYOUT_STATUSES.includes(state.status)) return;
    // As an atomic change: the payouts of one balance settled meanwhile share its commit (command-handler.ts).
    const { ledger, others } = this.endSteps(state.payout!, state.status === 'paid' ? 'paid' : 'released', meta);
    await handleSteps(this.deps.store, [ledger, ...others], { onConflict: 'internal' });
  }
}
