import type { Clock } from '#packages/core/clock.js';
import { ApiError } from '#packages/core/errors.js';
import type { Logger } from '#packages/core/logger.js';
import type { Environment } from '#packages/core/owner.js';
import {
  OutcomeUnknown,
  StatusNotYet,
  type Availability,
  type CollectInitiation,
  type CollectMethod,
  type CollectOutcome,
  type CollectRequest,
  type Connector,
  type Direction,
  type Money,
  type PayoutDestination,
  type PayoutInitiation,
  type PayoutReport,
  type PayoutRequest,
  type RailSubject,
  type RefundInitiation,
  type PayoutFloat,
  type StatusAnswer,
  type WalletBalance,
} from '../port.js';
import { amountRefusal } from './amounts.js';
import { Hub2CallFailed, Hub2Client } from './client.js';
import { failureOf, type FailureKind } from './failures.js';
import {
  authenticationBody,
  bookedIntentOf,
  collectInitiationOf,
  collectStatusOf,
  eventOf,
  Hub2ProtocolError,
  intentBody,
  intentOf,
  paymentBody,
  paymentOfRecord,
  payoutInitiationOf,
  payoutStatusOf,
  transferBody,
  transferOf,
  transferFloatsOf,
  transfersWithReference,
  walletBalancesOf,
  type BookedIntent,
  type Hub2Event,
  type Hub2Intent,
  type Hub2Transfer,
  type Hub2Wallet,
} from './operations.js';
import { hub2Msisdn, providerFor, type ProviderEntry } from './providers.js';
import { verifiesWith } from './signatures.js';

export type { Hub2Event } from './operations.js';
export { Hub2ProtocolError } from './operations.js';
export { Hub2CallFailed } from './client.js';

/**
 * What Sika keeps of Hub2's own objects, which Hub2 does not let a caller name: the intent (id and
 * token) of each collection under `intent:<operation id>`, written before its payment is attempted,
 * and the transfer id of each payout under `transfer:<payout id>`; and when each money call was
 * last sent (`paying:<operation id>`, `sending:<payout id>`), claimed before it leaves. Hub2 gives no
 * idempotency key, so this is what stops a resend from moving money twice.
 */
export interface Hub2Book {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
  /**
   * Sets `key` to `value` only if it still holds `replacing` (null: only if it holds nothing), in
   * one step: true when this call set it. Two processes sending the same attempt cannot both win.
   */
  claim(key: string, value: string, replacing: string | null): Promise<boolean>;
}

export interface Hub2Options {
  /** HUB2_API_URL (https://api.hub2.io): one host, the environment is a header. */
  baseUrl: string;
  apiKey: string;
  merchantId: string;
  environment: Environment;
  clock: Clock;
  book: Hub2Book;
  /** HUB2_WEBHOOK_SECRET; null: every webhook is refused (unauthenticated). */
  webhookSecret: string | null;
  /** The status-check schedule (HUB2_STATUS_CHECK_AFTER); none by default. */
  statusChecks?: readonly number[];
  /** Per call; a money call without an answer by then has an unknown outcome. Default 15 s. */
  timeoutMs?: number;
  log?: Logger;
  /** HUB2_PAYOUT_OPERATORS: the `CC:operator` the account pays out to; absent: every provider Hub2 pays out to. */
  payoutOperators?: readonly string[] | null;
}

const COLLECT_MSISDN = 'payment_method.mobile_money.msisdn';
const PAYOUT_MSISDN = 'destination.msisdn';
/** Hub2 transfers need a recipient name; a mobile money destination carries none. */
const RECIPIENT_NAME = 'Sika payout';

const intentKey = (operationId: string) => `intent:${operationId}`;
const transferKey = (payoutId: string) => `transfer:${payoutId}`;
const payingKey = (operationId: string) => `paying:${operationId}`;
const sendingKey = (payoutId: string) => `sending:${payoutId}`;

/**
 * How long after a transfer was sent an empty list by its reference still proves nothing: the
 * request may be on its way (a slow network, Hub2 slow to list it), well past the call's timeout.
 * Within it, a payout is never sent again; after it, Hub2's empty list is its word that it kept nothing.
 */
const SEND_SETTLES_MS = 60_000;
/** How long an empty list read by a status check is trusted by the resend that follows it (the list allows one call in 30 s). */
const LISTED_NONE_TRUSTED_MS = 10_000;
const segment = encodeURIComponent;

