import type { Clock } from '#packages/core/clock.js';
import { ApiError } from '#packages/core/errors.js';
import type { Logger } from '#packages/core/logger.js';
import type { CollectCallback, PayoutCallback } from '../callbacks.js';
import {
  OutcomeUnknown,
  type Availability,
  type CollectInitiation,
  type CollectMethod,
  type CollectOutcome,
  type CollectRequest,
  type Connector,
  type IncomingNews,
  type Direction,
  type PayoutDestination,
  type PayoutInitiation,
  type PayoutReport,
  type PayoutRequest,
  type RailSubject,
  type RefundInitiation,
  type RefundRequest,
  type ReportedMoney,
  type PayoutFloat,
  type StatusAnswer,
  type WalletBalance,
} from '../port.js';
import { fromPawapayAmount, toPawapayAmount } from './amounts.js';
import { PawapayCallFailed, PawapayClient, type RequestSigning } from './client.js';
import { Cached } from '../cached.js';
import { parseActiveConf, parseAvailability, parsePublicKeys, PublicKeys, type ActiveConf, type KeyFetchBackoff, type OperationConf, type OperationType, type ProviderStatus } from './configuration.js';
import { pawapayId } from './ids.js';
import {
  amountOf,
  collectOutcomeOf,
  depositBody,
  initiationOf,
  PawapayProtocolError,
  payoutBody,
  payoutDelayOf,
  payoutFinalOf,
  refundBody,
  sikaIdsOf,
  snapshotOf,
  statusCheckOf,
  type Initiation,
  type OperationKind,
  type PawapayWallet,
  type SikaIds,
  type Snapshot,
  type Wallet,
  walletBalancesOf,
} from './operations.js';
import { entryOfProvider, listProviders, pawapayMsisdn, providerFor } from './providers.js';
import { PAWAPAY_CALLBACK_COVERAGE, verifyMessage } from './signatures.js';

export { pawapayId } from './ids.js';

export interface PawapayOptions {
  /** https://api.sandbox.pawapay.io or https://api.pawapay.io: only the URL and the token differ. */
  baseUrl: string;
  apiToken: string;
  clock: Clock;
  /** A currency's minor units (the catalog's): Sika's amounts are integers in them. */
  minorUnits: (currency: string) => number | undefined;
  /** Sika's public URL, where pawaPay posts callbacks: its host is covered by their signatures. */
  publicUrl: string;
  /** Per call; an initiation without an answer by then has an unknown outcome. Default 15 s. */
  timeoutMs?: number;
  /** Signs deposits, payouts and refunds (needed when pawaPay takes signed requests only). */
  requestSigning?: RequestSigning;
  /** How long the active configuration is kept. Default 15 min. */
  configurationRefreshMs?: number;
  /** How long providers' availability is kept. Default 1 min. */
  availabilityRefreshMs?: number;
  /** How often an unknown callback key id may reload pawaPay's keys. Default 1 min. */
  keyReloadMs?: number;
  /** After a failed fetch of pawaPay's keys, how long before the next: doubling from 5 s up to 5 min by default. */
  keyFetchBackoff?: KeyFetchBackoff;
  /** How old a callback's signature may be, and the clock difference tolerated. Default 5 min, 1 min. */
  callbackWindow?: { maxAgeSeconds: number; clockSkewSeconds: number };
  /**
   * The status-check schedule of an attempt with no final answer (the delays, each after the one
   * before); none by default. The service sets it from PAWAPAY_STATUS_CHECK_AFTER.
   */
  statusChecks?: readonly number[];
  /**
   * PAWAPAY_CALLBACK_SIGNATURES=off: an unsigned callback is a prompt for a status check (its
   * body is never believed) instead of refused, whatever the active configuration says.
   */
  acceptUnsignedCallbacks?: boolean;
  log?: Logger;
}

/** The callback URLs pawaPay posts to, one per operation type (set in pawaPay's dashboard). */
export type CallbackKind = 'deposits' | 'payouts' | 'refunds';

