import type { Fact } from '#packages/core/decider.js';
import type { Clock } from '#packages/core/clock.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import { getCurrency, normalizePhone } from '#packages/catalog/index.js';
import { derivedId, newUuid } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { CustomerDirectory } from '#packages/families/read-ports.js';
import type { PayerCustomers, PayerLookup } from '#packages/families/payments/index.js';
import type { CustomerCommand, CustomerState } from './decider.js';
import { customerAggregate, toCustomerObject } from './render.js';
import { customerStream, type CreditReason, type CustomerEvent, type CustomerObject } from './events.js';
import type { Actor, Environment, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

/**
 * The id of the customer a merchant knows by this e-mail (or phone) in this environment. Derived,
 * not random, so that concurrent find-or-creates land on one stream and create it once.
 */
export function derivedCustomerId(merchantId: string, environment: Environment, kind: 'email' | 'phone', value: string): string {
  return derivedId('cus', `${merchantId}|${environment}|${kind}|${value}`);
}

/** How a billing request names its customer: by id, or by e-mail (found or created, like payment intents do). */
export interface CustomerRef {
  id?: string;
  email?: string;
  /** Given to a customer created here, or to a known one that has no name yet. */
  name?: string;
}

/** Customers as billing sees them: resolution of a request's customer, and the wallet. */
export class Customers extends CommandService<CustomerCommand, CustomerState, Fact<CustomerEvent>> implements PayerCustomers {
  constructor(private readonly deps: { directory: CustomerDirectory; store: EventStore; clock: Clock }) {
    super(deps.store, customerStream, customerAggregate);
  }

  /**
   * The customer a payment names (billing registers its customers as the payments' payers): an
   * explicit id must exist for this merchant and environment; otherwise the e-mail, then the phone,
   * finds the customer or creates one. A concurrent find-or-create of the same key decides again:
   * both land on one customer.
   */
  async findOrCreate(owner: Owner, lookup: PayerLookup, metadata: EventMetadata): Promise<{ id: string; created: boolean } | null> {
    const { merchantId, environment } = owner;
    if (lookup.customer) {
      const found = await this.deps.directory.findCustomer(owner, lookup.customer);
      if (!found) throw new Refusal('IKW-VAL-001', `No such customer: '${lookup.customer}'`, 'customer');
      return { id: found.id, created: false };
    }
    const email = lookup.email?.trim().toLowerCase();
    const key = email ? ({ kind: 'email', value: email } as const) : lookup.phone ? ({ kind: 'phone', value: lookup.phone } as const) : null;
    if (!key) return null;
    const id = derivedCustomerId(merchantId, environment, key.kind, key.value);
    const result = await this.run(id, { type: 'create', customer: { ...blankCustomer(id, owner, this.deps.clock), email: email ?? null, phone: lookup.phone ?? null } }, metadata, 'internal');
    return { id, created: result.events.length > 0 };
  }

  /**
   * A customer the merchant adds (POST /api/v1/merchant/customers): found or created by e-mail, the
   * same way billing requests name one, so an address is one customer whichever route met it first;
   * a name fills in one not known yet.
   */
  async add(who: Owner, input: { email: string; name?: string }, actor: Actor): Promise<CustomerObject> {
    const email = input.email.trim().toLowerCase();
    const id = derivedCustomerId(who.merchantId, who.environment, 'email', email);
    const result = await this.run(id, { type: 'create', customer: { ...blankCustomer(id, who, this.deps.clock), email, name: input.name ?? null } }, auditMetadata(this.deps.clock, who, id, actor), 'internal');
    return toCustomerObject(result.state);
  }

  /** The customer changes their name or phone number (the customer portal); null removes the phone. */
  async updateContact(who: Owner, id: string, input: { name?: string; phone?: string | null }, actor: Actor): Promise<CustomerObject> {
    let phone = input.phone;
    if (typeof phone === 'string') {
      // International format: a customer may live anywhere.
      const normalized = normalizePhone(phone, 'ZZ');
      if (!normalized) throw new Refusal('IKW-VAL-007', 'phone is not a valid phone number in international format (+…)', 'phone');
      phone = normalized;
    }
    const result = await this.run(
      id,
      { type: 'update_contact', owner: who, at: this.deps.clock.now(), ...(input.name !== undefined ? { name: input.name } : {}), ...(phone !== undefined ? { phone } : {}) },
      auditMetadata(this.deps.clock, who, id, actor),
    );
    return toCustomerObject(result.state);
  }

  /** Adds a tag to the customer's metadata `tags` (an automation's tag_customer step); idempotent. */
  async tag(who: Owner, id: string, tag: string, actor: Actor): Promise<CustomerObject> {
    const result = await this.run(id, { type: 'tag', owner: who, at: this.deps.clock.now(), tag }, auditMetadata(this.deps.clock, who, id, actor), 'internal');
    return toCustomerObject(result.state);
  }

  /** The id of the request's customer; IKW-BIL-006 when an id names no customer of this merchant and environment. */
  async resolve(who: Owner, ref: CustomerRef, meta: EventMetadata): Promise<string> {
    if (ref.id !== undefined) {
      const found = await this.deps.directory.findCustomer(who, ref.id);
      if (!found) throw new Refusal('IKW-BIL-006', `No such customer: '${ref.id}'`, 'customerId');
      if (ref.name && !found.name) await this.run(found.id, { type: 'create', customer: { ...blankCustomer(found.id, who, this.deps.clock), name: ref.name } }, meta, 'internal');
      return found.id;
    }
    const email = ref.email?.trim().toLowerCase();
    if (!email) throw new Refusal('IKW-VAL-001', 'Give customerId or an e-mail', 'customerId');
    const id = derivedCustomerId(who.merchantId, who.environment, 'email', email);
    await this.run(id, { type: 'create', customer: { ...blankCustomer(id, who, this.deps.clock), email, name: ref.name ?? null } }, meta, 'internal');
    return id;
  }

  /** Adds money to a customer's wallet (POST …/billing/wallet/customers/{id}/credit). */
  async credit(who: Owner, customerId: string, input: { amount: number; currency: string; description?: string }, actor: Actor): Promise<CustomerObject> {
    const currency = getCurrency(input.currency);
    if (!currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${input.currency}'`, 'currency');
    const creditId = `credit_${newUuid()}`;
    try {
      const result = await this.run(
        customerId,
        { type: 'credit', owner: who, at: this.deps.clock.now(), creditId, amount: input.amount, currency: currency.code, reason: 'merchant_credit', source: input.description ?? null },
        auditMetadata(this.deps.clock, who, customerId, actor),
        'contended',
      );
      return toCustomerObject(result.state);
    } catch (err) {
      throw isRefused(err, 'IKW-RES-001') ? new Refusal('IKW-RES-001', `No such customer: '${customerId}'`, 'customerId') : err;
    }
  }

  /** An internal credit (voided invoice, overpayment), idempotent on `creditId`. */
  async creditInternal(who: Owner, customerId: string, credit: { creditId: string; amount: number; currency: string; reason: CreditReason; source: string }, meta: EventMetadata): Promise<void> {
    await this.run(customerId, { type: 'credit', owner: who, at: this.deps.clock.now(), ...credit }, meta, 'contended');
  }

  /** Takes up to `maxAmount` from the wallet for an invoice; the balance check is this stream's. */
  async applyToInvoice(who: Owner, customerId: string, application: { applicationId: string; invoiceId: string; currency: string; maxAmount: number }, meta: EventMetadata): Promise<CustomerState> {
    const result = await this.run(customerId, { type: 'apply_to_invoice', owner: who, at: this.deps.clock.now(), ...application }, meta, 'contended');
    return result.state;
  }

  /** Gives back what the invoice did not take of an application. Idempotent. */
  async settleApplication(who: Owner, customerId: string, applicationId: string, accepted: number, meta: EventMetadata): Promise<void> {
    await this.run(customerId, { type: 'settle_application', owner: who, at: this.deps.clock.now(), applicationId, accepted }, meta, 'contended');
  }
}

function blankCustomer(id: string, who: Owner, clock: Clock) {
  return {
    id,
    merchantId: who.merchantId,
    environment: who.environment,
    name: null,
    email: null,
    phone: null,
    currency: null,
    metadata: {},
    createdAt: clock.now().toISOString(),
  };
}
