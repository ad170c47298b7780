import type { CollectInitiation, CollectOutcome, CollectRequest, PayoutFloat, PayoutInitiation, PayoutReport, PayoutRequest, ReportedMoney, StatusAnswer, WalletBalance } from '../port.js';
import { failureOf, type Failure } from './failures.js';

/**
 * Pure request builders and answer mappers of Hub2's API: payment intents and their payments
 * (collect), transfers (payout), the balance and webhook events. Nothing here does I/O: the
 * connector (index.ts) calls Hub2 with what these build and decides on what these read. Everything
 * Hub2 answers is untrusted input: an answer off the contract (a field missing, a wrong type, a
 * status not in the contract, a record of another operation) throws a Hub2ProtocolError, which is
 * never believed and never moves money.
 */

/** An answer or event of Hub2 that does not follow its contract. */
export class Hub2ProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Hub2ProtocolError';
  }
}

/** A wallet as Hub2 names it: ISO-2 country, provider name, `+<calling code><digits>` (providers.ts). */
export interface Hub2Wallet {
  country: string;
  provider: string;
  msisdn: string;
}

export interface IntentBody {
  customerReference: string;
  purchaseReference: string;
  amount: number;
  currency: string;
}

export interface PaymentBody {
  token: string;
  paymentMethod: 'mobile_money';
  country: string;
  provider: string;
  mobileMoney: { msisdn: string; otp?: string };
}

/** POST /payment-intents/{id}/authentication: the one-time code the payer got. */
export interface AuthenticationBody {
  confirmationCode: string;
}

export interface TransferBody {
  reference: string;
  amount: number;
  currency: string;
  description: string;
  destination: { type: 'mobile_money'; country: string; recipientName: string; msisdn: string; provider: string };
}

/** What Hub2 allows in references (400 otherwise). Sika's ids are made of these. */
const REFERENCE = /^[A-Za-z0-9\-_. ]+$/;

function reference(value: string, what: string): string {
  // Sika's ids never have others: one that does is a bug here, refused before anything is sent.
  if (!REFERENCE.test(value)) throw new Error(`the ${what} ${JSON.stringify(value)} has characters Hub2 refuses in a reference`);
  return value;
}

/** POST /payment-intents: the Sika operation id is the purchase reference, the Sika payment intent id the customer reference. */
export function intentBody(req: CollectRequest): IntentBody {
  return {
    customerReference: reference(req.paymentIntentId, 'payment intent id'),
    purchaseReference: reference(req.operationId, 'operation id'),
    amount: req.amount,
    currency: req.currency.toUpperCase(),
  };
}

/** POST /payment-intents/{id}/payments, with the intent's token; `otp`: the code the payer got before paying (Orange CI), when given. */
export function paymentBody(token: string, payer: Hub2Wallet, otp?: string): PaymentBody {
  return { token, paymentMethod: 'mobile_money', country: payer.country, provider: payer.provider, mobileMoney: { msisdn: payer.msisdn, ...(otp !== undefined ? { otp } : {}) } };
}

/** POST /payment-intents/{id}/authentication: the code the payer got after the attempt asked for one. */
export function authenticationBody(code: string): AuthenticationBody {
  return { confirmationCode: code };
}

/** POST /transfers: Sika's payout id is the reference (how a lost answer is found again). */
export function transferBody(req: PayoutRequest, recipient: Hub2Wallet, recipientName: string): TransferBody {
  return {
    reference: reference(req.payoutId, 'payout id'),
    amount: req.amount,
    currency: req.currency.toUpperCase(),
    description: `Sika payout ${req.payoutId}`,
    destination: { type: 'mobile_money', country: recipient.country, recipientName, msisdn: recipient.msisdn, provider: recipient.provider },
  };
}

export type PaymentStatus = 'pending' | 'action_required' | 'successful' | 'failed';
export type IntentStatus = 'payment_required' | 'processing' | 'action_required' | 'successful' | 'canceled';
export type TransferStatus = 'created' | 'pending' | 'successful' | 'failed';

const PAYMENT_STATUSES: readonly string[] = ['pending', 'action_required', 'successful', 'failed'] satisfies PaymentStatus[];
const INTENT_STATUSES: readonly string[] = ['payment_required', 'processing', 'action_required', 'successful', 'canceled'] satisfies IntentStatus[];
const TRANSFER_STATUSES: readonly string[] = ['created', 'pending', 'successful', 'failed'] satisfies TransferStatus[];

