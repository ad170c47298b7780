/**
 * Hub2 in the simulator (docs/reliability.md): the real Hub2Connector to Hub2's stand-in behind a
 * fault-injecting proxy; Hub2's operator, who settles the payments and transfers the stand-in took
 * and sends its signed webhooks (late, repeated, missing, forged); then the part of the model
 * Hub2's records hold Sika to. Hub2 carries the clients' Mali mobile money (XOF), pay-ins and
 * payouts; it takes no refunds.
 */
import { Hub2Standin, type Hub2Payment, type Hub2PaymentIntent, type Hub2Transfer, type Hub2WebhookOptions, type Hub2WebhookType } from '../support/hub2-standin.js';
import { FaultProxy, type ProxyFault } from './fault-proxy.js';
import type { World } from './paystack.js';
import type { Random } from './random.js';

type Json = Record<string, unknown>;

export const HUB2_API_KEY = 'hub2-live-sim-key';
export const HUB2_MERCHANT_ID = 'hub2-merchant-sim';
export const HUB2_WEBHOOK_SECRET = 'whsec_sika_sim_0000000000000000';

/** The Mali wallets the clients pay from and pay out to (Orange Money and Moov Money, both carried by Hub2). */
export const MALI_WALLETS = [
  { country: 'ML', operator: 'orange_money', msisdn: '+22376123401' },
  { country: 'ML', operator: 'orange_money', msisdn: '+22376123402' },
  { country: 'ML', operator: 'moov', msisdn: '+22366123403' },
  { country: 'ML', operator: 'moov', msisdn: '+22366123404' },
];

/** Whether a Sika payment intent or payout is Mali's mobile money: Hub2's, not pawaPay's. */
export const isMali = (o: Json): boolean => o.transaction_country === 'ML' || (o.destination as { country?: string } | null | undefined)?.country === 'ML';

/** The failures a payer causes (never against the rail) and those of a transfer's recipient side (hub2.md, "Failure causes"). */
const PAYER_CAUSES = ['customer_insufficient_funds', 'customer_account_locked', 'authentication_failed', 'authentication_timeout', 'canceled_by_customer'] as const;
const RECIPIENT_CAUSES = ['invalid_destination', 'destination_not_allowed', 'blacklisted_msisdn'] as const;
const FINAL = ['successful', 'failed'];

/** A webhook Hub2 still has to deliver. */
interface Delivery {
  at: number;
  what: string;
  type: Hub2WebhookType;
  objectId: string;
  forge?: Hub2WebhookOptions['forge'];
  tries: number;
}

export class Hub2World {
  private readonly deliveries: Delivery[] = [];
  private readonly decided = new Map<string, number>();
  /** Payout ids whose `POST /transfers` met a fault that kept nothing (a 5xx, a call stalled until its caller died), how many times. */
  private readonly unkept = new Map<string, number>();
  /** Payouts once seen waiting for the schedule's next step: they keep that allowance when Hub2 takes them at last. */
  private readonly waiting = new Set<string>();

  private constructor(
    readonly standin: Hub2Standin,
    readonly proxy: FaultProxy,
    private readonly rnd: Random,
    private readonly world: World,
  ) {}

