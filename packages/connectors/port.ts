import { ApiError } from '#packages/core/errors.js';
import type { Environment } from '#packages/core/owner.js';

/**
 * The rail port (docs/connectors.md): what Sika asks of a mobile money operator, card acquirer or
 * bank, whoever carries it. Its wire types are the port's own: the domain's objects map onto them,
 * and nothing here knows a family. Amounts are integers in the currency's minor units.
 */

/** Money towards the merchant (collect), from it (payout), or back to a payer (refund). */
export type Direction = 'collect' | 'payout' | 'refund';

/** What a rail is asked to carry, as the router matches it to a connector. */
export type RailSubject = { rail: 'mobile_money'; country: string; operator: string; currency?: string } | { rail: 'card'; currency?: string } | { rail: 'bank'; currency: string };

/**
 * A rail that serves a subject and was passed over, and why: its provider declares it unavailable
 * (`declared_unavailable`), Sika's own attempts on it failed past the threshold (`set_aside`), it
 * refused this payment's first attempt, provably unprocessed (`rejected`), or its wallet cannot
 * cover this payout and its fee (`float_short`).
 */
export interface PassedOverRail {
  rail: string;
  why: 'declared_unavailable' | 'set_aside' | 'rejected' | 'float_short';
}

/**
 * What else a new attempt's choice weighs: rails that already refused it (`excluding`: a payment
 * tried again elsewhere), and the money a payout's rail must hold (`money`: its amount and fee).
 */
export interface ChoiceOf {
  excluding?: readonly string[];
  money?: Money;
}

/** What the router chose for a new attempt (Rails.choose). */
export interface RailChosen {
  clearingRail: string | null;
  passedOver: PassedOverRail[];
  /** IKW-PRV-001's words when each rail that serves it was passed over; absent when one carries it, or none serves it (assertCanCollect and assertCanPayOut refuse that first). */
  refusal?: string;
}

/** An amount in the currency's minor units. */
export interface Money {
  amount: number;
  currency: string;
}

/**
 * What a payer pays with. `otp`: the one-time code the payer got from the operator before paying
 * (Orange CI's codes lapse in 10 minutes, so they are asked first); a secret, it travels on the
 * request only, never in an event, a read model or a log. A connector that has no use for it ignores it.
 */
export type CollectMethod = { type: 'mobile_money'; country: string; operator: string; msisdn: string; preferred_flow?: string; otp?: string } | { type: 'card'; token?: string };

/**
 * What the payer must do next: open a page, approve on the phone, or give the one-time code the
 * operator sent them (`mobile_money_otp`, answered with submit_otp; `expires_at` when the provider says).
 */
export type NextAction =
  | { type: 'redirect_to_url'; redirect_to_url: { url: string; return_url: string } }
  | { type: 'mobile_money_authorization'; mobile_money_authorization: { instructions: string; expires_at: string } }
  | { type: 'mobile_money_otp'; mobile_money_otp: { instructions: string; expires_at?: string } };

/** What a collection is asked to take. `operationId` is its idempotency key with the provider. */
export interface CollectRequest {
  operationId: string;
  paymentIntentId: string;
  merchantId: string;
  environment: Environment;
  amount: number;
  currency: string;
  paymentMethod: CollectMethod;
  returnUrl: string;
  /**
   * Who pays, when the intent names a customer: a card acquirer asks the payer's e-mail (Paystack
   * refuses a charge without one), and a card saved by a payment is kept for that customer unless
   * `keepsCard` is false (a stranger may have typed the customer's address on a public page).
   */
  payer?: { customerId: string; email: string | null; keepsCard: boolean };
  /**
   * The connector the confirmation recorded as carrying it (`connector` of its start): its
   * initiation, a resend and its status checks go to it, whatever the router would pick now (a
   * rail set aside since, another first): an attempt that may have reached a provider never moves.
   * None: routed.
   */
  connector?: string;
}

/** The first answer to a collection: on its way, waiting for the payer, or refused at once. */
export type CollectInitiation = { status: 'processing' } | { status: 'requires_action'; nextAction: NextAction } | { status: 'failed'; failureCode: string; failureMessage: string };

/** A collection's final answer, arriving later (a callback, a status check, the sandbox's timer). */
export type CollectOutcome = { status: 'succeeded'; providerReference?: string } | { status: 'failed'; failureCode: string; failureMessage: string };

