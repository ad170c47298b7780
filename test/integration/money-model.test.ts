/**
 * A model-based property test (fast-check) of the money of one sandbox merchant in XOF, across
 * every family that moves it: payments (a wallet that succeeds, one that fails) and their refunds,
 * payouts (to a wallet that is paid, one that fails) and payout batches, escrow (contracts funded
 * from the balance, releases to the balance or to a payout method, refunds, disputes and their
 * outcomes, cancels), the marketplace (orders paid or failed, refunds, due settlements, seller payouts) and
 * funding (contributions, refunds, close, payouts of released funds), with the clock moved on.
 * Each step is one command or 2–4 commands issued at once (Promise.all). A refusal on the merits
 * (a coded 4xx) is a legal outcome; a 5xx, or a 4xx without a code, is not.
 *
 * After every step, per currency, over every `ledger.entry_posted` and
 * `marketplace_funds.entry_posted` of the merchant in the `events` table (the checks read both
 * types and know no account list, so they hold wherever the marketplace's accounts live):
 *   1. every entry balances: its lines are integers and sum to 0;
 *   2. conservation: Σ lines = 0 over all accounts, and what the merchant's side holds (every
 *      account that is not a clearing account or `fees`) is what came in from outside less what
 *      left: Σ inside = −Σ outside;
 *   3. no account below zero that may not be: available, pending, reserved, escrow:*, campaign:*,
 *      seller_*;
 *   4. GET /api/v1/balance: available, pending, reserved and every kind of `held` are the fold of the log, escrowed is
 *      Σ escrow:*.
 * At the end every read model equals its rebuild from the log (`sika projections verify`).
 *
 * Environment: MONEY_SEED (or FUZZ_SEED) the seed, MONEY_RUNS the number of sequences, MONEY_STEPS
 * the longest sequence, MONEY_PATH a fast-check counterexample path to replay (printed on failure).
 */
import fc from 'fast-check';
import t from '#tap';
import { startProcess } from '../support/child-process.js';
import { escrow } from '../support/escrow.js';
import { activeCampaign, orangeMoney } from '../support/funding.js';
import { createRule, createSeller, mkt } from '../support/marketplace.js';
import { confirm, mobileMoney as payerWallet, snNumber } from '../support/payments.js';
import { engine, walletInstruction } from '../support/payout-engine.js';
import { balanceObject, fund, mobileMoney, postPayout, saveDestination } from '../support/payouts.js';
import { advance, OPERATOR_DELAY_MS, startPaymentsService, type TestResponse } from '../support/system.js';
import { positiveEnv } from '../support/env.js';

const SEED = positiveEnv(process.env.MONEY_SEED ?? process.env.FUZZ_SEED, 20260301);
const RUNS = positiveEnv(process.env.MONEY_RUNS, 6);
const MAX_STEPS = positiveEnv(process.env.MONEY_STEPS, 30);
const PATH = process.env.MONEY_PATH;
const DAY = 86_400_000;
const CURRENCY = 'xof';
if (RUNS > 15 || MAX_STEPS > 30) t.setTimeout(0);

const svc = await startPaymentsService(t);

// --- Commands ------------------------------------------------------------------------------------

type Op =
  | { op: 'pay'; amount: number; fails: boolean }
  | { op: 'refund_payment'; pick: number; fraction: number | null }
  | { op: 'top_up'; amount: number }
  | { op: 'payout'; amount: number; fails: boolean }
  | { op: 'payout_batch'; amounts: number[]; failing: number }
  | { op: 'escrow_create'; amount: number; topUp: boolean }
  | { op: 'escrow_release'; pick: number; amount: number | null; to: 'balance' | 'wallet' | 'failing_wallet' }
  | { op: 'escrow_refund'; pick: number; amount: number | null }
  | { op: 'escrow_dispute'; pick: number }
  | { op: 'escrow_cancel'; pick: number }
  | { op: 'escrow_resolve'; pick: number; outcome: 'release_to_beneficiary' | 'refund_to_payer' | 'split' | 'dismissed'; split: number }
  | { op: 'mkt_order'; lines: { seller: number; amount: number; ruled: boolean }[]; fails: boolean }
  | { op: 'mkt_refund'; pick: number; fraction: number }
  | { op: 'mkt_settle' }
  | { op: 'mkt_payout'; seller: number; fraction: number; fails: boolean }
  | { op: 'contribute'; amount: number; fails: boolean; campaignMethod: boolean }
  | { op: 'contribution_refund'; pick: number }
  | { op: 'campaign_close' }
  | { op: 'campaign_payout'; pick: number; fraction: number | null; fails: boolean }
  | { op: 'advance'; ms: number };

