import type { Clock } from '#packages/core/clock.js';
import { ApiError } from '#packages/core/errors.js';
import type { Logger } from '#packages/core/logger.js';
import { Cached } from '../cached.js';
import type { ConnectorSinks } from '../callbacks.js';
import {
  AccountHolderMismatch,
  OutcomeUnknown,
  reportedMismatch,
  withReceipt,
  type CollectMethod,
  type CollectRequest,
  type Availability,
  type BankAccount,
  type CollectInitiation,
  type CollectOutcome,
  type Connector,
  type Direction,
  type PayoutBank,
  type PayoutDestination,
  type PayoutInitiation,
  type PayoutReport,
  type PayoutRequest,
  type RailSubject,
  type RefundInitiation,
  type RefundRequest,
  type ReportedMoney,
  type StatusAnswer,
  type WalletBalance,
} from '../port.js';
import { fromSubunits, PAYSTACK_CURRENCIES, toSubunits } from './amounts.js';
import { PaystackCallFailed, PaystackClient } from './client.js';
import { authorizationOf, chargeOutcomeOf, type CardBook } from './cards.js';
import { paystackReference, sikaIdOf } from './references.js';
import { verifiesWith } from './signatures.js';
import { DISPUTE_EVENTS, disputeStageOf } from './disputes.js';
import type { DisputeEvidence, DisputeFile, DisputedMoney, DisputeRail, RailDispute } from '../disputes.js';
import { MOBILE_MONEY, NAME_CHECK_CURRENCIES, RECIPIENT_TYPES, sameAccountName, transferDelayOf, transferFinalOf } from './transfers.js';

export { paystackReference, sikaIdOf } from './references.js';
export type { CardBook, SavedCard } from './cards.js';
export { signatureOf } from './signatures.js';

/**
 * The transfer recipients Sika made at Paystack, kept per merchant and bank account so that each is
 * created once (services/rails.ts keeps them in the database).
 */
export interface RecipientBook {
  get(key: string): Promise<string | null>;
  put(key: string, recipientCode: string): Promise<void>;
}

export interface PaystackOptions {
  /** https://api.paystack.co; the key decides the mode. */
  baseUrl: string;
  secretKey: string;
  clock: Clock;
  /** A currency's minor units (the catalog's): Sika's amounts are integers in them. */
  minorUnits: (currency: string) => number | undefined;
  recipients: RecipientBook;
  cards: CardBook;
  /** Sika's status page of an operation: where Paystack sends the payer back after its checkout page. */
  statusPage: (operationId: string) => string;
  /** Where news learnt on the way goes (a transfer waiting for an OTP). */
  sinks: ConnectorSinks;
  /** Per call; an initiation without an answer by then has an unknown outcome. Default 15 s. */
  timeoutMs?: number;
  /** How long the bank list is kept. Default 1 h. */
  banksRefreshMs?: number;
  /** The status-check schedule of an attempt with no final answer (the delays, each after the one before). */
  statusChecks?: readonly number[];
  log?: Logger;
}

/** What a webhook comes to once its signature verified (its inbound side, inbound.ts, hands it to the news desk, which matches it against the stored attempt). */
export type PaystackEvent =
  | { kind: 'transfer'; payoutId: string; report: PayoutReport | null; reported: ReportedMoney }
  /**
   * A charge's news is never believed as told: it names the operation (its reference), whose
   * verification decides; the payment intent too when the metadata Sika sent came back with it.
   */
  | { kind: 'charge'; operationId: string; paymentIntentId?: string }
  /**
   * A refund's final news names its transaction and money, not Sika's refund (no merchant note in
   * the webhook): the pending refunds of that payment with that money are checked, never believed as told.
   */
  | { kind: 'refund'; operationId: string; reported: ReportedMoney }
  /** A dispute's news names it alone: the dispute is read from Paystack (`GET /dispute/{id}`), never believed as told. */
  | { kind: 'dispute'; disputeId: string }
  | { kind: 'ignored'; reason: string; payoutId?: string };

/**
 * What the account may pay out to, from `GET /bank`: the banks that take transfers (code to name)
 * and the codes of the mobile money operators, by currency.
 */
interface Payees {
  bank: ReadonlyMap<string, ReadonlyMap<string, string>>;
  mobile_money: ReadonlyMap<string, ReadonlySet<string>>;
}

/** A transfer recipient as `POST /transferrecipient` takes it, and the key it is kept under for the merchant. */
interface RecipientRequest {
  type: string;
  name: string;
  account_number: string;
  bank_code: string;
  currency: string;
  key: string;
}

/**
 * Paystack as the card and bank connector of the rail port (docs/connectors.md, "Paystack"): card
 * collections (a first card on Paystack's checkout page, a saved one by its authorization), each
 * success verified with `GET /transaction/verify` before money moves; bank payouts as transfers
 * to a recipient kept per merchant and account, the account holder's name checked before money is
 * held, status checks by `GET /transfer/verify`; and its webhooks, verified with the account's
 * secret key. What it serves: cards, and the banks and the Ghana and Kenya mobile money operators
 * of the lists Paystack gives.
 */