/** Where money is paid out to. */
export type PayoutDestination = { type: 'mobile_money'; currency: string; country: string; operator: string; msisdn: string } | { type: 'bank'; currency: string; bank_code: string; account_number: string; account_name: string };

/** A bank a connector pays out to, as its provider lists it: the code a bank destination names, and its name. */
export interface PayoutBank {
  code: string;
  name: string;
}

/** A bank account as a bank destination names it, before its holder's name is known. */
export interface BankAccount {
  currency: string;
  bank_code: string;
  account_number: string;
}

/** A disbursement; `payoutId` is its idempotency key with the provider. */
export interface PayoutRequest {
  payoutId: string;
  merchantId: string;
  environment: Environment;
  amount: number;
  currency: string;
  destination: PayoutDestination;
  /**
   * The connector the payout recorded when it was created (`connector` of `payout.created`): it
   * carries the payout from then on (its initiation, a resend, its status checks), whatever the
   * routing table says later. Two rails may serve one destination (mobile money through pawaPay
   * or Paystack), and a lost answer must be asked of the rail that may hold it, never sent to the
   * other. None: routed (the simulator's payouts record none).
   */
  connector?: string;
}

export type PayoutInitiation = { status: 'accepted' } | { status: 'rejected'; failureCode: string; failureMessage: string };

/** Why a payout is late, as the provider says (the payout's delay overlay). */
export type DelayReason = 'operator_pending' | 'operator_timeout' | 'operator_down' | 'provider_action_required' | 'unknown';

/** What a provider reports later about a payout: trouble (the delay overlay), or the final result. */
export type PayoutReport = { type: 'delayed'; reason: DelayReason } | { type: 'paid'; providerReference?: string } | { type: 'failed'; failureCode: string; failureMessage: string };

/** Money back to the payer of a collection; `refundId` is its idempotency key with the provider. */
export interface RefundRequest {
  refundId: string;
  /** The collection it returns money of (its `operationId`). */
  operationId: string;
  merchantId: string;
  environment: Environment;
  amount: number;
  currency: string;
}

export type RefundInitiation = { status: 'accepted' } | { status: 'rejected'; failureCode: string; failureMessage: string };

/**
 * The answer of a status check, the only way a lost answer is settled (never a second attempt):
 * `found: false` means the provider never took the request (it may be sent again with the same
 * id); `final: null` that it has it without a final answer yet, `delayed` why, when the provider
 * says it is held up (a payout queued while the operator is down); `reported`, what it holds.
 */
export type StatusAnswer<Final> = { found: false } | { found: true; final: Final | null; reported?: ReportedMoney; delayed?: DelayReason };

/**
 * What a provider says it holds for an operation (a status answer, a callback), for the caller to
 * match against the stored attempt before any money moves: a mismatch goes to review, never to a
 * balance. `providerReference` is the operator's receipt, when it has one.
 */
export interface ReportedMoney {
  amount: number;
  currency: string;
  providerReference?: string;
}

/**
 * Thrown by an initiation whose request may have reached the provider although no answer came
 * back (a timeout, a connection reset after sending, a 5xx): its outcome is unknown. The caller
 * keeps the operation in flight under the same id and settles it by the status check, never by a
 * second attempt under a new id. What provably never reached the provider is `IKW-PRV-002`.
 */
export class OutcomeUnknown extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutcomeUnknown';
  }
}

/**
 * Thrown by a status read whose answer cannot be told yet through no fault (Hub2's list of a
 * transfer sent less than a minute ago): the check runs again after its back-off, logged as a wait.
 */
export class StatusNotYet extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StatusNotYet';
  }
}

/** What a provider holds for Sika in one wallet (a country's, say), in the currency's minor units. */
export interface WalletBalance {
  wallet: string;
  currency: string;
  amount: number;
}

/**
 * What pays a rail's payouts now, in one wallet (the currency's minor units), and whom it pays:
 * the payouts of one operator (`country` and `operator`, Sika's codes), of one country
 * (`country`), or, with neither, of its currency. The router's float (docs/connectors.md, "Float").
 */
export interface PayoutFloat {
  wallet: string;
  currency: string;
  amount: number;
  country?: string;
  operator?: string;
}

