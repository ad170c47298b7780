/**
 * Paystack in the simulator (docs/reliability.md): the real PaystackConnector to Paystack's
 * stand-in behind a fault-injecting proxy; the payer on Paystack's checkout page, who pays or is
 * declined; Paystack's operator, who settles transfers and refunds and sends its signed webhooks
 * (late, repeated, missing, forged); then the part of the model Paystack's records hold Sika to.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { paystackReference, sikaIdOf } from '#packages/connectors/paystack/references.js';
import { PaystackStandin, type Refund, type WebhookOptions } from '../support/paystack-standin.js';
import { PAYSTACK_LIVE_KEY } from '../support/live.js';
import { FaultProxy, type ProxyFault } from './fault-proxy.js';
import type { Random } from './random.js';

type Json = Record<string, unknown>;

/** The Nigerian bank accounts the clients pay out to, as the stand-in's bank knows them. */
export const BANK_ACCOUNTS = [
  { bank_code: '058', account_number: '0123456789', account_name: 'Adaeze Okafor', holder: 'ADAEZE OKAFOR' },
  { bank_code: '044', account_number: '0234567891', account_name: 'Chidi Nwosu', holder: 'CHIDI NWOSU' },
  { bank_code: '033', account_number: '0345678912', account_name: 'Bola Ade', holder: 'BOLA ADE' },
];

/** A webhook Paystack still has to deliver. */
interface Delivery {
  at: number;
  what: string;
  send: (options: WebhookOptions) => Promise<number>;
  forge?: WebhookOptions['forge'];
  tries: number;
}

const FINAL_TRANSFER = ['success', 'failed', 'reversed'];
const FINAL_REFUND = ['processed', 'failed'];

/** What Paystack kept of the references Sika sent, each once. */
function kept<T>(references: string[], find: (reference: string) => T | undefined): T[] {
  return [...new Set(references)].flatMap((ref) => find(ref) ?? []);
}

export interface World {
  note: (line: string) => void;
  count: (what: string) => void;
  failures: string[];
  faultsOn: () => boolean;
}

export class PaystackWorld {
  private readonly deliveries: Delivery[] = [];
  private readonly decided = new Map<string, number>();
  private readonly checkouts: Promise<void>[] = [];
  /** Payers still on their way to (or on) Paystack's page. */
  payersAway = 0;

  private constructor(
    readonly standin: PaystackStandin,
    readonly proxy: FaultProxy,
    private readonly rnd: Random,
    private readonly world: World,
  ) {}