export class PaystackConnector implements Connector, DisputeRail {
  readonly name = 'paystack';
  /** Transfers leave the account's Paystack balance: its clearing account is `rail_clearing:paystack`. */
  readonly holdsFunds = true;
  /**
   * A transaction's and a transfer's `reference` is Sika's, unique at Paystack (a second request
   * under it is refused as a duplicate): one record per id. A refund takes no caller reference
   * (`POST /refund` makes a new one each time): one that may have reached Paystack is never sent again.
   */
  readonly oneRecordPerId = { collect: true, payout: true, refund: false } as const;
  readonly statusChecks: readonly number[];
  private readonly client: PaystackClient;
  /** Whom the account may pay: the codes of the banks and mobile money operators, by currency. */
  private readonly payees: Cached<Payees>;

  constructor(private readonly options: PaystackOptions) {
    this.client = new PaystackClient({ baseUrl: options.baseUrl, secretKey: options.secretKey, timeoutMs: options.timeoutMs ?? 15_000 });
    this.payees = new Cached(
      () => this.loadBanks(),
      options.clock,
      options.banksRefreshMs ?? 3_600_000,
      60_000,
      (err) => options.log?.warn({ err }, "Paystack's bank list could not be refreshed; the last one is used"),
    );
    this.statusChecks = options.statusChecks ?? [];
  }

  /** Loads the bank list now (at start-up: until it is loaded, no bank payout is served). */
  async refresh(): Promise<void> {
    await this.payees.refresh();
  }

  loaded(): boolean {
    return this.payees.current() !== undefined;
  }

  /**
   * Card collections (in a currency Paystack takes, when the subject names one); payouts to a bank
   * in a currency whose banks Paystack listed, and to a Ghana or Kenya mobile money operator it
   * listed: from what is held (routing is synchronous).
   */
  serves(direction: Direction, subject: RailSubject): boolean {
    if (direction === 'collect') return subject.rail === 'card' && (subject.currency === undefined || PAYSTACK_CURRENCIES.includes(subject.currency.toUpperCase()));
    if (direction !== 'payout' || subject.rail === 'card') return false;
    void this.payees.get().catch((err: unknown) => this.options.log?.warn({ err }, "Paystack's bank list could not be loaded"));
    const payees = this.payees.current();
    if (subject.rail === 'bank') return (payees?.bank.get(subject.currency.toUpperCase())?.size ?? 0) > 0;
    const wallet = mobileMoneyOf(subject.country, subject.operator);
    return wallet !== undefined && (payees?.mobile_money.get(wallet.currency)?.has(wallet.code) ?? false);
  }

  async availability(direction: Direction, subject: RailSubject): Promise<Availability> {
    return this.serves(direction, subject) ? 'available' : 'unavailable';
  }

  /** A card: none (Paystack's checkout page) or a saved card's token. */
  assertCanCollect(method: CollectMethod): void {
    if (method.type !== 'card') throw new ApiError('IKW-PRV-001', 'Paystack does not carry this payment method', 'payment_method');
    if (method.token !== undefined && !/^card_[0-9a-f]{24}$/.test(method.token)) throw new ApiError('IKW-PRV-014', 'Not a saved card token of this service', 'payment_method.card.token');
  }