/**
 * The failure codes that say the rail failed, not the payer, the recipient or the request: what a
 * rail's measured health counts against it (docs/operator.md, "Rails"). `initiation_failed`: the
 * rail could not be asked, or refused to be (no answer, an outage, its own error).
 */
export const RAIL_FAULTS: ReadonlySet<string> = new Set(['initiation_failed', 'operator_unavailable', 'provider_error', 'provider_balance_insufficient', 'transfer_failed']);

/** Whether the provider says it can carry this subject now. */
export type Availability = 'available' | 'degraded' | 'unavailable';

/** A provider's news as it came (a callback, a webhook): the exact bytes its signature covers, and the headers its verification reads (lower case). */
export interface IncomingNews {
  method: string;
  path: string;
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  body: Buffer;
}

/**
 * One URL a rail's news comes to (docs/connectors.md, "Callbacks"), entered in the provider's
 * dashboard: public, its raw body kept for the signature. The route's words are the rail's own.
 */
export interface NewsEndpoint {
  /** `/connectors/<rail>/…`. */
  path: string;
  /** The request headers the verification reads, lower case: only these reach `receive`. */
  headers: readonly string[];
  summary: string;
  description: string;
  /** The webhooks its news may end in, as the route documents them. */
  emits: readonly string[];
  /** Verify (IKW-PRV-003 when it does not, and nothing else happens), parse, normalise, and hand to the news desk; IKW-PRV-004 when the rail is not configured. */
  receive(incoming: IncomingNews): Promise<void>;
}

/**
 * The receiving side of a rail (its `inbound.ts`): the connectors of its configured accounts
 * verify, parse and normalise their provider's news to the rail's news; the news desk
 * (news-desk.ts) matches it to the stored attempt. One per rail, not per account: one URL serves
 * both accounts, the account whose key verifies the news being the one that sent it.
 */
export interface RailInbound {
  readonly rail: string;
  readonly endpoints: readonly NewsEndpoint[];
}

/**
 * A connector: one provider, one environment's credentials. It answers an initiation at once with
 * the first state; later news goes through the sinks it was built with (packages/connectors/callbacks.ts)
 * or, told by the provider, through its rail's inbound side (RailInbound).
 */