type Kind = Op['op'];

const money = (min: number, max: number) => fc.integer({ min, max });
const optionalMoney = (min: number, max: number) => fc.option(money(min, max), { nil: null });
const pick = fc.nat(50);
/** Of what there is (a payment's amount, a seller's available funds): some too much; null for all that remains. */
const fraction = fc.option(fc.double({ min: 0.05, max: 1.2, noNaN: true }), { nil: null });

const command: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('pay' as const), amount: money(500, 60_000), fails: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('refund_payment' as const), pick, fraction }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('top_up' as const), amount: money(1_000, 50_000) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('payout' as const), amount: money(500, 40_000), fails: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('payout_batch' as const), amounts: fc.array(money(500, 10_000), { minLength: 1, maxLength: 3 }), failing: fc.nat(3) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('escrow_create' as const), amount: money(1_000, 30_000), topUp: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant('escrow_release' as const), pick, amount: optionalMoney(500, 20_000), to: fc.constantFrom('balance' as const, 'wallet' as const, 'failing_wallet' as const) }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('escrow_refund' as const), pick, amount: optionalMoney(100, 20_000) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('escrow_dispute' as const), pick }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('escrow_cancel' as const), pick }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('escrow_resolve' as const),
      pick,
      outcome: fc.constantFrom('release_to_beneficiary' as const, 'refund_to_payer' as const, 'split' as const, 'dismissed' as const),
      split: fc.nat(30_000),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      op: fc.constant('mkt_order' as const),
      lines: fc.array(fc.record({ seller: fc.nat(1), amount: money(200, 30_000), ruled: fc.boolean() }), { minLength: 1, maxLength: 3 }),
      fails: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('mkt_refund' as const), pick, fraction: fc.double({ min: 0.01, max: 1.2, noNaN: true }) }) },
  { weight: 3, arbitrary: fc.constant({ op: 'mkt_settle' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('mkt_payout' as const), seller: fc.nat(1), fraction: fc.double({ min: 0.05, max: 1.1, noNaN: true }), fails: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('contribute' as const), amount: money(500, 30_000), fails: fc.boolean(), campaignMethod: fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('contribution_refund' as const), pick }) },
  { weight: 2, arbitrary: fc.constant({ op: 'campaign_close' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('campaign_payout' as const), pick, fraction, fails: fc.boolean() }) },
  { weight: 6, arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.constantFrom(OPERATOR_DELAY_MS, OPERATOR_DELAY_MS, 15 * 60_000, DAY) }) },
);

/**
 * One step: a command alone, or 2–4 issued at once (sometimes the same one twice) (at most one of them moves the clock); then, if
 * `tick`, the sandbox operator's answers fall due (the clock moves by its delay) before the checks,
 * so that payments, contributions and payouts often get their end before the next step.
 */
interface Step {
  ops: Op[];
  tick: boolean;
}
const step: fc.Arbitrary<Step> = fc.record({
  ops: fc
    .oneof(
      { weight: 6, arbitrary: fc.array(command, { minLength: 1, maxLength: 1 }) },
      { weight: 4, arbitrary: fc.array(command, { minLength: 2, maxLength: 4 }) },
      // The same command twice at once: two refunds of one payment, two releases of one contract, two closes, …
      { weight: 1, arbitrary: command.map((c) => [c, c]) },
    )
    .map((ops) => {
      let clockMoved = false;
      return ops.filter((o) => (o.op === 'advance' ? !clockMoved && (clockMoved = true) : true));
    }),
  tick: fc.boolean(),
});

// --- The merchant of one sequence, as the commands left it ---------------------------------------