/** A callback as it arrived: its method, path, headers and the exact bytes of its body. */
/** A callback as it came (the port's IncomingNews). */
export type IncomingCallback = IncomingNews;

/** A refund's final answer, with the collection it returns money of (the receiver hands it to the `refund` sink). */
export interface RefundNews {
  refundId: string;
  operationId: string;
  merchantId: string;
  environment: SikaIds['environment'];
  outcome: CollectOutcome;
}

export type PawapayNews = { kind: 'collect'; callback: Omit<CollectCallback, 'connector'> } | { kind: 'payout'; callback: Omit<PayoutCallback, 'connector'> } | { kind: 'refund'; refund: RefundNews };

/**
 * What a callback comes to. `news`: verified, backed by pawaPay's own record, in Sika's terms, for
 * the caller to match `reported` against the stored attempt and then hand to the sinks.
 * `pending`: verified, nothing final (a redirect deposit's PROCESSING). `recheck`: not to be
 * believed as it is (unsigned where the account does not sign, a body off the contract, no Sika
 * ids, a record that does not agree or cannot be read): the status check decides, of the attempt
 * `ids` name or, without them, of the one whose pawaPay id is `pawapayId`. `unauthenticated`:
 * anything that does not verify (no signature where pawaPay signs, a bad one, a digest that does
 * not match, an unknown key, keys that cannot be fetched, a component not covered, out of its
 * window, malformed): answered 401, nothing else done.
 */
export type CallbackVerdict =
  | { verdict: 'news'; news: PawapayNews; reported: ReportedMoney }
  | { verdict: 'pending'; ids: SikaIds; status: string; reported: ReportedMoney }
  | { verdict: 'recheck'; reason: string; pawapayId?: string; ids?: SikaIds }
  | { verdict: 'unauthenticated'; reason: string };

const OPERATION_TYPE: Record<Direction, OperationType> = { collect: 'DEPOSIT', payout: 'PAYOUT', refund: 'REFUND' };
const KIND_OF: Record<CallbackKind, OperationKind> = { deposits: 'deposit', payouts: 'payout', refunds: 'refund' };
const AVAILABILITY: Record<ProviderStatus, Availability> = { OPERATIONAL: 'available', DELAYED: 'degraded', CLOSED: 'unavailable' };

/**
 * pawaPay (Merchant API v2) as a mobile money connector of the rail port (docs/connectors.md,
 * "pawaPay"): deposits for collections, payouts, refunds, their status checks, and its signed
 * callbacks turned into Sika's news. What it serves is the account's active configuration.
 */
export class PawapayConnector implements Connector {
  readonly name = 'pawapay';
  /** pawaPay answers an id it holds DUPLICATE_IGNORED, deposits, payouts and refunds alike: one record per id. */
  readonly oneRecordPerId = { collect: true, payout: true, refund: true } as const;
  readonly statusChecks: readonly number[];
  readonly holdsFunds = true;
  private readonly client: PawapayClient;
  private readonly conf: Cached<ActiveConf>;
  private readonly providerStatus: Cached<ReadonlyMap<string, ProviderStatus>>;
  private readonly keys: PublicKeys;
  private readonly authority: string;

  constructor(private readonly options: PawapayOptions) {
    this.client = new PawapayClient({
      baseUrl: options.baseUrl,
      apiToken: options.apiToken,
      timeoutMs: options.timeoutMs ?? 15_000,
      clock: options.clock,
      ...(options.requestSigning ? { signing: options.requestSigning } : {}),
    });
    const stale = (what: string) => (err: unknown) => options.log?.warn({ err }, `pawaPay ${what} could not be refreshed; the last one is used`);
    this.conf = new Cached(async () => parseActiveConf(await this.client.get('/v2/active-conf')), options.clock, options.configurationRefreshMs ?? 15 * 60_000, 60_000, stale('active configuration'));
    this.providerStatus = new Cached(async () => parseAvailability(await this.client.get('/v2/availability')), options.clock, options.availabilityRefreshMs ?? 60_000, 30_000, stale('availability'));
    this.keys = new PublicKeys(async () => parsePublicKeys(await this.client.get('/v2/public-key/http')), options.clock, options.keyReloadMs ?? 60_000, options.keyFetchBackoff);
    this.authority = new URL(options.publicUrl).host;
    this.statusChecks = options.statusChecks ?? [];
  }

