import type { Environment } from '#packages/core/owner.js';
import type { CollectOutcome, CollectRequest, DelayReason, PayoutReport, PayoutRequest, RefundRequest } from '../port.js';
import { fromPawapayAmount } from './amounts.js';
import { failureOf, type Failure } from './failures.js';
import { pawapayId } from './ids.js';

/**
 * Pure request builders and answer mappers of pawaPay's Merchant API v2, one per operation
 * (deposit = collect, payout, refund, and their status checks). Nothing here does I/O: the
 * connector (index.ts) calls pawaPay with what these build and decides on what these read.
 * Everything pawaPay answers is untrusted input: an answer that does not follow the contract
 * throws a PawapayProtocolError, and a status this code does not know is pending, never success.
 */

export type OperationKind = 'deposit' | 'payout' | 'refund';

/** The field of pawaPay's bodies that holds the operation's id. */
export const ID_FIELD = { deposit: 'depositId', payout: 'payoutId', refund: 'refundId' } as const satisfies Record<OperationKind, string>;

/** An answer or callback of pawaPay that does not follow its contract (not JSON, a field missing, an amount that is not one). */
export class PawapayProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PawapayProtocolError';
  }
}

/** Who pays or receives: a wallet at a provider. */
export interface PawapayParty {
  type: 'MMO';
  accountDetails: { phoneNumber: string; provider: string };
}

/**
 * Sika's ids, sent as pawaPay metadata (a list of one-key objects) and echoed by pawaPay in status
 * answers and callbacks (as one flat object): how a callback that names only pawaPay's UUID finds
 * its way back to Sika's payment, payout or refund. The echo is trusted only when the UUID it
 * derives (ids.ts) is the UUID of the answer.
 */
export interface SikaIds {
  /** The id pawaPay's UUID is derived from: the collection's `operationId`, the `payoutId`, the `refundId`. */
  sikaId: string;
  merchantId: string;
  environment: Environment;
  /** Deposits: the payment intent the collection confirms. */
  paymentIntentId?: string;
  /** Refunds: the collection (its `operationId`) the money goes back from. */
  operationId?: string;
}

type Metadata = Record<string, string>[];

function metadataOf(ids: SikaIds): Metadata {
  return Object.entries(ids).map(([key, value]) => ({ [key]: value as string }));
}

export interface DepositBody {
  depositId: string;
  amount: string;
  currency: string;
  payer: PawapayParty;
  clientReferenceId: string;
  metadata: Metadata;
}

export interface PayoutBody {
  payoutId: string;
  amount: string;
  currency: string;
  recipient: PawapayParty;
  clientReferenceId: string;
  metadata: Metadata;
}

export interface RefundBody {
  refundId: string;
  depositId: string;
  amount: string;
  currency: string;
  clientReferenceId: string;
  metadata: Metadata;
}

/** A wallet as pawaPay names it: the provider code and the MSISDN in its format (providers.ts). */
export interface Wallet {
  provider: string;
  phoneNumber: string;
}

const party = (wallet: Wallet): PawapayParty => ({ type: 'MMO', accountDetails: { phoneNumber: wallet.phoneNumber, provider: wallet.provider } });

/** POST /v2/deposits: `amount` already in pawaPay's format for the provider (amounts.ts). */
export function depositBody(req: CollectRequest, payer: Wallet, amount: string): DepositBody {
  return {
    depositId: pawapayId(req.operationId),
    amount,
    currency: req.currency.toUpperCase(),
    payer: party(payer),
    clientReferenceId: req.operationId,
    metadata: metadataOf({ sikaId: req.operationId, merchantId: req.merchantId, environment: req.environment, paymentIntentId: req.paymentIntentId }),
  };
}

/** POST /v2/payouts. */
export function payoutBody(req: PayoutRequest, recipient: Wallet, amount: string): PayoutBody {
  return {
    payoutId: pawapayId(req.payoutId),
    amount,
    currency: req.currency.toUpperCase(),
    recipient: party(recipient),
    clientReferenceId: req.payoutId,
    metadata: metadataOf({ sikaId: req.payoutId, merchantId: req.merchantId, environment: req.environment }),
  };
}