interface World {
  merchantId: string;
  key: string;
  wallet: string;
  failingWallet: string;
  rule: string;
  sellers: string[];
  payments: { id: string; amount: number }[];
  contracts: string[];
  orders: string[];
  contributions: string[];
  campaign: Promise<string> | null;
  closedCampaigns: string[];
}

const at = <T>(list: T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);

async function newWorld(): Promise<World> {
  const { merchant, key } = await svc.sandboxMerchant('Money model');
  const wallet = await saveDestination(svc, key, { ...mobileMoney('67', { currency: 'XOF' }) });
  const failingWallet = await saveDestination(svc, key, { ...mobileMoney('01', { currency: 'XOF' }) });
  await advance(svc, 2 * DAY); // past the new payout methods' safety delay
  const rule = (await createRule(svc, key, { percentBasisPoints: 1250, fixedFeeMinor: 10 })).id as string;
  const sellers = [(await createSeller(svc, key, 'sa', { settlementDelayDays: 0 })).id as string, (await createSeller(svc, key, 'sb', { settlementDelayDays: 1 })).id as string];
  // A start that gives the first commands something to act on: money on the balance and one contract funded from it.
  await fund(svc, merchant.id, 60_000);
  const contract = await escrow(svc, key, 'POST', '/contracts', { currency: 'XOF', amountMinor: 20_000, fundingSourceType: 'merchant_balance' });
  if (contract.status !== 200) throw new Error(`contract: ${contract.status} ${contract.text}`);
  return { merchantId: merchant.id, key, wallet, failingWallet, rule, sellers, payments: [], contracts: [contract.body.id], orders: [], contributions: [], campaign: null, closedCampaigns: [] };
}

/** A step that answered what no client may get: a 5xx, or an error without its code. */
class BadAnswer extends Error {}

/** Every answer of a command, checked as it comes: refusals are fine, a 5xx or an uncoded error is not. */
function checked(what: string, res: TestResponse): TestResponse {
  if (res.status >= 500 || (res.status >= 400 && typeof res.body?.code !== 'string')) throw new BadAnswer(`${what} answered ${res.status} ${res.text.slice(0, 500)}`);
  return res;
}

const succeeded = (res: TestResponse) => res.status >= 200 && res.status < 300;