  /** Loads the active configuration now (at start-up: until it is loaded the connector serves nothing). */
  async refresh(): Promise<void> {
    await this.conf.refresh();
  }

  loaded(): boolean {
    return this.conf.current() !== undefined;
  }

  /**
   * Mobile money of a (country, operator) pawaPay carries for the account in this direction, from
   * the configuration held (never a call: routing is synchronous). Collections through a provider
   * that needs a pre-authorisation code (PREAUTH) are not served: Sika cannot ask payers for one.
   */
  serves(direction: Direction, subject: RailSubject): boolean {
    if (subject.rail !== 'mobile_money') return false;
    // Routing reads what is held; a stale configuration is reloaded meanwhile (its failure is logged by the cache).
    void this.conf.get().catch((err: unknown) => this.options.log?.warn({ err }, "pawaPay's active configuration could not be loaded"));
    const entry = providerFor(subject.country, subject.operator);
    const op = entry && this.conf.current()?.operation(entry.provider, OPERATION_TYPE[direction], subject.currency);
    return op !== undefined && !(direction === 'collect' && op.authType === 'PREAUTH');
  }

  /** pawaPay's availability of the provider for this operation; `degraded` when it cannot be learnt. */
  async availability(direction: Direction, subject: RailSubject): Promise<Availability> {
    const entry = subject.rail === 'mobile_money' ? providerFor(subject.country, subject.operator) : undefined;
    if (!entry) return 'unavailable';
    let statuses;
    try {
      statuses = await this.providerStatus.get();
    } catch (err) {
      this.options.log?.warn({ err }, 'pawaPay availability could not be read');
      return 'degraded';
    }
    const status = statuses.get(`${entry.provider}/${OPERATION_TYPE[direction]}`);
    return status ? AVAILABILITY[status] : 'unavailable';
  }

  /**
   * What pawaPay last said of the provider for this operation (OPERATIONAL, DELAYED, CLOSED), from
   * the availability held (never a call: routing is synchronous); undefined before it is first
   * read, or when it names neither the provider nor the operation. An old one is reloaded meanwhile.
   */
  declaredAvailability(direction: Direction, subject: RailSubject): Availability | undefined {
    void this.providerStatus.get().catch((err: unknown) => this.options.log?.warn({ err }, 'pawaPay availability could not be read'));
    const entry = subject.rail === 'mobile_money' ? providerFor(subject.country, subject.operator) : undefined;
    const status = entry && this.providerStatus.current()?.get(`${entry.provider}/${OPERATION_TYPE[direction]}`);
    return status ? AVAILABILITY[status] : undefined;
  }

  assertCanCollect(method: CollectMethod): void {
    this.wallet(method, 'payment_method.mobile_money.msisdn');
  }

  assertCanPayOut(destination: PayoutDestination): void {
    this.wallet(destination, 'destination.msisdn');
  }

  async collect(req: CollectRequest): Promise<CollectInitiation> {
    const payer = this.wallet(req.paymentMethod, 'payment_method.mobile_money.msisdn');
    const conf = await this.configuration();
    const op = this.operation(conf, payer.provider, 'DEPOSIT', req.currency);
    const initiation = await this.initiate('/v2/deposits', depositBody(req, payer, this.amount(req.amount, req.currency, op)), conf);
    if (initiation.kind === 'rejected') return { status: 'failed', ...initiation.failure };
    if (initiation.authorizationUrl) {
      return { status: 'requires_action', nextAction: { type: 'redirect_to_url', redirect_to_url: { url: initiation.authorizationUrl, return_url: req.returnUrl } } };
    }
    return { status: 'processing' };
  }