/**
 * Hub2 as a mobile money connector of the rail port (docs/connectors.md, "Hub2"): collections as a
 * payment intent and one payment on it, payouts as transfers, their status checks, the balance,
 * and its signed webhooks, which only name what to re-read. Hub2 keeps Sika's money in its
 * collection and transfer accounts. It takes no refunds of mobile money pay-ins.
 */
export class Hub2Connector implements Connector {
  readonly name = 'hub2';
  readonly holdsFunds = true;
  readonly refunds = false;
  /**
   * Collections: never sent again by a check (a payment moves money and Hub2 takes no key to
   * dedupe it). Payouts: a status check that finds nothing runs minutes after the send, and it
   * asks Hub2 for every transfer with the payout's reference; an empty list then is Hub2's word
   * that it kept nothing, and hub2.md says to post again only when the list provably has none.
   * So a payout is one record per id as far as Sika's checks go: the reference finds it.
   */
  readonly oneRecordPerId = { collect: false, payout: true, refund: false } as const;
  readonly statusChecks: readonly number[];
  private readonly client: Hub2Client;
  /** Payouts whose status check found no transfer under their reference, and when: the resend that follows trusts it a moment. */
  private readonly listedNone = new Map<string, number>();

  constructor(private readonly options: Hub2Options) {
    this.client = new Hub2Client({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      merchantId: options.merchantId,
      environment: options.environment,
      timeoutMs: options.timeoutMs ?? 15_000,
    });
    this.statusChecks = options.statusChecks ?? [];
  }

  /** Mobile money of the provider table: collections, and payouts but to pay-in-only providers; no refunds. */
  serves(direction: Direction, subject: RailSubject): boolean {
    if (subject.rail !== 'mobile_money' || direction === 'refund') return false;
    const entry = providerFor(subject.country, subject.operator);
    if (!entry || (direction === 'payout' && !this.paysOutTo(entry))) return false;
    return subject.currency === undefined || subject.currency.toUpperCase() === entry.currency;
  }

  /** Hub2 publishes no availability: what it serves is available; its health is Sika's own measure of outcomes. */
  async availability(direction: Direction, subject: RailSubject): Promise<Availability> {
    return this.serves(direction, subject) ? 'available' : 'unavailable';
  }

  assertCanCollect(method: CollectMethod, money?: Money): void {
    const payer = this.wallet(method, 'collect');
    if (money) this.assertAmount(money, payer.currency);
  }

  assertCanPayOut(destination: PayoutDestination, money?: Money): void {
    const recipient = this.wallet(destination, 'payout');
    if (money) this.assertAmount(money, recipient.currency);
  }

  /**
   * A collection: an intent (moves no money; a lost answer is a refusal, nothing charged), booked
   * with its token, then one payment on it (moves money: a lost answer is OutcomeUnknown, never
   * sent again). A resend of an operation whose intent is booked answers from the intent when a
   * payment is on it, and attempts the payment only when none is.
   */
  async collect(req: CollectRequest): Promise<CollectInitiation> {
    const payer = this.wallet(req.paymentMethod, 'collect');
    this.assertAmount(req, payer.currency);
    const booked = await this.options.book.get(intentKey(req.operationId));
    if (booked) return this.resumeCollect(req, bookedIntentOf(booked), payer);
    let intent: BookedIntent;
    try {
      const created = intentOf(await this.client.post('/payment-intents', intentBody(req)));
      if (!created.token) throw new Hub2ProtocolError(`the payment intent ${created.id} came without its token`);
      if (created.purchaseReference !== req.operationId) throw new Hub2ProtocolError(`the payment intent ${created.id} is of ${created.purchaseReference}, not of ${req.operationId}`);
      intent = { id: created.id, token: created.token };
    } catch (err) {
      if (err instanceof Hub2CallFailed && refusedOutright(err)) return { status: 'failed', ...failureOf('payment', err.body) };
      // An intent alone moves no money (an orphan stays payment_required): nothing was charged, whatever happened.
      throw new ApiError('IKW-PRV-002', `Hub2 did not create the payment intent; nothing was charged: ${(err as Error).message}`);
    }
    try {
      await this.options.book.put(intentKey(req.operationId), JSON.stringify(intent));
    } catch (err) {
      throw new ApiError('IKW-PRV-002', `Hub2's payment intent could not be booked; nothing was charged: ${(err as Error).message}`);
    }
    return this.attemptPayment(req, intent, payer);
  }