export interface Connector {
  /** Its name (`sandbox`, `pawapay`, …): its news is recorded with the actor `connector:<name>`. */
  readonly name: string;
  /**
   * Whether the provider keeps Sika's money in a wallet of its own (pawaPay): the attempts it
   * carries record its name, and post to its clearing account `rail_clearing:<name>` (docs/ledger.md).
   */
  readonly holdsFunds?: boolean;
  /** What it holds for Sika now, per wallet (a connector that holds funds answers it; reconciliation compares it with the ledger). */
  walletBalances?(): Promise<WalletBalance[]>;
  /** What pays its payouts now, per wallet, read from the provider (a connector whose wallet pays its payouts answers it; the router's float reads it). */
  payoutFloat?(): Promise<PayoutFloat[]>;
  /** Whether it carries `direction` for this subject at all (its configuration; a provider's active configuration). */
  serves(direction: Direction, subject: RailSubject): boolean;
  availability(direction: Direction, subject: RailSubject): Promise<Availability>;
  /**
   * What the provider last declared of this subject's availability, from what is held (never a
   * call: routing is synchronous); undefined when it declares none or nothing is held yet. The
   * router passes over a rail declared `unavailable` (pawaPay's CLOSED).
   */
  declaredAvailability?(direction: Direction, subject: RailSubject): Availability | undefined;
  /**
   * Whether it has loaded what it serves from its provider (pawaPay's active configuration,
   * Paystack's bank lists); until then it serves nothing. None: it needs nothing loaded.
   */
  loaded?(): boolean;
  /**
   * Refuses what it cannot take although it serves the subject (an unknown test card, an amount it
   * cannot express), with an ApiError. `money`: the amount asked, when known (a connector whose
   * provider takes only some amounts refuses the others here, before anything is held).
   */
  assertCanCollect(method: CollectMethod, money?: Money): void;
  collect(request: CollectRequest): Promise<CollectInitiation>;
  /**
   * The one-time code the payer gives for a collection that answered `mobile_money_otp`: the
   * collection goes on (`processing`; the status check and the provider's news settle it). A code
   * the provider refuses is IKW-PRV-017 (the payer may give another); a call without an answer
   * IKW-PRV-002. None: its provider asks for no codes.
   */
  submitOtp?(request: CollectRequest, code: string): Promise<CollectInitiation>;
  collectStatus(request: CollectRequest): Promise<StatusAnswer<CollectOutcome>>;
  assertCanPayOut(destination: PayoutDestination, money?: Money): void;
  /**
   * What must be asked of the provider about a destination before any money is held for it (a
   * bank account's holder name, where the bank answers it): a refusal is an ApiError. None: nothing to ask.
   */
  verifyDestination?(destination: PayoutDestination, owner: { merchantId: string; environment: Environment }): Promise<void>;
  /** The banks it pays out to in `currency` (upper case), from its provider's list. None: it names no banks. */
  banks?(currency: string): Promise<readonly PayoutBank[]>;
  /**
   * The account holder's name as the bank gives it (IKW-PRV-011 when the bank does not know the
   * account), or null where the currency's banks tell no names. None: its provider tells none.
   */
  accountHolder?(account: BankAccount): Promise<string | null>;
  payout(request: PayoutRequest): Promise<PayoutInitiation>;
  payoutStatus(request: PayoutRequest): Promise<StatusAnswer<PayoutReport>>;
  refund(request: RefundRequest): Promise<RefundInitiation>;
  refundStatus(request: RefundRequest): Promise<StatusAnswer<CollectOutcome>>;
  /**
   * False for a connector whose provider takes no refunds (Hub2): a refund of what it collected is
   * refused before anything is held (IKW-PRV-006), and its `refund` is never called. None: it takes them.
   */
  readonly refunds?: false;
  /**
   * Its status-check schedule: the delays, each after the one before, at which an attempt with no
   * final answer is asked about again. None: its news always comes (the sandbox's timer).
   */
  readonly statusChecks?: readonly number[];
  /**
   * Per kind, whether the provider keeps one record per Sika id (a second request under the same
   * id is the first one, never a second movement of money): only then may a status check that
   * finds nothing send the attempt again (docs/connectors.md, "Sending again"). Absent, or false
   * for a kind: an attempt that may have reached the provider is never sent again by a check; it
   * waits for the provider's record, and goes to review when the schedule runs out.
   */
  readonly oneRecordPerId?: Readonly<Record<Direction, boolean>>;
}

/** Whether a status check may send an attempt of this kind again when the connector's provider has no record of it. */
export function sendsAgainSafely(connector: Pick<Connector, 'oneRecordPerId'>, direction: Direction): boolean {
  return connector.oneRecordPerId?.[direction] === true;
}

/** What the payment and payout services call: the connectors of one environment, behind the router. */
export interface Rails {
  /** IKW-PRV-001 when no connector collects with this method; the connector's own refusal otherwise (of the method, or of `money`). */
  assertCanCollect(method: CollectMethod, money?: Money): void;
  collect(request: CollectRequest): Promise<CollectInitiation>;
  /** The payer's one-time code to the connector that carries the collection (Connector.submitOtp); IKW-PRV-001 when it takes none. */
  submitOtp(request: CollectRequest, code: string): Promise<CollectInitiation>;
  /** IKW-PRV-001 when no connector pays out to this destination; the connector's own refusal of it, or of `money`, otherwise. */
  assertCanPayOut(destination: PayoutDestination, money?: Money): void;
  /** The provider's check of a destination before money is held for it (Connector.verifyDestination); nothing when its connector has none. */
  verifyDestination(destination: PayoutDestination, owner: { merchantId: string }): Promise<void>;
  /** The banks of `currency` the connector paying bank accounts in it lists (IKW-PRV-001 when none pays them; empty when it lists none). */
  banks(currency: string): Promise<readonly PayoutBank[]>;
  /** The holder's name of a bank account as its bank gives it (Connector.accountHolder); null when its connector tells none. */
  accountHolder(account: BankAccount): Promise<string | null>;
  payout(request: PayoutRequest): Promise<PayoutInitiation>;
  /** The status checks of the connector that carries this (the one it recorded, or routed as the initiation was); none when no connector does. */
  collectStatus(request: CollectRequest): Promise<StatusAnswer<CollectOutcome>>;
  payoutStatus(request: PayoutRequest): Promise<StatusAnswer<PayoutReport>>;
  /**
   * The connector that carries this and its status-check schedule; null when it needs none, or none
   * carries it. `carriedBy`: the connector the attempt recorded, which keeps it (PayoutRequest.connector).
   */
  statusChecks(direction: 'collect' | 'payout', what: CollectMethod | PayoutDestination, carriedBy?: string): StatusChecks | null;
  /**
   * The router's choice for a new attempt, made once (docs/connectors.md, "Health"): the rail's name
   * when it keeps Sika's money (`clearingRail`: the attempt records it, and it carries the attempt
   * from then on), and the rails that serve this that it passed over, and why. Both go on the event
   * that starts the attempt, so that the choice can be read later. Rails in `of.excluding` are
   * passed over as `rejected`.
   */
  choose(direction: 'collect' | 'payout', what: CollectMethod | PayoutDestination, of?: ChoiceOf): RailChosen;
  /**
   * The connector of this name, which carried the collection a refund returns money of (the attempt
   * recorded it): its refund, status check and schedule. Null when this environment has none of that name, or it takes no refunds.
   */
  refunder(connector: string): Refunder | null;
}