  async collectStatus(req: CollectRequest): Promise<StatusAnswer<CollectOutcome>> {
    return this.check('deposit', req.operationId, collectOutcomeOf);
  }

  async payout(req: PayoutRequest): Promise<PayoutInitiation> {
    const recipient = this.wallet(req.destination, 'destination.msisdn');
    const conf = await this.configuration();
    const op = this.operation(conf, recipient.provider, 'PAYOUT', req.currency);
    const initiation = await this.initiate('/v2/payouts', payoutBody(req, recipient, this.amount(req.amount, req.currency, op)), conf);
    return initiation.kind === 'rejected' ? { status: 'rejected', ...initiation.failure } : { status: 'accepted' };
  }

  async payoutStatus(req: PayoutRequest): Promise<StatusAnswer<PayoutReport>> {
    return this.check('payout', req.payoutId, payoutFinalOf);
  }

  /**
   * A refund of a collection: pawaPay's record of the deposit says which provider it went through
   * (the refund request does not), so it is read first; that read failing sends nothing.
   */
  async refund(req: RefundRequest): Promise<RefundInitiation> {
    const conf = await this.configuration();
    let deposit;
    try {
      deposit = statusCheckOf('deposit', await this.client.get(`/v2/deposits/${pawapayId(req.operationId)}`));
    } catch (err) {
      throw new ApiError('IKW-PRV-002', `pawaPay's record of the payment could not be read; nothing was refunded: ${(err as Error).message}`);
    }
    if (!deposit.found) return { status: 'rejected', failureCode: 'refund_not_possible', failureMessage: 'pawaPay has no record of the payment to refund' };
    const provider = deposit.snapshot.provider;
    const op = provider ? conf.operation(provider, 'REFUND', req.currency) : undefined;
    if (!op) return { status: 'rejected', failureCode: 'refund_not_supported', failureMessage: `Refunds through ${provider ?? 'this operator'} are not enabled for the account` };
    const initiation = await this.initiate('/v2/refunds', refundBody(req, this.amount(req.amount, req.currency, op)), conf);
    return initiation.kind === 'rejected' ? { status: 'rejected', ...initiation.failure } : { status: 'accepted' };
  }

  async refundStatus(req: RefundRequest): Promise<StatusAnswer<CollectOutcome>> {
    return this.check('refund', req.refundId, collectOutcomeOf);
  }

  /** The account's wallets (`GET /v2/wallet-balances`), each balance in its currency's minor units, exactly. */
  async walletBalances(): Promise<WalletBalance[]> {
    return (await this.wallets()).map((w) => w.balance);
  }

  /**
   * What pays pawaPay payouts: its wallets, a country's (one per country, alpha-3 in pawaPay's
   * words) or a provider's own where the account has them, in Sika's country and operator codes.
   * A wallet of a country or provider Sika does not know pays nothing Sika routes: left out.
   */
  async payoutFloat(): Promise<PayoutFloat[]> {
    return (await this.wallets()).flatMap(({ wallet, balance }): PayoutFloat[] => {
      if (wallet.provider) {
        const entry = entryOfProvider(wallet.provider);
        return entry ? [{ ...balance, country: entry.country, operator: entry.operator }] : [];
      }
      const country = listProviders().find((e) => e.pawapayCountry === wallet.country)?.country;
      return country ? [{ ...balance, country }] : [];
    });
  }

  private async wallets(): Promise<{ wallet: PawapayWallet; balance: WalletBalance }[]> {
    return walletBalancesOf(await this.client.get('/v2/wallet-balances')).map((w) => {
      const minorUnits = this.options.minorUnits(w.currency);
      const amount = minorUnits === undefined ? null : fromPawapayAmount(w.balance, minorUnits);
      if (!amount?.ok) throw new PawapayProtocolError(`the balance ${w.balance} ${w.currency} of the ${w.country} wallet is not an amount Sika can read${amount ? `: ${amount.reason}` : ''}`);
      return { wallet: w, balance: { wallet: w.provider ? `${w.country}/${w.provider}` : w.country, currency: w.currency.toLowerCase(), amount: amount.value } };
    });
  }

