import type { Fact } from '#packages/core/decider.js';
import type { Clock } from '#packages/core/clock.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import { derivedId, newId } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import type { Ledger } from '#packages/ledger/decider.js';
import type { Enqueue } from '#packages/scheduler/scheduler.js';
import { assertOwned } from '#packages/core/aggregate.js';
import { CommandService, handleCommandsAtomically, loadState, step, type AnyStep } from '#packages/eventstore/command-handler.js';
import { ledgerStep, runLedger } from '#packages/families/ledger/index.js';
import { refundPayment } from './postings.js';
import { releasingReserve } from '#packages/families/payments/index.js';
import type { CollectOutcome } from '#packages/connectors/port.js';
import type { RailRefunds } from '#packages/families/payments/index.js';
import type { RailRefundRecord } from '#packages/families/payments/index.js';
import { paymentIntentAggregate } from '#packages/families/payments/index.js';
import { payinClearing, paymentIntentStream } from '#packages/families/payments/index.js';
import type { PaymentIntentState, PaymentRecipients } from '#packages/families/payments/index.js';

/** A payment intent's state that exists and is the caller's. */
type OwnedIntentState = PaymentIntentState & { intent: NonNullable<PaymentIntentState['intent']> };
import type { PaymentRefundsState, RefundCommand } from './decider.js';
import { paymentRefundsAggregate, toRefundObject } from './render.js';
import { paymentRefundsStream, type RefundedPayment, type RefundEvent, type RefundObject, type RefundReason } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

/** When the mend of a refund left pending by a crash runs (saga mode only: on PostgreSQL a refund commits with its money). */
const RECONCILE_AFTER_MS = 60_000;

export interface RefundInput {
  amount?: number;
  reason?: RefundReason;
}

export interface RefundDeps {
  store: EventStore;
  ledger: Ledger;
  clock: Clock;
  /** The mend of a refund a crash left pending; used only on a store without atomic commits. */
  scheduleReconcile: Enqueue<RefundRef>;
  /** The families that hold or split payments: they refuse refunds of their own, which they refund themselves. */
  recipients: PaymentRecipients;
  /** Refunds of payments a rail keeping Sika's money collected go back through it (docs/connectors.md, "Refunds through a rail"). */
  railRefunds: RailRefunds;
}

/** The rail a payment came in through, when it keeps Sika's money: its connector and the collection's operation id. */
interface PaymentRail {
  connector: string;
  operationId: string;
}

/**
 * The id of the refund a request makes (`requestRef`: the Idempotency-Key with the body's
 * fingerprint), scoped to the merchant, the environment and the payment: the same request always
 * names the same refund, so a retry after a crash lands on the first attempt's.
 */
function refundIdOf(who: Owner, paymentId: string, requestRef: string): string {
  return derivedId('re', `${who.merchantId}|${who.environment}|payment_refund|${paymentId}|${requestRef}`);
}

/** What a refund request answers: the refund, or IKW-BAL-001 when it was recorded failed for want of balance (on a retry too). */
function answerOf(state: PaymentRefundsState, refundId: string): RefundObject {
  const refund = toRefundObject(state, refundId);
  if (refund.status === 'failed' && refund.failure_reason === 'insufficient_funds') {
    throw new Refusal('IKW-BAL-001', `The available balance does not cover the refund (${refund.amount} ${refund.currency}); refund ${refundId} is recorded as failed`, 'amount');
  }
  return refund;
}

/** A refund as its timer names it. */
export type RefundRef = Owner & { paymentId: string; refundId: string };

type CreateRefund = RefundCommand & { type: 'create' };

/** Refunds of succeeded payment intents: the refundable remainder on the payment's refund stream, the money on the ledger. */
export class Refunds extends CommandService<RefundCommand, PaymentRefundsState, Fact<RefundEvent>> {
  constructor(private readonly deps: RefundDeps) {
    super(deps.store, paymentRefundsStream, paymentRefundsAggregate);
    deps.railRefunds.follow('payment_refund', (refund, outcome, metadata) => [this.outcomeStep(refund, outcome, metadata)]);
  }

  /**
   * The payment as a refund sees it, and the rail it came in through when that rail keeps Sika's
   * money; 404 for another merchant's, IKW-BIL-004 unless it succeeded, IKW-PRV-006 when that
   * rail's connector is not configured here any more (nothing could carry the refund).
   */
  private async payment(state: OwnedIntentState, paymentId: string): Promise<{ payment: RefundedPayment; rail: PaymentRail | null }> {
    const intent = state.intent;
    if (state.status !== 'succeeded' || !state.paymentMethod) {
      throw new Refusal('IKW-BIL-004', `Payment ${paymentId} is ${state.status}; only a succeeded payment can be refunded`, 'paymentId');
    }
    // Money a campaign, an order or a contract holds is refunded by its family.
    await this.deps.recipients.assertRefundable({ intent, escrowContract: state.escrowContract });
    const pm = state.paymentMethod;
    const connector = state.confirmation?.connector;
    const clearing = payinClearing(pm, connector);
    const rail = connector !== undefined && clearing.startsWith('rail_clearing:') ? { connector, operationId: state.confirmation!.operationId } : null;
    if (rail && !this.deps.railRefunds.canRefund(intent.environment, rail.connector)) {
      throw new Refusal('IKW-PRV-006', `The payment came in through ${rail.connector}, which is not configured on this service any more: nothing can carry its refund; nothing was refunded`, 'paymentId');
    }
    const payment = { id: intent.id, merchantId: intent.merchantId, environment: intent.environment, amount: intent.amount, currency: intent.currency, clearing };
    return { payment, rail };
  }

