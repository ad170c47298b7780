/**
 * Helpers shared by the payout suites: requests with the headers payouts need, funded merchants
 * (through the ledger), saved destinations, reading balances, balance transactions and the ledger
 * itself, the sandbox test numbers, coded error assertions, and a connector wrapper that can keep
 * the sandbox operator silent.
 */
import { postPayment } from '#packages/families/payments/payment-intent/postings.js';
import { randomUUID } from 'node:crypto';
import { quoteFee } from '#packages/catalog/index.js';
import { fold } from '#packages/core/decider.js';
import { runLedger } from '#packages/families/ledger/commands.js';
import { familiesLedger } from './ledger.js';
import { balanceStream, type LedgerEvent } from '#packages/families/ledger/events.js';
import type { CreatedMerchant } from '#packages/families/merchants/merchant/commands.js';
import type { PayoutInitiation, PayoutRequest, Rails } from '#packages/connectors/port.js';
import { snNumber } from './payments.js';
import type { TestResponse, TestService } from './system.js';
import type { Environment } from '#packages/core/owner.js';

export { advance, OPERATOR_DELAY_MS } from './system.js';
export { snNumber };
export const MINUTE = 60_000;

export interface MobileMoneyDestination {
  type: 'mobile_money';
  country: string;
  operator: string;
  msisdn: string;
  currency?: string;
}

export interface BankDestination {
  type: 'bank';
  bank_code: string;
  account_number: string;
  account_name: string;
  currency?: string;
}

export const mobileMoney = (lastTwo = '67', extra: Partial<MobileMoneyDestination> = {}): MobileMoneyDestination => ({
  type: 'mobile_money',
  country: 'SN',
  operator: 'orange_money',
  msisdn: snNumber(lastTwo),
  ...extra,
});

export const bank = (lastTwo = '67', extra: Partial<BankDestination> = {}): BankDestination => ({
  type: 'bank',
  bank_code: 'SN012',
  account_number: `01234567890${lastTwo}`,
  account_name: 'Awa Diop',
  ...extra,
});

/** The environment a test key belongs to. */
export const envOf = (key: string): Environment => (key.startsWith('sk_live_') ? 'live' : 'sandbox');

export interface PayoutCallOptions {
  /** X-Environment; the key's environment by default, `null` for none. */
  environment?: Environment | null;
  idempotencyKey?: string;
  path?: string;
}

function headersFor(key: string, options: PayoutCallOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const environment = options.environment === undefined ? envOf(key) : options.environment;
  if (environment !== null) headers['x-environment'] = environment;
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  return headers;
}

export function postPayout(svc: TestService, key: string, body: unknown, options: PayoutCallOptions = {}): Promise<TestResponse> {
  return svc.request('POST', options.path ?? '/api/v1/payouts', { key, body, headers: headersFor(key, options) });
}

export function getPayout(svc: TestService, key: string, id: string, options: PayoutCallOptions = {}): Promise<TestResponse> {
  return svc.request('GET', `${options.path ?? '/api/v1/payouts'}/${encodeURIComponent(id)}`, { key, headers: headersFor(key, options) });
}