  static async start(rnd: Random, api: string, world: World): Promise<PaystackWorld> {
    const standin = await PaystackStandin.start({ secretKey: PAYSTACK_LIVE_KEY, webhookUrl: `${api}/connectors/paystack/events` });
    for (const a of BANK_ACCOUNTS) standin.accountNames.set(`${a.bank_code}/${a.account_number}`, a.holder);
    // What Paystack's wallet holds for Sika is set before reconcile, from its records.
    standin.balances.set('NGN', 0);
    const proxyRnd = rnd.fork('paystack-proxy');
    const proxy = await FaultProxy.start(
      standin.url,
      (req): ProxyFault => {
        if (!world.faultsOn()) return { type: 'pass' };
        const p = req.path.split('?')[0]!;
        // The requests that start something: a transaction, a transfer, a refund.
        if (req.method === 'POST' && ['/transaction/initialize', '/transfer', '/refund'].includes(p)) {
          const kind = proxyRnd.weighted({ pass: 55, lose: 12, error: 10, slow: 15, stall: 8 });
          if (kind === 'lose') return { type: 'lose' };
          if (kind === 'stall') return { type: 'stall', delayMs: proxyRnd.int(1_000, 4_000) };
          if (kind === 'error') return { type: 'error', status: proxyRnd.pick([500, 502, 503]) };
          if (kind === 'slow') return { type: 'slow', delayMs: proxyRnd.chance(0.3) ? proxyRnd.int(15_500, 18_000) : proxyRnd.int(500, 6_000) };
          return { type: 'pass' };
        }
        // Checks, recipients, the bank's name: sometimes down or slow.
        if (/^\/(transaction\/verify|transfer\/verify)\/|^\/refund$|^\/transferrecipient$|^\/bank\/resolve$/.test(p)) {
          const kind = proxyRnd.weighted({ pass: 85, error: 8, slow: 7 });
          if (kind === 'error') return { type: 'error', status: 503 };
          if (kind === 'slow') return { type: 'slow', delayMs: proxyRnd.int(500, 4_000) };
        }
        return { type: 'pass' };
      },
      (req, fault, status) => {
        const p = req.path.split('?')[0]!;
        if (!/^\/(transaction|transfer|refund)/.test(p)) return;
        world.count(`paystack ${req.method} ${fault.type}`);
        const ref = /"(?:reference|merchant_note)":"([^"]+)"/.exec(req.body)?.[1] ?? p.split('/')[3] ?? req.path.split('?')[1] ?? '';
        const what = fault.type === 'slow' || fault.type === 'stall' ? (fault.delayMs < 0 ? 'stalled, its caller died: never sent' : `${fault.type} ${fault.delayMs} ms`) : fault.type;
        world.note(`Paystack ${req.method} ${p} ${sikaIdOf(ref) ?? ref}: ${what}${status ? ` (stand-in ${status})` : ''}`);
      },
    );
    return new PaystackWorld(standin, proxy, rnd.fork('paystack-operator'), world);
  }

  /** The service's configuration of Paystack: the live account through the proxy. */
  env(firstStatusCheck: string): Record<string, string> {
    return { PAYSTACK_SECRET_KEY: PAYSTACK_LIVE_KEY, PAYSTACK_API_URL: this.proxy.url, PAYSTACK_STATUS_CHECK_AFTER: firstStatusCheck };
  }

  /**
   * The payer on the checkout page a confirmation answered with: after a while, Pay (85 %) or
   * Decline, then back to Sika's status page, as the browser follows Paystack's redirect.
   */
  payerOpens(url: string, decline: boolean, delayMs: number): void {
    this.payersAway++;
    this.checkouts.push(
      (async () => {
        await sleep(delayMs);
        try {
          const res = await fetch(url, { method: 'POST', body: new URLSearchParams({ outcome: decline ? 'decline' : 'pay' }), redirect: 'manual', signal: AbortSignal.timeout(10_000) });
          const back = res.headers.get('location');
          const reference = back ? new URL(back).searchParams.get('reference') : null;
          this.world.note(`payer ${decline ? 'declines' : 'pays'} on Paystack's page ${sikaIdOf(reference) ?? url}`);
          this.world.count(`payer ${decline ? 'declines' : 'pays'}`);
          if (back)
            await fetch(back, { signal: AbortSignal.timeout(10_000) })
              .then((r) => r.arrayBuffer())
              .catch(() => undefined);
          if (reference && !decline) this.plan(`charge ${sikaIdOf(reference)}`, (o) => this.standin.sendChargeWebhook(reference, o));
        } catch {
          // The page did not answer: the payer gave up; the status checks decide.
        } finally {
          this.payersAway--;
        }
      })(),
    );
  }

  /** Whatever a kill interrupts: answers held open, calls not yet sent. */
  get holding(): number {
    return this.proxy.holding;
  }
  get stalled(): number {
    return this.proxy.stalled;
  }

  /** Paystack's operator, once a tick: settles what is due and delivers the webhooks that are. */
  async tick(settleAll: boolean): Promise<void> {
    const now = Date.now();
    for (const t of this.transfers()) {
      if (FINAL_TRANSFER.includes(t.status)) continue;
      if (!this.decided.has(`t/${t.reference}`)) this.decided.set(`t/${t.reference}`, now + this.rnd.int(300, 4_000));
      if (!settleAll && this.decided.get(`t/${t.reference}`)! > now) continue;
      const outcome = !settleAll && this.rnd.chance(0.1) ? this.rnd.pick(['failed', 'reversed'] as const) : 'success';
      this.standin.settle(t.reference, outcome);
      this.world.note(`Paystack settles transfer ${sikaIdOf(t.reference)}: ${outcome}`);
      this.plan(`transfer.${outcome} ${sikaIdOf(t.reference)}`, (o) => this.standin.sendWebhook(`transfer.${outcome}`, t.reference, o));
    }
    for (const r of this.refunds()) {
      if (FINAL_REFUND.includes(r.status)) continue;
      if (!this.decided.has(`r/${r.id}`)) this.decided.set(`r/${r.id}`, now + this.rnd.int(300, 4_000));
      if (!settleAll && this.decided.get(`r/${r.id}`)! > now) continue;
      const outcome = !settleAll && this.rnd.chance(0.05) ? 'failed' : 'processed';
      this.standin.settleRefund(r, outcome);
      this.world.note(`Paystack settles refund ${String(r.request.merchant_note)}: ${outcome}`);
      this.plan(`refund.${outcome} ${String(r.request.merchant_note)}`, (o) => this.standin.sendRefundWebhook(`refund.${outcome}`, r, o));
    }
    const due = this.deliveries.filter((d) => d.at <= now);
    for (const d of due) this.deliveries.splice(this.deliveries.indexOf(d), 1);
    await Promise.all(due.map((d) => this.deliver(d)));
  }

  /** How Paystack delivers a webhook: normal, missing, repeated, late, or after a forged one. */
  private plan(what: string, send: Delivery['send']): void {
    const now = Date.now();
    const plan = this.world.faultsOn() ? this.rnd.weighted({ normal: 55, missing: 12, repeated: 12, late: 12, forged: 9 }) : 'normal';
    this.world.count(`webhook plan ${plan}`);
    if (plan === 'missing') return;
    // A tampered body sets its status to success: of a success, that is no change (and verifies).
    const forgeries = what.startsWith('charge ') || what.includes('.success ') ? (['other_key', 'unsigned'] as const) : (['other_key', 'tampered', 'unsigned'] as const);
    if (plan === 'forged') this.deliveries.push({ at: now, what, send, forge: this.rnd.pick(forgeries), tries: 0 });
    this.deliveries.push({ at: plan === 'late' ? now + this.rnd.int(3_000, 15_000) : now, what, send, tries: 0 });
    if (plan === 'repeated') this.deliveries.push({ at: now + this.rnd.int(0, 3_000), what, send, tries: 0 });
  }

  private async deliver(d: Delivery): Promise<void> {
    let status: number | string;
    try {
      status = await d.send(d.forge ? { forge: d.forge } : {});
    } catch (err) {
      status = (err as Error).message;
    }
    this.world.count(d.forge ? 'webhook forged' : 'webhook');
    this.world.note(`Paystack webhook ${d.what}${d.forge ? ` forged (${d.forge})` : ''}: ${status}`);
    if (d.forge && status !== 401 && typeof status === 'number') this.world.failures.push(`a forged (${d.forge}) Paystack webhook ${d.what} was answered ${status}, not 401`);
    if (!d.forge && typeof status === 'number' && status >= 500) this.world.failures.push(`Paystack's webhook ${d.what} was answered ${status}`);
    // Paystack retries a webhook that was not taken (200).
    if (!d.forge && status !== 200 && d.tries < 20) this.deliveries.push({ ...d, at: Date.now() + 2_000, tries: d.tries + 1 });
  }

  /** After the faults: Paystack's dashboard sends again the webhook of each final record whose Sika object is still open. */
  redeliver(open: Set<string>): void {
    for (const t of this.transfers()) {
      if (FINAL_TRANSFER.includes(t.status) && open.has(sikaIdOf(t.reference) ?? ''))
        this.deliveries.push({ at: 0, what: `transfer.${t.status} ${sikaIdOf(t.reference)}`, send: (o) => this.standin.sendWebhook(`transfer.${t.status}`, t.reference, o), tries: 0 });
    }
    for (const r of this.refunds()) {
      if (FINAL_REFUND.includes(r.status) && open.has(String(r.request.merchant_note)))
        this.deliveries.push({ at: 0, what: `refund.${r.status} ${String(r.request.merchant_note)}`, send: (o) => this.standin.sendRefundWebhook(`refund.${r.status}`, r, o), tries: 0 });
    }
    for (const tx of this.transactions()) {
      const pi = (tx.request.metadata as Json | undefined)?.payment_intent;
      if (tx.status === 'success' && open.has(String(pi))) this.deliveries.push({ at: 0, what: `charge ${sikaIdOf(tx.reference)}`, send: (o) => this.standin.sendChargeWebhook(tx.reference, o), tries: 0 });
    }
  }

  /** The transactions Paystack holds (each initialised once: a reference is unique there). */
  transactions() {
    return kept(
      this.standin.chargeRequests.map((r) => r.body.reference as string),
      (ref) => this.standin.transaction(ref),
    );
  }

  transfers() {
    return kept(
      this.standin.transferRequests.map((r) => r.reference as string),
      (ref) => this.standin.transfer(ref),
    );
  }

  refunds(): Refund[] {
    return this.transactions().flatMap((tx) => this.standin.refundsOf(tx.reference));
  }

  /**
   * A card payment whose payer never finished on Paystack's page (Sika's answer carrying the page
   * was lost, so the payer never saw it): Paystack's transaction stays abandoned, and so may the payment.
   */
  payerNeverFinished(intent: Json): boolean {
    return !this.transactions().some((tx) => (tx.request.metadata as Json | undefined)?.payment_intent === intent.id && ['success', 'failed', 'reversed'].includes(tx.status));
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.checkouts);
    await this.proxy.close().catch(() => undefined);
    await this.standin.close().catch(() => undefined);
  }
}

