import type { Fact } from '#packages/core/decider.js';
import { getCountry, getCurrency } from '#packages/catalog/index.js';
import type { Clock } from '#packages/core/clock.js';
import { Refusal } from '#packages/core/refusal.js';
import { derivedUuid } from '#packages/core/ids.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { CountryActivationCommand, CountryActivationState } from './decider.js';
import { countryActivationAggregate, toCountryActivationObject } from './render.js';
import { countryActivationStream, setterOf, type ActivationRule, type ActivationSetter, type CountryActivationEvent, type CountryActivationObject } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

export interface ActivationInput {
  countryCode?: string;
  currencyIso?: string;
  enabledForPayIn?: boolean;
  enabledForPayout?: boolean;
  minAmount?: number | null;
  maxAmount?: number | null;
}

/** Where a merchant's activations narrow the catalog: pay-ins and payouts by country and currency, and live itself. */
export interface ActivationGate {
  /** The words of the activation family's refusals a closed live environment answers with (it owns IKW-ACT-005 and IKW-ACT-006; docs/errors.md). */
  readonly liveRefusalWords: Readonly<Record<'IKW-ACT-005' | 'IKW-ACT-006', string>>;
  activationRule(owner: Owner, countryCode: string, currencyIso: string): Promise<ActivationRule | null>;
  /**
   * Where the merchant's live environment stands, in one read: `active` when the platform opened it
   * (its activation application approved) and has not closed it since, `suspended` when a
   * suspension of the account closed it, `inactive` otherwise (never opened, or closed without one).
   */
  liveState(merchantId: string): Promise<LiveState>;
}

/** Where a merchant's live environment stands (ActivationGate.liveState). */
export type LiveState = 'inactive' | 'active' | 'suspended';

/**
 * Live moves money only once the platform approved the merchant's activation application
 * (docs/configuration.md, "Live activation"): a new live payment or payout is refused with
 * IKW-PRV-005 before anything is held or recorded, or IKW-ACT-006 when the account is suspended.
 * Sandbox is always open.
 */
export async function assertLiveOpen(gate: ActivationGate, owner: Owner, field: string): Promise<void> {
  if (owner.environment !== 'live') return;
  const state = await gate.liveState(owner.merchantId);
  if (state === 'suspended') throw new Refusal('IKW-ACT-006', gate.liveRefusalWords['IKW-ACT-006'], field);
  if (state !== 'active') throw new Refusal('IKW-PRV-005', undefined, field);
}

/**
 * A live object that could take money (a payment link, a checkout session, an invoice) is refused
 * at its creation until live is open, with what the merchant can do about it: apply (IKW-ACT-005),
 * or read why the account is suspended (IKW-ACT-006). Sandbox objects are always made.
 */
export async function assertLiveCanTakeMoney(gate: ActivationGate, owner: Owner): Promise<void> {
  if (owner.environment !== 'live') return;
  const state = await gate.liveState(owner.merchantId);
  if (state === 'suspended') throw new Refusal('IKW-ACT-006', gate.liveRefusalWords['IKW-ACT-006']);
  if (state !== 'active') throw new Refusal('IKW-ACT-005', gate.liveRefusalWords['IKW-ACT-005']);
}

/**
 * What an activation allows in one direction: a direction switched off is refused at once
 * (IKW-CFG-001); otherwise the check of an amount against its bounds (IKW-CFG-002). No activation
 * for the country and currency: the catalog decides, every amount passes here.
 */
export function activationCheck(rule: ActivationRule | null, direction: 'payin' | 'payout', where: string, fields: { direction: string; amount: string }): (amount: number) => void {
  if (rule && !(direction === 'payin' ? rule.enabledForPayIn : rule.enabledForPayout)) {
    throw new Refusal('IKW-CFG-001', `${where} is not activated for ${direction === 'payin' ? 'pay-ins' : 'payouts'} on this account`, fields.direction);
  }
  return (amount) => {
    if (rule && ((rule.minAmount !== null && amount < rule.minAmount) || (rule.maxAmount !== null && amount > rule.maxAmount))) {
      throw new Refusal('IKW-CFG-002', `${where} takes amounts from ${rule.minAmount ?? 1} to ${rule.maxAmount ?? 'any'} on this account`, fields.amount);
    }
  };
}