/** Runs one command; returns its last answer (null when there was nothing to act on). */
async function run(w: World, o: Op): Promise<TestResponse | null> {
  const { key } = w;
  const call = async (what: string, p: Promise<TestResponse>) => checked(`${o.op}: ${what}`, await p);
  switch (o.op) {
    case 'pay': {
      const created = await call('create', svc.request('POST', '/api/v1/payment-intents', { key, body: { amount: o.amount, currency: CURRENCY, transaction_country: 'SN' } }));
      if (!succeeded(created)) return created;
      w.payments.push({ id: created.body.id, amount: o.amount });
      return call('confirm', confirm(svc, key, created.body.id, { payment_method: payerWallet(snNumber(o.fails ? '01' : '67')) }));
    }
    case 'refund_payment': {
      const payment = at(w.payments, o.pick);
      if (!payment) return null;
      const body = o.fraction === null ? {} : { amount: Math.max(1, Math.floor(payment.amount * o.fraction)) };
      return call('refund', svc.request('POST', `/api/v1/merchant/payments/${payment.id}/refund`, { key, body }));
    }
    case 'top_up':
      // The command layer: a settled payment without fee, straight onto available.
      await fund(svc, w.merchantId, o.amount);
      return null;
    case 'payout':
      return call('create', postPayout(svc, key, { amount: o.amount, currency: CURRENCY, destination: mobileMoney(o.fails ? '01' : '67') }));
    case 'payout_batch': {
      const instructions = o.amounts.map((a, i) => walletInstruction(a, i === o.failing ? '01' : '67'));
      const batch = await call('create', engine(svc, key, 'POST', '/batches', { currency: CURRENCY, instructions }));
      if (!succeeded(batch)) return batch;
      return call('execute', engine(svc, key, 'POST', `/batches/${batch.body.id}/execute`));
    }
    case 'escrow_create': {
      if (o.topUp) await fund(svc, w.merchantId, o.amount);
      const res = await call('create', escrow(svc, key, 'POST', '/contracts', { currency: 'XOF', amountMinor: o.amount, fundingSourceType: 'merchant_balance' }));
      if (succeeded(res)) w.contracts.push(res.body.id);
      return res;
    }
    case 'escrow_release': {
      const contract = at(w.contracts, o.pick);
      if (!contract) return null;
      const release = await call('create', escrow(svc, key, 'POST', `/releases/contract/${contract}`, o.amount ? { amountMinor: o.amount } : {}));
      if (!succeeded(release)) return release;
      const to = o.to === 'balance' ? {} : { payoutMethodId: o.to === 'wallet' ? w.wallet : w.failingWallet };
      const executed = await call('execute', escrow(svc, key, 'POST', `/releases/${release.body.id}/execute`, to));
      // A release whose execution was refused is not left to promise funds forever.
      if (!succeeded(executed)) await call('cancel', escrow(svc, key, 'POST', `/releases/${release.body.id}/cancel`));
      return executed;
    }
    case 'escrow_refund': {
      const contract = at(w.contracts, o.pick);
      if (!contract) return null;
      return call('refund', escrow(svc, key, 'POST', `/contracts/${contract}/refund`, o.amount ? { amountMinor: o.amount } : {}));
    }
    case 'escrow_dispute': {
      const contract = at(w.contracts, o.pick);
      if (!contract) return null;
      return call('open', escrow(svc, key, 'POST', `/disputes/contract/${contract}`, { reason: 'model' }));
    }
    case 'escrow_cancel': {
      // Pending releases canceled, what is held refunded to the payer.
      const contract = at(w.contracts, o.pick);
      if (!contract) return null;
      return call('cancel', escrow(svc, key, 'POST', `/contracts/${contract}/cancel`));
    }
    case 'escrow_resolve': {
      // The first contract from `pick` on with an open dispute.
      for (let i = 0; i < w.contracts.length; i++) {
        const contract = at(w.contracts, o.pick + i)!;
        const c = await call('get', escrow(svc, key, 'GET', `/contracts/${contract}`));
        if (!succeeded(c)) throw new BadAnswer(`escrow_resolve: contract ${contract} not found`);
        if (c.body.openDisputeId) return call('resolve', escrow(svc, key, 'POST', `/disputes/${c.body.openDisputeId}/resolve`, { outcome: o.outcome, splitReleaseMinor: o.split }));
      }
      return null;
    }
    case 'mkt_order': {
      const lines = o.lines.map((l) => ({ sellerId: l.seller === 0 ? 'sa' : 'sb', amountMinor: l.amount, ...(l.ruled ? { commissionRuleId: w.rule } : {}) }));
      const order = await call('create', mkt(svc, key, 'POST', '/orders', { currency: CURRENCY, transactionCountry: 'SN', lines }));
      if (!succeeded(order)) return order;
      w.orders.push(order.body.id);
      return call('confirm', confirm(svc, key, order.body.paymentIntentId, { payment_method: payerWallet(snNumber(o.fails ? '01' : '67')) }));
    }
    case 'mkt_refund': {
      const id = at(w.orders, o.pick);
      if (!id) return null;
      const order = await call('get', mkt(svc, key, 'GET', `/orders/${id}`));
      return call('refund', mkt(svc, key, 'POST', '/refunds', { orderId: id, amountMinor: Math.max(1, Math.floor(order.body.amountMinor * o.fraction)) }));
    }
    case 'mkt_settle':
      return call('process due', mkt(svc, key, 'POST', '/settlements/process-due', {}));
    case 'mkt_payout': {
      // The seller picked, or the other one when only the other has funds available.
      const availableOf = async (seller: string) => {
        const funds = await call('balance', mkt(svc, key, 'GET', `/sellers/${seller}/balance`));
        return ((funds.body?.balances ?? []) as { currency: string; availableMinor: number }[]).find((b) => b.currency.toLowerCase() === CURRENCY)?.availableMinor ?? 0;
      };
      let seller = w.sellers[o.seller]!;
      let available = await availableOf(seller);
      const other = w.sellers[1 - o.seller]!;
      const otherAvailable = available > 0 ? 0 : await availableOf(other);
      if (otherAvailable > 0) [seller, available] = [other, otherAvailable];
      const amountMinor = Math.max(200, Math.floor(available * o.fraction));
      return call('create', mkt(svc, key, 'POST', `/sellers/${seller}/payouts`, { amountMinor, currency: CURRENCY, destination: mobileMoney(o.fails ? '01' : '67') }));
    }
    case 'contribute': {
      w.campaign ??= activeCampaign(svc, key, o.campaignMethod ? { payoutMethodId: w.wallet } : {}).then((c) => c.id as string);
      const campaign = await w.campaign;
      const res = await call('create', svc.request('POST', '/api/v1/funding/contributions', { key, body: { campaignId: campaign, amountMinor: o.amount, currency: 'XOF', paymentMethod: orangeMoney(o.fails ? '01' : '67') } }));
      if (succeeded(res)) w.contributions.push(res.body.id);
      return res;
    }
    case 'contribution_refund': {
      const id = at(w.contributions, o.pick);
      if (!id) return null;
      return call('refund', svc.request('POST', `/api/v1/funding/contributions/${id}/refund`, { key }));
    }
    case 'campaign_close': {
      if (!w.campaign) return null;
      const campaign = await w.campaign;
      const res = await call('close', svc.request('POST', `/api/v1/funding/campaigns/${campaign}/close`, { key }));
      if (succeeded(res) && !w.closedCampaigns.includes(campaign)) {
        w.closedCampaigns.push(campaign);
        w.campaign = null;
      }
      return res;
    }
    case 'campaign_payout': {
      const campaign = at(w.closedCampaigns, o.pick);
      if (!campaign) return null;
      // A part of what the campaign released and has not paid out yet (some too much), or by default all of it.
      const c = await call('get', svc.request('GET', `/api/v1/funding/campaigns/${campaign}`, { key }));
      const left = (c.body?.releasedAmountMinor ?? 0) - (c.body?.releasedFeeMinor ?? 0) - (c.body?.paidOutAmountMinor ?? 0);
      const body = { payoutMethodId: o.fails ? w.failingWallet : w.wallet, ...(o.fraction === null ? {} : { amountMinor: Math.max(500, Math.floor(left * o.fraction)) }) };
      return call('payout', svc.request('POST', `/api/v1/funding/campaigns/${campaign}/payouts`, { key, body }));
    }
    case 'advance':
      await advance(svc, o.ms);
      return null;
  }
}