  static async start(rnd: Random, api: string, world: World): Promise<Hub2World> {
    const standin = await Hub2Standin.start({
      apiKey: HUB2_API_KEY,
      merchantId: HUB2_MERCHANT_ID,
      environment: 'live',
      clock: { now: () => new Date() },
      webhookUrl: `${api}/connectors/hub2/events`,
      secret: HUB2_WEBHOOK_SECRET,
      // Hub2 lists transfers by reference once per 30 s; the simulator's status checks run every 2 s
      // (HUB2_STATUS_CHECK_AFTER), and a 429 would only postpone them past the bound.
      listRateLimit: false,
    });
    const proxyRnd = rnd.fork('hub2-proxy');
    let hub2: Hub2World | undefined;
    const proxy = await FaultProxy.start(
      standin.url,
      (req): ProxyFault => {
        if (!world.faultsOn()) return { type: 'pass' };
        const p = req.path.split('?')[0]!;
        // The calls that move money: a payment on an intent, a transfer (step 1, an intent alone, moves none).
        if (req.method === 'POST' && (/^\/payment-intents\/[^/]+\/payments$/.test(p) || p === '/transfers')) {
          const kind = proxyRnd.weighted({ pass: 55, lose: 12, error: 10, slow: 15, stall: 8 });
          if (kind === 'lose') return { type: 'lose' };
          if (kind === 'stall') return { type: 'stall', delayMs: proxyRnd.int(1_000, 4_000) };
          if (kind === 'error') return { type: 'error', status: proxyRnd.pick([500, 502, 503]) };
          if (kind === 'slow') return { type: 'slow', delayMs: proxyRnd.chance(0.3) ? proxyRnd.int(15_500, 18_000) : proxyRnd.int(500, 6_000) };
          return { type: 'pass' };
        }
        // Reads: an intent, a transfer, the transfers of a reference.
        if (req.method === 'GET' && (/^\/payment-intents\/[^/]+$/.test(p) || /^\/transfers(\/[^/]+)?$/.test(p))) {
          const kind = proxyRnd.weighted({ pass: 85, error: 8, slow: 7 });
          if (kind === 'error') return { type: 'error', status: 503 };
          if (kind === 'slow') return { type: 'slow', delayMs: proxyRnd.int(500, 4_000) };
        }
        return { type: 'pass' };
      },
      (req, fault, status) => {
        const p = req.path.split('?')[0]!;
        if (!/^\/(payment-intents|transfers)/.test(p)) return;
        world.count(`hub2 ${req.method} ${fault.type}`);
        const intentId = /^\/payment-intents\/([^/]+)/.exec(p)?.[1];
        const sikaId = intentId
          ? (standin.intent(intentId)?.purchaseReference ?? intentId)
          : (/"(?:reference|purchaseReference)":"([^"]+)"/.exec(req.body)?.[1] ?? new URLSearchParams(req.path.split('?')[1] ?? '').get('reference') ?? p.split('/')[2] ?? '');
        const neverSent = fault.type === 'stall' && fault.delayMs < 0;
        if (req.method === 'POST' && p === '/transfers' && (fault.type === 'error' || neverSent)) hub2!.unkept.set(sikaId, (hub2!.unkept.get(sikaId) ?? 0) + 1);
        const what = fault.type === 'slow' || fault.type === 'stall' ? (neverSent ? 'stalled, its caller died: never sent' : `${fault.type} ${fault.delayMs} ms`) : fault.type;
        world.note(`Hub2 ${req.method} ${p} ${sikaId}: ${what}${status ? ` (stand-in ${status})` : ''}`);
      },
    );
    hub2 = new Hub2World(standin, proxy, rnd.fork('hub2-operator'), world);
    return hub2;
  }

  /** The service's configuration of Hub2: the live account through the proxy. */
  env(firstStatusCheck: string): Record<string, string> {
    return { HUB2_API_KEY, HUB2_MERCHANT_ID, HUB2_API_URL: this.proxy.url, HUB2_WEBHOOK_SECRET, HUB2_STATUS_CHECK_AFTER: firstStatusCheck };
  }

  /** Whatever a kill interrupts: answers held open, calls not yet sent. */
  get holding(): number {
    return this.proxy.holding;
  }
  get stalled(): number {
    return this.proxy.stalled;
  }

  /** Hub2's operator, once a tick: settles what is due and delivers the webhooks that are. */
  async tick(settleAll: boolean): Promise<void> {
    const now = Date.now();
    for (const payment of this.payments()) {
      if (payment.status !== 'pending') continue;
      if (!this.decided.has(payment.id)) this.decided.set(payment.id, now + this.rnd.int(300, 4_000));
      if (!settleAll && this.decided.get(payment.id)! > now) continue;
      const cause = !settleAll && this.rnd.chance(0.15) ? this.rnd.pick(PAYER_CAUSES) : undefined;
      this.standin.settle('payment', payment.id, cause ? 'failed' : 'successful', cause);
      const sikaId = this.standin.intent(payment.intentId)?.customerReference ?? payment.intentId;
      this.world.note(`Hub2 settles payment ${payment.id} of ${sikaId}: ${cause ? `failed (${cause})` : 'successful'}`);
      this.plan(`payment.${cause ? 'failed' : 'succeeded'} ${sikaId}`, cause ? 'payment.failed' : 'payment.succeeded', payment.id);
      if (!cause) this.plan(`payment_intent.succeeded ${sikaId}`, 'payment_intent.succeeded', payment.intentId);
    }
    for (const transfer of this.transfers()) {
      if (FINAL.includes(transfer.status)) continue;
      if (!this.decided.has(transfer.id)) this.decided.set(transfer.id, now + this.rnd.int(300, 4_000));
      if (!settleAll && this.decided.get(transfer.id)! > now) continue;
      const cause = !settleAll && this.rnd.chance(0.1) ? this.rnd.pick(RECIPIENT_CAUSES) : undefined;
      this.standin.settle('transfer', transfer.id, cause ? 'failed' : 'successful', cause);
      this.world.note(`Hub2 settles transfer ${transfer.id} of ${transfer.reference}: ${cause ? `failed (${cause})` : 'successful'}`);
      this.plan(`transfer.${cause ? 'failed' : 'succeeded'} ${transfer.reference}`, cause ? 'transfer.failed' : 'transfer.succeeded', transfer.id);
    }
    const due = this.deliveries.filter((d) => d.at <= now);
    for (const d of due) this.deliveries.splice(this.deliveries.indexOf(d), 1);
    await Promise.all(due.map((d) => this.deliver(d)));
  }

  /** How Hub2 delivers a webhook: normal, missing, repeated, late, or after a forged one. */
  private plan(what: string, type: Hub2WebhookType, objectId: string): void {
    const now = Date.now();
    const plan = this.world.faultsOn() ? this.rnd.weighted({ normal: 55, missing: 12, repeated: 12, late: 12, forged: 9 }) : 'normal';
    this.world.count(`hub2 webhook plan ${plan}`);
    if (plan === 'missing') return;
    if (plan === 'forged') this.deliveries.push({ at: now, what, type, objectId, forge: this.rnd.pick(['wrong_secret', 'tampered', 'unsigned'] as const), tries: 0 });
    this.deliveries.push({ at: plan === 'late' ? now + this.rnd.int(3_000, 15_000) : now, what, type, objectId, tries: 0 });
    if (plan === 'repeated') this.deliveries.push({ at: now + this.rnd.int(0, 3_000), what, type, objectId, tries: 0 });
  }

  private async deliver(d: Delivery): Promise<void> {
    let status: number | string;
    try {
      status = await this.standin.sendWebhook(d.type, d.objectId, d.forge ? { forge: d.forge } : {});
    } catch (err) {
      status = (err as Error).message;
    }
    this.world.count(d.forge ? 'hub2 webhook forged' : 'hub2 webhook');
    this.world.note(`Hub2 webhook ${d.what}${d.forge ? ` forged (${d.forge})` : ''}: ${status}`);
    if (d.forge && status !== 401 && typeof status === 'number') this.world.failures.push(`a forged (${d.forge}) Hub2 webhook ${d.what} was answered ${status}, not 401`);
    if (!d.forge && typeof status === 'number' && status >= 500) this.world.failures.push(`Hub2's webhook ${d.what} was answered ${status}`);
    // Hub2 delivers a webhook again until it is taken (200): every 2 s while the service is down.
    if (!d.forge && status !== 200 && d.tries < 20) this.deliveries.push({ ...d, at: Date.now() + 2_000, tries: d.tries + 1 });
  }

  /** After the faults: Hub2 sends again the webhook of each final payment and transfer whose Sika object is still open. */
  redeliver(open: Set<string>): void {
    for (const payment of this.payments()) {
      const sikaId = this.standin.intent(payment.intentId)?.customerReference ?? '';
      if (FINAL.includes(payment.status) && open.has(sikaId)) {
        const type = payment.status === 'successful' ? 'payment.succeeded' : 'payment.failed';
        this.deliveries.push({ at: 0, what: `${type} ${sikaId}`, type, objectId: payment.id, tries: 0 });
      }
    }
    for (const t of this.transfers()) {
      if (FINAL.includes(t.status) && open.has(t.reference)) {
        const type = t.status === 'successful' ? 'transfer.succeeded' : 'transfer.failed';
        this.deliveries.push({ at: 0, what: `${type} ${t.reference}`, type, objectId: t.id, tries: 0 });
      }
    }
  }

  /** The intents Hub2 holds, in the order they were made (a repeated step 1 leaves orphans with no payment). */
  intents(): Hub2PaymentIntent[] {
    const ids = this.standin.requests.filter((r) => r.method === 'POST' && /^\/payment-intents\/[^/]+\/payments$/.test(r.path)).map((r) => r.path.split('/')[2]!);
    return [...new Set(ids)].flatMap((id) => this.standin.intent(id) ?? []);
  }

  payments(): Hub2Payment[] {
    return this.intents().flatMap((i) => i.payments);
  }

  /** The transfers Hub2 holds: those listed under the references Sika sent. */
  transfers(): Hub2Transfer[] {
    const references = this.standin.requests.filter((r) => r.method === 'POST' && r.path === '/transfers').flatMap((r) => /"reference":"([^"]+)"/.exec(r.body)?.[1] ?? []);
    return [...new Set(references)].flatMap((ref) => this.standin.transfersByReference(ref));
  }

  /**
   * A Mali payment whose one attempt Hub2 never took (it met a 5xx, or a kill before it reached
   * Hub2): a payment attempt is never sent again (Hub2 takes no key to dedupe it), so the payment
   * stays processing until review, as the design promises.
   */
  paymentNeverTaken(intent: Json): boolean {
    return isMali(intent) && !this.intents().some((i) => i.purchaseReference === intent.latest_operation && i.payments.length > 0);
  }

  /**
   * A Mali payout Hub2 never took whose sends met a fault that kept nothing `unkeptSends` times or
   * more: Hub2's empty list proves nothing for a minute after a send (its check's job waits with
   * the scheduler's back-off), so one such send is enough to take it past the 60 s bound.
   */
  waitsForNextStep(payoutId: unknown, unkeptSends: number): boolean {
    if (typeof payoutId !== 'string') return false;
    if (this.waiting.has(payoutId)) return true;
    const waits = (this.unkept.get(payoutId) ?? 0) >= unkeptSends && this.standin.transfersByReference(payoutId).length === 0;
    if (waits) this.waiting.add(payoutId);
    return waits;
  }

  async close(): Promise<void> {
    await this.proxy.close().catch(() => undefined);
    await this.standin.close().catch(() => undefined);
  }
}