  /**
   * The payer's one-time code for a payment that asked for one (`nextAction {type: "otp"}`):
   * `POST /payment-intents/{id}/authentication` on the intent booked for the operation, with the
   * API key as every call of Sika's. Hub2 answers the intent: its newest payment says what
   * follows (pending: processing). A refusal (400, 402, 403, 404: a wrong or lapsed code) is
   * IKW-PRV-017 and the payment still waits for a code; a conflict (Hub2 awaits no code: an
   * earlier submit may have been taken) is answered from the intent as Hub2 holds it; no answer,
   * a 401, 429 or 5xx is IKW-PRV-002. The code is in no message and no log.
   */
  async submitOtp(req: CollectRequest, code: string): Promise<CollectInitiation> {
    const booked = await this.options.book.get(intentKey(req.operationId));
    if (!booked) throw new ApiError('IKW-RES-002', `No Hub2 payment of ${req.operationId} waits for a one-time code`, 'code');
    const intent = bookedIntentOf(booked);
    let answer: unknown;
    try {
      answer = await this.client.post(`/payment-intents/${segment(intent.id)}/authentication`, authenticationBody(code));
    } catch (err) {
      if (err instanceof Hub2CallFailed && maybeDone(err)) return this.answerOfIntent(req, intent.id);
      if (err instanceof Hub2CallFailed && refusedOutright(err)) throw new ApiError('IKW-PRV-017', `The operator refused the one-time code (${err.hub2Code ?? err.httpStatus}); ask the payer for it again`, 'code');
      throw new ApiError('IKW-PRV-002', `Hub2 did not take the one-time code: ${(err as Error).message}`);
    }
    try {
      return this.initiationOfNewest(req, intentOf(answer), intent.id);
    } catch (err) {
      // Taken (a 2xx): what follows comes by the status check and the webhooks.
      this.options.log?.warn({ operation: req.operationId, err }, "Hub2's answer to a one-time code cannot be read; the payment is taken as processing");
      return { status: 'processing' };
    }
  }

  /**
   * The status of a collection, from Hub2's record of its booked intent: none booked, or no
   * payment on it, is nothing taken. A read that fails throws (the check runs again later).
   */
  async collectStatus(req: CollectRequest): Promise<StatusAnswer<CollectOutcome>> {
    const booked = await this.options.book.get(intentKey(req.operationId));
    if (!booked) return { found: false };
    const intent = await this.readIntent(bookedIntentOf(booked).id);
    return collectStatusOf(intent, req.operationId);
  }

  /**
   * A payout: one transfer whose reference is the payout id. A transfer booked for it is accepted
   * without posting; a refusal before Hub2 took it is rejected (or IKW-PRV-002 when nothing was
   * looked at: key, rate limit); a lost answer, a 5xx, or a conflict (the transfer may already
   * exist) is OutcomeUnknown, settled by the status check through the reference.
   */
  async payout(req: PayoutRequest): Promise<PayoutInitiation> {
    const recipient = this.wallet(req.destination, 'payout');
    this.assertAmount(req, recipient.currency);
    if (await this.options.book.get(transferKey(req.payoutId))) return { status: 'accepted' };
    const now = this.options.clock.now().getTime();
    const sentAt = await this.options.book.get(sendingKey(req.payoutId));
    if (sentAt !== null) {
      // Sent before (a crash, a client's retry, a status check's resend): Hub2's list by reference first.
      const found = await this.listedTransfer(req.payoutId, now);
      if (found) return payoutInitiationOf(found);
      if (now - Date.parse(sentAt) < SEND_SETTLES_MS) throw new OutcomeUnknown(`the transfer of ${req.payoutId} was sent ${Math.round((now - Date.parse(sentAt)) / 1000)} s ago and may still be on its way; it is not sent again yet`);
    }
    if (!(await this.options.book.claim(sendingKey(req.payoutId), new Date(now).toISOString(), sentAt))) {
      throw new OutcomeUnknown(`another send of the transfer of ${req.payoutId} began meanwhile; the status check settles it`);
    }
    let answer: unknown;
    try {
      answer = await this.client.post('/transfers', transferBody(req, recipient, RECIPIENT_NAME));
    } catch (err) {
      if (err instanceof Hub2CallFailed && refusedOutright(err)) return { status: 'rejected', ...failureOf('transfer', err.body) };
      throw this.unknownOrNotTaken(err, 'transfer');
    }
    let transfer;
    try {
      transfer = transferOf(answer);
      if (transfer.reference !== req.payoutId) throw new Hub2ProtocolError(`the transfer ${transfer.id} is of ${transfer.reference}, not of ${req.payoutId}`);
      await this.options.book.put(transferKey(req.payoutId), transfer.id);
    } catch (err) {
      throw new OutcomeUnknown(`Hub2's answer to the transfer of ${req.payoutId} cannot be used; the status check finds it by reference: ${(err as Error).message}`);
    }
    return payoutInitiationOf(transfer);
  }

