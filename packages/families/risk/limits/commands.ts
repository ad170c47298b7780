import { getCurrency } from '#packages/catalog/index.js';
import type { Clock } from '#packages/core/clock.js';
import type { Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { CommandService, loadState } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { familyState, type Ledger } from '#packages/ledger/decider.js';
import { balanceStream } from '#packages/ledger/entry.js';
import { noLimits, type LimitsCommand, type LimitsState } from './decider.js';
import { payoutsByDay, payoutsOfDay } from './postings.js';
import { limitsAggregate, toLimitsObject } from './render.js';
import { limitsId, limitsStream, type Limits, type LimitsEvent, type LimitsObject, type PerCurrency, type RollingReserve } from './events.js';

/** What payments and payouts read of an account's limits (packages/families/read-port-adapters.ts remembers them per process). */
export interface LimitsGate {
  /** The limits of this merchant in this environment; none set is no limit. */
  limitsOf(owner: Owner): Promise<Limits>;
}

/** Amounts by currency, each a positive safe integer of a known currency (IKW-LIM-006 otherwise), keyed lower-case. */
function perCurrency(amounts: PerCurrency, field: string): PerCurrency {
  const checked: Record<string, number> = {};
  for (const [currency, amount] of Object.entries(amounts)) {
    if (!getCurrency(currency)) throw new Refusal('IKW-LIM-006', `Unknown currency '${currency}'`, field);
    if (!Number.isSafeInteger(amount) || amount <= 0) throw new Refusal('IKW-LIM-006', `The ${currency.toLowerCase()} limit must be a positive whole amount in the currency's minor unit`, field);
    checked[currency.toLowerCase()] = amount;
  }
  return checked;
}

/**
 * The limits and holds of one merchant in one environment (docs/limits.md): the use cases the
 * platform's risk operators call, each recorded with the operator as its actor (`operator:<id>`).
 * Roles are the HTTP edge's to check, not these.
 */
export class MerchantLimits extends CommandService<LimitsCommand, LimitsState, Fact<LimitsEvent>> {
  constructor(private readonly deps: { store: EventStore; ledger: Ledger; clock: Clock }) {
    super(deps.store, limitsStream, limitsAggregate, { onConflict: 'internal' });
  }

  private async decide(owner: Owner, command: LimitsCommand, actor: Actor): Promise<LimitsObject> {
    const id = limitsId(owner.merchantId, owner.environment);
    const { state } = await this.run(id, command, auditMetadata(this.deps.clock, owner, id, actor));
    return toLimitsObject(state.limits ?? noLimits(owner.merchantId, owner.environment));
  }

  private about(owner: Owner) {
    return { merchantId: owner.merchantId, environment: owner.environment, at: this.deps.clock.now() };
  }

  /** The per-transaction maximums (payments and payouts) and daily payout caps, by currency: what is given replaces what was; a currency left out has no limit. */
  async setAmounts(owner: Owner, input: { transactionMaximums: PerCurrency; dailyPayoutCaps: PerCurrency }, actor: Actor): Promise<LimitsObject> {
    const transactionMaximums = perCurrency(input.transactionMaximums, 'transactionMaximums');
    const dailyPayoutCaps = perCurrency(input.dailyPayoutCaps, 'dailyPayoutCaps');
    return this.decide(owner, { type: 'set_amounts', ...this.about(owner), transactionMaximums, dailyPayoutCaps }, actor);
  }

  /** Freezes payouts with a reason the merchant reads; payments are still taken. Freezing again changes the reason, not the date. */
  async freezePayouts(owner: Owner, reason: string, actor: Actor): Promise<LimitsObject> {
    const trimmed = reason.trim();
    if (trimmed.length === 0 || trimmed.length > 500) throw new Refusal('IKW-LIM-006', 'A freeze needs a reason the merchant can read (1 to 500 characters)', 'reason');
    return this.decide(owner, { type: 'freeze_payouts', ...this.about(owner), reason: trimmed }, actor);
  }

  /** Lets payouts through again; payouts not frozen stay as they are (nothing recorded). */
  async unfreezePayouts(owner: Owner, actor: Actor): Promise<LimitsObject> {
    return this.decide(owner, { type: 'unfreeze_payouts', ...this.about(owner) }, actor);
  }

  /**
   * What today's payouts (00:00 UTC to now) add up to in each of `currencies`, as the daily cap
   * counts them: the balance's state as payouts load it (the same cache, only new entries read),
   * so the merchant reads the figure the cap is decided on (payouts of batches, escrow releases
   * and sellers included, failed ones given back), not an estimate.
   */
  async payoutsToday(owner: Owner, currencies: readonly string[]): Promise<PerCurrency> {
    const now = this.deps.clock.now();
    const sums = await Promise.all(
      currencies.map(async (currency) => {
        const { state } = await loadState(this.deps.store, balanceStream(owner.merchantId, owner.environment, currency), this.deps.ledger.decider);
        return [currency, payoutsOfDay(familyState(state, payoutsByDay), now)] as const;
      }),
    );
    return Object.fromEntries(sums);
  }

  /**
   * The rolling reserve of payments from now on (null: none): `percent` of each payment held in
   * `reserved` for `days` days. Payments already taken keep the reserve they were taken with.
   */
  async setReserve(owner: Owner, rollingReserve: RollingReserve | null, actor: Actor): Promise<LimitsObject> {
    if (rollingReserve !== null) {
      const { percent, days } = rollingReserve;
      if (!(percent > 0 && percent <= 100) || Math.round(percent * 100) !== percent * 100) throw new Refusal('IKW-LIM-006', 'The reserve is a percentage above 0 and at most 100, in hundredths at most', 'percent');
      if (!Number.isInteger(days) || days < 1 || days > 365) throw new Refusal('IKW-LIM-006', 'A reserve is held 1 to 365 days', 'days');
    }
    return this.decide(owner, { type: 'set_reserve', ...this.about(owner), rollingReserve: rollingReserve === null ? null : { percent: rollingReserve.percent, days: rollingReserve.days } }, actor);
  }
}