/**
 * Country activations: each merchant's pay-in and payout switches and amount bounds per country and
 * currency, set by the merchant or by the platform operator for it (`by`); the operator's the
 * merchant cannot change or delete (IKW-CFG-005), the operator can change either.
 */
export class CountryActivations extends CommandService<CountryActivationCommand, CountryActivationState, Fact<CountryActivationEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock }) {
    super(deps.store, countryActivationStream, countryActivationAggregate);
  }

  async create(owner: Owner, input: ActivationInput, by: ActivationSetter, actor: Actor): Promise<CountryActivationObject> {
    const country = getCountry(input.countryCode ?? '');
    if (!country) throw new Refusal('IKW-VAL-004', `Unsupported country '${input.countryCode ?? ''}'`, 'countryCode');
    const currency = getCurrency(input.currencyIso ?? country.currency);
    if (!currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${input.currencyIso}'`, 'currencyIso');
    if (currency.code !== country.currency) throw new Refusal('IKW-VAL-009', `${country.code} is in ${country.currency}`, 'currencyIso');
    const id = derivedUuid(`country_activation|${owner.merchantId}|${owner.environment}|${country.code}|${currency.code}`);
    const rule = ruleOf(input, null);
    const created = await this.run(
      id,
      { type: 'create', activation: { id, ...owner, countryCode: country.code, currencyIso: currency.code, ...rule, setBy: by, createdAt: this.deps.clock.now().toISOString() } },
      auditMetadata(this.deps.clock, owner, id, actor),
    );
    return toCountryActivationObject(created.state);
  }

  /** PUT: the rule as given replaces the old one (fields left out keep their value); the country and currency are the activation's identity and do not change. */
  async update(owner: Owner, id: string, input: ActivationInput, by: ActivationSetter, actor: Actor): Promise<CountryActivationObject> {
    const { state } = await this.load(id);
    const a = state.deleted ? null : state.activation;
    assertOwned(a, owner, `No such activation: '${id}'`, 'activationId');
    if (input.countryCode !== undefined && input.countryCode.toUpperCase() !== a.countryCode) throw new Refusal('IKW-VAL-002', 'The country of an activation does not change; delete it and create another', 'countryCode');
    if (input.currencyIso !== undefined && input.currencyIso.toUpperCase() !== a.currencyIso) throw new Refusal('IKW-VAL-002', 'The currency of an activation does not change', 'currencyIso');
    const command = { type: 'update', owner, at: this.deps.clock.now(), by, legacySetter: await this.legacySetter(id, state), rule: ruleOf(input, state.rule) } as const;
    const result = await this.run(id, command, auditMetadata(this.deps.clock, owner, id, actor));
    return toCountryActivationObject(result.state);
  }

  async delete(owner: Owner, id: string, by: ActivationSetter, actor: Actor): Promise<void> {
    const { state } = await this.load(id);
    await this.run(id, { type: 'delete', owner, at: this.deps.clock.now(), by, legacySetter: await this.legacySetter(id, state) }, auditMetadata(this.deps.clock, owner, id, actor));
  }

  /** Who set an activation whose events predate `setBy`: its last creation or change says, by its actor (setterOf). */
  private async legacySetter(id: string, state: CountryActivationState): Promise<ActivationSetter> {
    if (state.setBy !== null || !state.activation) return state.setBy ?? 'merchant';
    const set = (await this.deps.store.readStream(countryActivationStream(id))).filter((e) => e.type !== 'country_activation.deleted').at(-1);
    return set ? setterOf(set) : 'merchant';
  }
}

/** The rule an input gives, over `current` (or the defaults: both directions on, no bounds); min must not exceed max. */
function ruleOf(input: ActivationInput, current: ActivationRule | null): ActivationRule {
  const rule: ActivationRule = {
    enabledForPayIn: input.enabledForPayIn ?? current?.enabledForPayIn ?? true,
    enabledForPayout: input.enabledForPayout ?? current?.enabledForPayout ?? true,
    minAmount: input.minAmount !== undefined ? input.minAmount : (current?.minAmount ?? null),
    maxAmount: input.maxAmount !== undefined ? input.maxAmount : (current?.maxAmount ?? null),
  };
  if (rule.minAmount !== null && rule.maxAmount !== null && rule.minAmount > rule.maxAmount) throw new Refusal('IKW-VAL-001', 'minAmount is above maxAmount', 'minAmount');
  return rule;
}