  /**
   * A payout's status: its booked transfer, or else the transfers with its reference (booked when
   * one is found). An empty list is `found: false` (see oneRecordPerId); more than one is left
   * not final for review, never money. A 429 or 5xx throws (the check runs again later).
   */
  async payoutStatus(req: PayoutRequest): Promise<StatusAnswer<PayoutReport>> {
    const bookedId = await this.options.book.get(transferKey(req.payoutId));
    if (bookedId) {
      const transfer = transferOf(await this.client.get(`/transfers/${segment(bookedId)}`));
      if (transfer.id !== bookedId) throw new Hub2ProtocolError(`asked for the transfer ${bookedId}, Hub2 answered ${transfer.id}`);
      return payoutStatusOf(transfer, req.payoutId);
    }
    const listed = transfersWithReference(await this.client.get('/transfers', { reference: req.payoutId }), req.payoutId);
    const now = this.options.clock.now().getTime();
    if (listed.length === 0) {
      const sentAt = await this.options.book.get(sendingKey(req.payoutId));
      // A send still settling: the empty list proves nothing yet; the check's job runs again after its back-off.
      if (sentAt !== null && now - Date.parse(sentAt) < SEND_SETTLES_MS) throw new StatusNotYet(`the transfer of ${req.payoutId} was sent ${Math.round((now - Date.parse(sentAt)) / 1000)} s ago and Hub2 lists none yet: asked again later`);
      this.listedNone.set(req.payoutId, now);
      return { found: false };
    }
    if (listed.length > 1) {
      this.options.log?.error({ payoutId: req.payoutId, transfers: listed.map((t) => t.id) }, 'Hub2 holds several transfers for one payout: left for review');
      return { found: true, final: null };
    }
    const transfer = listed[0]!;
    await this.options.book.put(transferKey(req.payoutId), transfer.id);
    return payoutStatusOf(transfer, req.payoutId);
  }

  /**
   * The one transfer Hub2 lists under a payout's reference (booked), or null when it lists none:
   * an empty list the status check read a moment ago is not asked again (one call in 30 s). A list
   * that cannot be read, or lists several, is OutcomeUnknown: nothing is sent on a guess.
   */
  private async listedTransfer(payoutId: string, now: number): Promise<Hub2Transfer | null> {
    const none = this.listedNone.get(payoutId);
    this.listedNone.delete(payoutId);
    if (none !== undefined && now - none <= LISTED_NONE_TRUSTED_MS) return null;
    let listed: Hub2Transfer[];
    try {
      listed = transfersWithReference(await this.client.get('/transfers', { reference: payoutId }), payoutId);
    } catch (err) {
      throw new OutcomeUnknown(`Hub2's transfers of ${payoutId} could not be listed before sending it again: ${(err as Error).message}`);
    }
    if (listed.length > 1) throw new OutcomeUnknown(`Hub2 lists several transfers of ${payoutId}: left for review`);
    const transfer = listed[0];
    if (transfer) await this.options.book.put(transferKey(payoutId), transfer.id);
    return transfer ?? null;
  }

  /** Hub2 has no refund of a mobile money pay-in (the router never calls this: `refunds` is false). */
  async refund(): Promise<RefundInitiation> {
    return { status: 'rejected', failureCode: 'refund_not_supported', failureMessage: 'Hub2 does not refund mobile money payments' };
  }

  async refundStatus(): Promise<StatusAnswer<CollectOutcome>> {
    return { found: false };
  }

  async walletBalances(): Promise<WalletBalance[]> {
    return walletBalancesOf(await this.client.get('/balance'));
  }

  /** What pays Hub2 transfers: each currency's transfer account, available (Hub2 takes a transfer's amount and fees from it). */
  async payoutFloat(): Promise<PayoutFloat[]> {
    return transferFloatsOf(await this.client.get('/balance'));
  }

  /** Whether a webhook's Hub2-Signature signs its raw body with HUB2_WEBHOOK_SECRET; never without a secret. */
  signed(body: Buffer, header: string | undefined): boolean {
    return this.options.webhookSecret !== null && verifiesWith(body, header, this.options.webhookSecret);
  }