/** What a payment asks of the payer next: a page to send them to, a code to ask them for, or something not known here. */
export type PaymentAction = { type: 'redirection'; url: string } | { type: 'otp' } | { type: 'other'; name: string };

export interface Hub2Payment {
  id: string;
  status: PaymentStatus;
  amount: number;
  currency: string;
  nextAction?: PaymentAction;
  failure?: Failure;
}

export interface Hub2Intent {
  id: string;
  /** Present in the creation answer (and maybe later): needed for every next step. */
  token?: string;
  status: IntentStatus;
  amount: number;
  currency: string;
  purchaseReference: string;
  customerReference: string;
  payments: Hub2Payment[];
}

export interface Hub2Transfer {
  id: string;
  reference: string;
  status: TransferStatus;
  amount: number;
  currency: string;
  failure?: Failure;
}

export function paymentOf(value: unknown): Hub2Payment {
  const body = record(value, 'payment');
  const id = text(body, 'id', 'payment');
  const status = oneOf(body, 'status', PAYMENT_STATUSES, `payment ${id}`) as PaymentStatus;
  const action = body.nextAction === undefined || body.nextAction === null ? undefined : actionOf(body.nextAction, id);
  return {
    id,
    status,
    amount: amount(body, `payment ${id}`),
    currency: text(body, 'currency', `payment ${id}`),
    ...(action ? { nextAction: action } : {}),
    ...(status === 'failed' ? { failure: failureOf('payment', body.failureCause) } : {}),
  };
}