  /**
   * A callback from pawaPay, verified by fixed steps before anything in it is believed: the
   * signature (when pawaPay signs callbacks, which the active configuration says) over the
   * request (method, host, path), its Signature-Date and the exact body, with a key of pawaPay's,
   * in its window; then the body's shape, Sika's ids from its metadata (they must derive its
   * UUID), the amount; and last, for final news, pawaPay's own record of the operation read from
   * Sika's account, which must agree with it. Anything that does not verify is unauthenticated:
   * nothing in it is acted on, not even a status check. Repeated callbacks give the same news
   * (the sinks apply it once); out-of-order ones are pending or final news a final object ignores.
   */
  async receiveCallback(kind: CallbackKind, incoming: IncomingCallback): Promise<CallbackVerdict> {
    let conf: ActiveConf | undefined;
    try {
      conf = await this.conf.get();
    } catch {
      conf = undefined; // Not known: callbacks are read as signed, the strict reading.
    }
    let verified: boolean;
    try {
      const verification = await verifyMessage({ method: incoming.method, authority: this.authority, path: incoming.path, headers: incoming.headers }, incoming.body, (id) => this.keys.get(id), {
        now: this.options.clock.now(),
        maxAgeSeconds: this.options.callbackWindow?.maxAgeSeconds ?? 300,
        clockSkewSeconds: this.options.callbackWindow?.clockSkewSeconds ?? 60,
        required: PAWAPAY_CALLBACK_COVERAGE,
        requireExpires: true,
      });
      if (verification.ok) verified = true;
      else if (verification.failure === 'unsigned' && (this.options.acceptUnsignedCallbacks || (conf && !conf.signedCallbacks))) verified = false;
      else return { verdict: 'unauthenticated', reason: verification.detail };
    } catch (err) {
      // pawaPay's keys cannot be fetched (KeysUnavailable): nothing can be verified, so nothing is done.
      return { verdict: 'unauthenticated', reason: (err as Error).message };
    }
    const operation = KIND_OF[kind];
    let snapshot: Snapshot;
    try {
      snapshot = snapshotOf(operation, JSON.parse(incoming.body.toString('utf8')) as unknown);
    } catch (err) {
      return { verdict: 'recheck', reason: `the callback is not a ${operation}: ${(err as Error).message}` };
    }
    const ids = sikaIdsOf(operation, snapshot);
    // Without Sika's ids the attempt is found from pawaPay's id, a search worth doing for verified callbacks only.
    if (!ids) return { verdict: 'recheck', reason: `the ${operation} ${snapshot.pawapayId} does not carry Sika's ids`, ...(verified ? { pawapayId: snapshot.pawapayId } : {}) };
    if (!verified) return { verdict: 'recheck', reason: 'pawaPay does not sign callbacks for this account: the status check decides', pawapayId: snapshot.pawapayId, ids };
    let reported: ReportedMoney;
    try {
      reported = this.reported(snapshot);
    } catch (err) {
      return { verdict: 'recheck', reason: (err as Error).message, pawapayId: snapshot.pawapayId, ids };
    }
    if (!newsOf(operation, snapshot, ids)) return { verdict: 'pending', ids, status: snapshot.status, reported };
    const disagreement = await this.disagreement(operation, snapshot, ids, reported);
    if (disagreement) return { verdict: 'recheck', reason: disagreement, pawapayId: snapshot.pawapayId, ids };
    return { verdict: 'news', news: newsOf(operation, snapshot, ids)!, reported };
  }