  /** What a (verified) webhook names to re-read. */
  eventOf(body: Buffer): Hub2Event {
    return eventOf(body);
  }

  /**
   * The Sika attempt of a Hub2 intent a webhook names: the purchase reference is the operation id,
   * the customer reference the payment intent id. Null when Hub2 has no such intent, or it is not
   * the one booked for that operation (an orphan of a lost creation answer, or not Sika's).
   */
  async attemptOfIntent(hub2IntentId: string): Promise<{ operationId: string; paymentIntentId: string } | null> {
    let intent;
    try {
      intent = await this.readIntent(hub2IntentId);
    } catch (err) {
      if (err instanceof Hub2CallFailed && err.httpStatus === 404) return null;
      throw err;
    }
    const booked = await this.options.book.get(intentKey(intent.purchaseReference));
    if (!booked || bookedIntentOf(booked).id !== intent.id) return null;
    return { operationId: intent.purchaseReference, paymentIntentId: intent.customerReference };
  }

  /** An operation whose intent was booked before (a resend after a crash): its payment is never attempted twice. */
  private async resumeCollect(req: CollectRequest, booked: BookedIntent, payer: Hub2Wallet): Promise<CollectInitiation> {
    let intent;
    try {
      intent = await this.readIntent(booked.id);
      if (intent.purchaseReference !== req.operationId) throw new Hub2ProtocolError(`the booked intent ${booked.id} is of ${intent.purchaseReference}`);
    } catch (err) {
      // A payment may have been attempted before the crash: not knowing is not "nothing charged".
      throw new OutcomeUnknown(`Hub2's intent ${booked.id} of ${req.operationId} could not be read: ${(err as Error).message}`);
    }
    const payment = paymentOfRecord(intent);
    if (payment) return collectInitiationOf(payment, req.returnUrl);
    // A payment sent before that Hub2 does not list (yet): never sent again, the status check follows it.
    if ((await this.options.book.get(payingKey(req.operationId))) !== null) throw new OutcomeUnknown(`the payment of ${req.operationId} was sent before and Hub2 lists none on ${booked.id} yet; it is never sent again`);
    return this.attemptPayment(req, booked, payer);
  }

  /** POST /payment-intents/{id}/payments: the call that moves money, sent once. */
  private async attemptPayment(req: CollectRequest, intent: BookedIntent, payer: Hub2Wallet): Promise<CollectInitiation> {
    if (!(await this.options.book.claim(payingKey(req.operationId), this.options.clock.now().toISOString(), null))) {
      throw new OutcomeUnknown(`the payment of ${req.operationId} was sent by another request meanwhile; the status check follows it`);
    }
    let answer: unknown;
    try {
      answer = await this.client.post(`/payment-intents/${segment(intent.id)}/payments`, paymentBody(intent.token, payer, payerOtp(req)));
    } catch (err) {
      if (err instanceof Hub2CallFailed && refusedOutright(err)) return { status: 'failed', ...failureOf('payment', err.body) };
      throw this.unknownOrNotTaken(err, 'payment');
    }
    try {
      const record = intentOf(answer);
      if (record.id !== intent.id) throw new Hub2ProtocolError(`the payment was posted on ${intent.id}, Hub2 answered the intent ${record.id}`);
      // The newest payment is this one: a payment is attempted only on an intent that has none.
      const payment = record.payments.at(-1);
      if (!payment) throw new Hub2ProtocolError(`the payment intent ${record.id} lists no payment after one was attempted`);
      return collectInitiationOf(payment, req.returnUrl);
    } catch (err) {
      throw new OutcomeUnknown(`Hub2's answer to the payment of ${req.operationId} cannot be read: ${(err as Error).message}`);
    }
  }

  /** What a collection waits for now, from Hub2's record of its intent (a code submitted twice, say); IKW-PRV-002 when it cannot be read. */
  private async answerOfIntent(req: CollectRequest, hub2IntentId: string): Promise<CollectInitiation> {
    try {
      return this.initiationOfNewest(req, await this.readIntent(hub2IntentId), hub2IntentId);
    } catch (err) {
      throw new ApiError('IKW-PRV-002', `Hub2's payment intent ${hub2IntentId} could not be read after a one-time code: ${(err as Error).message}`);
    }
  }