  /**
   * Refunds part or all of a payment (all that remains when no amount is given). The remainder
   * check is one append to the payment's refund stream; a lost race decides again on the fresh
   * state, so 20 parallel refunds end in successes and IKW-BIL-003 refusals, never in too much.
   * Where the store commits atomically (PostgreSQL) the refund is created succeeded in the commit
   * of its ledger entry, or created failed when the balance does not cover it: no refund is ever
   * seen without its money, and nothing is left for a mend to finish. Through a rail that keeps
   * Sika's money it is created pending instead, its money held, until the rail answers.
   *
   * `requestRef` (the Idempotency-Key with the body's fingerprint) names the refund: a request
   * retried after a crash finds the refund the first attempt made and answers it as it stands,
   * holding nothing and sending nothing again (a refund committed but never sent is sent by its
   * status check, set before the commit).
   */
  async create(who: Owner, paymentId: string, input: RefundInput, actor: Actor, requestRef?: string): Promise<RefundObject> {
    const refundId = requestRef === undefined ? newId('re') : refundIdOf(who, paymentId, requestRef);
    const intentState = await this.ownedIntent(who, paymentId);
    let earlier: PaymentRefundsState | undefined;
    if (requestRef !== undefined) {
      // Before the payment's checks: a full refund made by the first attempt leaves nothing refundable.
      earlier = (await this.load(paymentId)).state;
      if (earlier.refunds.has(refundId)) return answerOf(earlier, refundId);
    }
    const { payment, rail } = await this.payment(intentState, paymentId);
    const meta = auditMetadata(this.deps.clock, who, refundId, { ...actor, causationId: paymentId });
    let amount = input.amount;
    if (amount === undefined) {
      const state = earlier ?? (await this.load(paymentId)).state;
      amount = payment.amount - state.committed;
      if (amount <= 0) throw new Refusal('IKW-BIL-003', `Payment ${paymentId} is already fully refunded`, 'amount');
    }
    const create = { type: 'create', owner: who, at: this.deps.clock.now(), payment, refundId, amount, reason: input.reason ?? null } as const;
    const state = rail ? await this.createThroughRail(paymentId, create, rail, meta) : ((await this.createWithMoney(paymentId, create, meta))?.state ?? (await this.createThenPost(who, paymentId, create, meta)));
    return answerOf(state, refundId);
  }

  /**
   * A refund through the rail that collected the payment (docs/connectors.md, "Refunds through a
   * rail"): created pending in one commit with its money held (the `refund` entry, to the rail's
   * refunds in flight) and the rail refund's request, whose id is the rail's idempotency key; only
   * then sent. The rail's answer, a callback or a status check ends it (`outcomeStep`). A balance
   * that cannot cover it records it failed, alone, as without a rail.
   */
  private async createThroughRail(paymentId: string, create: CreateRefund, rail: PaymentRail, meta: EventMetadata): Promise<PaymentRefundsState> {
    const { payment, refundId, amount } = create;
    const request: RailRefundRecord = {
      id: refundId,
      connector: rail.connector,
      operationId: rail.operationId,
      merchantId: payment.merchantId,
      environment: payment.environment,
      amount,
      currency: payment.currency,
      origin: { family: 'payment_refund', paymentId },
      requestedAt: create.at.toISOString(),
    };
    const created = await this.createWithMoney(paymentId, create, meta, request);
    // Its hold, its pending state and its request must commit together: a saga could leave money held that nothing sends, or send what holds nothing.
    if (!created) throw new Refusal('IKW-PRV-006', 'Refunds through a rail need a store that commits atomically (PostgreSQL); nothing was refunded', 'paymentId');
    // Sent by the request whose commit made it, only: a retry that took over a first attempt still running finds it made, and leaves the send to that attempt (or to its status check).
    if (!created.made || created.state.refunds.get(refundId)?.status !== 'pending') return created.state;
    await this.deps.railRefunds.send(request);
    return (await this.load(paymentId)).state;
  }

  /** A rail's answer to a payment's refund, recorded on the refund in the commit that ends the rail refund and moves its money. */
  private outcomeStep(refund: RailRefundRecord, outcome: CollectOutcome, metadata: EventMetadata): AnyStep {
    const owner = { merchantId: refund.merchantId, environment: refund.environment };
    const at = this.deps.clock.now();
    if (refund.origin.family !== 'payment_refund') throw new Error(`Refund ${refund.id} is not a payment's`);
    const paymentId = refund.origin.paymentId;
    const command: RefundCommand =
      outcome.status === 'succeeded'
        ? { type: 'succeed', owner, at, refundId: refund.id }
        : { type: 'fail', owner, at, refundId: refund.id, failureReason: 'rail_failed', failureCode: outcome.failureCode, failureMessage: outcome.failureMessage };
    return step({ streamId: paymentRefundsStream(paymentId), decider: paymentRefundsAggregate, command, metadata });
  }

