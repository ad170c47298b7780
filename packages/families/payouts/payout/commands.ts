import { amountStep, getCurrency, getOperator, quoteFee } from '../../../catalog/index.js';
import type { Clock } from '../../../core/clock.js';
import type { Logger } from '../../../core/logger.js';
import { isRefused, Refusal } from '../../../core/refusal.js';
import { derivedId, newId } from '../../../core/ids.js';
import type { EventMetadata, EventStore } from '../../../eventstore/port.js';
import type { DomainEvent, Fact } from '../../../core/decider.js';
import type { Enqueue, Unschedule } from '../../../scheduler/scheduler.js';
import { connectorActor, nextStatusCheck, readStatus, sendAgain, type PayoutCallback, type StatusCheck } from '../../../connectors/callbacks.js';
import { AccountHolderMismatch, OutcomeUnknown, type PayoutInitiation, type PayoutReport, type PayoutRequest, type Rails } from '../../../connectors/port.js';
import { CommandService, handleCommand, handleCommandsAtomically, handleSteps, loadState, step, type AnyStep, type CommandStep, type ConflictPolicy, type HandleResult, type StepOutcome } from '../../../eventstore/command-handler.js';
import { ledgerStep, runLedger } from '../../ledger/index.js';
import { clearingOf } from '../../../ledger/clearing.js';
import type { LedgerAction, LedgerState } from '../../../ledger/decider.js';
import type { LedgerEntryEvent } from '../../../ledger/entry.js';
import type { Account } from '../../ledger/index.js';
import { completePayout, releasePayout } from './postings.js';
import { payoutSettings } from './settings-decider.js';
import type { PayoutSettings } from '../../merchants/index.js';
import { loadPayoutMethod } from '../payout-method/commands.js';
import { unusableReason } from '../payout-method/decider.js';
import { feeCountry, normalizeDestination, type DestinationInput } from '../payout-method/destination.js';
import type { Destination } from '../payout-method/events.js';
import { assertCapable, type CapabilityGate } from '../../platform/index.js';
import { activationCheck, assertLiveOpen, type ActivationGate } from '../../platform/index.js';
import type { CapabilityScope } from '../../platform/index.js';
import type { PayoutHistory } from '../../read-ports.js';
import { withinPayoutLimits, type LimitsGate, type RiskGate } from '../../risk/index.js';
import type { Verifications } from '../../accounts/index.js';
import { FINAL_PAYOUT_STATUSES, heldForReview, type Owner, type PayoutCommand, type PayoutState } from './decider.js';
import { payoutAggregate, toPayoutObject } from './render.js';
import type { PayoutFundingSources } from './funding.js';
import { payoutStream, type PayoutCreated, type PayoutEvent, type PayoutFunding, type PayoutObject, type PayoutSource } from './events.js';
import { UNATTENDED, type Actor, type Environment, type Requester } from '../../../core/owner.js';
import { isOwned } from '../../../core/aggregate.js';
import { auditMetadata } from '../../../eventstore/metadata.js';

export interface CreatePayoutInput {
  amount: number;
  currency: string;
  destination?: DestinationInput;
  payout_method_id?: string;
  metadata?: Record<string, string>;
}