  /** The initiation an intent's newest payment says (one payment per Sika attempt). */
  private initiationOfNewest(req: CollectRequest, intent: Hub2Intent, hub2IntentId: string): CollectInitiation {
    if (intent.id !== hub2IntentId || intent.purchaseReference !== req.operationId) throw new Hub2ProtocolError(`Hub2 answered the intent ${intent.id} of ${intent.purchaseReference}, not ${hub2IntentId} of ${req.operationId}`);
    const payment = intent.payments.at(-1);
    if (!payment) throw new Hub2ProtocolError(`the payment intent ${intent.id} lists no payment`);
    return collectInitiationOf(payment, req.returnUrl);
  }

  private async readIntent(hub2IntentId: string) {
    const intent = intentOf(await this.client.get(`/payment-intents/${segment(hub2IntentId)}`));
    if (intent.id !== hub2IntentId) throw new Hub2ProtocolError(`asked for the payment intent ${hub2IntentId}, Hub2 answered ${intent.id}`);
    return intent;
  }

  /**
   * A money call's failure that is not an outright refusal: IKW-PRV-002 when Hub2 provably took
   * nothing (never connected, no valid key, rate limited), OutcomeUnknown otherwise.
   */
  private unknownOrNotTaken(err: unknown, kind: FailureKind): Error {
    if (err instanceof Hub2CallFailed && err.sent === 'no' && !maybeDone(err)) return new ApiError('IKW-PRV-002', `Hub2 did not take the ${kind}: ${err.message}`);
    return new OutcomeUnknown(`Hub2's answer to the ${kind} is unknown: ${(err as Error).message}`);
  }

  /** Whether the account pays out to this provider: Hub2 does, and HUB2_PAYOUT_OPERATORS (when set) names it. */
  private paysOutTo(entry: ProviderEntry): boolean {
    return entry.paysOut && (!this.options.payoutOperators || this.options.payoutOperators.includes(`${entry.country}:${entry.operator}`));
  }

  /** The provider and MSISDN of a mobile money method or destination, or the refusal of what Hub2 cannot carry. */
  private wallet(what: CollectMethod | PayoutDestination, direction: 'collect' | 'payout'): Hub2Wallet & { currency: string } {
    const param = direction === 'collect' ? COLLECT_MSISDN : PAYOUT_MSISDN;
    const entry = what.type === 'mobile_money' ? providerFor(what.country, what.operator) : undefined;
    if (!entry || what.type !== 'mobile_money' || (direction === 'payout' && !this.paysOutTo(entry))) {
      throw new ApiError('IKW-PRV-001', `Hub2 does not carry this ${direction === 'collect' ? 'payment method' : 'destination'}`, param.split('.')[0]);
    }
    const msisdn = hub2Msisdn(what.msisdn, entry);
    if (!msisdn) throw new ApiError('IKW-VAL-007', `Not a ${entry.country} mobile number Hub2 can reach`, param);
    return { country: entry.country, provider: entry.provider, msisdn, currency: entry.currency };
  }

  /** The amount rule of Hub2's providers (amounts.ts), and the country's one currency. */
  private assertAmount(money: Money, currency: string): void {
    if (money.currency.toUpperCase() !== currency) throw new ApiError('IKW-PRV-001', `Hub2 carries this operator in ${currency} only`, 'currency');
    const refusal = amountRefusal(money.amount);
    if (refusal) throw new ApiError('IKW-PRV-016', refusal, 'amount');
  }
}

/** The one-time code the payer gave before paying, when they did: it goes with the attempt (`mobileMoney.otp`), nowhere else. */
function payerOtp(req: CollectRequest): string | undefined {
  return req.paymentMethod.type === 'mobile_money' ? req.paymentMethod.otp : undefined;
}

/**
 * Whether Hub2 looked at a money request and refused it (400, 402, 403, 404): nothing was taken
 * and the refusal is final. Not 401 or 429 (nothing looked at: IKW-PRV-002, may be tried again),
 * nor a conflict (maybeDone).
 */
function refusedOutright(err: Hub2CallFailed): boolean {
  const status = err.httpStatus;
  return status !== undefined && status >= 400 && status < 500 && status !== 401 && status !== 429 && !maybeDone(err);
}

/**
 * A 409 ("conflict with an action in progress or done") or `duplicate_request` ("a similar operation
 * has just been recorded"): the operation may already exist at Hub2, so it is neither refused nor
 * not taken; the status check finds what Hub2 holds.
 */
function maybeDone(err: Hub2CallFailed): boolean {
  return err.httpStatus === 409 || err.hub2Code === 'duplicate_request';
}