/**
 * Hub2's records against Sika's objects: every payment Hub2 completed is one Sika payment intent
 * succeeded for the same amount (the intent's purchaseReference is Sika's operation, its
 * customerReference the payment intent), at most one per intent; every transfer (by reference, the
 * payout id) is one Sika payout in the same state, never two that succeeded for one payout; and the
 * reverse. Returns what Hub2's records add to the XOF balance (collections less fees, less transfers
 * and their fees), and the payments left open by design (their one attempt never reached Hub2).
 */
export function checkHub2(hub2: Hub2World, objects: { intents: Json[]; payouts: Json[] }, fail: (what: string) => void, note: (line: string) => void): { balance: number; neverTaken: Set<string> } {
  for (const d of hub2.standin.deviations) fail(`Hub2's contract: ${d}`);
  const intents = new Map(objects.intents.map((i) => [i.id as string, i]));
  const payouts = new Map(objects.payouts.map((p) => [p.id as string, p]));
  const hub2Intents = hub2.intents();
  const transfers = hub2.transfers();
  let balance = 0;
  let wallet = 0;

  const succeededOf = new Map<string, number>();
  for (const intent of hub2Intents) {
    const pi = intents.get(intent.customerReference);
    if (!pi) {
      fail(`Hub2's intent ${intent.id} (${intent.status}) is of no Sika payment (${intent.customerReference})`);
      continue;
    }
    if (intent.purchaseReference !== pi.latest_operation) fail(`Hub2's intent ${intent.id} is of operation ${intent.purchaseReference}, payment ${String(pi.id)}'s is ${String(pi.latest_operation)}`);
    if (intent.amount !== pi.amount) fail(`payment ${String(pi.id)}: Hub2's intent ${intent.id} is for ${intent.amount}, Sika ${String(pi.amount)}`);
    for (const payment of intent.payments) {
      if (payment.status === 'successful') {
        succeededOf.set(intent.customerReference, (succeededOf.get(intent.customerReference) ?? 0) + 1);
        if (pi.status !== 'succeeded') fail(`payment ${String(pi.id)}: Hub2's payment ${payment.id} successful, Sika ${String(pi.status)}`);
        if (payment.amount !== pi.amount) fail(`payment ${String(pi.id)}: Hub2 took ${payment.amount}, Sika ${String(pi.amount)}`);
        balance += payment.amount - Number(pi.fee ?? 0);
        wallet += payment.amount;
      } else if (payment.status === 'failed') {
        const paidByAnother = intent.payments.some((p) => p.status === 'successful');
        if (!paidByAnother && !['failed', 'requires_payment_method'].includes(pi.status as string)) fail(`payment ${String(pi.id)}: Hub2's payment ${payment.id} failed, Sika ${String(pi.status)}`);
      } else fail(`Hub2's payment ${payment.id} of ${String(pi.id)} is still ${payment.status}`);
    }
  }
  for (const [pi, n] of succeededOf) if (n > 1) fail(`payment ${pi}: Hub2 took ${n} successful payments`);
  const neverTaken = new Set<string>();
  for (const pi of objects.intents.filter(isMali)) {
    if (pi.status === 'succeeded' && !succeededOf.has(pi.id as string)) fail(`payment ${pi.id as string} succeeded in Sika, no payment successful at Hub2`);
    if (pi.status === 'processing' && hub2.paymentNeverTaken(pi)) {
      neverTaken.add(pi.id as string);
      note(`payment ${pi.id as string} processing: its one attempt never reached Hub2; never sent again, it waits for review`);
    }
  }

  const transfersOf = new Map<string, Hub2Transfer[]>();
  for (const t of transfers) transfersOf.set(t.reference, [...(transfersOf.get(t.reference) ?? []), t]);
  for (const [id, kept] of transfersOf) {
    const payout = payouts.get(id);
    if (!payout) {
      fail(`Hub2's transfer ${kept.map((t) => `${t.id} (${t.status})`).join(', ')} is of no Sika payout (${id})`);
      continue;
    }
    const succeeded = kept.filter((t) => t.status === 'successful');
    if (succeeded.length > 1) fail(`payout ${id}: Hub2 paid ${succeeded.length} transfers (${succeeded.map((t) => t.id).join(', ')})`);
    if (kept.length > 1) fail(`payout ${id} was sent to Hub2 as ${kept.length} transfers`);
    for (const t of kept) {
      if (t.status === 'successful') {
        if (payout.status !== 'paid') fail(`payout ${id}: Hub2's transfer ${t.id} successful, Sika ${String(payout.status)}`);
        const fees = t.fees.reduce((s, f) => s + f.amount, 0);
        balance -= t.amount + Number(payout.fee ?? 0);
        wallet -= t.amount + fees;
      } else if (t.status === 'failed') {
        if (payout.status !== 'failed' && succeeded.length === 0) fail(`payout ${id}: Hub2's transfer ${t.id} failed, Sika ${String(payout.status)}`);
      } else fail(`Hub2's transfer ${t.id} of ${id} is still ${t.status}`);
      if (t.amount !== payout.amount) fail(`payout ${id}: Hub2 ${t.amount}, Sika ${String(payout.amount)}`);
    }
  }
  for (const p of objects.payouts.filter(isMali)) {
    if (p.status === 'paid' && !transfersOf.get(p.id as string)?.some((t) => t.status === 'successful')) fail(`payout ${p.id as string} paid in Sika, no transfer successful at Hub2`);
  }

  // What Hub2 holds for Sika is its collection and transfer accounts: reconcile compares them with the ledger.
  note(`Hub2's records: ${wallet} XOF held for Sika; the merchant's balance gets ${balance} from them`);
  if (wallet < 0) fail(`Hub2's records hold ${wallet} XOF: paid out more than collected (the clients ask Mali payouts against Mali money only)`);
  hub2.standin.setBalance('XOF', { collection: Math.max(0, wallet), transfer: 0, reserved: 0 });
  hub2.standin.setBalance('XAF', { collection: 0, transfer: 0, reserved: 0 });
  return { balance, neverTaken };
}