// --- The invariants, folded from the log ---------------------------------------------------------

interface Entry {
  type: string;
  position: string;
  data: { entryId: string; kind: string; currency: string; lines: { account: string; amount: unknown }[] };
}

const OUTSIDE = (account: string) => account === 'card_clearing' || account === 'bank_clearing' || account.startsWith('operator_clearing:') || account === 'fees';
const NEVER_NEGATIVE = (account: string) => account === 'available' || account === 'pending' || account === 'reserved' || account.startsWith('escrow:') || account.startsWith('campaign:') || account.startsWith('seller_');

/** The merchant's journal entries of both types, every currency, in log order. */
async function entriesOf(merchantId: string): Promise<Entry[]> {
  const res = await svc.system.knex.raw<{ rows: Entry[] }>(
    `SELECT type, global_position::text AS position, data FROM events
     WHERE type IN ('ledger.entry_posted', 'marketplace_funds.entry_posted') AND data->>'merchantId' = ? AND data->>'environment' = 'sandbox'
     ORDER BY global_position`,
    [merchantId],
  );
  return res.rows;
}

/** The first broken invariant of the merchant's money, or null. */
async function violation(w: World): Promise<string | null> {
  await svc.system.drain(); // the bus and the jobs now due, as the scheduler loop would run them
  const entries = await entriesOf(w.merchantId);
  const byCurrency = new Map<string, Map<string, number>>();
  for (const e of entries) {
    const { lines, currency, entryId, kind } = e.data;
    if (!Array.isArray(lines) || lines.length === 0) return `entry ${entryId} (${e.type} ${kind}) has no lines`;
    if (lines.some((l) => !Number.isSafeInteger(l.amount))) return `entry ${entryId} (${e.type} ${kind}) has a line that is not an integer: ${JSON.stringify(lines)}`;
    const sum = lines.reduce((s, l) => s + (l.amount as number), 0);
    if (sum !== 0) return `invariant 1: entry ${entryId} (${e.type} ${kind}) does not balance (Σ ${sum}): ${JSON.stringify(lines)}`;
    const c = currency.toLowerCase();
    const accounts = byCurrency.get(c) ?? new Map<string, number>();
    byCurrency.set(c, accounts);
    for (const l of lines) accounts.set(l.account, (accounts.get(l.account) ?? 0) + (l.amount as number));
    // Invariant 3 after each entry, not only at the end of the step: no entry may take an account below zero on the way.
    for (const l of lines) {
      const now = accounts.get(l.account)!;
      if (NEVER_NEGATIVE(l.account) && now < 0) return `invariant 3: ${c} account ${l.account} is ${now} after entry ${entryId} (${e.type} ${kind})`;
    }
  }
  const api = await balanceObject(svc, w.key);
  for (const [currency, accounts] of byCurrency) {
    let inside = 0;
    let outside = 0;
    for (const [account, amount] of accounts) {
      if (OUTSIDE(account)) outside += amount;
      else inside += amount;
    }
    if (inside + outside !== 0 || inside !== -outside) return `invariant 2 (${currency}): Σ inside accounts ${inside} ≠ −Σ outside accounts ${-outside}`;
    const of = (field: string) => ((api[field] ?? []) as { amount: number; currency: string }[]).find((x) => x.currency.toLowerCase() === currency)?.amount ?? 0;
    for (const field of ['available', 'pending', 'reserved'] as const) {
      const folded = accounts.get(field) ?? 0;
      if (of(field) !== folded) return `invariant 4 (${currency}): GET /api/v1/balance ${field} ${of(field)}, the log ${folded}`;
    }
    const sum = (prefix: string) => [...accounts].filter(([a]) => a.startsWith(prefix)).reduce((s, [, v]) => s + v, 0);
    const escrowed = sum('escrow:');
    if (of('escrowed') !== escrowed) return `invariant 4 (${currency}): GET /api/v1/balance escrowed ${of('escrowed')}, Σ escrow:* on the log ${escrowed}`;
    // And the sellers' funds it shows, where the merchant has any: Σ seller_pending:* and Σ seller_available:*.
    const sellers = ((api.seller_funds ?? []) as { currency: string; pending: number; available: number }[]).find((x) => x.currency.toLowerCase() === currency) ?? { pending: 0, available: 0 };
    if (sellers.pending !== sum('seller_pending:') || sellers.available !== sum('seller_available:'))
      return `invariant 4 (${currency}): GET /api/v1/balance seller_funds ${JSON.stringify(sellers)}, the log pending ${sum('seller_pending:')} available ${sum('seller_available:')}`;
    // And `held`, every kind of account held for others, read from the accounts projection.
    for (const kind of ['escrow', 'campaign', 'seller_pending', 'seller_available', 'seller_payouts']) {
      const shown = ((api.held ?? []) as { kind: string; currency: string; amount: number }[]).find((h) => h.kind === kind && h.currency.toLowerCase() === currency)?.amount ?? 0;
      const folded = [...accounts].filter(([a]) => a === kind || a.startsWith(`${kind}:`)).reduce((s, [, v]) => s + v, 0);
      if (shown !== folded) return `invariant 4 (${currency}): GET /api/v1/balance held ${kind} ${shown}, the log ${folded}`;
    }
  }
  return null;
}

