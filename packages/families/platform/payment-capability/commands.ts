import type { Fact } from '#packages/core/decider.js';
import { getCountry, getCurrency, getOperator } from '#packages/catalog/index.js';
import type { Clock } from '#packages/core/clock.js';
import { derivedId } from '#packages/core/ids.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import type { PaymentCapabilityCommand, PaymentCapabilityState } from './decider.js';
import { paymentCapabilityAggregate, toPaymentCapabilityObject } from './render.js';
import { paymentCapabilityStream, type CapabilityScope, type PaymentCapabilityEvent, type PaymentCapabilityObject, type PaymentMethodType } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import { Refusal } from '#packages/core/refusal.js';

export interface CreateCapabilityInput {
  country: string;
  currency: string;
  payment_method_type: PaymentMethodType;
  operator?: string | null;
  is_enabled?: boolean;
}

/**
 * Why a payment method may not be used by a merchant, from its payment capabilities: disabled
 * (IKW-CAP-001) or suspended (IKW-CAP-002, with the reason). No capability: the catalog decides.
 */
export interface CapabilityGate {
  capabilityRefusal(owner: Owner, method: CapabilityScope): Promise<{ status: 'disabled' } | { status: 'suspended'; reason: string } | null>;
}

/** Refuses a payment method its capability disables or suspends; `field` names the domain field at fault. */
export async function assertCapable(gate: CapabilityGate, owner: Owner, method: CapabilityScope, field: string): Promise<void> {
  const refusal = await gate.capabilityRefusal(owner, method);
  if (!refusal) return;
  const what = `${method.paymentMethodType}${method.operator ? ` (${method.operator})` : ''} in ${method.country}, ${method.currency.toLowerCase()}`;
  if (refusal.status === 'disabled') throw new Refusal('IKW-CAP-001', `Payments by ${what} are disabled for this account`, field);
  throw new Refusal('IKW-CAP-002', `Payments by ${what} are suspended for this account: ${refusal.reason}`, field);
}

/** What each merchant may use: per country, currency, method and operator, over the catalog's defaults. */
export class PaymentCapabilities extends CommandService<PaymentCapabilityCommand, PaymentCapabilityState, Fact<PaymentCapabilityEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock }) {
    super(deps.store, paymentCapabilityStream, paymentCapabilityAggregate);
  }

  /** Checked against the catalog: the country's currency, and for mobile money an operator of that country. */
  async create(owner: Owner, input: CreateCapabilityInput, actor: Actor): Promise<PaymentCapabilityObject> {
    const country = getCountry(input.country);
    if (!country) throw new Refusal('IKW-VAL-004', `Unsupported country '${input.country}'`, 'country');
    const currency = getCurrency(input.currency);
    if (!currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${input.currency}'`, 'currency');
    if (currency.code !== country.currency) throw new Refusal('IKW-VAL-009', `${country.code} payments are in ${country.currency.toLowerCase()}`, 'currency');
    let operator: string | null = null;
    if (input.operator !== undefined && input.operator !== null) {
      if (input.payment_method_type !== 'mobile_money') throw new Refusal('IKW-VAL-002', 'operator applies to mobile money only', 'operator');
      const found = getOperator(country.code, input.operator);
      if (!found) throw new Refusal('IKW-VAL-005', `Unknown operator '${input.operator}' for ${country.code}`, 'operator');
      operator = found.code;
    }
    const scope: CapabilityScope = { country: country.code, currency: currency.code.toLowerCase(), paymentMethodType: input.payment_method_type, operator };
    const id = derivedId('cap', `${owner.merchantId}|${owner.environment}|${scope.country}|${scope.currency}|${scope.paymentMethodType}|${operator ?? '*'}`);
    const created = await this.run(id, { type: 'create', capability: { id, ...owner, ...scope, isEnabled: input.is_enabled ?? true, createdAt: this.deps.clock.now().toISOString() } }, auditMetadata(this.deps.clock, owner, id, actor));
    return toPaymentCapabilityObject(created.state);
  }

  async update(owner: Owner, id: string, isEnabled: boolean, actor: Actor): Promise<PaymentCapabilityObject> {
    return this.act(owner, id, { type: 'update', isEnabled }, actor);
  }

  async suspend(owner: Owner, id: string, reason: string, actor: Actor): Promise<PaymentCapabilityObject> {
    return this.act(owner, id, { type: 'suspend', reason }, actor);
  }

  async resume(owner: Owner, id: string, actor: Actor): Promise<PaymentCapabilityObject> {
    return this.act(owner, id, { type: 'resume' }, actor);
  }

  async delete(owner: Owner, id: string, actor: Actor): Promise<PaymentCapabilityObject> {
    return this.act(owner, id, { type: 'delete' }, actor);
  }

  private async act(owner: Owner, id: string, change: { type: 'update'; isEnabled: boolean } | { type: 'suspend'; reason: string } | { type: 'resume' } | { type: 'delete' }, actor: Actor): Promise<PaymentCapabilityObject> {
    const result = await this.run(id, { ...change, owner, at: this.deps.clock.now() }, auditMetadata(this.deps.clock, owner, id, actor));
    return toPaymentCapabilityObject(result.state);
  }
}