function actionOf(value: unknown, paymentId: string): PaymentAction {
  const action = record(value, `next action of payment ${paymentId}`);
  const type = text(action, 'type', `next action of payment ${paymentId}`);
  if (type === 'otp') return { type: 'otp' };
  if (type !== 'redirection') return { type: 'other', name: type };
  const data = record(action.data, `redirection of payment ${paymentId}`);
  const url = text(data, 'url', `redirection of payment ${paymentId}`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Hub2ProtocolError(`the redirection of payment ${paymentId} is not a URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Hub2ProtocolError(`the redirection of payment ${paymentId} is not a web address`);
  return { type: 'redirection', url };
}

export function intentOf(answer: unknown): Hub2Intent {
  const body = record(answer, 'payment intent');
  const id = text(body, 'id', 'payment intent');
  const what = `payment intent ${id}`;
  if (!Array.isArray(body.payments)) throw new Hub2ProtocolError(`the ${what} has no payments list`);
  return {
    id,
    ...(typeof body.token === 'string' && body.token ? { token: body.token } : {}),
    status: oneOf(body, 'status', INTENT_STATUSES, what) as IntentStatus,
    amount: amount(body, what),
    currency: text(body, 'currency', what),
    purchaseReference: text(body, 'purchaseReference', what),
    customerReference: text(body, 'customerReference', what),
    payments: body.payments.map(paymentOf),
  };
}

export function transferOf(answer: unknown): Hub2Transfer {
  const body = record(answer, 'transfer');
  const id = text(body, 'id', 'transfer');
  const status = oneOf(body, 'status', TRANSFER_STATUSES, `transfer ${id}`) as TransferStatus;
  return {
    id,
    reference: text(body, 'reference', `transfer ${id}`),
    status,
    amount: amount(body, `transfer ${id}`),
    currency: text(body, 'currency', `transfer ${id}`),
    ...(status === 'failed' ? { failure: failureOf('transfer', body.failureCause) } : {}),
  };
}

/** `GET /transfers?reference=…`: a JSON array of Transfers; only those of `reference` are kept (a list that ignored the filter says nothing of others). */
export function transfersWithReference(answer: unknown, ref: string): Hub2Transfer[] {
  if (!Array.isArray(answer)) throw new Hub2ProtocolError('the transfer list is not a JSON array');
  return answer.map(transferOf).filter((t) => t.reference === ref);
}

/** What Sika keeps of an intent before its payment is attempted (its book, under `intent:<operation id>`). */
export interface BookedIntent {
  id: string;
  token: string;
}

export function bookedIntentOf(value: string): BookedIntent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new Hub2ProtocolError('the booked intent is not JSON');
  }
  const body = record(parsed, 'booked intent');
  return { id: text(body, 'id', 'booked intent'), token: text(body, 'token', 'booked intent') };
}

/** The payment an intent's answer is read from: a successful one (the money is in), else the newest. */
export function paymentOfRecord(intent: Hub2Intent): Hub2Payment | undefined {
  return intent.payments.find((p) => p.status === 'successful') ?? intent.payments.at(-1);
}

/** What the payer is told when the operator asks for a one-time code after the attempt. */
export const OTP_INSTRUCTIONS = 'Enter the one-time code your mobile money operator sent you by SMS';

/**
 * The first answer to a collection, from the Payment Hub2 created. A redirection sends the payer
 * to Hub2's page. An OTP asks the payer for the code the operator sent them: the payment waits
 * (requires_action, `mobile_money_otp`) until submit_otp brings it; Hub2 tells no expiry.
 */
export function collectInitiationOf(payment: Hub2Payment, returnUrl: string): CollectInitiation {
  if (payment.status === 'failed') return { status: 'failed', ...(payment.failure ?? failureOf('payment', undefined)) };
  const action = payment.nextAction;
  if (action?.type === 'redirection') return { status: 'requires_action', nextAction: { type: 'redirect_to_url', redirect_to_url: { url: action.url, return_url: returnUrl } } };
  if (action?.type === 'otp') return { status: 'requires_action', nextAction: { type: 'mobile_money_otp', mobile_money_otp: { instructions: OTP_INSTRUCTIONS } } };
  // pending (USSD push: the payer approves on the phone), successful at once, or an action not known here: the status check decides.
  return { status: 'processing' };
}

/** The money a payment holds, in Sika's terms (Hub2's units are Sika's minor units for XOF and XAF). */
export function reportedOf(what: { id: string; amount: number; currency: string }): ReportedMoney {
  return { amount: what.amount, currency: what.currency.toLowerCase(), providerReference: what.id };
}

/**
 * A collection's status from Hub2's record of its intent: no payment on it is nothing taken
 * (found: false); a successful payment (or intent) is the money in; a failed one the failure;
 * anything else is not final yet. The intent must be the operation's (its purchase reference).
 */
export function collectStatusOf(intent: Hub2Intent, operationId: string): StatusAnswer<CollectOutcome> {
  if (intent.purchaseReference !== operationId) throw new Hub2ProtocolError(`the payment intent ${intent.id} is of ${intent.purchaseReference}, not of ${operationId}`);
  const payment = paymentOfRecord(intent);
  if (!payment) return { found: false };
  if (payment.status === 'successful' || intent.status === 'successful') {
    // An intent successful is paid in full: its own amount, with the payment that did it.
    const reported = payment.status === 'successful' ? reportedOf(payment) : reportedOf({ id: payment.id, amount: intent.amount, currency: intent.currency });
    return { found: true, final: { status: 'succeeded', providerReference: payment.id }, reported };
  }
  const reported = reportedOf(payment);
  if (payment.status === 'failed') return { found: true, final: { status: 'failed', ...(payment.failure ?? failureOf('payment', undefined)) }, reported };
  return { found: true, final: null, reported };
}

/** The first answer to a payout, from the Transfer Hub2 created: failed at once is rejected, anything else accepted. */
export function payoutInitiationOf(transfer: Hub2Transfer): PayoutInitiation {
  if (transfer.status === 'failed') return { status: 'rejected', ...(transfer.failure ?? failureOf('transfer', undefined)) };
  return { status: 'accepted' };
}

/** A payout's status from Hub2's Transfer: created and pending are not final. The transfer must be the payout's (its reference). */
export function payoutStatusOf(transfer: Hub2Transfer, payoutId: string): StatusAnswer<PayoutReport> {
  if (transfer.reference !== payoutId) throw new Hub2ProtocolError(`the transfer ${transfer.id} is of ${transfer.reference}, not of ${payoutId}`);
  const reported = reportedOf(transfer);
  if (transfer.status === 'successful') return { found: true, final: { type: 'paid', providerReference: transfer.id }, reported };
  if (transfer.status === 'failed') return { found: true, final: { type: 'failed', ...(transfer.failure ?? failureOf('transfer', undefined)) }, reported };
  return { found: true, final: null, reported };
}

/** One currency's accounts in a `GET /balance` answer: collected money, and the transfer account's available and reserved. */
export interface Hub2Accounts {
  currency: string;
  collection: number;
  transfer: number;
  reserved: number;
}

/** `GET /balance` → each currency's accounts, amounts checked. */
export function accountsOf(answer: unknown): Hub2Accounts[] {
  const body = record(answer, 'balance answer');
  if (!Array.isArray(body.balances)) throw new Hub2ProtocolError('the balance answer has no balances list');
  return body.balances.map((b: unknown, i) => {
    const entry = record(b, `balance ${i}`);
    const currency = text(entry, 'currency', `balance ${i}`);
    const collection = record(entry.collection, `collection account of ${currency}`);
    const transfer = record(entry.transfer, `transfer account of ${currency}`);
    const amountOf = (holder: Record<string, unknown>, field: string, what: string) => {
      const value = holder[field];
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new Hub2ProtocolError(`the ${what} of ${currency} is not an amount`);
      return value;
    };
    return { currency, collection: amountOf(collection, 'available', 'collection balance'), transfer: amountOf(transfer, 'available', 'transfer balance'), reserved: amountOf(transfer, 'reserved', 'reserved transfer balance') };
  });
}

/**
 * `GET /balance` → one wallet per currency: what Hub2 holds for Sika is the collection account's
 * available money and the transfer account's, available and reserved (reserved is still Sika's
 * until the transfer it is held for is paid).
 */
export function walletBalancesOf(answer: unknown): WalletBalance[] {
  return accountsOf(answer).map((a) => ({ wallet: a.currency.toUpperCase(), currency: a.currency.toLowerCase(), amount: a.collection + a.transfer + a.reserved }));
}

/** `GET /balance` → what pays transfers, per currency: the transfer account's available money only (collected money must be moved to it first; reserved is held for transfers sent). */
export function transferFloatsOf(answer: unknown): PayoutFloat[] {
  return accountsOf(answer).map((a) => ({ wallet: `${a.currency.toUpperCase()}/transfer`, currency: a.currency.toLowerCase(), amount: a.transfer }));
}

/**
 * What a webhook names to re-read: the intent of a payment event, the payout and transfer of a
 * transfer event. It is never believed as it is (a delivery may come late, twice or never).
 */
export type Hub2Event = { kind: 'collect'; hub2IntentId: string; mode?: Hub2Mode } | { kind: 'payout'; payoutId: string; hub2TransferId: string; mode?: Hub2Mode } | { kind: 'ignored'; reason: string };

/** The account an event says it is of (its `mode`): only which account is asked first, never believed further. */
export type Hub2Mode = 'live' | 'sandbox';

export function eventOf(body: Buffer): Hub2Event {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return { kind: 'ignored', reason: 'the body is not JSON' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { kind: 'ignored', reason: 'the body is not a JSON object' };
  const event = parsed as Record<string, unknown>;
  const type = typeof event.type === 'string' ? event.type : undefined;
  if (!type) return { kind: 'ignored', reason: 'the event has no type' };
  const data = typeof event.data === 'object' && event.data !== null ? (event.data as Record<string, unknown>) : undefined;
  const field = (name: string) => (data && typeof data[name] === 'string' && data[name] ? (data[name] as string) : undefined);
  const mode: { mode?: Hub2Mode } = event.mode === 'live' || event.mode === 'sandbox' ? { mode: event.mode } : {};
  if (type.startsWith('payment_intent.')) {
    const id = field('id');
    return id ? { kind: 'collect', hub2IntentId: id, ...mode } : { kind: 'ignored', reason: `the ${type} event names no intent` };
  }
  if (type.startsWith('payment.')) {
    const id = field('intentId');
    return id ? { kind: 'collect', hub2IntentId: id, ...mode } : { kind: 'ignored', reason: `the ${type} event names no intent` };
  }
  if (type.startsWith('transfer.')) {
    const id = field('id');
    const ref = field('reference');
    return id && ref ? { kind: 'payout', payoutId: ref, hub2TransferId: id, ...mode } : { kind: 'ignored', reason: `the ${type} event names no transfer or reference` };
  }
  return { kind: 'ignored', reason: `events of type ${type} are not used` };
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Hub2ProtocolError(`the ${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

function text(body: Record<string, unknown>, field: string, what: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value === '') throw new Hub2ProtocolError(`the ${what} has no ${field}`);
  return value;
}

function oneOf(body: Record<string, unknown>, field: string, allowed: readonly string[], what: string): string {
  const value = body[field];
  if (typeof value !== 'string' || !allowed.includes(value)) throw new Hub2ProtocolError(`the ${what} has ${field} ${JSON.stringify(value)}, not one of the contract's`);
  return value;
}

function amount(body: Record<string, unknown>, what: string): number {
  const value = body.amount;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw new Hub2ProtocolError(`the ${what} has no amount (a positive integer)`);
  return value;
}