/**
 * Paystack's records against Sika's objects: every transaction, transfer and refund Paystack kept
 * is one Sika object in the same state and for the same amount, and the reverse; no Sika refund
 * reached Paystack twice; a refund Paystack has no record of may stay pending (its send was lost:
 * it is never sent again, docs/reliability.md); the NGN balance is what the records imply.
 */
export function checkPaystack(paystack: PaystackWorld, objects: { intents: Json[]; payouts: Json[]; refunds: Json[]; balance: Json }, fail: (what: string) => void, note: (line: string) => void): { neverTaken: Set<string> } {
  for (const d of paystack.standin.deviations) fail(`Paystack's contract: ${d}`);
  const intents = new Map(objects.intents.map((i) => [i.id as string, i]));
  const payouts = new Map(objects.payouts.map((p) => [p.id as string, p]));
  const refunds = new Map(objects.refunds.map((r) => [r.id as string, r]));
  // Paystack's records, read once.
  const transactions = paystack.transactions();
  const transfers = paystack.transfers();
  const refundRecords = paystack.refunds();
  let expected = 0;

  const transactionsOf = new Map<string, number>();
  for (const tx of transactions) {
    const piId = String((tx.request.metadata as Json | undefined)?.payment_intent);
    transactionsOf.set(piId, (transactionsOf.get(piId) ?? 0) + 1);
    const pi = intents.get(piId);
    if (!pi) {
      fail(`Paystack's transaction ${tx.reference} (${tx.status}) is no Sika payment`);
      continue;
    }
    if (tx.status === 'success') {
      if (pi.status !== 'succeeded') fail(`payment ${piId}: Paystack success, Sika ${String(pi.status)}`);
      expected += (tx.request.amount as number) - Number(pi.fee ?? 0);
    } else if (pi.status === 'succeeded') fail(`payment ${piId}: Paystack ${tx.status}, Sika succeeded`);
    if (pi.amount !== tx.request.amount) fail(`payment ${piId}: Paystack ${String(tx.request.amount)}, Sika ${String(pi.amount)}`);
  }
  for (const [pi, n] of transactionsOf) if (n > 1) fail(`payment ${pi} was sent to Paystack as ${n} transactions`);
  for (const pi of objects.intents) {
    if (pi.currency !== 'ngn' || pi.status !== 'succeeded') continue;
    if (!transactions.some((tx) => (tx.request.metadata as Json | undefined)?.payment_intent === pi.id && tx.status === 'success')) fail(`payment ${pi.id as string} succeeded in Sika, no transaction succeeded at Paystack`);
  }

  for (const t of transfers) {
    const id = sikaIdOf(t.reference) ?? '';
    const payout = payouts.get(id);
    if (!payout) {
      fail(`Paystack's transfer ${t.reference} (${t.status}) is no Sika payout`);
      continue;
    }
    if (t.status === 'success') {
      if (payout.status !== 'paid') fail(`payout ${id}: Paystack success, Sika ${String(payout.status)}`);
      expected -= (t.request.amount as number) + Number(payout.fee ?? 0);
    } else if (FINAL_TRANSFER.includes(t.status)) {
      if (payout.status !== 'failed') fail(`payout ${id}: Paystack ${t.status}, Sika ${String(payout.status)}`);
    } else fail(`Paystack's transfer ${id} is still ${t.status}`);
    if (payout.amount !== t.request.amount) fail(`payout ${id}: Paystack ${String(t.request.amount)}, Sika ${String(payout.amount)}`);
  }
  for (const p of objects.payouts) {
    if (p.currency !== 'ngn' || p.status !== 'paid') continue;
    if (paystack.standin.transfer(paystackReference(p.id as string))?.status !== 'success') fail(`payout ${p.id as string} paid in Sika, no transfer succeeded at Paystack`);
  }

  const sent = new Map<string, Refund[]>();
  for (const r of refundRecords) {
    const id = String(r.request.merchant_note);
    sent.set(id, [...(sent.get(id) ?? []), r]);
  }
  for (const [id, kept] of sent) {
    // Finding 2 of issue 63: Paystack takes no key for a refund; a second request is a second refund.
    if (kept.length > 1) fail(`refund ${id} reached Paystack ${kept.length} times`);
    const refund = refunds.get(id);
    const r = kept[0]!;
    if (!refund) {
      fail(`Paystack's refund of ${r.transaction} noted ${id} (${r.status}) is no Sika refund`);
      continue;
    }
    if (r.status === 'processed') {
      if (refund.status !== 'succeeded') fail(`refund ${id}: Paystack processed, Sika ${String(refund.status)}`);
      expected -= r.amount;
    } else if (r.status === 'failed') {
      if (refund.status !== 'failed') fail(`refund ${id}: Paystack failed, Sika ${String(refund.status)}`);
    } else fail(`Paystack's refund ${id} is still ${r.status}`);
    if (refund.amount !== r.amount) fail(`refund ${id}: Paystack ${r.amount}, Sika ${String(refund.amount)}`);
  }
  // Refunds of card payments: one Paystack never took stays pending, its money held, never sent again.
  let held = 0;
  const neverTaken = new Set<string>();
  for (const refund of objects.refunds) {
    if (refund.currency !== 'ngn') continue;
    if (refund.status === 'succeeded' && sent.get(refund.id as string)?.[0]?.status !== 'processed') fail(`refund ${refund.id as string} succeeded in Sika, not processed at Paystack`);
    if (refund.status === 'pending' && !sent.has(refund.id as string)) {
      held += refund.amount as number;
      neverTaken.add(refund.id as string);
      note(`refund ${refund.id as string} pending: Paystack has no record of it; never sent again, it waits for review`);
    }
  }

  const of = (field: string) => ((objects.balance[field] as { amount: number; currency: string }[] | undefined) ?? []).filter((b) => b.currency === 'ngn').reduce((s, b) => s + b.amount, 0);
  const balance = { available: of('available'), pending: of('pending'), reserved: of('reserved') };
  // A pending refund's money is out of the balance (on its way through the rail), not reserved.
  note(`NGN balance ${JSON.stringify(balance)}; Paystack's records imply ${expected - held}, ${held} held by refunds Paystack never took`);
  if (balance.available + balance.pending !== expected - held || balance.reserved !== 0) fail(`the NGN balance is ${JSON.stringify(balance)}; Paystack's records imply ${expected - held} and nothing reserved`);

  // Paystack's wallet is what it collected less what it paid out and refunded: reconcile compares it.
  let wallet = 0;
  for (const tx of transactions) if (tx.status === 'success') wallet += tx.request.amount as number;
  for (const t of transfers) if (t.status === 'success') wallet -= t.request.amount as number;
  for (const r of refundRecords) if (r.status === 'processed') wallet -= r.amount;
  paystack.standin.balances.set('NGN', wallet);
  return { neverTaken };
}