/** POST /v2/refunds: the deposit is the collection's (its UUID derives from `operationId`). */
export function refundBody(req: RefundRequest, amount: string): RefundBody {
  return {
    refundId: pawapayId(req.refundId),
    depositId: pawapayId(req.operationId),
    amount,
    currency: req.currency.toUpperCase(),
    clientReferenceId: req.refundId,
    metadata: metadataOf({ sikaId: req.refundId, merchantId: req.merchantId, environment: req.environment, operationId: req.operationId }),
  };
}

/**
 * The answer to an initiation, read from its body's `status` (never from the HTTP code alone):
 * ACCEPTED, and DUPLICATE_IGNORED (the same id was accepted earlier: its outcome comes as
 * the first one's would), are accepted; REJECTED carries a failure (no callback follows); any
 * other status says nothing certain, so the status check must settle it.
 */
export type Initiation = { kind: 'accepted'; duplicate: boolean; authorizationUrl?: string } | { kind: 'rejected'; failure: Failure } | { kind: 'unknown'; status: string };

export function initiationOf(answer: unknown): Initiation {
  const body = record(answer, 'initiation answer');
  switch (body.status) {
    case 'ACCEPTED':
    case 'DUPLICATE_IGNORED': {
      const url = body.authorizationUrl;
      return { kind: 'accepted', duplicate: body.status === 'DUPLICATE_IGNORED', ...(typeof url === 'string' && /^https:\/\//.test(url) ? { authorizationUrl: url } : {}) };
    }
    case 'REJECTED':
      return { kind: 'rejected', failure: failureOf(body.failureReason) };
    default:
      return { kind: 'unknown', status: typeof body.status === 'string' ? body.status : JSON.stringify(body.status) };
  }
}

/** pawaPay's record of one operation (a status answer's `data`, a callback's body), checked for shape. */
export interface Snapshot {
  pawapayId: string;
  /** pawaPay's status as it says it: ACCEPTED, PROCESSING, ENQUEUED, IN_RECONCILIATION, COMPLETED, FAILED, or one not known yet. */
  status: string;
  /** The amount as pawaPay echoes it ("123.00"); read with amountOf. */
  amount: string;
  currency: string;
  providerTransactionId?: string;
  failure?: Failure;
  metadata: Record<string, unknown>;
  /** The provider of the payer (deposits) or recipient (payouts, refunds). */
  provider?: string;
  authorizationUrl?: string;
}

export function snapshotOf(kind: OperationKind, data: unknown): Snapshot {
  const body = record(data, `${kind} record`);
  const id = body[ID_FIELD[kind]];
  if (typeof id !== 'string') throw new PawapayProtocolError(`the ${kind} record has no ${ID_FIELD[kind]}`);
  if (typeof body.status !== 'string') throw new PawapayProtocolError(`the ${kind} ${id} has no status`);
  if (typeof body.amount !== 'string' || typeof body.currency !== 'string') throw new PawapayProtocolError(`the ${kind} ${id} has no amount or currency`);
  const wallet = (kind === 'deposit' ? body.payer : body.recipient) as { accountDetails?: { provider?: unknown } } | undefined;
  const provider = wallet?.accountDetails?.provider;
  return {
    pawapayId: id,
    status: body.status,
    amount: body.amount,
    currency: body.currency,
    ...(typeof body.providerTransactionId === 'string' && body.providerTransactionId ? { providerTransactionId: body.providerTransactionId } : {}),
    ...(body.status === 'FAILED' ? { failure: failureOf(body.failureReason) } : {}),
    metadata: echoedMetadata(body.metadata),
    ...(typeof provider === 'string' ? { provider } : {}),
    ...(typeof body.authorizationUrl === 'string' ? { authorizationUrl: body.authorizationUrl } : {}),
  };
}

/** A status check's answer: NOT_FOUND (never received: it may be sent again with the same id) or FOUND with the record. */
export function statusCheckOf(kind: OperationKind, answer: unknown): { found: false } | { found: true; snapshot: Snapshot } {
  const body = record(answer, `${kind} status answer`);
  if (body.status === 'NOT_FOUND') return { found: false };
  if (body.status !== 'FOUND') throw new PawapayProtocolError(`the ${kind} status answer says ${JSON.stringify(body.status)}, neither FOUND nor NOT_FOUND`);
  return { found: true, snapshot: snapshotOf(kind, body.data) };
}

/** The echoed amount in minor units, exactly; a PawapayProtocolError when it is not an amount of the currency. */
export function amountOf(snapshot: Snapshot, minorUnits: number): number {
  const amount = fromPawapayAmount(snapshot.amount, minorUnits);
  if (!amount.ok) throw new PawapayProtocolError(`the amount of ${snapshot.pawapayId}: ${amount.reason}`);
  return amount.value;
}

const failed = (failure: Failure | undefined) => failure ?? failureOf(undefined);

/** A collection's or refund's final outcome; null while pawaPay has none (every status but COMPLETED and FAILED). */
export function collectOutcomeOf(snapshot: Snapshot): CollectOutcome | null {
  if (snapshot.status === 'COMPLETED') return { status: 'succeeded' };
  if (snapshot.status === 'FAILED') return { status: 'failed', ...failed(snapshot.failure) };
  return null;
}

/** A payout's final report; null while pawaPay has none. */
export function payoutFinalOf(snapshot: Snapshot): PayoutReport | null {
  if (snapshot.status === 'COMPLETED') return { type: 'paid' };
  if (snapshot.status === 'FAILED') return { type: 'failed', ...failed(snapshot.failure) };
  return null;
}

/**
 * Why a payout that is not final is held up, when pawaPay says so: ENQUEUED (the operator is down,
 * pawaPay holds the payout until it is back) and IN_RECONCILIATION (pawaPay is settling an
 * unclear answer of the operator). None for ACCEPTED and PROCESSING, the ordinary way.
 */
export function payoutDelayOf(snapshot: Snapshot): DelayReason | undefined {
  if (snapshot.status === 'ENQUEUED') return 'operator_down';
  if (snapshot.status === 'IN_RECONCILIATION') return 'operator_pending';
  return undefined;
}

/**
 * Sika's ids in the echoed metadata, trusted only when they derive the record's UUID; null when
 * they are missing or do not (a record Sika did not make, or metadata changed on the way).
 */
export function sikaIdsOf(kind: OperationKind, snapshot: Snapshot): SikaIds | null {
  const m = snapshot.metadata;
  const text = (key: string) => (typeof m[key] === 'string' && m[key] ? (m[key] as string) : undefined);
  const sikaId = text('sikaId');
  const merchantId = text('merchantId');
  const environment = text('environment');
  if (!sikaId || !merchantId || (environment !== 'sandbox' && environment !== 'live')) return null;
  if (pawapayId(sikaId) !== snapshot.pawapayId.toLowerCase()) return null;
  const extra = kind === 'deposit' ? text('paymentIntentId') : kind === 'refund' ? text('operationId') : '';
  if (extra === undefined) return null;
  return {
    sikaId,
    merchantId,
    environment,
    ...(kind === 'deposit' ? { paymentIntentId: extra } : {}),
    ...(kind === 'refund' ? { operationId: extra } : {}),
  };
}

/** pawaPay echoes metadata as one flat object; the list form it is sent in is read too. */
function echoedMetadata(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) return Object.fromEntries(value.flatMap((v) => (typeof v === 'object' && v !== null ? Object.entries(v as object) : [])));
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new PawapayProtocolError(`the ${what} is not a JSON object`);
  return value as Record<string, unknown>;
}

/** One wallet of `GET /v2/wallet-balances`, as pawaPay answers it (its balance a decimal string in major units). */
export interface PawapayWallet {
  country: string;
  currency: string;
  balance: string;
  /** The provider of a wallet that serves only one; empty when the wallet serves the country. */
  provider: string;
}

/** The wallets of a `GET /v2/wallet-balances` answer: `{ balances: [{ country, balance, currency, provider }] }`. */
export function walletBalancesOf(answer: unknown): PawapayWallet[] {
  const balances = typeof answer === 'object' && answer !== null ? (answer as { balances?: unknown }).balances : undefined;
  if (!Array.isArray(balances)) throw new PawapayProtocolError('the wallet balances answer has no balances list');
  return balances.map((b: unknown, i) => {
    const w = (typeof b === 'object' && b !== null ? b : {}) as Record<string, unknown>;
    if (typeof w.country !== 'string' || typeof w.currency !== 'string' || typeof w.balance !== 'string') throw new PawapayProtocolError(`wallet ${i} lacks its country, currency or balance`);
    return { country: w.country, currency: w.currency, balance: w.balance, provider: typeof w.provider === 'string' ? w.provider : '' };
  });
}