  /**
   * Why pawaPay's own record of a callback's operation (`GET /v2/{kind}s/{id}`, with Sika's token)
   * does not back the callback up: not readable, not found, or another status, amount, currency,
   * receipt or ids. Undefined when it agrees. A signed callback is pawaPay's word, but its record
   * is what the money follows; money moves on news only when both say the same.
   */
  private async disagreement(kind: OperationKind, told: Snapshot, ids: SikaIds, toldMoney: ReportedMoney): Promise<string | undefined> {
    let answer, money: ReportedMoney | undefined;
    try {
      answer = statusCheckOf(kind, await this.client.get(`/v2/${kind}s/${told.pawapayId}`));
      if (answer.found) money = this.reported(answer.snapshot);
    } catch (err) {
      return `pawaPay's record of the ${kind} ${told.pawapayId} could not be read: ${(err as Error).message}`;
    }
    if (!answer.found) return `pawaPay has no record of the ${kind} ${told.pawapayId} the callback tells of`;
    const record = answer.snapshot;
    const recordIds = sikaIdsOf(kind, record);
    const differs = [
      record.pawapayId.toLowerCase() !== told.pawapayId.toLowerCase() && 'id',
      record.status !== told.status && 'status',
      money!.currency !== toldMoney.currency && 'currency',
      money!.amount !== toldMoney.amount && 'amount',
      money!.providerReference !== toldMoney.providerReference && 'receipt',
      (!recordIds || JSON.stringify(recordIds) !== JSON.stringify(ids)) && 'ids',
    ].filter((d): d is string => typeof d === 'string');
    if (differs.length > 0)
      return `pawaPay's record of the ${kind} ${told.pawapayId} says another ${differs.join(', ')} (${record.status} ${record.amount} ${record.currency}) than the callback (${told.status} ${told.amount} ${told.currency})`;
    return undefined;
  }

  /** The provider and MSISDN of a mobile money method or destination, or the refusal of what pawaPay cannot carry. */
  private wallet(what: CollectMethod | PayoutDestination, param: string): Wallet {
    const entry = what.type === 'mobile_money' ? providerFor(what.country, what.operator) : undefined;
    if (!entry || what.type !== 'mobile_money') throw new ApiError('IKW-PRV-001', 'pawaPay does not carry this payment method', param.split('.')[0]);
    const phoneNumber = pawapayMsisdn(what.msisdn, entry);
    if (!phoneNumber) throw new ApiError('IKW-VAL-007', `Not a ${what.country.toUpperCase()} mobile number pawaPay can reach`, param);
    return { provider: entry.provider, phoneNumber };
  }

  private async configuration(): Promise<ActiveConf> {
    try {
      return await this.conf.get();
    } catch (err) {
      throw new ApiError('IKW-PRV-002', `pawaPay's configuration could not be read; nothing was sent: ${(err as Error).message}`);
    }
  }

  private operation(conf: ActiveConf, provider: string, type: OperationType, currency: string): OperationConf {
    const op = conf.operation(provider, type, currency);
    if (!op) throw new ApiError('IKW-PRV-001', `pawaPay does not carry ${provider} ${type.toLowerCase()}s in ${currency.toUpperCase()} for this account`);
    return op;
  }

  /** Sika's amount in pawaPay's format for the provider, within its limits; IKW-VAL-008 otherwise. */
  private amount(minor: number, currency: string, op: OperationConf): string {
    const units = this.minorUnits(currency);
    const amount = toPawapayAmount(minor, units, op.decimals);
    if (!amount.ok) throw new ApiError('IKW-VAL-008', `This operator cannot take the amount: ${amount.reason}`, 'amount');
    const min = op.minTransactionLimit === undefined ? undefined : fromPawapayAmount(op.minTransactionLimit, units);
    const max = op.maxTransactionLimit === undefined ? undefined : fromPawapayAmount(op.maxTransactionLimit, units);
    if ((min?.ok && minor < min.value) || (max?.ok && minor > max.value)) {
      throw new ApiError('IKW-VAL-008', `The operator takes ${op.minTransactionLimit ?? '…'} to ${op.maxTransactionLimit ?? '…'} ${op.currency}; got ${amount.value}`, 'amount');
    }
    return amount.value;
  }

