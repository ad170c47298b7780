import { amountStep, getCurrency, getOperator, quoteFee } from '#packages/catalog/index.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import { newId } from '#packages/core/ids.js';
import { AccountHolderMismatch } from '#packages/connectors/port.js';
import type { AnyStep } from '#packages/eventstore/command-handler.js';
import { runLedger } from '#packages/families/ledger/index.js';
import { releasePayout } from './postings.js';
import { payoutSettings } from './settings-decider.js';
import { loadPayoutMethod } from '../payout-method/commands.js';
import { unusableReason } from '../payout-method/decider.js';
import { feeCountry, normalizeDestination } from '../payout-method/destination.js';
import type { Destination } from '../payout-method/events.js';
import { assertCapable } from '#packages/families/platform/index.js';
import { activationCheck, assertLiveOpen } from '#packages/families/platform/index.js';
import type { CapabilityScope } from '#packages/families/platform/index.js';
import type { Owner } from './decider.js';
import type { PayoutFunding, PayoutObject, PayoutSource } from './events.js';
import type { Actor, Environment, Requester } from '#packages/core/owner.js';
import { payoutIdOf, type PayoutCommits, type CreatePayoutInput, type PayoutDeps, type PayoutRef } from './commands.js';
import type { PayoutOperatorSide } from './operator-side.js';
import { payoutErrors } from '../errors.js';

/**
 * The creation of a payout at a merchant's request (the API, the dashboard, the families paying
 * from their own sources): the checks a payout passes before anything is held, the hold and the
 * payout in one commit, then the operator. Other use cases ask it the same checks.
 */
export class PayoutCreation {
  constructor(
    private readonly deps: PayoutDeps,
    private readonly commits: PayoutCommits,
    private readonly operatorSide: PayoutOperatorSide,
  ) {}

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
    const meta = this.commits.metadata(owner, id, actor);
    if (requestRef !== undefined) {
      const earlier = await this.commits.load(id);
      if (earlier.state.payout) return this.operatorSide.initiate(earlier.state, meta);
    }
    const guard = await this.newDestinationsGuard(owner, payoutMethodId === null ? [destination] : [], by, actor);
    // The merchant's risk rules before any money is held: a block refuses here; a review holds the payout until a person releases it.
    const verdict = await this.deps.risk.assessPayout(owner, { payoutId: id, amount: input.amount, currency: destination.currency, destination }, actor);
    const review = verdict.decision === 'review' ? { reasons: verdict.reasons.filter((r) => r.action === 'review').map((r) => r.reason) } : undefined;
    const payout = await this.commits.prepare(owner, id, { amount: input.amount, fee, destination, payoutMethodId, metadata: input.metadata ?? {}, source, ...(funding ? { funding } : {}), ...(review ? { review } : {}) });
    // The provider's check of the destination, the last refusal before anything is held: after the challenge and the funds.
    await this.commits.assertCovered(payout.payout, meta, guard);
    await this.verifyDestination(owner, destination, by, actor);
    // Funded from the merchant's available balance, or a marketplace seller's available funds
    // (IKW-MKT-007 when short); contention on them is decided again, never a 409.
    const created = (await this.commits.open(payout, meta, 'contended', guard)) ?? (await this.commits.holdThenCreate(payout, meta, guard));
    return this.operatorSide.initiate(created, meta);
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

  /** What a payout to `destination` costs, once the environment's connector is known to send it (IKW-PRV-001 otherwise). */
  quote(environment: Environment, amount: number, destination: Destination): number {
    this.deps.rails(environment).assertCanPayOut(destination, { amount, currency: destination.currency });
    return this.fee(amount, destination);
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

  /** The destination of a payout: inline, or a saved one that is this merchant's, active and past its safety delay. */
  async destination(who: Owner, input: CreatePayoutInput): Promise<{ destination: Destination; payoutMethodId: string | null }> {
    // The payout's own currency first, so an unknown one is blamed on `currency`, not on the destination.
    if (!getCurrency(input.currency)) throw new Refusal('IKW-VAL-003', `Unknown currency '${input.currency}'`, 'currency');
    const given = (input.destination ? 1 : 0) + (input.payout_method_id ? 1 : 0);
    if (given !== 1) throw new Refusal('IKW-PAY-001', payoutErrors['IKW-PAY-001'].message, given === 0 ? 'destination' : 'payoutMethodId');
    if (input.destination) return { destination: normalizeDestination(input.destination, input.currency), payoutMethodId: null };
    const id = input.payout_method_id!;
    const state = await loadPayoutMethod(this.deps.store, id);
    const now = this.deps.clock.now();
    switch (unusableReason(state, who.merchantId, who.environment, now)) {
      case 'missing':
        throw new Refusal('IKW-PAY-002', `No such payout method: '${id}'`, 'payoutMethodId');
      case 'inactive':
        throw new Refusal('IKW-PAY-003', payoutErrors['IKW-PAY-003'].message, 'payoutMethodId');
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
      if (!(await this.deps.settings(owner)).inlineDestinationsForApiKeys) throw new Refusal('IKW-PAY-008', keyMessage ?? payoutErrors['IKW-PAY-008'].message, keyField);
      return [];
    }
    if (owner.environment === 'live' && (await this.deps.history.neverPaid(owner, destinations)).length > 0) throw new Refusal('IKW-PAY-007', payoutErrors['IKW-PAY-007'].message, 'challengeId');
    return [];
  }

  /**
   * Mends a crash: a hold whose payout was never created is released; a final payout whose ledger
   * side was not posted gets it now. Both steps are idempotent.
   */
  async reconcile(owner: PayoutRef & { currency: string }): Promise<void> {
    const meta = this.commits.metadata(owner, owner.payoutId, { actor: 'scheduler' });
    const { state } = await this.commits.load(owner.payoutId);
    if (!state.payout) {
      await runLedger(this.deps, owner.merchantId, owner.environment, owner.currency, releasePayout(owner.payoutId), meta);
      return;
    }
    await this.commits.settleLedger(state, meta);
  }
}