  /**
   * A card payment under the reference derived from the operation id. No token: a transaction
   * initialised for Paystack's checkout page, the payer sent there and back to Sika's status page.
   * A token: the saved card's reusable authorization charged at once; a success is verified before
   * it is told (and told through the sinks), a decline fails with its code.
   */
  async collect(req: CollectRequest): Promise<CollectInitiation> {
    const pm = req.paymentMethod;
    this.assertCanCollect(pm);
    if (!PAYSTACK_CURRENCIES.includes(req.currency.toUpperCase()))
      throw new ApiError('IKW-PRV-001', `Live card payments are not enabled in ${req.currency.toUpperCase()}: Paystack takes cards in ${PAYSTACK_CURRENCIES.join(', ')}`, 'payment_method');
    const amount = this.subunits(req.amount, req.currency);
    const reference = paystackReference(req.operationId);
    const metadata = { payment_intent: req.paymentIntentId, operation: req.operationId };
    if (pm.type !== 'card' || pm.token === undefined) {
      const email = req.payer?.email;
      if (!email) throw new ApiError('IKW-PRV-015', "A card payment through Paystack needs the payer's e-mail: create the intent with a customer that has one", 'customer');
      const answer = await this.initiate('/transaction/initialize', { email, amount, currency: req.currency.toUpperCase(), reference, callback_url: this.options.statusPage(req.operationId), channels: ['card'], metadata });
      if ('failed' in answer) return answer.failed;
      const url = stringOf(object(answer.data).authorization_url);
      if (!url) throw new OutcomeUnknown("Paystack's answer to the transaction has no authorization_url");
      return { status: 'requires_action', nextAction: { type: 'redirect_to_url', redirect_to_url: { url, return_url: req.returnUrl } } };
    }
    const card = await this.options.cards.find(pm.token);
    if (!card || card.merchantId !== req.merchantId || card.customerId !== req.payer?.customerId) {
      throw new ApiError('IKW-PRV-014', "No saved card with this token for the intent's customer", 'payment_method.card.token');
    }
    if (!card.reusable)
      throw new ApiError('IKW-PRV-013', `The ${card.brand} card ending ${card.last4} cannot be charged again: its bank gave a single-use authorization; the payer pays on the checkout page instead`, 'payment_method.card.token');
    const answer = await this.initiate('/transaction/charge_authorization', {
      email: card.email,
      amount,
      currency: req.currency.toUpperCase(),
      authorization_code: card.authorizationCode,
      reference,
      metadata: JSON.stringify(metadata),
    });
    if ('failed' in answer) return answer.failed;
    const data = object(answer.data);
    const outcome = chargeOutcomeOf(data.status, data.gateway_response);
    if (outcome?.status === 'failed') return outcome;
    const url = stringOf(data.url) ?? stringOf(data.authorization_url);
    if (!outcome && url) return { status: 'requires_action', nextAction: { type: 'redirect_to_url', redirect_to_url: { url, return_url: req.returnUrl } } };
    if (outcome) await this.tellVerified(req);
    return { status: 'processing' };
  }

  /**
   * `GET /transaction/verify/{reference}`: not found means Paystack never took it (sent again under
   * the same reference). A success reports its amount and currency for the caller to match, and
   * keeps the card it was paid with for the intent's customer.
   */
  async collectStatus(req: CollectRequest): Promise<StatusAnswer<CollectOutcome>> {
    const reference = paystackReference(req.operationId);
    let answer;
    try {
      answer = await this.client.get(`/transaction/verify/${reference}`);
    } catch (err) {
      if (err instanceof PaystackCallFailed && (err.httpStatus === 404 || (err.httpStatus === 400 && /not found/i.test(err.paystackMessage ?? '')))) return { found: false };
      throw err;
    }
    const data = object(answer.data);
    if (data.reference !== reference) throw new Error(`Paystack verified transaction ${String(data.reference)} when asked about ${reference}`);
    const outcome = chargeOutcomeOf(data.status, data.gateway_response, typeof data.id === 'number' ? String(data.id) : undefined);
    const reported = this.reported(data, typeof data.id === 'number' ? String(data.id) : undefined);
    const authorization = outcome?.status === 'succeeded' && req.payer && reportedMismatch(req, reported) === null ? authorizationOf(data.authorization) : null;
    if (authorization && req.payer?.keepsCard) {
      const email = stringOf(object(data.customer).email) ?? req.payer.email;
      if (email) await this.options.cards.save({ ...authorization, merchantId: req.merchantId, customerId: req.payer.customerId, email });
    }
    return { found: true, final: outcome, reported };
  }

  /** A charge Paystack answered `success`: verified now, and told through the sinks once it matches; otherwise the status checks decide. */
  private async tellVerified(req: CollectRequest): Promise<void> {
    let answer: StatusAnswer<CollectOutcome>;
    try {
      answer = await this.collectStatus(req);
    } catch (err) {
      this.options.log?.warn({ err, operation: req.operationId }, 'the charge could not be verified yet; the status check decides');
      return;
    }
    if (!answer.found || answer.final?.status !== 'succeeded' || reportedMismatch(req, answer.reported)) return;
    await this.options.sinks.collect(
      { paymentIntentId: req.paymentIntentId, operationId: req.operationId, merchantId: req.merchantId, environment: req.environment, outcome: withReceipt(answer.final, answer.reported) },
      this.options.clock.now(),
    );
  }

  /**
   * A request that starts a charge: its answer, or a refusal of the request as it came (nothing
   * charged: the payment fails with Paystack's words). Perhaps taken → OutcomeUnknown.
   */
  private async initiate(path: string, body: unknown): Promise<{ data: unknown } | { failed: CollectInitiation & { status: 'failed' } }> {
    try {
      return await this.client.post(path, body);
    } catch (err) {
      if (!(err instanceof PaystackCallFailed) || err.sent === 'maybe') throw new OutcomeUnknown(`Paystack's answer to ${path} is unknown: ${(err as Error).message}`);
      // The reference is known: taken before (a retry after a lost answer); its verification decides.
      if (/duplicate/i.test(err.paystackMessage ?? '')) throw new OutcomeUnknown(`Paystack already has this reference: ${err.message}`);
      if (err.httpStatus === 401 || err.httpStatus === 429) throw new ApiError('IKW-PRV-002', `Paystack did not take the payment: ${err.message}`);
      return { failed: { status: 'failed', failureCode: 'provider_error', failureMessage: `Paystack refused the payment (${err.paystackMessage ?? err.message})` } };
    }
  }