  private minorUnits(currency: string): number {
    const units = this.options.minorUnits(currency);
    if (units === undefined) throw new ApiError('IKW-VAL-003', `Unknown currency '${currency}'`, 'currency');
    return units;
  }

  /**
   * Sends a financial request and reads its answer. Provably not sent → IKW-PRV-002 (safe to
   * fail, may be sent again under the same id); perhaps sent, or an answer that says nothing
   * certain → OutcomeUnknown (the status check settles it).
   */
  private async initiate(path: string, body: unknown, conf: ActiveConf): Promise<Exclude<Initiation, { kind: 'unknown' }>> {
    if (conf.signedRequestsOnly && !this.client.signs) throw new ApiError('IKW-PRV-002', 'pawaPay takes signed requests only and no signing key is configured; nothing was sent');
    let answer;
    try {
      answer = await this.client.post(path, body);
    } catch (err) {
      if (err instanceof PawapayCallFailed && err.sent === 'no') throw new ApiError('IKW-PRV-002', `pawaPay did not take the request: ${err.message}`);
      throw new OutcomeUnknown(`pawaPay's answer is unknown: ${(err as Error).message}`);
    }
    let initiation;
    try {
      initiation = initiationOf(answer);
    } catch (err) {
      throw new OutcomeUnknown(`pawaPay's answer cannot be read: ${(err as Error).message}`);
    }
    if (initiation.kind === 'unknown') throw new OutcomeUnknown(`pawaPay answered ${path} with status ${initiation.status}`);
    return initiation;
  }

  private async check<Final>(kind: OperationKind, sikaId: string, finalOf: (s: Snapshot) => Final | null): Promise<StatusAnswer<Final>> {
    const answer = statusCheckOf(kind, await this.client.get(`/v2/${kind}s/${pawapayId(sikaId)}`));
    if (!answer.found) return { found: false };
    const delayed = kind === 'payout' ? payoutDelayOf(answer.snapshot) : undefined;
    return { found: true, final: finalOf(answer.snapshot), reported: this.reported(answer.snapshot), ...(delayed ? { delayed } : {}) };
  }

  /** The money pawaPay holds, in Sika's terms: minor units, lower-case currency, the operator's receipt. */
  private reported(snapshot: Snapshot): ReportedMoney {
    const units = this.options.minorUnits(snapshot.currency);
    if (units === undefined) throw new PawapayProtocolError(`${snapshot.pawapayId} is in an unknown currency ${snapshot.currency}`);
    return {
      amount: amountOf(snapshot, units),
      currency: snapshot.currency.toLowerCase(),
      ...(snapshot.providerTransactionId ? { providerReference: snapshot.providerTransactionId } : {}),
    };
  }
}

/** Final (or delay) news of a verified record; null when it has none. */
function newsOf(kind: OperationKind, snapshot: Snapshot, ids: SikaIds): PawapayNews | null {
  const owner = { merchantId: ids.merchantId, environment: ids.environment };
  if (kind === 'deposit') {
    const outcome = collectOutcomeOf(snapshot);
    return outcome && { kind: 'collect', callback: { paymentIntentId: ids.paymentIntentId!, operationId: ids.sikaId, ...owner, outcome } };
  }
  if (kind === 'payout') {
    const delay = payoutDelayOf(snapshot);
    const report: PayoutReport | null = payoutFinalOf(snapshot) ?? (delay ? { type: 'delayed', reason: delay } : null);
    return report && { kind: 'payout', callback: { payoutId: ids.sikaId, ...owner, report } };
  }
  const outcome = collectOutcomeOf(snapshot);
  return outcome && { kind: 'refund', refund: { refundId: ids.sikaId, operationId: ids.operationId!, ...owner, outcome } };
}