  /**
   * The refund and its ledger entry in one commit, both checks (the remainder, the balance)
   * decided again on a lost race; a refusal of the balance records the refund failed, alone.
   * With `railRefund`, the refund is created pending and the rail refund's request joins the commit.
   * `made`: whether this commit created the refund (not a request of the same id before it). Null
   * when the store cannot commit atomically.
   */
  private async createWithMoney(paymentId: string, create: CreateRefund, meta: EventMetadata, railRefund?: RailRefundRecord): Promise<{ state: PaymentRefundsState; made: boolean } | null> {
    const { payment, refundId, amount } = create;
    const balance = { merchantId: payment.merchantId, environment: payment.environment, currency: payment.currency };
    // The balance first: its stream is the one refunds of all the merchant's payments contend for (command-handler.ts).
    const atomic = handleCommandsAtomically(
      this.deps.store,
      [
        ledgerStep(this.deps, balance, releasingReserve(paymentId, refundPayment({ source: refundId, clearing: payment.clearing, amount })), meta),
        // Through a rail: pending until the rail answers, its request committed before it is sent.
        step({ streamId: paymentRefundsStream(paymentId), decider: paymentRefundsAggregate, command: railRefund ? create : { ...create, outcome: { status: 'succeeded' } }, metadata: meta }),
        ...(railRefund ? [await this.deps.railRefunds.request(railRefund, meta)] : []),
      ],
      { onConflict: 'contended' },
    );
    if (!atomic) return null;
    try {
      const refunds = (await atomic)[1]!;
      return { state: refunds.state as PaymentRefundsState, made: refunds.events.length > 0 };
    } catch (err) {
      if (!isRefused(err, 'IKW-BAL-001')) throw err;
    }
    const failed = await this.run(paymentId, { ...create, outcome: { status: 'failed', failureReason: 'insufficient_funds' } }, meta, 'contended');
    return { state: failed.state, made: failed.events.length > 0 };
  }

  /**
   * Saga mode (a store without atomic commits, EventStoreDB): the refund is created pending, then
   * posted, then succeeded or failed, three commits. Its reconcile job, set first, finishes a
   * refund a crash left pending.
   */
  private async createThenPost(who: Owner, paymentId: string, create: CreateRefund, meta: EventMetadata): Promise<PaymentRefundsState> {
    await this.deps.scheduleReconcile({ ...who, paymentId, refundId: create.refundId }, new Date(this.deps.clock.now().getTime() + RECONCILE_AFTER_MS));
    await this.run(paymentId, create, meta, 'contended');
    return this.post(who, paymentId, create.refundId, meta);
  }

  /** The ledger side of a pending refund: available → clearing, or failed when the balance cannot cover it. Idempotent. */
  private async post(who: Owner, paymentId: string, refundId: string, meta: EventMetadata): Promise<PaymentRefundsState> {
    const { state } = await this.load(paymentId);
    const refund = state.refunds.get(refundId);
    const payment = state.payment;
    if (!refund || !payment || refund.status !== 'pending') return state;
    try {
      await runLedger(this.deps, payment.merchantId, payment.environment, payment.currency, releasingReserve(paymentId, refundPayment({ source: refundId, clearing: payment.clearing, amount: refund.amount })), meta, 'contended');
    } catch (err) {
      if (!isRefused(err, 'IKW-BAL-001')) throw err;
      const failed = await this.run(paymentId, { type: 'fail', owner: who, at: this.deps.clock.now(), refundId, failureReason: 'insufficient_funds' }, meta, 'internal');
      return failed.state;
    }
    const done = await this.run(paymentId, { type: 'succeed', owner: who, at: this.deps.clock.now(), refundId }, meta, 'internal');
    return done.state;
  }

  /** The crash mend of saga mode: finishes a refund left pending (the ledger posting is idempotent per refund). */
  async reconcile(job: RefundRef): Promise<void> {
    const meta = auditMetadata(this.deps.clock, job, job.refundId, { actor: 'scheduler', causationId: job.paymentId });
    await this.post(job, job.paymentId, job.refundId, meta);
  }

  /** 404 unless the payment is this merchant's (the refunds list of a payment). */
  async assertPayment(who: Owner, paymentId: string): Promise<void> {
    await this.ownedIntent(who, paymentId);
  }

  /** The payment intent's state, read once; 404 for another merchant's or none. */
  private async ownedIntent(who: Owner, paymentId: string): Promise<OwnedIntentState> {
    const { state } = await loadState(this.deps.store, paymentIntentStream(paymentId), paymentIntentAggregate);
    assertOwned(state.intent, who, `No such payment: '${paymentId}'`, 'paymentId');
    return state as OwnedIntentState;
  }
}