  /** A bank account of a bank Paystack lists for its currency, with a number its banks take; a wallet of an operator it lists. */
  assertCanPayOut(destination: PayoutDestination): void {
    this.recipientOf('', destination);
  }

  /**
   * The account holder's name as the bank gives it, where the currency's banks answer it, against
   * the name the merchant gave: a mismatch is refused with the bank's name (IKW-PRV-010), an
   * account the bank does not know with IKW-PRV-011; nothing is held yet.
   */
  async verifyDestination(destination: PayoutDestination): Promise<void> {
    this.recipientOf('', destination);
    // A mobile money destination names no holder: nothing to compare.
    if (destination.type !== 'bank') return;
    const resolved = await this.resolvedName(destination, 'destination.account_number');
    if (resolved !== null && !sameAccountName(destination.account_name, resolved)) {
      throw new AccountHolderMismatch(destination.account_number, resolved, destination.account_name, 'destination.account_name');
    }
  }

  /** The banks of Paystack's list for `currency` that take transfers, by name. */
  async banks(currency: string): Promise<readonly PayoutBank[]> {
    const listed = (await this.payees.get()).bank.get(currency.toUpperCase()) ?? new Map<string, string>();
    return [...listed].map(([code, name]) => ({ code, name })).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The holder's name of an account of a listed bank, as `GET /bank/resolve` gives it; null where the currency's banks tell none. */
  async accountHolder(account: BankAccount): Promise<string | null> {
    this.recipientOf('', { type: 'bank', ...account, account_name: '' }, '');
    return this.resolvedName(account, 'account_number');
  }

  /** `GET /bank/resolve` where the currency's banks answer it (else null): IKW-PRV-011 when the bank does not know the account, IKW-PRV-002 when it could not say. */
  private async resolvedName(account: BankAccount, field: string): Promise<string | null> {
    if (!NAME_CHECK_CURRENCIES.has(account.currency.toUpperCase())) return null;
    let answer;
    try {
      answer = await this.client.get('/bank/resolve', { account_number: account.account_number, bank_code: account.bank_code });
    } catch (err) {
      if (err instanceof PaystackCallFailed && err.httpStatus !== undefined && err.httpStatus >= 400 && err.httpStatus < 500 && err.httpStatus !== 401 && err.httpStatus !== 429) {
        throw new ApiError('IKW-PRV-011', `The bank does not know account ${account.account_number} (${err.paystackMessage ?? 'Paystack could not resolve it'})`, field);
      }
      throw new ApiError('IKW-PRV-002', `The bank account's name could not be checked; nothing was held: ${(err as Error).message}`);
    }
    const resolved = stringOf(object(answer.data).account_name);
    if (!resolved) throw new ApiError('IKW-PRV-002', "Paystack's answer has no account name; nothing was held");
    return resolved;
  }

  /**
   * A bank or mobile money payout: the recipient (created once per merchant and account, kept), then the transfer
   * under the reference derived from the payout id. Paystack answering that the reference exists
   * is the transfer taken before (a retry after a lost answer): accepted, the status check follows
   * it. A transfer waiting for an OTP is accepted and reported delayed, never failed.
   */
  async payout(req: PayoutRequest): Promise<PayoutInitiation> {
    const amount = this.subunits(req.amount, req.currency);
    const recipient = await this.recipient(this.recipientOf(req.merchantId, req.destination));
    let answer;
    try {
      answer = await this.client.post('/transfer', { source: 'balance', amount, currency: req.currency.toUpperCase(), recipient, reference: paystackReference(req.payoutId), reason: `Sika payout ${req.payoutId}` });
    } catch (err) {
      if (!(err instanceof PaystackCallFailed) || err.sent === 'maybe') throw new OutcomeUnknown(`Paystack's answer to the transfer is unknown: ${(err as Error).message}`);
      if (/reference already exists|duplicate/i.test(err.paystackMessage ?? '')) return { status: 'accepted' };
      if (err.httpStatus === 401 || err.httpStatus === 429) throw new ApiError('IKW-PRV-002', `Paystack did not take the transfer: ${err.message}`);
      return { status: 'rejected', ...transferRefusal(err.paystackMessage) };
    }
    const data = object(answer.data);
    const final = transferFinalOf(data.status, stringOf(data.transfer_code));
    if (final?.type === 'failed') return { status: 'rejected', failureCode: final.failureCode, failureMessage: final.failureMessage };
    const delayed = transferDelayOf(data.status);
    if (delayed) await this.options.sinks.payout({ payoutId: req.payoutId, merchantId: req.merchantId, environment: req.environment, report: { type: 'delayed', reason: delayed } }, this.options.clock.now());
    if (final) await this.options.sinks.payout({ payoutId: req.payoutId, merchantId: req.merchantId, environment: req.environment, report: final }, this.options.clock.now());
    return { status: 'accepted' };
  }

  /** `GET /transfer/verify/{reference}`: not found (404) means Paystack never took it, and it may be sent again under the same reference. */
  async payoutStatus(req: PayoutRequest): Promise<StatusAnswer<PayoutReport>> {
    let answer;
    try {
      answer = await this.client.get(`/transfer/verify/${paystackReference(req.payoutId)}`);
    } catch (err) {
      if (err instanceof PaystackCallFailed && err.httpStatus === 404) return { found: false };
      throw err;
    }
    const data = object(answer.data);
    if (data.reference !== paystackReference(req.payoutId)) throw new Error(`Paystack verified transfer ${String(data.reference)} when asked about ${paystackReference(req.payoutId)}`);
    const delayed = transferDelayOf(data.status);
    return { found: true, final: transferFinalOf(data.status, stringOf(data.transfer_code)), reported: this.reported(data), ...(delayed ? { delayed } : {}) };
  }

  /**
   * A refund of a card payment: `POST /refund` on the transaction named by the reference derived
   * from the collection's operation id, the amount in subunits. Paystack takes no caller reference
   * for a refund, so Sika's refund id goes in `merchant_note`: the status check finds the refund
   * by it. `pending`/`processing` accepted (the webhook or the status check ends it); `failed` or a
   * refusal of the request rejected with its reason; no answer → OutcomeUnknown.
   */
  async refund(req: RefundRequest): Promise<RefundInitiation> {
    const amount = this.subunits(req.amount, req.currency);
    let answer;
    try {
      answer = await this.client.post('/refund', { transaction: paystackReference(req.operationId), amount, currency: req.currency.toUpperCase(), merchant_note: req.refundId });
    } catch (err) {
      if (!(err instanceof PaystackCallFailed) || err.sent === 'maybe') throw new OutcomeUnknown(`Paystack's answer to the refund is unknown: ${(err as Error).message}`);
      if (err.httpStatus === 401 || err.httpStatus === 429) throw new ApiError('IKW-PRV-002', `Paystack did not take the refund; nothing was refunded: ${err.message}`);
      return { status: 'rejected', failureCode: 'refund_not_possible', failureMessage: `Paystack refused the refund (${err.paystackMessage ?? err.message})` };
    }
    const outcome = refundOutcomeOf(object(answer.data).status);
    return outcome?.status === 'failed' ? { status: 'rejected', failureCode: outcome.failureCode, failureMessage: outcome.failureMessage } : { status: 'accepted' };
  }

  /**
   * The transaction's refunds (`GET /refund?transaction=…`), ours the one whose `merchant_note` is
   * the refund id; its amount and currency reported for the caller to match. None listed proves
   * nothing (a slow `POST /refund` may not be listed yet): the refund waits for its record, never
   * sent again (oneRecordPerId).
   */
  async refundStatus(req: RefundRequest): Promise<StatusAnswer<CollectOutcome>> {
    const answer = await this.client.get('/refund', { transaction: paystackReference(req.operationId), perPage: '100' });
    const ours = (Array.isArray(answer.data) ? answer.data : []).map(object).filter((r) => r.merchant_note === req.refundId);
    if (ours.length === 0) return { found: false };
    if (ours.length > 1) throw new Error(`Paystack lists ${ours.length} refunds noted ${req.refundId}; an operator decides`);
    const record = ours[0]!;
    const receipt = typeof record.id === 'number' ? String(record.id) : undefined;
    const outcome = refundOutcomeOf(record.status);
    return { found: true, final: outcome && (outcome.status === 'succeeded' && receipt ? { ...outcome, providerReference: receipt } : outcome), reported: this.reported(record, receipt) };
  }

  /** The account's Paystack balance per currency (`GET /balance`, subunits), in Sika's minor units: what reconciliation compares with `rail_clearing:paystack`. */
  async walletBalances(): Promise<WalletBalance[]> {
    const answer = await this.client.get('/balance');
    return (Array.isArray(answer.data) ? answer.data : []).flatMap((entry) => {
      const w = object(entry);
      const currency = stringOf(w.currency);
      const units = currency ? this.options.minorUnits(currency) : undefined;
      const amount = currency && units !== undefined ? fromSubunits(w.balance, currency, units) : null;
      if (!currency || amount === null) throw new Error(`Paystack's balance ${String(w.balance)} ${String(w.currency)} is not an amount Sika can read`);
      return [{ wallet: currency.toUpperCase(), currency: currency.toLowerCase(), amount }];
    });
  }

  /**
   * A dispute as Paystack has it (`GET /dispute/{id}`), in Sika's terms: its transaction's
   * reference names Sika's operation, its metadata the payment intent. Not found: null.
   */
  async readDispute(disputeId: string): Promise<RailDispute | null> {
    let answer;
    try {
      answer = await this.client.get(`/dispute/${encodeURIComponent(disputeId)}`);
    } catch (err) {
      if (err instanceof PaystackCallFailed && err.httpStatus === 404) return null;
      throw err;
    }
    const data = object(answer.data);
    const transaction = object(data.transaction);
    const charge = this.reported(transaction);
    const operationId = sikaIdOf(transaction.reference);
    const meta = typeof transaction.metadata === 'string' ? parseObject(transaction.metadata) : object(transaction.metadata);
    const paymentIntentId = operationId && meta.operation === operationId ? (stringOf(meta.payment_intent) ?? null) : null;
    const units = this.options.minorUnits(charge.currency);
    const claimed = units === undefined ? null : fromSubunits(data.refund_amount, charge.currency, units);
    const stage = disputeStageOf(data.status, data.resolution);
    if (!stage) throw new Error(`Paystack's dispute ${disputeId} has a status Sika does not know: ${String(data.status)}`);
    return {
      disputeId: String(data.id ?? disputeId),
      operationId,
      paymentIntentId,
      charge: { amount: charge.amount, currency: charge.currency },
      // A refund amount of zero or above the charge says nothing of its own: the whole charge is disputed.
      amount: claimed && claimed <= charge.amount ? claimed : charge.amount,
      stage,
      reason: stringOf(data.category) ?? 'general',
      evidenceDueBy: typeof data.dueAt === 'string' && !Number.isNaN(Date.parse(data.dueAt)) ? new Date(data.dueAt).toISOString() : null,
    };
  }

  /**
   * A file for a dispute: Paystack gives a signed upload URL and the file's name there
   * (`GET /dispute/{id}/upload_url?upload_filename=…`), the bytes are PUT to that URL (signed: no
   * key goes with them), and the answers name the file by the name Paystack gave.
   */
  async uploadDisputeFile(disputeId: string, file: DisputeFile): Promise<string> {
    const answer = await this.client.get(`/dispute/${encodeURIComponent(disputeId)}/upload_url`, { upload_filename: file.name });
    const data = object(answer.data);
    const signedUrl = stringOf(data.signedUrl);
    const fileName = stringOf(data.fileName);
    if (!signedUrl || !fileName) throw new Error(`Paystack's upload URL of dispute ${disputeId} names no signedUrl or fileName`);
    await this.client.upload(signedUrl, file.bytes, file.contentType);
    return fileName;
  }

  /**
   * Each uploaded file is attached to the dispute (`PUT /dispute/{id}` with its name and the
   * disputed amount unchanged, as Paystack's evidence takes text only), then the customer's details
   * and the service given (`POST /dispute/{id}/evidence`), which hands the dispute to the bank.
   */
  async submitDisputeEvidence(disputeId: string, evidence: DisputeEvidence, uploadedFiles: readonly string[], money: DisputedMoney): Promise<void> {
    const path = `/dispute/${encodeURIComponent(disputeId)}`;
    for (const uploaded of uploadedFiles) await this.client.put(path, { refund_amount: this.subunits(money.amount, money.currency), uploaded_filename: uploaded });
    await this.client.post(`${path}/evidence`, {
      customer_email: evidence.customerEmail,
      customer_name: evidence.customerName,
      customer_phone: evidence.customerPhone,
      service_details: evidence.serviceDetails,
      ...(evidence.deliveryAddress ? { delivery_address: evidence.deliveryAddress } : {}),
      ...(evidence.deliveryDate ? { delivery_date: evidence.deliveryDate } : {}),
    });
  }

  /** `PUT /dispute/{id}/resolve` as `merchant-accepted`: the payer keeps the amount; Paystack requires a file, the uploaded one. */
  async acceptDispute(disputeId: string, money: DisputedMoney, uploadedFile: string): Promise<void> {
    await this.client.put(`/dispute/${encodeURIComponent(disputeId)}/resolve`, {
      resolution: 'merchant-accepted',
      message: 'Merchant accepted',
      refund_amount: this.subunits(money.amount, money.currency),
      uploaded_filename: uploadedFile,
    });
  }

  /** Whether a webhook's `x-paystack-signature` is this account's (HMAC-SHA512 of the exact body with its secret key). */
  signed(body: Buffer, signature: string | undefined): boolean {
    return verifiesWith(body, signature, this.options.secretKey);
  }

  /** A verified webhook's body in Sika's terms: the transfer events name a payout; others are recorded only. */
  eventOf(body: Buffer): PaystackEvent {
    let parsed: Record<string, unknown>;
    try {
      parsed = object(JSON.parse(body.toString('utf8')) as unknown);
    } catch {
      return { kind: 'ignored', reason: 'the body is not JSON' };
    }
    const event = stringOf(parsed.event) ?? '';
    const data = object(parsed.data);
    if (event === 'charge.success') {
      const operationId = sikaIdOf(data.reference);
      if (!operationId) return { kind: 'ignored', reason: `charge ${String(data.reference)} is not one of Sika's` };
      // The reference is Sika's: the charge is, whatever became of the metadata on the way (none, another's).
      const meta = typeof data.metadata === 'string' ? parseObject(data.metadata) : object(data.metadata);
      const paymentIntentId = meta.operation === operationId ? stringOf(meta.payment_intent) : undefined;
      return { kind: 'charge', operationId, ...(paymentIntentId ? { paymentIntentId } : {}) };
    }
    if (DISPUTE_EVENTS.test(event)) {
      const id = data.id;
      return typeof id === 'number' || (typeof id === 'string' && /^[0-9]+$/.test(id)) ? { kind: 'dispute', disputeId: String(id) } : { kind: 'ignored', reason: `${event} names no dispute` };
    }
    if (/^refund\.(processed|failed)$/.test(event)) {
      const operationId = sikaIdOf(data.transaction_reference);
      if (!operationId) return { kind: 'ignored', reason: `refund of transaction ${String(data.transaction_reference)}, not one of Sika's` };
      try {
        return { kind: 'refund', operationId, reported: this.reported({ ...data, amount: typeof data.amount === 'string' && /^[0-9]+$/.test(data.amount) ? Number(data.amount) : data.amount }) };
      } catch (err) {
        return { kind: 'ignored', reason: (err as Error).message };
      }
    }
    if (!/^transfer\.(success|failed|reversed)$/.test(event)) return { kind: 'ignored', reason: `event ${event || '(none)'} is not one Sika follows` };
    const payoutId = sikaIdOf(data.reference);
    if (!payoutId) return { kind: 'ignored', reason: `transfer ${String(data.reference)} is not one of Sika's` };
    let reported: ReportedMoney;
    try {
      reported = this.reported(data);
    } catch (err) {
      return { kind: 'ignored', reason: (err as Error).message, payoutId };
    }
    // The event names the outcome; the transfer it carries must say the same, or the status check decides.
    const report = transferFinalOf(data.status, stringOf(data.transfer_code));
    const expected = event.slice('transfer.'.length);
    if (data.status !== expected) return { kind: 'ignored', reason: `event ${event} carries a transfer ${String(data.status)}`, payoutId };
    return { kind: 'transfer', payoutId, report, reported };
  }

  /**
   * The transfer recipient of a destination, kept for the merchant under its account's key, or the
   * refusal of what Paystack cannot pay: a bank of its list for the currency (a Nigerian number the
   * 10-digit NUBAN), or a wallet of an operator of its mobile money list, by its national number.
   */
  private recipientOf(merchantId: string, destination: PayoutDestination, at = 'destination.'): RecipientRequest {
    const currency = destination.currency.toUpperCase();
    const payees = this.payees.current();
    if (destination.type === 'mobile_money') {
      const wallet = mobileMoneyOf(destination.country, destination.operator);
      if (!wallet || !payees?.mobile_money.get(wallet.currency)?.has(wallet.code)) throw new ApiError('IKW-PRV-001', `Paystack does not pay out to ${destination.operator} (${destination.country}) for this account`, `${at}operator`);
      const e164 = destination.msisdn.replace(/^\+/, '');
      if (!e164.startsWith(wallet.callingCode)) throw new ApiError('IKW-VAL-007', `Not a ${destination.country} mobile number`, `${at}msisdn`);
      const number = `0${e164.slice(wallet.callingCode.length)}`;
      // Sika's mobile money destinations name no holder: the recipient is named by its number.
      return { type: 'mobile_money', name: number, account_number: number, bank_code: wallet.code, currency: wallet.currency, key: `${merchantId}/${wallet.currency}/mobile_money/${wallet.code}/${number}` };
    }
    const banks = payees?.bank.get(currency);
    const type = RECIPIENT_TYPES[currency];
    if (!banks || !type) throw new ApiError('IKW-PRV-001', `Paystack does not pay out to banks in ${currency} for this account`, `${at}currency`);
    if (!banks.has(destination.bank_code)) throw new ApiError('IKW-PRV-012', `Paystack lists no bank with code '${destination.bank_code}' for ${currency}`, `${at}bank_code`);
    if (currency === 'NGN' && !/^[0-9]{10}$/.test(destination.account_number)) throw new ApiError('IKW-VAL-001', 'A Nigerian account number (NUBAN) has 10 digits', `${at}account_number`);
    return { type, name: destination.account_name, account_number: destination.account_number, bank_code: destination.bank_code, currency, key: `${merchantId}/${currency}/${destination.bank_code}/${destination.account_number}` };
  }

  /** The recipient code of a merchant's account: kept, or created now (Paystack answers a duplicate with the existing one). */
  private async recipient(request: RecipientRequest): Promise<string> {
    const { key, ...body } = request;
    const kept = await this.options.recipients.get(key);
    if (kept) return kept;
    let answer;
    try {
      answer = await this.client.post('/transferrecipient', body);
    } catch (err) {
      // No transfer was asked for: whatever became of the recipient, no money moved.
      throw new ApiError('IKW-PRV-002', `Paystack's transfer recipient could not be created; nothing was sent: ${(err as Error).message}`);
    }
    const code = stringOf(object(answer.data).recipient_code);
    if (!code) throw new ApiError('IKW-PRV-002', "Paystack's answer has no recipient code; nothing was sent");
    await this.options.recipients.put(key, code);
    return code;
  }

  private subunits(minor: number, currency: string): number {
    const units = this.options.minorUnits(currency);
    const amount = units === undefined ? null : toSubunits(minor, currency, units);
    if (amount === null) throw new ApiError('IKW-VAL-008', `Paystack cannot take ${minor} ${currency.toUpperCase()}`, 'amount');
    return amount;
  }

  /** The money a transfer or transaction record holds, in Sika's terms; its receipt, a transfer's code unless given. */
  private reported(data: Record<string, unknown>, receiptOf?: string): ReportedMoney {
    const currency = stringOf(data.currency);
    const units = currency ? this.options.minorUnits(currency) : undefined;
    const amount = currency && units !== undefined ? fromSubunits(data.amount, currency, units) : null;
    if (!currency || amount === null) throw new Error(`Paystack's record ${String(data.reference)} holds no amount Sika can read (${String(data.amount)} ${String(data.currency)})`);
    const receipt = receiptOf ?? stringOf(data.transfer_code);
    return { amount, currency: currency.toLowerCase(), ...(receipt ? { providerReference: receipt } : {}) };
  }

  /**
   * `GET /bank?currency=…` for each currency Paystack pays banks in, and `…&type=mobile_money` for
   * the currencies of its mobile money: the codes that take transfers. A mobile money entry of a
   * bank list is not a bank.
   */
  private async loadBanks(): Promise<Payees> {
    const list = async (query: Record<string, string>, keep: (entry: Record<string, unknown>) => boolean): Promise<Map<string, string>> => {
      const answer = await this.client.get('/bank', { ...query, perPage: '100' });
      const names = new Map<string, string>();
      for (const entry of Array.isArray(answer.data) ? answer.data : []) {
        const bank = object(entry);
        const code = stringOf(bank.code);
        if (!code || bank.active === false || bank.is_deleted === true || bank.supports_transfer === false || !keep(bank)) continue;
        names.set(code, stringOf(bank.name) ?? code);
      }
      return names;
    };
    const bank = new Map<string, Map<string, string>>();
    for (const currency of PAYSTACK_CURRENCIES.filter((c) => RECIPIENT_TYPES[c])) {
      const codes = await list({ currency }, (b) => b.type !== 'mobile_money');
      if (codes.size > 0) bank.set(currency, codes);
    }
    const mobileMoney = new Map<string, Set<string>>();
    for (const { currency } of Object.values(MOBILE_MONEY)) {
      const codes = await list({ currency, type: 'mobile_money' }, (b) => b.type === undefined || b.type === 'mobile_money');
      if (codes.size > 0) mobileMoney.set(currency, new Set(codes.keys()));
    }
    return { bank, mobile_money: mobileMoney };
  }
}

/** Paystack's wallet of a Sika (country, operator): its currency, calling code and operator code; undefined when Sika sends it no such wallet. */
function mobileMoneyOf(country: string, operator: string): { currency: string; callingCode: string; code: string } | undefined {
  const c = MOBILE_MONEY[country.toUpperCase()];
  const code = c && Object.hasOwn(c.operators, operator) ? c.operators[operator] : undefined;
  return c && code ? { currency: c.currency, callingCode: c.callingCode, code } : undefined;
}

/** A refund's final outcome, or null while Paystack still works on it (`pending`, `processing`, `needs-attention`, anything new). */
function refundOutcomeOf(status: unknown): CollectOutcome | null {
  if (status === 'processed') return { status: 'succeeded' };
  if (status === 'failed') return { status: 'failed', failureCode: 'refund_failed', failureMessage: 'Paystack could not return the money to the card' };
  return null;
}

/** Sika's failure of a transfer Paystack refused at once (its error catalogue is by message). */
function transferRefusal(message: string | undefined): { failureCode: string; failureMessage: string } {
  const m = message ?? '';
  if (/balance is not enough/i.test(m)) return { failureCode: 'provider_balance_insufficient', failureMessage: "The platform's Paystack balance cannot fund the transfer now" };
  if (/account closed/i.test(m)) return { failureCode: 'account_closed', failureMessage: 'The bank account is closed' };
  if (/recipient|account number|bank code|resolve/i.test(m)) return { failureCode: 'recipient_not_found', failureMessage: `The bank account cannot receive the transfer (${m})` };
  return { failureCode: 'provider_error', failureMessage: `Paystack refused the transfer (${m || 'no message'})` };
}

function parseObject(text: string): Record<string, unknown> {
  try {
    return object(JSON.parse(text) as unknown);
  } catch {
    return {};
  }
}

function object(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