// --- The property --------------------------------------------------------------------------------

const describe = ({ ops, tick }: Step) => `${ops.length === 1 ? JSON.stringify(ops[0]) : `at once: ${ops.map((o) => JSON.stringify(o)).join(' ‖ ')}`}${tick ? ' + operator answers' : ''}`;

const figures = { runs: 0, steps: 0, commands: 0, refusals: 0, nothingToDo: 0, perKind: new Map<Kind, { runs: number; refused: number; ok: number; idle: number; codes: Map<string, number> }>() };

function count(o: Op, res: TestResponse | null) {
  const k = figures.perKind.get(o.op) ?? { runs: 0, refused: 0, ok: 0, idle: 0, codes: new Map<string, number>() };
  figures.perKind.set(o.op, k);
  k.runs++;
  figures.commands++;
  if (res === null) {
    if (o.op !== 'advance' && o.op !== 'top_up') {
      figures.nothingToDo++;
      k.idle++;
    } else k.ok++;
  } else if (succeeded(res)) k.ok++;
  else {
    k.refused++;
    figures.refusals++;
    const code = `${res.status} ${res.body.code}`;
    k.codes.set(code, (k.codes.get(code) ?? 0) + 1);
  }
}

t.test(`random sequences over payments, payouts, escrow, marketplace and funding keep the money invariants (seed ${SEED}, ${RUNS} runs, ≤ ${MAX_STEPS} steps)`, async (t) => {
  const details = await fc.check(
    fc.asyncProperty(fc.array(step, { minLength: 10, maxLength: MAX_STEPS }), async (steps) => {
      figures.runs++;
      const w = await newWorld();
      const done: string[] = [];
      for (const [i, s] of steps.entries()) {
        figures.steps++;
        let answers: (TestResponse | null)[];
        try {
          answers = await Promise.all(s.ops.map((o) => run(w, o)));
          if (s.tick) await advance(svc);
        } catch (err) {
          throw new Error(`step ${i + 1} ${describe(s)}: ${err instanceof Error ? err.message : String(err)}\nafter:\n${done.join('\n')}`, { cause: err });
        }
        s.ops.forEach((o, j) => count(o, answers[j]!));
        done.push(`  ${i + 1}. ${describe(s)} → ${answers.map((a) => (a ? a.status : '-')).join(', ')}`);
        const broken = await violation(w);
        if (broken) throw new Error(`${broken}\nmerchant ${w.merchantId}, the steps:\n${done.join('\n')}`);
      }
    }),
    { seed: SEED, numRuns: RUNS, ...(PATH ? { path: PATH } : {}), interruptAfterTimeLimit: 600_000 },
  );
  if (details.failed) {
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    // The whole story as comments (a failure's message is printed on one line), then the failure.
    t.comment(
      `${error}\nshrunk counterexample (${details.counterexample?.[0].length} steps):\n${details.counterexample?.[0].map((s, i) => `  ${i + 1}. ${describe(s)}`).join('\n')}\n` +
        `(seed ${details.seed}, path "${details.counterexamplePath}"; MONEY_SEED=${SEED} MONEY_PATH="${details.counterexamplePath}" replays it)`,
    );
    t.fail(error.split('\n')[0]!);
  } else t.pass(`${details.numRuns} sequences, every invariant held after each of their steps`);
  t.comment(`runs ${figures.runs} (with shrinking), steps ${figures.steps}, commands ${figures.commands}, refusals ${figures.refusals}, nothing to act on ${figures.nothingToDo}`);
  for (const [kind, k] of [...figures.perKind].sort(([a], [b]) => a.localeCompare(b)))
    t.comment(`  ${kind}: ${k.runs} (${k.ok} ok, ${k.refused} refused${k.codes.size ? ` [${[...k.codes].map(([c, n]) => `${c} ×${n}`).join(', ')}]` : ''}, ${k.idle} with nothing to act on)`);
  t.ok(figures.steps >= RUNS * 10, 'at least 10 steps a run');
});

t.test('at the end every read model equals its rebuild from the log (sika projections verify)', async (t) => {
  await svc.system.drain();
  t.same(await svc.system.verifyProjections(), [], 'every read model equals its rebuild');
  const cli = startProcess('bin/cli.js', { DATABASE_URL: svc.system.db.url, LOG_LEVEL: 'silent' }, ['projections', 'verify']);
  t.equal(await cli.exit, 0, cli.output());
  t.match(cli.output(), /^ok: all read models equal their rebuild from the log/);
});
