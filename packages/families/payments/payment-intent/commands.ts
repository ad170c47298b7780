import type { Fact } from '#packages/core/decider.js';
import type { Clock } from '#packages/core/clock.js';
import { assertCapable, type CapabilityGate } from '#packages/families/platform/index.js';
import { activationCheck, assertLiveOpen, type ActivationGate } from '#packages/families/platform/index.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import { derivedId, newId } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import type { Ledger } from '#packages/ledger/decider.js';
import type { Enqueue } from '#packages/scheduler/scheduler.js';
import type { BalanceRef } from '#packages/families/ledger/index.js';
import { getCountry, getCurrency, getOperator, isIsoCountry, largestPayin, normalizeMsisdn, normalizePhone, quoteFee } from '#packages/catalog/index.js';
import type { StatusCheck } from '#packages/connectors/callbacks.js';
import { OutcomeUnknown, RAIL_FAULTS, type CollectInitiation, type CollectRequest, type Rails } from '#packages/connectors/port.js';
import type { Logger } from '#packages/core/logger.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { CustomerDirectory } from '#packages/families/read-ports.js';
import type { PayerCustomers } from './payers.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { assertWithinTransactionMaximum, type LimitsGate, type RiskGate, type RollingReserve } from '#packages/families/risk/index.js';
import { CONFIRMATION_IN_PROGRESS, confirmedAlready, type PaymentIntentCommand, type PaymentIntentState } from './decider.js';
import { paymentIntentAggregate, toObject } from './render.js';
import { paymentIntentStream, type CancellationReason, type Created, type PaymentIntentEvent, type PaymentIntentObject, type PaymentMethodDetails } from './events.js';
import { assertMetadataSize, merchantMetadata } from './metadata.js';
import { withPayerOtp } from './otp.js';
import type { PaymentRecipients } from './recipients.js';
import type { Actor, Environment, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

/** A payment intent to create, in the domain's words (the API's snake_case body is translated by its route). */
export interface CreateInput {
  amount: number;
  currency: string;
  transactionCountry: string;
  payerCountry?: string;
  railCountry?: string;
  description?: string;
  metadata?: Record<string, unknown>;
  customer?: string;
  customerEmail?: string;
  customerPhone?: string;
  /**
   * The payer typed customerEmail (or customerPhone) on a public page (a funding contribution):
   * anyone may type anyone's address, so a card this payment is made with is kept only on a
   * customer the payment created, never on one the address matched.
   */
  payerTyped?: boolean;
}

/**
 * Platform metadata of an intent whose funds are held for someone else (a funding campaign): its
 * success posts the holder's steps (its PaymentRecipient), not a payment to the merchant's balance.
 */
export const HELD_BY_KEY = 'internal.held_by';

export interface ConfirmInput {
  payment_method:
    /** `otp`: the one-time code the payer got before paying; it goes to the connector with the attempt and is kept nowhere (withPayerOtp). */
    { type: 'mobile_money'; mobile_money: { country: string; operator: string; msisdn: string; preferred_flow?: string; otp?: string } } | { type: 'card'; card: { token?: string } };
  return_url?: string;
}

export interface PaymentIntentDeps {
  customers: CustomerDirectory;
  /** Finds or creates the customer a payment names (billing's customers). */
  payers: PayerCustomers;
  store: EventStore;
  ledger: Ledger;
  clock: Clock;
  /** The rails of an environment: the connectors the router picks (packages/connectors). */
  rails(environment: Environment): Rails;
  /** The merchant's payment capabilities: a disabled or suspended method is refused at confirm. */
  capabilities: CapabilityGate;
  /** The merchant's activations: a country not activated for pay-ins, or an amount out of bounds, is refused at creation; a live confirm before the operator opened live (IKW-PRV-005). */
  activations: ActivationGate;
  /** The risk operators' limits (docs/limits.md): an amount above the per-transaction maximum is refused at creation; a rolling reserve is held from each payment. */
  limits: LimitsGate;
  /** The merchant's risk rules (docs/risk.md), asked before any rail: a blocked confirm is refused (IKW-LIM-007). */
  risk: RiskGate;
  publicUrl: string;
  /** The merchant's default return URL (settings), if one is set. */
  defaultReturnUrl(merchantId: string, environment: Environment): Promise<string | null>;
  /** Delay before a payment's funds become available, per environment. */
  settlementDelayMs(environment: Environment): number;
  /** Durable timer for the settlement of pending funds. */
  scheduleSettlement: Enqueue<BalanceRef>;
  /** This process, and whether another one is still alive: a confirmation lock dies with its process. */
  instance?: { id: number; isAlive(id: number): Promise<boolean> };
  /** Where payments go that are not simply the merchant's (funding campaigns, marketplace orders, escrow). */
  recipients: PaymentRecipients;
  /** Durable timer of the status checks of a collection whose connector has a schedule (docs/connectors.md). */
  scheduleStatusCheck: Enqueue<CollectStatusCheck>;
  log: Logger;
}

/**
 * The part of a payment's net a rolling reserve holds (docs/limits.md): `percent` of the net,
 * rounded down to the minor unit, released `days` days after the payment. None for no reserve or nothing to hold.
 */
export function reserveOf(reserve: RollingReserve | null, net: number, at: Date): { amount: number; releaseOn: Date } | null {
  if (!reserve) return null;
  const amount = Math.floor((net * Math.round(reserve.percent * 100)) / 10_000);
  return amount > 0 ? { amount, releaseOn: new Date(at.getTime() + reserve.days * 86_400_000) } : null;
}

/** A collection's status check, as its job carries it. */
export type CollectStatusCheck = StatusCheck & { direction: 'collect' };

/** The platform metadata key naming the marketplace order an intent pays. */
export const MARKETPLACE_ORDER_METADATA_KEY = 'internal.marketplace_order';

/** A 409 says what conflicted: a confirm met another confirm's lock; an update or cancel met another write. */
export function paymentIntentConflictMessage(command: PaymentIntentCommand): string | undefined {
  switch (command.type) {
    case 'start_confirmation':
      return CONFIRMATION_IN_PROGRESS;
    case 'update':
      return 'Another request changed this payment intent while it was being updated; retry the update';
    case 'cancel':
      return 'Another request changed this payment intent while it was being canceled; retry the cancel';
    default:
      return undefined;
  }
}

/**
 * Taking a payment: an intent created, edited, confirmed with a payment method (the provider called
 * once) or canceled. What the provider answers afterwards is `CollectionOutcomes` (outcomes.ts).
 */
export class PaymentIntents extends CommandService<PaymentIntentCommand, PaymentIntentState, Fact<PaymentIntentEvent>> {
  constructor(private readonly deps: PaymentIntentDeps) {
    super(deps.store, paymentIntentStream, paymentIntentAggregate, { conflictMessageOf: paymentIntentConflictMessage });
  }

  private metadata(merchantId: string, environment: Environment, id: string, actor: Actor): EventMetadata {
    return auditMetadata(this.deps.clock, { merchantId, environment }, id, actor);
  }

  /**
   * Creates a payment intent. `requestRef` (the Idempotency-Key with the request's fingerprint)
   * names it, so a request retried after a crash answers the intent the first attempt made.
   */
  async create(who: Owner, input: CreateInput, actor: Actor, requestRef?: string, platformMetadata: Record<string, string> = {}): Promise<PaymentIntentObject> {
    const currency = getCurrency(input.currency);
    if (!currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${input.currency}'`, 'currency');
    const country = getCountry(input.transactionCountry);
    if (!country) throw new Refusal('IKW-VAL-004', `Unsupported transaction_country '${input.transactionCountry}'`, 'transactionCountry');
    if (country.currency !== currency.code) {
      throw new Refusal('IKW-VAL-009', `${country.code} payments are in ${country.currency.toLowerCase()}, not ${currency.code.toLowerCase()}`, 'currency');
    }
    const maxPayin = largestPayin(country);
    if (input.amount > maxPayin) {
      throw new Refusal('IKW-VAL-008', `The amount is above the largest payment any ${country.code} operator or card acquirer accepts (${maxPayin})`, 'amount');
    }
    const rule = await this.deps.activations.activationRule(who, country.code, currency.code);
    activationCheck(rule, 'payin', `${country.code} (${currency.code.toLowerCase()})`, { direction: 'transactionCountry', amount: 'amount' })(input.amount);
    // Creation is where every payment passes (the API, checkout sessions and their links, invoices, orders, campaigns): the maximum is decided here.
    assertWithinTransactionMaximum(await this.deps.limits.limitsOf(who), currency.code, input.amount);
    // The payer and the rail may be anywhere (a French payer paying a Senegalese merchant).
    for (const [field, named] of [
      ['payerCountry', 'payer_country'],
      ['railCountry', 'rail_country'],
    ] as const) {
      const code = input[field];
      if (code !== undefined && !isIsoCountry(code)) throw new Refusal('IKW-VAL-004', `${named} '${code}' is not an ISO 3166-1 alpha-2 country code`, field);
    }
    let phone: string | undefined;
    if (input.customerPhone !== undefined) {
      phone = normalizePhone(input.customerPhone, country.code) ?? undefined;
      if (!phone) throw new Refusal('IKW-VAL-007', 'customer_phone is not a valid phone number (international, or national in the transaction country)', 'customerPhone');
    }
    const id = requestRef === undefined ? newId('pi') : derivedId('pi', `${who.merchantId}|${who.environment}|${requestRef}`);
    if (requestRef !== undefined) {
      const earlier = await this.load(id);
      if (earlier.state.intent) return toObject(earlier.state);
    }
    const meta = this.metadata(who.merchantId, who.environment, id, actor);
    const payer = await this.deps.payers.findOrCreate(who, { customer: input.customer, email: input.customerEmail, phone }, meta);
    const metadata = {
      ...merchantMetadata(input.metadata),
      // Platform keys: stored for auditors and support, filtered from every response.
      Environment: who.environment,
      'country_context.transaction_country': country.code,
      ...platformMetadata,
    };
    assertMetadataSize(metadata);
    const at = this.deps.clock.now();
    const result = await this.run(
      id,
      {
        type: 'create',
        at,
        intent: {
          id,
          merchantId: who.merchantId,
          environment: who.environment,
          amount: input.amount,
          currency: currency.code.toLowerCase(),
          transactionCountry: country.code,
          payerCountry: input.payerCountry?.toUpperCase() ?? null,
          railCountry: input.railCountry?.toUpperCase() ?? null,
          description: input.description ?? null,
          metadata,
          customer: payer?.id ?? null,
          ...(input.payerTyped && payer && !payer.created ? { keepsCards: false as const } : {}),
          createdAt: at.toISOString(),
        },
      },
      meta,
    );
    return toObject(result.state);
  }

  async update(who: Owner, id: string, input: { description?: string | null; metadata?: Record<string, unknown> }, actor: Actor): Promise<PaymentIntentObject> {
    const result = await this.run(
      id,
      {
        type: 'update',
        owner: who,
        at: this.deps.clock.now(),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.metadata !== undefined ? { metadata: merchantMetadata(input.metadata) } : {}),
      },
      this.metadata(who.merchantId, who.environment, id, actor),
    );
    return toObject(result.state);
  }

  /** Checks a payment method against the intent and the catalog; returns it normalised. */
  private paymentMethod(state: PaymentIntentState, input: ConfirmInput['payment_method']): PaymentMethodDetails {
    const intent = state.intent!;
    const other = input.type === 'card' ? 'mobile_money' : 'card';
    if (other in input) throw new Refusal('IKW-VAL-002', `payment_method.${other} does not go with type ${input.type}`, other === 'card' ? 'paymentMethod.card' : 'paymentMethod.mobileMoney');
    // No token: the card is typed on the provider's page. An empty one is a mistake, not that.
    if (input.type === 'card' && input.card.token === '') throw new Refusal('IKW-VAL-001', 'The card token is empty', 'paymentMethod.card.token');
    if (input.type === 'card') return { type: 'card', ...(input.card.token !== undefined ? { token: input.card.token } : {}) };
    const mm = input.mobile_money;
    const country = mm.country.toUpperCase();
    if (country !== intent.transactionCountry) {
      throw new Refusal('IKW-VAL-010', `The mobile money country must be the intent's transaction_country (${intent.transactionCountry})`, 'paymentMethod.mobileMoney.country');
    }
    const operator = getOperator(country, mm.operator);
    if (!operator) throw new Refusal('IKW-VAL-005', `Unknown operator '${mm.operator}' for ${country}`, 'paymentMethod.mobileMoney.operator');
    if (!operator.directions.includes('payin')) {
      throw new Refusal('IKW-VAL-006', `${operator.name} does not collect payments`, 'paymentMethod.mobileMoney.operator');
    }
    const msisdn = normalizeMsisdn(mm.msisdn, country);
    if (!msisdn) throw new Refusal('IKW-VAL-007', `Not a valid ${country} mobile number`, 'paymentMethod.mobileMoney.msisdn');
    return { type: 'mobile_money', country, operator: operator.code, msisdn, ...(mm.preferred_flow ? { preferred_flow: mm.preferred_flow } : {}) };
  }

  /**
   * Confirm: at most one provider confirmation at a time. The start of a confirmation is appended
   * with the version that was read, so of two racing confirms one wins and the other gets
   * 409 IKW-RES-003; a confirm while the winner is with the provider gets the same 409. Confirm on
   * an intent already past that point returns it as it is and calls no provider. `requestRef` (the
   * Idempotency-Key with the body's fingerprint) is recorded with the start: the same request
   * retried after its process died with the provider answers the confirmation it started.
   */
  async confirm(who: Owner, id: string, input: ConfirmInput, actor: Actor, requestRef?: string): Promise<PaymentIntentObject> {
    // The remembered state spares a read: the owner and the amount never change, and the
    // start_confirmation decider checks the status again on the state its append proves current.
    const { state, remembered } = await this.recall(id);
    assertOwned(state.intent, who, `No such payment intent: '${id}'`, 'paymentIntentId');
    // Already with the provider or final: the current object, before the payment method is looked at.
    if (confirmedAlready(state)) return toObject(remembered ? (await this.load(id)).state : state);
    const meta = this.metadata(who.merchantId, who.environment, id, actor);
    const pm = this.paymentMethod(state, input.payment_method);
    const collectMethod = withPayerOtp(pm, input.payment_method.type === 'mobile_money' ? input.payment_method.mobile_money.otp : undefined);
    await assertLiveOpen(this.deps.activations, who, 'paymentIntentId');
    const rails = this.deps.rails(who.environment);
    if (state.status === 'requires_payment_method') {
      const intent = state.intent;
      rails.assertCanCollect(pm, { amount: intent.amount, currency: intent.currency });
      await assertCapable(
        this.deps.capabilities,
        who,
        { country: pm.type === 'mobile_money' ? pm.country : intent.transactionCountry, currency: intent.currency, paymentMethodType: pm.type, operator: pm.type === 'mobile_money' ? pm.operator : null },
        'paymentMethod',
      );
      payinFee(state, pm); // amount within the operator's limits, before anything is started
    }
    const instance = this.deps.instance;
    const op = state.confirmation;
    // A confirmation whose process died after it may have reached a provider that is asked about
    // it (pawaPay): its status check settles it; taking it over would send a second request. The
    // request that started it, retried, gets the payment as it stands (processing) instead of a 409.
    if (op?.inFlight && state.paymentMethod && rails.statusChecks('collect', state.paymentMethod, op.connector)) {
      if (requestRef !== undefined && op.request === requestRef) return toObject(remembered ? (await this.load(id)).state : state);
      throw new Refusal('IKW-RES-003', CONFIRMATION_IN_PROGRESS);
    }
    let holderGone = op?.inFlight && op.instanceId !== undefined && instance ? !(await instance.isAlive(op.instanceId)) : false;
    const askedReturnUrl = input.return_url ?? (await this.deps.defaultReturnUrl(who.merchantId, who.environment));
    const payer = await payerOf(this.deps.customers, who, state.intent);
    // The merchant's risk rules before any rail is asked: a block refuses here, and every decision is recorded with its reasons.
    await this.deps.risk.assessPayment(who, { paymentIntentId: id, amount: state.intent.amount, currency: state.intent.currency, msisdn: pm.type === 'mobile_money' ? pm.msisdn : null, email: payer?.email ?? null }, actor);
    // The rails that provably refused this confirmation (docs/connectors.md, "Failover"): each new attempt goes elsewhere.
    const rejectedBy: string[] = [];
    let chosen = rails.choose('collect', pm);
    for (;;) {
      const connector = chosen.clearingRail;
      const operationId = newId('op');
      const returnUrl = askedReturnUrl ?? `${this.deps.publicUrl}/operations/status/${operationId}`;
      // Set before the commit that starts the confirmation: should this process die right after it,
      // before the call or with the request sent, or the answer be lost, the check finds what became
      // of it (a check of a confirmation never committed finds another operation, and does nothing).
      // The rail chosen now carries this attempt to its end: its checks and any resend go to it, never re-routed.
      const checks = rails.statusChecks('collect', pm, connector ?? undefined);
      if (checks) {
        const check: CollectStatusCheck = { ...who, connector: checks.connector, attempt: 0, direction: 'collect', paymentIntentId: id, operationId };
        await this.deps.scheduleStatusCheck(check, new Date(this.deps.clock.now().getTime() + checks.schedule[0]!));
      }
      const started = await this.run(
        id,
        {
          type: 'start_confirmation',
          owner: who,
          at: this.deps.clock.now(),
          operationId,
          paymentMethod: pm,
          returnUrl,
          ...(instance ? { instanceId: instance.id } : {}),
          holderGone,
          ...(connector !== null ? { connector } : {}),
          ...(requestRef !== undefined ? { request: requestRef } : {}),
          passedOver: chosen.passedOver,
        },
        meta,
      );
      if (started.events.length === 0) return toObject(started.state);
      holderGone = false;
      const request: CollectRequest = {
        operationId,
        paymentIntentId: id,
        merchantId: who.merchantId,
        environment: who.environment,
        amount: state.intent.amount,
        currency: state.intent.currency,
        paymentMethod: collectMethod,
        returnUrl,
        ...(payer ? { payer } : {}),
        ...(connector !== null ? { connector } : {}),
      };
      // Another rail for this payment once `connector` provably refused it; null: none (or nothing was recorded to move from).
      const elsewhere = () => (connector === null ? null : rails.choose('collect', pm, { excluding: [...rejectedBy, connector] }));
      let result: CollectInitiation;
      try {
        result = await rails.collect(request);
      } catch (err) {
        if (err instanceof OutcomeUnknown && checks) {
          // Perhaps taken: the payment stays processing under the same id, and the status check
          // settles it; a second attempt under a new id could take the money twice.
          this.deps.log.warn({ err, payment_intent: id, operation: operationId }, 'collection answer lost; the status check decides');
          result = { status: 'processing' };
        } else {
          const reason = err instanceof Error ? err.message : 'provider error';
          // IKW-PRV-002: provably never taken, so another rail may carry it under a new id.
          const next = isRefused(err, 'IKW-PRV-002') ? elsewhere() : null;
          await this.run(id, { type: 'abort_confirmation', owner: who, at: this.deps.clock.now(), operationId, reason }, meta, 'internal');
          if (next?.clearingRail) {
            this.deps.log.warn({ err, payment_intent: id, operation: operationId, rail: connector, next: next.clearingRail }, 'the rail did not take the collection; tried on another rail');
            rejectedBy.push(connector!);
            chosen = next;
            continue;
          }
          // A refusal the connector explains stays as it is; anything else is an outage the client may retry.
          throw isRefused(err) ? err : new Refusal('IKW-PRV-002');
        }
      }
      if (result.status === 'failed' && RAIL_FAULTS.has(result.failureCode)) {
        // The rail refused the attempt at once, for a fault of its own: nothing was taken, and the payer was asked nothing.
        const next = elsewhere();
        if (next?.clearingRail) {
          await this.run(id, { type: 'abort_confirmation', owner: who, at: this.deps.clock.now(), operationId, reason: result.failureMessage, failureCode: result.failureCode }, meta, 'internal');
          this.deps.log.warn({ payment_intent: id, operation: operationId, rail: connector, next: next.clearingRail, failure_code: result.failureCode }, 'the rail refused the collection; tried on another rail');
          rejectedBy.push(connector!);
          chosen = next;
          continue;
        }
      }
      const recorded = await this.run(id, { type: 'record_initiation', owner: who, at: this.deps.clock.now(), operationId, result }, meta, 'internal');
      return toObject(recorded.state);
    }
  }

  async cancel(who: Owner, id: string, reason: CancellationReason | null, actor: Actor): Promise<PaymentIntentObject> {
    const result = await this.run(id, { type: 'cancel', owner: who, at: this.deps.clock.now(), reason }, this.metadata(who.merchantId, who.environment, id, actor));
    return toObject(result.state);
  }
}

/** The fee of a collection by the payment method it was confirmed with. */
export function payinFee(state: PaymentIntentState, pm: PaymentMethodDetails): number {
  const intent = state.intent!;
  return quoteFee({
    amount: intent.amount,
    currency: intent.currency,
    direction: 'payin',
    method: pm.type,
    country: intent.transactionCountry,
    ...(pm.type === 'mobile_money' ? { operator: pm.operator } : {}),
  }).fee;
}

/** The payer a connector is told of: the intent's customer, its e-mail, and whether a card paid with is kept for it, when it names one. */
export async function payerOf(customers: CustomerDirectory, who: Owner, intent: Pick<Created, 'customer' | 'keepsCards'>): Promise<CollectRequest['payer'] | null> {
  if (!intent.customer) return null;
  const customer = await customers.findCustomer(who, intent.customer);
  return customer ? { customerId: customer.id, email: customer.email, keepsCard: intent.keepsCards !== false } : null;
}