export interface PayoutDeps {
  store: EventStore;
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

function expectedMs(destination: Destination): number {
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

/** The port's request of a payout: its id is the idempotency key with the operator. */
function payoutRequestOf(p: PayoutCreated): PayoutRequest {
  return { payoutId: p.id, merchantId: p.merchantId, environment: p.environment, amount: p.amount, currency: p.currency, destination: p.destination, ...(p.connector !== undefined ? { connector: p.connector } : {}) };
}

/** Where a paid payout's money went out: its rail's clearing account, or the operator's or banks' (payouts that recorded no connector). */
function clearingAccount(p: PayoutCreated): Account {
  return clearingOf(p.connector, p.destination.type === 'mobile_money' ? `operator_clearing:${p.destination.operator}` : 'bank_clearing');
}

/** Payouts: the balance hold, the payout stream, the provider, and the lifecycle driven by callbacks. */
export class Payouts extends CommandService<PayoutCommand, PayoutState, Fact<PayoutEvent>> {
  constructor(private readonly deps: PayoutDeps) {
    super(deps.store, payoutStream, payoutAggregate, { onConflict: 'internal' });
  }

  private metadata(owner: Owner, id: string, actor: Actor): EventMetadata {
    return auditMetadata(this.deps.clock, owner, id, actor);
  }


  /** The destination of a payout: inline, or a saved one that is this merchant's, active and past its safety delay. */
  private async destination(who: Owner, input: CreatePayoutInput): Promise<{ destination: Destination; payoutMethodId: string | null }> {
    // The payout's own currency first, so an unknown one is blamed on `currency`, not on the destination.
    if (!getCurrency(input.currency)) throw new Refusal('IKW-VAL-003', `Unknown currency '${input.currency}'`, 'currency');
    const given = (input.destination ? 1 : 0) + (input.payout_method_id ? 1 : 0);
    if (given !== 1) throw new Refusal('IKW-PAY-001', undefined, given === 0 ? 'destination' : 'payoutMethodId');
    if (input.destination) return { destination: normalizeDestination(input.destination, input.currency), payoutMethodId: null };
    const id = input.payout_method_id!;
    const state = await loadPayoutMethod(this.deps.store, id);
    const now = this.deps.clock.now();
    switch (unusableReason(state, who.merchantId, who.environment, now)) {
      case 'missing':
        throw new Refusal('IKW-PAY-002', `No such payout method: '${id}'`, 'payoutMethodId');
      case 'inactive':
        throw new Refusal('IKW-PAY-003', undefined, 'payoutMethodId');
      case 'safety_delay':
        throw new Refusal('IKW-PAY-004', `This payout method can receive payouts from ${state.method!.usableFrom}`, 'payoutMethodId');
      case null:
        break;
    }
    const saved = state.method!.destination;
    if (saved.currency !== input.currency.toLowerCase()) {
      throw new Refusal('IKW-VAL-009', `This payout method receives ${saved.currency}`, 'currency');
    }
    return { destination: saved, payoutMethodId: id };
  }

  /** The fee the balance must cover, from the same function as POST /api/v1/fees/quote. */
  fee(amount: number, destination: Destination): number {
    return quoteFee({
      amount,
      currency: destination.currency,
      direction: 'payout',
      method: destination.type,
      country: feeCountry(destination),
      ...(destination.type === 'mobile_money' ? { operator: destination.operator } : {}),
    }).fee;
  }

  /** The step of the amounts a payout to `destination` may have (fee quotes refuse others): 1 unless its operator takes whole currency units only. */
  amountStep(destination: Destination): number {
    if (destination.type !== 'mobile_money') return 1;
    const operator = getOperator(feeCountry(destination), destination.operator);
    const currency = getCurrency(destination.currency);
    return operator && currency ? amountStep(operator, currency.minorUnits) : 1;
  }

  /**
   * What the merchant's capabilities and activations allow for payouts to this destination's
   * method: refused outright (IKW-CAP-001, IKW-CAP-002, IKW-CFG-001), or a check of each amount
   * against the activation's bounds (IKW-CFG-002). `field` names the destination, as the command does.
   */
  async allowance(owner: Owner, destination: Destination, field: string): Promise<(amount: number) => void> {
    const country = feeCountry(destination);
    const scope: CapabilityScope = { country, currency: destination.currency, paymentMethodType: destination.type, operator: destination.type === 'mobile_money' ? destination.operator : null };
    await assertCapable(this.deps.capabilities, owner, scope, field);
    const rule = await this.deps.activations.activationRule(owner, country, destination.currency);
    return activationCheck(rule, 'payout', `${country} (${destination.currency.toLowerCase()})`, { direction: field, amount: 'amount' });
  }

  /** IKW-PRV-005 when the owner is live and the platform operator has not opened it (or closed it again): no new payout. */
  assertLiveOpen(owner: Owner): Promise<void> {
    return assertLiveOpen(this.deps.activations, owner, 'amount');
  }

  /**
   * The provider's check of a destination (a bank account holder's name, docs/connectors.md
   * "Paystack"): refused with the provider's reason, or nothing. Asked last, once nothing else
   * would refuse the payout, since its refusal tells the holder's name: each check of a bank
   * account counts against the merchant's credential (`actor`) unless the name was as given, and the
   * name shows whole only to a signed-in user with payouts rights (masked otherwise: `A** O**`).
   */
  async verifyDestination(owner: Owner, destination: Destination, by: Requester, actor: Actor): Promise<void> {
    const rails = this.deps.rails(owner.environment);
    if (destination.type !== 'bank') return rails.verifyDestination(destination, owner);
    const counted = await this.deps.nameChecks(owner, actor.actor);
    try {
      await rails.verifyDestination(destination, owner);
    } catch (err) {
      if (!isRefused(err, 'IKW-PRV-010', 'IKW-PRV-011')) await counted.giveBack();
      throw err instanceof AccountHolderMismatch && !by.seesHolderNames ? err.masked() : err;
    }
    await counted.giveBack();
  }

  /**
   * Refuses a payout its funding source cannot hold now (IKW-BAL-001, a seller's IKW-MKT-007), or
   * whose steps before it refuse (a challenge already used), committing nothing: the provider's
   * check of a bank account comes after. The commit decides them all again.
   */
  private async assertCovered(p: PayoutCreated, meta: EventMetadata, before: AnyStep[] = []): Promise<void> {
    // Only a bank account's check can tell a name; elsewhere the dry run would only cost reads of
    // streams the commit reads again (outside the remembered states: test/integration/stream-cache.test.ts).
    if (p.destination.type !== 'bank') return;
    for (const s of [...before, await this.holdStep(p, p, meta)]) s.decider.decide(s.command, (await loadState(this.deps.store, s.streamId, s.decider)).state);
  }

  /** What a payout to `destination` costs, once the environment's connector is known to send it (IKW-PRV-001 otherwise). */
  quote(environment: Environment, amount: number, destination: Destination): number {
    this.deps.rails(environment).assertCanPayOut(destination, { amount, currency: destination.currency });
    return this.fee(amount, destination);
  }

  /**
   * Creates a payout: the balance check and hold, the payout, then the operator. `requestRef`
   * (the Idempotency-Key with the request's fingerprint) names the payout, so that a request
   * retried after a crash finds the payout the first attempt made and carries it on: one request,
   * one payout, whatever was lost in between. `by` is who asks: the rule of inline destinations
   * (newDestinationsGuard) depends on it.
   */
  async create(owner: Owner, input: CreatePayoutInput, by: Requester, source: PayoutSource, actor: Actor, requestRef?: string, funding?: PayoutFunding): Promise<PayoutObject> {
    if (by.userId === null && by.challengeId !== null) throw new Refusal('IKW-VAL-002', 'challenge_id is a signed-in user’s second factor; an API key has none', 'challengeId');
    const { destination, payoutMethodId } = await this.destination(owner, input);
    await this.assertLiveOpen(owner);
    this.deps.rails(owner.environment).assertCanPayOut(destination, { amount: input.amount, currency: destination.currency });
    (await this.allowance(owner, destination, input.destination ? 'destination' : 'payoutMethodId'))(input.amount);
    const fee = this.fee(input.amount, destination);
    const id = requestRef === undefined ? newId('po') : payoutIdOf(owner, source, requestRef);
    const meta = this.metadata(owner, id, actor);
    if (requestRef !== undefined) {
      const earlier = await this.load(id);
      if (earlier.state.payout) return this.initiate(earlier.state, meta);
    }
    const guard = await this.newDestinationsGuard(owner, payoutMethodId === null ? [destination] : [], by, actor);
    // The merchant's risk rules before any money is held: a block refuses here; a review holds the payout until a person releases it.
    const verdict = await this.deps.risk.assessPayout(owner, { payoutId: id, amount: input.amount, currency: destination.currency, destination }, actor);
    const review = verdict.decision === 'review' ? { reasons: verdict.reasons.filter((r) => r.action === 'review').map((r) => r.reason) } : undefined;
    const payout = await this.prepare(owner, id, { amount: input.amount, fee, destination, payoutMethodId, metadata: input.metadata ?? {}, source, ...(funding ? { funding } : {}), ...(review ? { review } : {}) });
    // The provider's check of the destination, the last refusal before anything is held: after the challenge and the funds.
    await this.assertCovered(payout.payout, meta, guard);
    await this.verifyDestination(owner, destination, by, actor);
    // Funded from the merchant's available balance, or a marketplace seller's available funds
    // (IKW-MKT-007 when short); contention on them is decided again, never a 409.
    const created = (await this.open(payout, meta, 'contended', guard)) ?? (await this.holdThenCreate(payout, meta, guard));
    return this.initiate(created, meta);
  }

  /**
   * The rule of new destinations (docs/decisions.md, "Payouts"): what must commit before the
   * payout (a signed-in user's challenge, used up with it), or a refusal. `destinations` are those
   * of the payout that wait no safety delay: an inline one, or every item of a payout batch
   * (inline or to a saved recipient); a saved payout method has its delay and is none of them. An
   * API key pays them unless the merchant's settings refuse it (IKW-PAY-008, on `keyField`); in
   * live, a user pays one the merchant never paid only with a fresh second factor (IKW-PAY-007):
   * sandbox moves no money. A challenge given is used, needed or not, as with the settings.
   */
  async newDestinationsGuard(owner: Owner, destinations: readonly Destination[], by: Requester, actor: Actor, keyField = 'destination', keyMessage?: string): Promise<AnyStep[]> {
    if (by.userId === null && by.challengeId !== null) throw new Refusal('IKW-VAL-002', 'challenge_id is a signed-in user’s second factor; an API key has none', 'challengeId');
    if (by.userId !== null && by.challengeId !== null) return [this.deps.verifications.consumption(by.challengeId, 'payouts/new-destination', null, by.userId, actor)];
    if (destinations.length === 0) return [];
    if (by.userId === null) {
      if (!(await this.deps.settings(owner)).inlineDestinationsForApiKeys) throw new Refusal('IKW-PAY-008', keyMessage, keyField);
      return [];
    }
    if (owner.environment === 'live' && (await this.deps.history.neverPaid(owner, destinations)).length > 0) throw new Refusal('IKW-PAY-007', undefined, 'challengeId');
    return [];
  }

  /**
   * The creation command of a payout, once its overdue check is set: it does nothing for a payout
   * that was never created. (Saga mode sets the reconcile job too: scheduleMend.)
   */
  private async prepare(
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
   * Queues the payout of a batch item: its hold is carved out of the batch's hold and the payout
   * is created pending, in one commit where the store allows it; it is sent when the batch
   * dispatches it. Idempotent: the id comes from the batch, the item and the attempt, so a run
   * resumed after a crash lands on the same payout. In saga mode the payout comes first and its
   * allocation after: nothing is sent before both exist, since dispatch follows this call.
   */
  async queueBatchPayout(owner: Owner, input: BatchPayoutInput, actor: Actor): Promise<void> {
    const meta = this.metadata(owner, input.payoutId, actor);
    let queued = (await this.load(input.payoutId)).state.payout;
    if (!queued) {
      const payout = await this.prepare(owner, input.payoutId, {
        amount: input.amount,
        fee: input.fee,
        destination: input.destination,
        payoutMethodId: null,
        metadata: input.metadata,
        source: 'payout_engine',
        batch: { id: input.batchId, index: input.index, attempt: input.attempt },
      });
      if (await this.open(payout, meta, 'internal')) return;
      await this.scheduleMend(payout.payout);
      await this.run(input.payoutId, payout, meta, 'internal');
      queued = payout.payout;
    }
    const allocation = await this.holdStep(owner, queued, meta);
    await handleCommand(this.deps.store, allocation.streamId, allocation.decider, allocation.command, meta, { onConflict: 'internal' });
  }

  /**
   * Sends queued batch payouts in waves (the caller bounds how many of a wave go to one operator).
   * One commit records a wave's dispatches together with the answers to the wave before it, then
   * the wave's operators are asked side by side; a last commit records the last wave's answers:
   * n waves cost n + 1 commits instead of 2n. A payout is recorded dispatched before its operator
   * is asked, and an answer is lost only with its commit, in which case the resumed run asks again
   * (operators dedupe by payout id). `proceed` is asked before each wave: false stops the sending
   * there (a cancel); the answers already had are recorded all the same. A payout canceled
   * meanwhile, or already answered, is left as it is (its ledger side posted if final). Returns how
   * many waves were dispatched.
   */
  async dispatchBatchPayouts(waves: readonly (readonly PayoutRef[])[], actor: Actor, proceed: () => Promise<boolean> = async () => true): Promise<number> {
    const onPayout = (ref: PayoutRef, command: PayoutCommand) => step({ streamId: payoutStream(ref.payoutId), decider: payoutAggregate, command, metadata: this.metadata(ref, ref.payoutId, actor) });
    let answered: { ref: PayoutRef; result: PayoutInitiation }[] = [];
    let sent = 0;
    for (;;) {
      const wave = sent < waves.length && (await proceed()) ? waves[sent]! : null;
      if (!wave && answered.length === 0) return sent;
      const at = this.deps.clock.now();
      const results = await handleSteps(
        this.deps.store,
        [...answered.map(({ ref, result }) => onPayout(ref, { type: 'submit', owner: ref, at, result })), ...(wave ?? []).map((ref) => onPayout(ref, { type: 'dispatch', owner: ref, at }))],
        { onConflict: 'internal' },
      );
      const refs = [...answered.map((a) => a.ref), ...(wave ?? [])];
      const states = results.map((r) => r.state as PayoutState);
      // Final ones (refused by the operator, or final before this call): their ledger side, once.
      await Promise.all(states.map((state, i) => this.settleLedger(state, this.metadata(refs[i]!, refs[i]!.payoutId, actor))));
      if (!wave) return sent;
      sent++;
      const dispatched = states.slice(answered.length);
      const answers = await Promise.all(dispatched.map((state) => (state.status === 'pending' ? this.askOperator(state) : null)));
      answered = wave.flatMap((ref, i) => {
        const result = answers[i];
        return result && result !== 'unknown' ? [{ ref, result }] : [];
      });
    }
  }

  /**
   * The operator's answer to a pending payout; null when the call failed (left pending: the
   * operator's status check decides later), `unknown` when it may have reached the operator.
   * The payout id is committed already; the first status check is set before the call, so that
   * a process dying with the request sent leaves it to be found.
   */
  private async askOperator(state: PayoutState): Promise<PayoutInitiation | 'unknown' | null> {
    const p = state.payout!;
    const rails = this.deps.rails(p.environment);
    const checks = rails.statusChecks('payout', p.destination, p.connector);
    if (checks) {
      const check: PayoutStatusCheck = { merchantId: p.merchantId, environment: p.environment, connector: checks.connector, attempt: 0, direction: 'payout', payoutId: p.id };
      await this.deps.scheduleStatusCheck(check, new Date(this.deps.clock.now().getTime() + checks.schedule[0]!));
    }
    try {
      return await rails.payout(payoutRequestOf(p));
    } catch (err) {
      this.deps.log.error({ err, payout_id: p.id }, 'payout initiation failed; left pending');
      return err instanceof OutcomeUnknown && checks ? 'unknown' : null;
    }
  }

  /** Cancels a queued batch payout that was never dispatched, giving its hold back; one already dispatched goes on. */
  async cancelBatchPayout(ref: PayoutRef, actor: Actor): Promise<PayoutObject | null> {
    const meta = this.metadata(ref, ref.payoutId, actor);
    const { state } = await this.load(ref.payoutId);
    if (!state.payout) return null;
    if (state.status !== 'pending' || state.dispatched) return toPayoutObject(state);
    try {
      return toPayoutObject(await this.commitWithEnd(state.payout, { type: 'cancel', owner: ref, at: this.deps.clock.now() }, 'released', meta));
    } catch (err) {
      // Dispatched between the read and the cancel: it goes on.
      if (isRefused(err, 'IKW-RES-002')) return toPayoutObject((await this.load(ref.payoutId)).state);
      throw err;
    }
  }

  /**
   * A payout's hold of amount + fee on the account its funding source holds from (its source's
   * recipe), within the account's limits (docs/limits.md): the one place every payout's hold is
   * made, so a freeze, a maximum and the day's cap hold for every entry point. A batch's payouts
   * were decided with their batch's execution (`withinLimits`), so their carvings are not again.
   */
  private async holdStep(owner: Owner, p: PayoutCreated, meta: EventMetadata): Promise<AnyStep> {
    const hold = this.deps.funding.hold(p);
    const action = p.batch ? hold : await this.withinLimits(owner, { source: p.id, amount: p.amount, largest: p.amount }, hold);
    return ledgerStep(this.deps.clock, { ...owner, currency: p.currency }, action, meta);
  }

  /** A hold of payouts (one payout's, a batch execution's: `largest` its largest item) decided within the account's limits as its commit finds the balance. */
  async withinLimits(owner: Owner, payouts: { source: string; amount: number; largest: number }, hold: LedgerAction): Promise<LedgerAction> {
    return withinPayoutLimits(await this.deps.limits.limitsOf(owner), payouts, hold);
  }

  /**
   * The one way a payout comes to exist, whatever family asks: its hold on the account it is
   * funded from and its creation in one commit, after the caller's own steps (`before`: an escrow
   * release's execution). Null on a store without atomic commits: the caller runs its saga.
   */
  private async open(payout: PayoutCommand & { type: 'create' }, meta: EventMetadata, onConflict: ConflictPolicy, before: AnyStep[] = []): Promise<PayoutState | null> {
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
  private async holdThenCreate(payout: PayoutCommand & { type: 'create' }, meta: EventMetadata, before: AnyStep[] = []): Promise<PayoutState> {
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
  private scheduleMend(p: PayoutCreated): Promise<void> {
    const at = new Date(this.deps.clock.now().getTime() + RECONCILE_AFTER_MS);
    return this.deps.scheduleReconcile({ merchantId: p.merchantId, environment: p.environment, currency: p.currency, payoutId: p.id }, at);
  }

  /**
   * Hands a pending payout to the operator and records its answer. After a crash the operator may
   * be asked again: it dedupes by payout id. A payout past pending is answered as it is.
   */
  private async initiate(state: PayoutState, meta: EventMetadata): Promise<PayoutObject> {
    const p = state.payout!;
    // Held for review: sent only once a person releases it (releaseReview).
    if (heldForReview(state)) return toPayoutObject(state);
    if (state.status !== 'pending') {
      await this.settleLedger(state, meta);
      return toPayoutObject(state);
    }
    const owner: Owner = { merchantId: p.merchantId, environment: p.environment };
    const initiation = await this.askOperator(state);
    // Perhaps with the operator: no longer cancelable, as a batch's payout once handed over.
    if (initiation === 'unknown') return toPayoutObject((await this.run(p.id, { type: 'dispatch', owner, at: this.deps.clock.now() }, meta)).state);
    // The payout exists and its funds are held: answer it as it is (pending), so a retry with
    // the same Idempotency-Key finds it instead of paying out twice.
    if (!initiation) return toPayoutObject((await this.load(p.id)).state);
    const submitted = await this.commitWithEnd(p, { type: 'submit', owner, at: this.deps.clock.now(), result: initiation }, initiation.status === 'rejected' ? 'released' : null, meta);
    return toPayoutObject(submitted);
  }

  /**
   * The steps a payout's end commits with its own event: its ledger side first (the contended
   * stream): paid → clearing + fees, failed or canceled → the hold back to where it came from
   * (the ledger's hold knows), with what its funding source returns besides (an escrow contract
   * taking its release back). Idempotent.
   */
  private endSteps(p: PayoutCreated, outcome: 'paid' | 'released', meta: EventMetadata): { ledger: AnyStep; others: AnyStep[] } {
    const others = outcome === 'released' ? this.deps.funding.returnSteps(p, this.deps.clock.now(), meta) : [];
    const action = outcome === 'paid' ? completePayout(p.id, clearingAccount(p)) : releasePayout(p.id);
    return { ledger: ledgerStep(this.deps.clock, { merchantId: p.merchantId, environment: p.environment, currency: p.currency }, action, meta), others };
  }

  /**
   * A payout command that may end the payout (an operator refusing it at once, a cancel), in one
   * commit with the end's ledger side: the posting runs only if the payout is final after the
   * command (`when`), so a repeat posts nothing twice and still finishes what a crash left on a
   * store without atomic commits.
   */
  private async commitWithEnd(p: PayoutCreated, command: PayoutCommand, outcome: 'paid' | 'released' | null, meta: EventMetadata, onConflict: ConflictPolicy = 'internal'): Promise<PayoutState> {
    if (!outcome) return (await this.run(p.id, command, meta, onConflict)).state;
    const { ledger, others } = this.endSteps(p, outcome, meta);
    const ended = ([payout]: readonly StepOutcome[]) => FINAL_PAYOUT_STATUSES.includes((payout!.state as PayoutState).status);
    const [result] = await handleSteps(
      this.deps.store,
      [step({ streamId: payoutStream(p.id), decider: payoutAggregate, command, metadata: meta }), ...[ledger, ...others].map((s) => ({ ...s, when: ended }))],
      { onConflict },
    );
    await this.dropOverdueCheckIfEnded(result!.state as PayoutState);
    return result!.state as PayoutState;
  }

  /**
   * An ended payout's overdue check would find it final and do nothing, yet cost a claim, a read
   * of its stream and a delete at expected_by: dropped now instead, in one statement with the
   * other payouts ending meanwhile. A drop that fails leaves the check, which does nothing.
   */
  private async dropOverdueCheckIfEnded(state: PayoutState): Promise<void> {
    const p = state.payout;
    if (!p || !FINAL_PAYOUT_STATUSES.includes(state.status)) return;
    try {
      await this.deps.dropOverdueCheck({ merchantId: p.merchantId, environment: p.environment, payoutId: p.id }, new Date(p.expectedBy));
    } catch (err) {
      this.deps.log.warn({ err, payout_id: p.id }, 'the overdue check of an ended payout was not dropped; it will find the payout final');
    }
  }

  /** Posts the ledger side of a final payout (a payout not final has none). */
  private async settleLedger(state: PayoutState, meta: EventMetadata): Promise<void> {
    if (!FINAL_PAYOUT_STATUSES.includes(state.status)) return;
    // As an atomic change: the payouts of one balance settled meanwhile share its commit (command-handler.ts).
    const { ledger, others } = this.endSteps(state.payout!, state.status === 'paid' ? 'paid' : 'released', meta);
    await handleSteps(this.deps.store, [ledger, ...others], { onConflict: 'internal' });
  }

  /** Operator news about a payout (sandbox timers, live callbacks). Idempotent. */
  async applyCallback(callback: PayoutCallback): Promise<PayoutObject | null> {
    return this.applyOn((await this.load(callback.payoutId)).state, callback);
  }

  /**
   * Operator news about many payouts (a batch of `payout.callback` jobs: never two of one payout),
   * applied side by side, so that the final answers of one balance are decided together and share
   * its commit with their ledger sides (finalWithLedger). Each starts from the state this process
   * remembers, unread: every command is decided again on the state its append proves current, so
   * a stale one only costs a read or the step-by-step way. The answer per callback: null, or its
   * error (the others are not held back by it).
   */
  applyCallbacks(callbacks: readonly PayoutCallback[]): Promise<(Error | null)[]> {
    return Promise.all(
      callbacks.map(async (callback) => {
        try {
          await this.applyOn((await this.recall(callback.payoutId)).state, callback);
          return null;
        } catch (err) {
          return err instanceof Error ? err : new Error(String(err));
        }
      }),
    );
  }

  private async applyOn(state: PayoutState, callback: PayoutCallback): Promise<PayoutObject | null> {
    const owner: Owner = { merchantId: callback.merchantId, environment: callback.environment };
    const meta = this.metadata(owner, callback.payoutId, { actor: connectorActor(callback) });
    if (!state.payout) return null;
    const at = this.deps.clock.now();
    const r = callback.report;
    const command: PayoutCommand =
      r.type === 'delayed'
        ? { type: 'report_delay', owner, at, reason: r.reason }
        : r.type === 'paid'
          ? { type: 'complete', owner, at, ...(r.providerReference ? { providerReference: r.providerReference } : {}) }
          : { type: 'fail', owner, at, failureCode: r.failureCode, failureMessage: r.failureMessage };
    if (command.type === 'complete' || command.type === 'fail') {
      const final = await this.finalWithLedger(state, command, meta);
      if (final) {
        await this.dropOverdueCheckIfEnded(final);
        return toPayoutObject(final);
      }
    }
    const result = await this.run(callback.payoutId, command, meta);
    await this.settleLedger(result.state, meta);
    await this.dropOverdueCheckIfEnded(result.state);
    return toPayoutObject(result.state);
  }

  /**
   * A payout made final (paid or failed) in one commit with its ledger side, where the store
   * allows it: the ledger's stream first, so the payouts of one balance that end meanwhile share
   * one commit (command-handler.ts) instead of two commits each; no read shows a failed payout
   * whose money is not back. The payout's command is strict: should the payout be final already,
   * nothing is committed (not the ledger side alone) and null sends the caller the step-by-step way.
   */
  private async finalWithLedger(state: PayoutState, command: PayoutCommand & { type: 'complete' | 'fail' }, meta: EventMetadata): Promise<PayoutState | null> {
    const p = state.payout!;
    if (FINAL_PAYOUT_STATUSES.includes(state.status)) return null;
    const { ledger, others } = this.endSteps(p, command.type === 'complete' ? 'paid' : 'released', meta);
    const atomic = handleCommandsAtomically(
      this.deps.store,
      [ledger, step({ streamId: payoutStream(p.id), decider: payoutAggregate, command: { ...command, strict: true }, metadata: meta }), ...others],
      { onConflict: 'internal' },
    );
    if (!atomic) return null;
    try {
      return (await atomic)[1]!.state as PayoutState;
    } catch (err) {
      if (isRefused(err, 'IKW-RES-002')) return null;
      throw err;
    }
  }

  /**
   * A status check of a payout with no final answer (docs/connectors.md, "Status checks"): the
   * operator's record decides. Not found: it never arrived, and is sent again under the same id.
   * Found: followed (taken, delayed, paid, failed), once its amount and currency match the
   * payout. Nothing final: asked again on the connector's schedule; when that runs out the payout
   * stays open, listed for review, never failed by guess.
   */
  async checkStatus(check: PayoutStatusCheck): Promise<void> {
    const owner: Owner = { merchantId: check.merchantId, environment: check.environment };
    let { state } = await this.load(check.payoutId);
    const p = state.payout;
    if (!isOwned(p, owner) || FINAL_PAYOUT_STATUSES.includes(state.status)) return;
    const meta = this.metadata(owner, p.id, { actor: connectorActor(check) });
    const rails = this.deps.rails(p.environment);
    const log = this.deps.log.child({ payout_id: p.id, check: check.attempt });
    const checks = rails.statusChecks('payout', p.destination, p.connector);
    const answer = await rails.payoutStatus(payoutRequestOf(p));
    const reading = readStatus(answer, p, { sendsAgain: checks?.sendsAgain ?? false, ...check });
    let report: PayoutReport | null = null;
    if (reading.kind === 'absent') log.warn('the operator has no record of the payout and it is not sent again; the next check asks again');
    else if (reading.kind === 'resend') {
      log.warn('the operator never received the payout; sent again under the same id');
      const again = await sendAgain(() => rails.payout(payoutRequestOf(p)), (err) => log.warn({ err }, 'the payout sent again has no answer; the next check decides'));
      if (again?.status === 'rejected') report = { type: 'failed', failureCode: again.failureCode, failureMessage: again.failureMessage };
      else if (again) state = await this.commitWithEnd(p, { type: 'submit', owner, at: this.deps.clock.now(), result: again }, null, meta);
    } else {
      if (reading.kind === 'review') {
        log.error({ reported: answer.found && answer.reported }, `the operator's record does not match the payout (${reading.mismatch}); nothing applied, left for review`);
        return;
      }
      // Taken: a payout whose answer never came back is in transit from now on.
      if (state.status === 'pending') state = await this.commitWithEnd(p, { type: 'submit', owner, at: this.deps.clock.now(), result: { status: 'accepted' } }, null, meta);
      report = reading.final ?? (answer.found && answer.delayed ? { type: 'delayed', reason: answer.delayed } : null);
    }
    const after = report ? await this.applyOn(state, { payoutId: p.id, ...owner, report, connector: check.connector }) : toPayoutObject(state);
    if (after && FINAL_PAYOUT_STATUSES.includes(after.status)) return;
    const next = nextStatusCheck(checks?.schedule ?? [], check, this.deps.clock.now(), reading.kind === 'resend');
    if (next) await this.deps.scheduleStatusCheck(next.check, next.at);
    else if (!check.prompted) {
      log.error('no final answer after every status check; the payout stays open, left for review');
      // Late past every check: the overlay says the operator timed out (its status is untouched).
      await this.run(p.id, { type: 'report_delay', owner, at: this.deps.clock.now(), reason: 'operator_timeout' }, meta);
    }
  }

  /**
   * Releases a payout the risk rules held for review (docs/risk.md): it is sent now. Once released,
   * releasing again sends nothing and answers the payout as it is; a payout never held is
   * IKW-LIM-009; another merchant's is 404.
   */
  async releaseReview(owner: Owner, id: string, actor: Actor): Promise<PayoutObject> {
    const meta = this.metadata(owner, id, actor);
    const { state } = await this.load(id);
    if (!isOwned(state.payout, owner)) throw new Refusal('IKW-RES-001', `No such payout: '${id}'`, 'payoutId');
    if (!state.payout.review) throw new Refusal('IKW-LIM-009', undefined, 'payoutId');
    const released = await this.run(id, { type: 'release_review', owner, at: this.deps.clock.now() }, meta);
    if (released.events.length === 0) return toPayoutObject(released.state);
    // Its expected_by may have passed while it waited: late from the operator's usual time after its release.
    await this.deps.scheduleOverdueCheck({ ...owner, payoutId: id }, new Date(this.deps.clock.now().getTime() + expectedMs(state.payout.destination)));
    return this.initiate(released.state, meta);
  }

  /**
   * Declines a payout the risk rules held for review (docs/risk.md): it fails (`declined_in_review`)
   * without reaching a rail, and its hold goes back in the same commit. Declining again answers the
   * payout as it is; a payout not held (never, or released) is IKW-LIM-009; another merchant's is 404.
   */
  async declineReview(owner: Owner, id: string, reason: string | undefined, actor: Actor): Promise<PayoutObject> {
    const meta = this.metadata(owner, id, actor);
    const { state } = await this.load(id);
    if (!isOwned(state.payout, owner)) throw new Refusal('IKW-RES-001', `No such payout: '${id}'`, 'payoutId');
    const command: PayoutCommand = { type: 'decline_review', owner, at: this.deps.clock.now(), ...(reason !== undefined ? { reason } : {}) };
    return toPayoutObject(await this.commitWithEnd(state.payout, command, 'released', meta));
  }

  /** Whose payout this is, for the operators, who act on every merchant's (null: no such payout). */
  async ownerOf(id: string): Promise<Owner | null> {
    const p = (await this.load(id)).state.payout;
    return p ? { merchantId: p.merchantId, environment: p.environment } : null;
  }

  /** At expected_by: a payout still not final gets the delay overlay (reason `unknown` unless the operator said more). */
  async checkOverdue(owner: PayoutRef): Promise<void> {
    const { state } = await this.load(owner.payoutId);
    if (!state.payout) return;
    await this.run(owner.payoutId, { type: 'check_overdue', owner, at: this.deps.clock.now() }, this.metadata(owner, owner.payoutId, { actor: 'scheduler' }));
  }

  /**
   * Mends a crash: a hold whose payout was never created is released; a final payout whose ledger
   * side was not posted gets it now. Both steps are idempotent.
   */
  async reconcile(owner: PayoutRef & { currency: string }): Promise<void> {
    const meta = this.metadata(owner, owner.payoutId, { actor: 'scheduler' });
    const { state } = await this.load(owner.payoutId);
    if (!state.payout) {
      await runLedger(this.deps.store, this.deps.clock, owner.merchantId, owner.environment, owner.currency, releasePayout(owner.payoutId), meta);
      return;
    }
    await this.settleLedger(state, meta);
  }

  /**
   * A payout of funds a family released to the merchant (an escrow release, docs/escrow.md): its
   * hold comes out of the funding source its record names (`held`) instead of `available`, in one
   * commit with the family's own step (`ownStep`, given the payout's fee; it may refuse it). The
   * payout sends the released amount less its fee. The family names the payout, so a step retried
   * after a crash finds it.
   */
  async createFromReleased(
    owner: Owner,
    input: { payoutId: string; payoutMethodId: string; currency: string; amount: number; metadata: Record<string, string>; source: PayoutSource; held: Pick<PayoutCreated, 'escrow'> },
    ownStep: (fee: number) => CommandStep<unknown, unknown, DomainEvent>,
    actor: Actor,
    by: Requester | 'scheduled',
  ): Promise<{ payoutId: string; fee: number }> {
    const meta = this.metadata(owner, input.payoutId, actor);
    const earlier = await this.load(input.payoutId);
    if (earlier.state.payout) {
      await this.initiate(earlier.state, meta);
      return { payoutId: input.payoutId, fee: earlier.state.payout.fee };
    }
    const { destination } = await this.destination(owner, { amount: input.amount, currency: input.currency, payout_method_id: input.payoutMethodId });
    await this.assertLiveOpen(owner);
    this.deps.rails(owner.environment).assertCanPayOut(destination, { amount: input.amount, currency: destination.currency });
    const fee = this.fee(input.amount, destination);
    const before = ownStep(fee);
    (await this.allowance(owner, destination, 'payoutMethodId'))(input.amount - fee);
    const guard = await this.releasedFundsGuard(owner, destination, by, actor);
    const payout = await this.prepare(owner, input.payoutId, {
      amount: input.amount - fee,
      fee,
      destination,
      payoutMethodId: input.payoutMethodId,
      metadata: input.metadata,
      source: input.source,
      ...input.held,
    });
    await this.assertCovered(payout.payout, meta, [before, ...guard]);
    await this.verifyDestination(owner, destination, by === 'scheduled' ? UNATTENDED : by, actor);
    // The family's step, the payout's hold out of the funds it released, the challenge used and the payout: one commit.
    if (!(await this.open(payout, meta, 'contended', [before, ...guard]))) {
      await this.scheduleMend(payout.payout);
      const steps = [before, ...guard, await this.holdStep(owner, payout.payout, meta), step({ streamId: payoutStream(input.payoutId), decider: payoutAggregate, command: payout, metadata: meta })];
      await handleSteps(this.deps.store, steps, { onConflict: 'contended' });
    }
    await this.initiate((await this.load(input.payoutId)).state, meta);
    return { payoutId: input.payoutId, fee };
  }

  /**
   * The rule of new destinations for funds a family releases (escrow): a saved payout method this
   * merchant never paid is under newDestinationsGuard when a request pays it, since its safety
   * delay may have run out unnoticed while the money sat held. A scheduled execution (auto-release,
   * a dispute's resolution) has nobody to answer a challenge: in live it never pays a destination
   * never paid (IKW-PAY-007; the release waits for a request that may give one).
   */
  private async releasedFundsGuard(owner: Owner, destination: Destination, by: Requester | 'scheduled', actor: Actor): Promise<AnyStep[]> {
    const never = await this.deps.history.neverPaid(owner, [destination]);
    if (by !== 'scheduled') return this.newDestinationsGuard(owner, never, by, actor, 'payoutMethodId', 'API keys pay only payout methods paid before (inline_destinations_for_api_keys is false)');
    if (owner.environment === 'live' && never.length > 0) throw new Refusal('IKW-PAY-007', 'A scheduled release pays only a destination paid before: execute it with a second factor', 'challengeId');
    return [];
  }

  /** POST /api/v1/merchant/payouts: the dashboard may leave the destination out, for the merchant's default saved one. */
  async createFromDashboard(owner: Owner, input: CreatePayoutInput, by: Requester, actor: Actor, requestRef?: string): Promise<PayoutObject> {
    let body = input;
    if (body.destination === undefined && body.payout_method_id === undefined) {
      const { settings } = await payoutSettings(this.deps.store, owner.merchantId, owner.environment);
      if (settings.defaultPayoutMethodId) body = { ...body, payout_method_id: settings.defaultPayoutMethodId };
    }
    return this.create(owner, body, by, 'merchant_portal', actor, requestRef);
  }
}