/** Creates a payout that must succeed; returns the Payout object. */
export async function payout(svc: TestService, key: string, body: Record<string, unknown>, options: PayoutCallOptions = {}) {
  const res = await postPayout(svc, key, { amount: 10_000, currency: 'xof', ...body }, options);
  if (res.status !== 200) throw new Error(`payout failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function retrievePayout(svc: TestService, key: string, id: string) {
  const res = await getPayout(svc, key, id);
  if (res.status !== 200) throw new Error(`retrieve failed: ${res.status} ${res.text}`);
  return res.body;
}

/** Credits `amount` to the merchant's available balance (a settled payment without fee). */
export async function fund(svc: TestService, merchantId: string, amount: number, environment: Environment = 'sandbox', currency = 'xof'): Promise<void> {
  await runLedger(
    { ledger: svc.system.ledger, store: svc.system.store, clock: svc.clock },
    merchantId,
    environment,
    currency,
    postPayment({ source: `pi_test_${randomUUID().replace(/-/g, '')}`, clearing: 'operator_clearing:wave', amount, fee: 0, availableOn: svc.clock.now() }),
    { merchant_id: merchantId, environment, actor: 'test', occurred_at: svc.clock.now().toISOString() },
  );
}

/** A new merchant whose sandbox balance holds `amount` (XOF), and its sandbox key. */
export async function fundedMerchant(svc: TestService, amount: number): Promise<{ merchant: CreatedMerchant; key: string }> {
  const funded = await svc.sandboxMerchant();
  await fund(svc, funded.merchant.id, amount);
  return funded;
}

/** The merchant's ledger for one currency as its stream holds it: the folded state, and how many entries there are. */
export async function ledgerOf(svc: TestService, merchantId: string, environment: Environment = 'sandbox', currency = 'xof') {
  const recorded = await svc.system.store.readStream(balanceStream(merchantId, environment, currency));
  return {
    version: recorded.length,
    state: fold(
      familiesLedger.decider,
      recorded.map((e) => ({ type: e.type, data: e.data }) as LedgerEvent),
    ),
  };
}

/** Saves a payout destination (a payout method) that must be accepted; returns its id. */
export async function saveDestination(svc: TestService, key: string, body: Record<string, unknown>): Promise<string> {
  const res = await svc.request('POST', '/api/v1/merchant/settings/payouts/destinations', { key, body });
  if (res.status !== 200) throw new Error(`save destination failed: ${res.status} ${res.text}`);
  return res.body.id;
}

export interface Funds {
  available: number;
  pending: number;
  reserved: number;
}

/** GET /api/v1/balance as it answers: the Balance object, every currency. */
export async function balanceObject(svc: TestService, key: string) {
  const res = await svc.request('GET', '/api/v1/balance', { key });
  if (res.status !== 200) throw new Error(`balance failed: ${res.status} ${res.text}`);
  return res.body;
}

/** GET /api/v1/balance for one currency (0 where the currency has no row yet). */
export async function balance(svc: TestService, key: string, currency = 'xof'): Promise<Funds> {
  const body = await balanceObject(svc, key);
  const of = (field: keyof Funds): number => {
    const list = body[field] as { amount: number; currency: string }[];
    return list.find((x) => x.currency === currency)?.amount ?? 0;
  };
  return { available: of('available'), pending: of('pending'), reserved: of('reserved') };
}

export interface BalanceTransaction {
  id: string;
  type: string;
  source: string;
  amount: number;
  fee: number;
  net: number;
  currency: string;
  status: string;
  /** Unix seconds. */
  available_on: number;
  livemode: boolean;
}

export async function balanceTransactions(svc: TestService, key: string, query = ''): Promise<BalanceTransaction[]> {
  const res = await svc.request('GET', `/api/v1/balance-transactions${query}`, { key });
  if (res.status !== 200) throw new Error(`balance transactions failed: ${res.status} ${res.text}`);
  return res.body.data;
}

/** The payout fee of the catalog, the function POST /api/v1/fees/quote uses. */
export function payoutFee(amount: number, destination: { type: 'mobile_money' | 'bank'; country?: string; operator?: string }, currency = 'xof'): number {
  return quoteFee({
    amount,
    currency,
    direction: 'payout',
    method: destination.type,
    country: destination.country ?? 'SN',
    ...(destination.type === 'mobile_money' ? { operator: destination.operator! } : {}),
  }).fee;
}

export { assertError, assertOk } from './assertions.js';

/**
 * Rails whose live payouts a stand-in operator takes (no live connector is wired yet): every
 * destination is served and each payout answered by `answer` (accepted by default).
 */
export function liveOperator(answer: () => Promise<PayoutInitiation> = async () => ({ status: 'accepted' })): (environment: Environment, base: Rails) => Rails {
  return (environment, base) => {
    if (environment !== 'live') return base;
    const rails = Object.create(base) as Rails;
    rails.assertCanPayOut = () => undefined;
    rails.verifyDestination = async () => undefined;
    rails.payout = answer;
    return rails;
  };
}

/**
 * Wraps the sandbox connector: records every `payout`; while `silent`, the operator takes
 * the payout and never calls back (nothing is scheduled); `rejectNext` refuses one at initiation.
 */
export class PayoutProbe {
  readonly calls: PayoutRequest[] = [];
  silent = false;
  /** Makes the next payout refuse the payout at once with this failure. */
  rejectNext: { failureCode: string; failureMessage: string } | null = null;
  /** Makes the next payout throw, as a connector whose operator did not answer. */
  throwNext = false;

  readonly wrap = (_environment: Environment, base: Rails): Rails => {
    const wrapped = Object.create(base) as Rails;
    wrapped.payout = async (req: PayoutRequest): Promise<PayoutInitiation> => {
      this.calls.push(req);
      if (this.throwNext) {
        this.throwNext = false;
        throw new Error('operator connection reset');
      }
      if (this.rejectNext) {
        const rejection = this.rejectNext;
        this.rejectNext = null;
        return { status: 'rejected', ...rejection };
      }
      if (this.silent) return { status: 'accepted' };
      return base.payout(req);
    };
    return wrapped;
  };
}

/** The keys of the Payout object: the interface's fields, then what every object carries. */
export const PAYOUT_KEYS = [
  'id',
  'object',
  'amount',
  'currency',
  'status',
  'destination',
  'payout_method_id',
  'arrival_date_estimate',
  'expected_by',
  'delay_state',
  'delay_reason',
  'delayed_at',
  'metadata',
  'failure_code',
  'failure_message',
  'fee',
  'created',
  'livemode',
];