/** What a refund asks of the connector that carried its collection. */
export type Refunder = Pick<Connector, 'name' | 'refund' | 'refundStatus' | 'statusChecks' | 'oneRecordPerId'>;

/**
 * The status checks of an attempt: its connector, the schedule, and whether a check that finds
 * nothing may send it again (Connector.oneRecordPerId of its kind).
 */
export interface StatusChecks {
  connector: string;
  schedule: readonly number[];
  sendsAgain: boolean;
}

/** A success as the provider reported it: with the operator's receipt, when it gave one (the object's `provider_reference`). */
export function withReceipt<O extends CollectOutcome | PayoutReport>(outcome: O, reported: ReportedMoney | undefined): O {
  const succeeded = 'status' in outcome ? outcome.status === 'succeeded' : outcome.type === 'paid';
  return succeeded && reported?.providerReference ? { ...outcome, providerReference: reported.providerReference } : outcome;
}

/**
 * Why money a provider reports is not the stored attempt's (amount in minor units, currency), or
 * null when it is: what is reported otherwise moves nothing and goes to review.
 */
export function reportedMismatch(expected: { amount: number; currency: string }, reported: ReportedMoney | undefined): string | null {
  if (!reported) return null;
  if (reported.currency.toLowerCase() !== expected.currency.toLowerCase()) return `reported in ${reported.currency}, the attempt is in ${expected.currency}`;
  if (reported.amount !== expected.amount) return `reported ${reported.amount} ${reported.currency}, the attempt is ${expected.amount}`;
  return null;
}

/** A rail subject of a payment method or destination. */
export function subjectOf(what: CollectMethod | PayoutDestination): RailSubject {
  if (what.type === 'mobile_money') return { rail: 'mobile_money', country: what.country, operator: what.operator, ...('currency' in what ? { currency: what.currency } : {}) };
  if (what.type === 'card') return { rail: 'card' };
  return { rail: 'bank', currency: what.currency };
}

/**
 * A bank's refusal of a payout whose account name is not the holder's (IKW-PRV-010): its message
 * gives the bank's name for the holder, which only a signed-in user with payouts rights may read;
 * `masked()` is the same refusal with each word of that name cut to its initial (`A** O**`).
 */
export class AccountHolderMismatch extends ApiError {
  constructor(
    private readonly accountNumber: string,
    private readonly holder: string,
    private readonly given: string,
    param: string,
  ) {
    super('IKW-PRV-010', AccountHolderMismatch.words(accountNumber, holder, given), param);
  }

  private static words(accountNumber: string, holder: string, given: string): string {
    return `The bank gives the holder of account ${accountNumber} as '${holder}', not '${given}'`;
  }

  masked(): ApiError {
    return new ApiError('IKW-PRV-010', AccountHolderMismatch.words(this.accountNumber, maskedHolderName(this.holder), this.given), this.param);
  }
}

/** A holder's name as those who may not read it whole see it: each word's initial (`ADA OBI` → `A** O**`). */
export function maskedHolderName(name: string): string {
  return name
    .trim()
    .split(/\s+/)
    .map((word) => `${[...word][0] ?? ''}**`)
    .join(' ');
}
