/**
 * One seed of the simulator (docs/reliability.md): the real service (`make start`'s process group
 * and its embedded PostgreSQL, on a throwaway data directory) with live mobile money through the
 * real PawapayConnector to pawaPay's stand-in, behind a fault-injecting proxy (and Paystack's and
 * Hub2's, each behind its own: paystack.ts, hub2.ts); clients that retry
 * with the same Idempotency-Key; a pawaPay "operator" that settles what the stand-in took and
 * sends its callbacks (late, repeated, missing, forged); SIGKILLs of the whole group. Then the
 * faults stop, everything settles, and the model is checked (model.ts).
 */
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pawapayId } from '#packages/connectors/pawapay/index.js';
import { clusterDir, freePort } from '#packages/core/embedded-postgres.js';
import { PawapayStandin, type Kind } from '../support/pawapay-standin.js';
import { PAWAPAY_TOKEN } from '../support/live.js';
import { FaultProxy, type ProxyFault } from './fault-proxy.js';
import { Random } from './random.js';
import { ServiceGroup } from './service-group.js';
import { startProcess } from '../support/child-process.js';
import { checkModel, type ClientRequest, type SikaObjects } from './model.js';
import { BANK_ACCOUNTS, PaystackWorld } from './paystack.js';
import { Hub2World, MALI_WALLETS } from './hub2.js';

/**
 * What the clients ask for: `pay` (mobile money, pawaPay), `card` (Paystack's checkout), `payout`
 * (mobile money, pawaPay), `bank_payout` (Paystack's transfers), `refund` (of either), `batch`,
 * `give_back` (a funding campaign: contributions by mobile money, each given back by the organizer,
 * or all of them by the campaign's cancel), `mali_pay` and `mali_payout` (Mali mobile money, Hub2;
 * never refunded: Hub2 takes no refunds).
 */
export type Operation = 'pay' | 'card' | 'payout' | 'bank_payout' | 'refund' | 'batch' | 'give_back' | 'mali_pay' | 'mali_payout';
export const OPERATIONS: readonly Operation[] = ['pay', 'card', 'payout', 'bank_payout', 'refund', 'batch', 'give_back', 'mali_pay', 'mali_payout'];

export interface SimOptions {
  seed: number;
  /** How long the faults, kills and new requests last. */
  seconds: number;
  /** Kills of the service group during that time. */
  kills: number;
  /** Clients sending requests at once. */
  clients?: number;
  /** What the clients ask for (default all). */
  operations?: readonly Operation[];
  /** Progress lines as they happen (the timeline is kept whatever this does). */
  progress?: (line: string) => void;
}

export interface SimResult {
  seed: number;
  ok: boolean;
  failures: string[];
  timeline: string[];
  stats: Record<string, number>;
  wallMs: number;
  /** The service's output of every run (its log), for a failing seed. */
  serviceLog: string;
}

const WALLET = { country: 'SN', operator: 'orange_money', msisdn: '+221771234567' };
/** How long clients keep retrying a request after the faults stop, and how long everything has to become final. */
const CLIENT_RETRY_BOUND_MS = 60_000;
export const SETTLE_BOUND_MS = 60_000;
/**
 * The bound of an attempt pawaPay never took, whose sends met a fault that kept nothing at least
 * UNKEPT_SENDS times: its quick resends (MAX_RESENDS, each on the first delay) may all be used up,
 * and the next resend comes at the schedule's next step, 5 minutes on (docs/connectors.md, "Sending again").
 */
const LATE_BOUND_MS = 6 * 60_000;
const UNKEPT_SENDS = 3;
/** The service's first status check of an attempt with no final answer (PAWAPAY_STATUS_CHECK_AFTER). */
const FIRST_STATUS_CHECK = '2s';
/** What Mali payments and payouts may be: multiples of 5 in 100..1,000,000 (Hub2 refuses others, IKW-PRV-016). */
const maliAmount = (rand: Random, max: number) => rand.int(20, Math.floor(max / 5)) * 5;

export async function runSeed(options: SimOptions): Promise<SimResult> {
  const started = Date.now();
  const rnd = new Random(options.seed);
  const timeline: string[] = [];
  const note = (line: string) => {
    const entry = `+${((Date.now() - started) / 1000).toFixed(1).padStart(6)}s ${line}`;
    timeline.push(entry);
    options.progress?.(entry);
  };
  const stats: Record<string, number> = {};
  const count = (what: string) => void (stats[what] = (stats[what] ?? 0) + 1);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-sim-'));
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyId = 'sika-sim-key-1';
  const standin = await PawapayStandin.start({
    token: PAWAPAY_TOKEN,
    clock: { now: () => new Date() },
    callbackBaseUrl: `${api}/connectors/pawapay`,
    signedRequests: { keyId, publicKey: signing.publicKey },
  });

  let faultsOn = true;
  const failures: string[] = [];
  const paystack = await PaystackWorld.start(rnd, api, { note, count, failures, faultsOn: () => faultsOn });
  const hub2 = await Hub2World.start(rnd, api, { note, count, failures, faultsOn: () => faultsOn });
  const proxyRnd = rnd.fork('proxy');
  /** pawaPay ids whose requests met a fault that kept nothing (a 5xx, a call stalled until its caller died), how many times. */
  const unkept = new Map<string, number>();
  const proxy = await FaultProxy.start(
    standin.url,
    (req): ProxyFault => {
      if (!faultsOn) return { type: 'pass' };
      const p = req.path.split('?')[0]!;
      if (req.method === 'POST' && /^\/v2\/(deposits|payouts|refunds)$/.test(p)) {
        const kind = proxyRnd.weighted({ pass: 50, lose: 12, error: 12, slow: 18, stall: 8 });
        if (kind === 'lose') return { type: 'lose' };
        if (kind === 'stall') return { type: 'stall', delayMs: proxyRnd.int(1_000, 4_000) };
        if (kind === 'error') return { type: 'error', status: proxyRnd.pick([500, 502, 503]) };
        // Some slow answers outlast the connector's 15 s timeout: lost answers the other way.
        if (kind === 'slow') return { type: 'slow', delayMs: proxyRnd.chance(0.3) ? proxyRnd.int(15_500, 18_000) : proxyRnd.int(500, 6_000) };
        return { type: 'pass' };
      }
      if (req.method === 'GET' && /^\/v2\/(deposits|payouts|refunds)\/[^/]+$/.test(p)) {
        const kind = proxyRnd.weighted({ pass: 80, error: 10, slow: 10 });
        if (kind === 'error') return { type: 'error', status: 503 };
        if (kind === 'slow') return { type: 'slow', delayMs: proxyRnd.int(500, 4_000) };
      }
      return { type: 'pass' };
    },
    (req, fault, status) => {
      const p = req.path.split('?')[0]!;
      if (!/^\/v2\/(deposits|payouts|refunds)/.test(p)) return;
      count(`pawapay ${req.method} ${fault.type}`);
      const id = /"(?:deposit|payout|refund)Id":"([^"]+)"/.exec(req.body)?.[1] ?? p.split('/')[3];
      if (req.method === 'POST' && id && (fault.type === 'error' || (fault.type === 'stall' && fault.delayMs < 0))) unkept.set(id, (unkept.get(id) ?? 0) + 1);
      const what = fault.type === 'slow' || fault.type === 'stall' ? (fault.delayMs < 0 ? 'stalled, its caller died: never sent' : `${fault.type} ${fault.delayMs} ms`) : fault.type;
      note(`pawaPay ${req.method} ${p.split('/')[2]} ${id}: ${what}${status ? ` (stand-in ${status})` : ''}`);
    },
  );

  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    PUBLIC_URL: api,
    API_WORKERS: '1',
    LOG_LEVEL: 'warn',
    SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    PAWAPAY_API_TOKEN: PAWAPAY_TOKEN,
    PAWAPAY_API_URL: proxy.url,
    PAWAPAY_SIGNING_KEY: signing.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    PAWAPAY_SIGNING_KEY_ID: keyId,
    PAWAPAY_STATUS_CHECK_AFTER: FIRST_STATUS_CHECK,
    SETTLEMENT_DELAY: '1s',
    RATE_LIMIT: 'off',
    RATE_LIMIT_ADDRESS: 'off',
    ...paystack.env(FIRST_STATUS_CHECK),
    ...hub2.env(FIRST_STATUS_CHECK),
  };
  const service = new ServiceGroup(dataDir, env);
  const cleanup = async () => {
    await service.kill().catch(() => undefined);
    await proxy.close().catch(() => undefined);
    await standin.close().catch(() => undefined);
    await paystack.close();
    await hub2.close();
    fs.rmSync(clusterDir(dataDir), { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    note(`seed ${options.seed}: ${options.seconds} s of faults, ${options.kills} kills, data in ${dataDir}`);
    await service.start();
    note('service up');
    const made = await service.cli(['merchants', 'create', '--name', `Sim ${options.seed}`, '--json']);
    const merchant = JSON.parse(/^\{.*\}$/m.exec(made.output)?.[0] ?? 'null') as { id: string; api_keys: { live: string } } | null;
    if (!merchant) throw new Error(`merchants create failed: ${made.output}`);
    const activating = startProcess('test/sim/activate-live.js', { ...service.env, LOG_LEVEL: 'silent' }, [merchant.id]);
    if ((await activating.exit) !== 0) throw new Error(`activate-live failed: ${activating.output()}`);
    const key = merchant.api_keys.live;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-environment': 'live' };

    // ---- clients ----
    const requests: ClientRequest[] = [];
    let requestCount = 0;
    let clientDeadline = Number.POSITIVE_INFINITY;
    const send = async (req: ClientRequest): Promise<ClientRequest> => {
      requests.push(req);
      for (;;) {
        if (Date.now() > clientDeadline) {
          note(`#${req.n} ${req.what} ${req.key}: no answer within the retry bound`);
          return req;
        }
        req.attempts++;
        try {
          const res = await fetch(`${api}${req.path}`, { method: req.method, headers: { ...headers, 'idempotency-key': req.key }, body: JSON.stringify(req.body), signal: AbortSignal.timeout(30_000) });
          const text = await res.text();
          if (res.status >= 500) {
            req.serverErrors.push({ status: res.status, body: text.slice(0, 500) });
            note(`#${req.n} ${req.what} ${req.key}: ${res.status} ${text.slice(0, 200)}`);
          } else {
            const body = JSON.parse(text) as Record<string, unknown>;
            if (!(res.status === 409 && body.code === 'IKW-IDM-003')) {
              req.answer = { status: res.status, body };
              note(`#${req.n} ${req.what} ${req.key}: ${res.status} ${body.id ?? body.code ?? ''}${body.status ? ` ${body.status}` : ''}${req.attempts > 1 ? ` (attempt ${req.attempts})` : ''}`);
              return req;
            }
          }
        } catch {
          // No answer: the connection was refused or cut (the service is down or was killed).
        }
        await sleep(200 + Math.floor(Math.random() * 600));
      }
    };
    const newRequest = (what: ClientRequest['what'], path: string, body: Record<string, unknown>): ClientRequest => {
      const n = ++requestCount;
      return { n, what, key: `sim-${options.seed}-${what}-${n}`, method: 'POST', path, body, attempts: 0, serverErrors: [] };
    };
    /** Reads that were refused (not 200, not a 5xx), each path once: why the final reads fail, if they do. */
    const refusedReads = new Set<string>();
    const get = async (path: string): Promise<Record<string, unknown> | undefined> => {
      try {
        const res = await fetch(`${api}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
        if (res.status >= 500) failures.push(`GET ${path} answered ${res.status}`);
        if (res.status !== 200 && !refusedReads.has(path)) {
          refusedReads.add(path);
          note(`GET ${path}: ${res.status} ${(await res.text()).slice(0, 200)}`);
        }
        return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
    };
    /** Payments a client saw succeed: what refunds are asked of. */
    const payments: { id: string; amount: number }[] = [];
    const succeeded: { id: string; amount: number }[] = [];
    /**
     * Mali payments (Hub2: never refunded), those a client saw succeed, and the Mali payouts asked:
     * a Mali payout is asked only against Mali money collected, so Hub2 never holds less than
     * nothing for Sika (its balance has no negative amounts, and reconcile compares it).
     */
    const maliPayments: { id: string; amount: number }[] = [];
    const maliSucceeded = new Set<string>();
    let maliCollected = 0;
    let maliAsked = 0;

    // Funding: the campaign contributions go to (made when first needed, and again after a cancel),
    // the contributions made, those a client saw succeed, and those given back (each asked once).
    let campaign: Promise<string | undefined> | undefined;
    const contributions: { id: string; campaignId: string }[] = [];
    const contributed = new Set<string>();
    const givenBack = new Set<string>();
    const openCampaign = (): Promise<string | undefined> => {
      campaign ??= (async () => {
        const created = await send(newRequest('create_campaign', '/api/v1/funding/campaigns', { title: `Sim ${options.seed} campaign`, currency: 'XOF', country: 'SN' }));
        const id = created.answer?.status === 200 ? (created.answer.body.id as string) : undefined;
        if (!id) return undefined;
        const published = await send(newRequest('publish_campaign', `/api/v1/funding/campaigns/${id}/publish`, {}));
        return published.answer?.status === 200 ? id : undefined;
      })();
      return campaign;
    };
    const giveBackStep = async (rand: Random) => {
      const campaignId = await openCampaign();
      if (!campaignId) {
        campaign = undefined;
        return;
      }
      const held = contributions.filter((c) => c.campaignId === campaignId && contributed.has(c.id) && !givenBack.has(c.id));
      const step = rand.weighted({ contribute: 55, give_back: held.length ? 35 : 0, cancel: held.length >= 2 ? 6 : 0 });
      if (step === 'contribute') {
        const body = { campaignId, amountMinor: rand.int(10, 100) * 100, currency: 'XOF', contributorName: 'Sim', paymentMethod: { type: 'mobile_money', mobileMoney: WALLET } };
        const made = await send(newRequest('contribute', '/api/v1/funding/contributions', body));
        if (made.answer?.status === 200) contributions.push({ id: made.answer.body.id as string, campaignId });
      } else if (step === 'give_back') {
        const c = rand.pick(held);
        givenBack.add(c.id);
        await send(newRequest('give_back', `/api/v1/funding/contributions/${c.id}/refund`, {}));
      } else {
        // The campaign's cancel gives every succeeded contribution back; the next contributions go to a new campaign.
        campaign = undefined;
        for (const c of held) givenBack.add(c.id);
        await send(newRequest('cancel_campaign', `/api/v1/funding/campaigns/${campaignId}/cancel`, {}));
      }
    };

    const clientLoop = async (rand: Random, until: () => boolean) => {
      while (!until()) {
        const allowed = options.operations ?? OPERATIONS;
        const weights = { pay: 33, card: 15, payout: 15, bank_payout: 10, refund: succeeded.length ? 30 : 0, batch: 8, give_back: 20, mali_pay: 15, mali_payout: maliCollected - maliAsked >= 100 ? 10 : 0 };
        const op = rand.weighted(Object.fromEntries(Object.entries(weights).map(([k, w]) => [k, allowed.includes(k as 'pay') ? w : 0])) as typeof weights);
        if (op === 'pay') {
          const amount = rand.int(10, 200) * 100;
          const created = await send(newRequest('create_intent', '/api/v1/payment-intents', { amount, currency: 'xof', transaction_country: 'SN' }));
          const id = created.answer?.status === 200 ? (created.answer.body.id as string) : undefined;
          if (id) {
            const confirmed = await send(newRequest('confirm', `/api/v1/payment-intents/${id}/confirm`, { payment_method: { type: 'mobile_money', mobile_money: WALLET } }));
            if (confirmed.answer?.status === 200) payments.push({ id, amount });
          }
        } else if (op === 'card') {
          // A card payment in NGN: Paystack's checkout page, where the payer pays or is declined.
          const amount = rand.int(10, 500) * 100;
          const created = await send(newRequest('create_intent', '/api/v1/payment-intents', { amount, currency: 'ngn', transaction_country: 'NG', customer_email: `payer${rand.int(1, 20)}@example.com` }));
          const id = created.answer?.status === 200 ? (created.answer.body.id as string) : undefined;
          if (id) {
            const confirmed = await send(newRequest('confirm', `/api/v1/payment-intents/${id}/confirm`, { payment_method: { type: 'card', card: {} } }));
            if (confirmed.answer?.status === 200) payments.push({ id, amount });
            const url = ((confirmed.answer?.body.next_action as Record<string, unknown> | undefined)?.redirect_to_url as Record<string, unknown> | undefined)?.url;
            if (typeof url === 'string') paystack.payerOpens(url, rand.chance(0.15), rand.int(300, 4_000));
          }
        } else if (op === 'bank_payout') {
          const { holder: _, ...account } = rand.pick(BANK_ACCOUNTS);
          await send(newRequest('payout', '/api/v1/payouts', { amount: rand.int(5, 200) * 100, currency: 'ngn', destination: { type: 'bank', currency: 'ngn', ...account } }));
        } else if (op === 'payout') {
          await send(newRequest('payout', '/api/v1/payouts', { amount: rand.int(2, 30) * 100, currency: 'xof', destination: { type: 'mobile_money', ...WALLET } }));
        } else if (op === 'batch') {
          // A payout batch of 2–4 items to the same wallet, then its execution: each item is a payout of its own.
          const instructions = Array.from({ length: rand.int(2, 4) }, () => ({ amount: rand.int(2, 10) * 100, destination_type: 'mobile_money', ...WALLET }));
          const created = await send(newRequest('batch', '/api/v1/payout-engine/batches', { currency: 'xof', instructions }));
          if (created.answer?.status === 200) await send(newRequest('execute_batch', `/api/v1/payout-engine/batches/${created.answer.body.id as string}/execute`, {}));
        } else if (op === 'give_back') {
          await giveBackStep(rand);
        } else if (op === 'mali_pay') {
          // Mali mobile money: Hub2 (pawaPay serves no Mali operator).
          const amount = maliAmount(rand, 20_000);
          const created = await send(newRequest('create_intent', '/api/v1/payment-intents', { amount, currency: 'xof', transaction_country: 'ML' }));
          const id = created.answer?.status === 200 ? (created.answer.body.id as string) : undefined;
          if (id) {
            const confirmed = await send(newRequest('confirm', `/api/v1/payment-intents/${id}/confirm`, { payment_method: { type: 'mobile_money', mobile_money: rand.pick(MALI_WALLETS) } }));
            if (confirmed.answer?.status === 200) maliPayments.push({ id, amount });
          }
        } else if (op === 'mali_payout') {
          const amount = maliAmount(rand, Math.min(3_000, maliCollected - maliAsked));
          maliAsked += amount;
          await send(newRequest('payout', '/api/v1/payouts', { amount, currency: 'xof', destination: { type: 'mobile_money', ...rand.pick(MALI_WALLETS) } }));
        } else if (succeeded.length) {
          const payment = rand.pick(succeeded);
          await send(newRequest('refund', `/api/v1/merchant/payments/${payment.id}/refund`, { amount: rand.int(1, Math.max(1, Math.floor(payment.amount / 300))) * 100 }));
        }
        // Which payments succeeded, for the next refunds.
        for (const p of payments.filter((p) => !succeeded.includes(p))) {
          const pi = await get(`/api/v1/payment-intents/${p.id}`);
          if (pi?.status === 'succeeded') succeeded.push(p);
        }
        for (const p of maliPayments.filter((p) => !maliSucceeded.has(p.id))) {
          const pi = await get(`/api/v1/payment-intents/${p.id}`);
          if (pi?.status !== 'succeeded') continue;
          maliSucceeded.add(p.id);
          maliCollected += p.amount;
        }
        for (const c of contributions.filter((c) => !contributed.has(c.id))) {
          const read = await get(`/api/v1/funding/contributions/${c.id}`);
          if (read?.status === 'succeeded') contributed.add(c.id);
        }
        await sleep(rand.int(50, 600));
      }
    };

    // ---- pawaPay's operator: settles what the stand-in took and sends its callbacks ----
    const operatorRnd = rnd.fork('operator');
    const decided = new Map<string, number>();
    const callbackQueue: { at: number; kind: Kind; id: string; forge?: 'other_key' | 'tampered' | 'unsigned'; tries: number }[] = [];
    const opsTaken = (): { kind: Kind; id: string }[] => {
      const seen = new Set<string>();
      const out: { kind: Kind; id: string }[] = [];
      for (const r of standin.requests) {
        const m = /^\/v2\/(deposits|payouts|refunds)$/.exec(r.path);
        if (r.method !== 'POST' || !m) continue;
        const kind = m[1] as Kind;
        const id = /"(?:deposit|payout|refund)Id":"([^"]+)"/.exec(r.body)?.[1];
        if (!id || seen.has(`${kind}/${id}`) || !standin.operation(kind, id)) continue;
        seen.add(`${kind}/${id}`);
        out.push({ kind, id });
      }
      return out;
    };
    const postCallback = async (c: (typeof callbackQueue)[number]) => {
      let status: number | string;
      try {
        status = await standin.sendCallback(c.kind, c.id, c.forge ? { forge: c.forge } : {});
      } catch (err) {
        status = (err as Error).message;
      }
      count(c.forge ? 'callback forged' : 'callback');
      note(`callback ${c.kind} ${c.id}${c.forge ? ` forged (${c.forge})` : ''}: ${status}`);
      if (c.forge && status !== 401 && typeof status === 'number') failures.push(`a forged (${c.forge}) ${c.kind} callback of ${c.id} was answered ${status}, not 401`);
      if (!c.forge && typeof status === 'number' && status >= 500) failures.push(`a ${c.kind} callback of ${c.id} was answered ${status}`);
      // pawaPay delivers a callback again until it is taken (200).
      if (!c.forge && status !== 200 && c.tries < 20) callbackQueue.push({ ...c, at: Date.now() + 2_000, tries: c.tries + 1 });
    };
    let operatorRunning = true;
    let settleAll = false;
    const operator = (async () => {
      while (operatorRunning) {
        const now = Date.now();
        for (const { kind, id } of opsTaken()) {
          const op = standin.operation(kind, id)!;
          if (op.status === 'COMPLETED' || op.status === 'FAILED') continue;
          if (!decided.has(`${kind}/${id}`)) decided.set(`${kind}/${id}`, now + operatorRnd.int(300, 4_000));
          if (!settleAll && decided.get(`${kind}/${id}`)! > now) continue;
          const failP = kind === 'deposits' ? 0.15 : kind === 'payouts' ? 0.1 : 0.05;
          const fails = !settleAll && operatorRnd.chance(failP);
          standin.settle(kind, id, fails ? 'FAILED' : 'COMPLETED', fails ? (kind === 'deposits' ? 'PAYMENT_NOT_APPROVED' : 'RECIPIENT_NOT_FOUND') : undefined);
          note(`pawaPay settles ${kind} ${id}: ${fails ? 'FAILED' : 'COMPLETED'}`);
          const plan = faultsOn ? operatorRnd.weighted({ normal: 55, missing: 12, repeated: 12, late: 12, forged: 9 }) : 'normal';
          count(`callback plan ${plan}`);
          if (plan === 'missing') continue;
          if (plan === 'forged') callbackQueue.push({ at: now, kind, id, forge: operatorRnd.pick(['other_key', 'tampered', 'unsigned'] as const), tries: 0 });
          callbackQueue.push({ at: plan === 'late' ? now + operatorRnd.int(3_000, 15_000) : now, kind, id, tries: 0 });
          if (plan === 'repeated') callbackQueue.push({ at: now + operatorRnd.int(0, 3_000), kind, id, tries: 0 });
        }
        const due = callbackQueue.filter((c) => c.at <= now);
        for (const c of due) callbackQueue.splice(callbackQueue.indexOf(c), 1);
        await Promise.all([...due.map(postCallback), paystack.tick(settleAll), hub2.tick(settleAll)]);
        await sleep(200);
      }
    })();

    // ---- the fault phase: clients, operator, kills ----
    const faultStart = Date.now();
    const faultEnd = faultStart + options.seconds * 1000;
    const clients = Array.from({ length: options.clients ?? 3 }, (_, i) => clientLoop(rnd.fork(`client-${i}`), () => Date.now() > faultEnd));
    const killRnd = rnd.fork('kills');
    const killer = (async () => {
      for (let i = 0; i < options.kills; i++) {
        const segment = (options.seconds * 1000) / options.kills;
        const at = faultStart + i * segment + killRnd.int(Math.floor(segment * 0.2), Math.floor(segment * 0.8));
        const kind = killRnd.weighted({ random: 30, held: 30, before_call: 20, callback: 20 });
        await sleep(Math.max(0, at - Date.now()));
        if (Date.now() > faultEnd) break;
        if (kind === 'held') {
          // While a provider call is held open by a slow answer: the service dies between its call and the answer.
          const until = Date.now() + 8_000;
          while (proxy.holding + paystack.holding + hub2.holding === 0 && Date.now() < until) await sleep(50);
        }
        if (kind === 'before_call') {
          // While a provider call is on its way (stalled in the proxy): committed, not yet sent.
          const until = Date.now() + 8_000;
          while (proxy.stalled + paystack.stalled + hub2.stalled === 0 && Date.now() < until) await sleep(50);
        }
        let during = '';
        if (kind === 'callback') {
          const final = opsTaken().filter(({ kind, id }) => ['COMPLETED', 'FAILED'].includes(standin.operation(kind, id)!.status));
          if (final.length) {
            const c = killRnd.pick(final);
            during = ` during a callback of ${c.kind} ${c.id}`;
            void postCallback({ at: 0, kind: c.kind, id: c.id, tries: 0 });
            await sleep(killRnd.int(0, 30));
          }
        }
        const held = kind === 'held' ? `, ${proxy.holding + paystack.holding + hub2.holding} provider answers held` : kind === 'before_call' ? `, ${proxy.stalled + paystack.stalled + hub2.stalled} provider calls on their way` : '';
        note(`KILL ${i + 1} (${kind}${held}${during}): SIGKILL to the service group, PostgreSQL included`);
        count(`kill ${kind}`);
        await service.kill();
        await sleep(killRnd.int(200, 1_500));
        await service.start();
        note(`service restarted on the same data directory`);
      }
    })();
    await killer;
    await sleep(Math.max(0, faultEnd - Date.now()));
    faultsOn = false;
    note('faults stop; no new requests; clients finish what they have');
    clientDeadline = Date.now() + CLIENT_RETRY_BOUND_MS;
    await Promise.all(clients);
    const lastFault = Date.now();

    // ---- settle: pawaPay ends everything it holds and delivers its callbacks once more ----
    settleAll = true;
    const objects = async (): Promise<SikaObjects | undefined> => {
      // Lists are cursor-based (`starting_after`), except the dashboard's `/api/v1/merchant/*`, page-based (`page`).
      const list = async (path: string) => {
        const items: Record<string, unknown>[] = [];
        const paged = path.startsWith('/api/v1/merchant/');
        let after: string | undefined;
        for (let page = 1; page <= 100; page++) {
          const res = await get(`${path}?limit=100${paged ? `&page=${page}` : after ? `&starting_after=${after}` : ''}`);
          if (!res) return undefined;
          const data = res.data as Record<string, unknown>[];
          items.push(...data);
          if (!res.has_more || data.length === 0) return items;
          after = data[data.length - 1]!.id as string;
        }
        return items;
      };
      const intents = await list('/api/v1/payment-intents');
      const payouts = await list('/api/v1/merchant/payouts');
      if (!intents || !payouts) return undefined;
      const refunds: Record<string, unknown>[] = [];
      for (const pi of intents.filter((i) => i.status === 'succeeded')) {
        const r = await list(`/api/v1/merchant/payments/${pi.id as string}/refunds`);
        if (!r) return undefined;
        refunds.push(...r);
      }
      const batchItems: Record<string, unknown>[] = [];
      for (const r of requests.filter((r) => r.what === 'batch' && r.answer?.status === 200)) {
        const items = await get(`/api/v1/payout-engine/batches/${r.answer!.body.id as string}/items?limit=100`);
        if (!items) return undefined;
        batchItems.push(...(items.data as Record<string, unknown>[]));
      }
      const balance = await get('/api/v1/balance');
      if (!balance) return undefined;
      const contributions = await list('/api/v1/funding/contributions');
      if (!contributions) return undefined;
      const campaigns: Record<string, unknown>[] = [];
      for (const r of requests.filter((r) => r.what === 'create_campaign' && r.answer?.status === 200)) {
        const id = r.answer!.body.id as string;
        const [read, ledger] = [await get(`/api/v1/funding/campaigns/${id}`), await get(`/api/v1/funding/campaigns/${id}/ledger`)];
        if (!read || !ledger) return undefined;
        campaigns.push({ ...read, ledgerBalanceMinor: ledger.balanceMinor });
      }
      return { intents, payouts, refunds, batchItems, balance, contributions, campaigns };
    };
    // Two things may stay open on Paystack's side: a card payment whose payer never saw the page (the
    // answer carrying it was lost: Paystack's transaction stays abandoned), and a refund Paystack has
    // no record of (its request met a fault or a kill: never sent again, it waits for review). And one
    // on Hub2's: a Mali payment whose one attempt Hub2 never took (never sent again, it waits for review).
    const uncertainRefund = (r: Record<string, unknown>, noted: Set<unknown>) => r.currency === 'ngn' && !noted.has(r.id);
    // Past SETTLE_BOUND_MS, what may still be open: an attempt pawaPay never took, whose sends kept meeting faults.
    // An attempt once seen waiting for the schedule's next step keeps that allowance when pawaPay
    // takes it at last: Sika records pawaPay's answer a moment later (seed 7018 failed in between).
    const waitingForNextStep = new Set<string>();
    const waitsForNextStep = (kind: Kind, sikaId: unknown) => {
      if (typeof sikaId !== 'string') return false;
      const id = pawapayId(sikaId);
      if (waitingForNextStep.has(id)) return true;
      const waits = (unkept.get(id) ?? 0) >= UNKEPT_SENDS && !standin.operation(kind, id);
      if (waits) waitingForNextStep.add(id);
      return waits;
    };
    const isFinal = (o: SikaObjects, late: boolean, noted = new Set(paystack.refunds().map((p) => p.request.merchant_note))) =>
      paystack.payersAway === 0 &&
      o.intents.every(
        (i) =>
          !['processing', 'requires_action'].includes(i.status as string) ||
          (i.currency === 'ngn' && paystack.payerNeverFinished(i)) ||
          (i.status === 'processing' && hub2.paymentNeverTaken(i)) ||
          (late && waitsForNextStep('deposits', i.latest_operation)),
      ) &&
      o.payouts.every((p) => ['paid', 'failed', 'canceled'].includes(p.status as string) || (late && (waitsForNextStep('payouts', p.id) || hub2.waitsForNextStep(p.id, 1)))) &&
      o.refunds.every((r) => r.status !== 'pending' || uncertainRefund(r, noted) || (late && waitsForNextStep('refunds', r.id))) &&
      o.batchItems.every((i) => ['validated', 'paid', 'failed', 'canceled'].includes(i.status as string) || (late && waitsForNextStep('payouts', i.payout_id))) &&
      // A contribution follows its payment (the intents above); its give-back's refund is pending until pawaPay's answer.
      o.contributions.every((c) => c.status !== 'pending' || (late && waitsForNextStep('deposits', o.intents.find((i) => i.id === c.paymentIntentId)?.latest_operation))) &&
      o.contributions.every((c) => (c.refund as { status?: string } | null)?.status !== 'pending' || (late && waitsForNextStep('refunds', c.id)));
    let finalObjects: SikaObjects | undefined;
    let redelivered = 0;
    let lateItems = false;
    while (Date.now() < lastFault + LATE_BOUND_MS) {
      const o = await objects();
      if (o && isFinal(o, false)) {
        finalObjects = o;
        break;
      }
      if (o && Date.now() > lastFault + SETTLE_BOUND_MS) {
        // Anything open past the bound with no such excuse fails the seed now.
        if (!isFinal(o, true)) break;
        if (!lateItems) note(`open past ${SETTLE_BOUND_MS / 1000} s: only attempts pawaPay or Hub2 never took, whose sends met faults; waiting for the schedule's next step`);
        lateItems = true;
      }
      // Every few seconds pawaPay delivers again the callback of each final operation Sika still holds open.
      if (o && Date.now() - redelivered > 5_000) {
        redelivered = Date.now();
        const open = new Set(
          [
            ...o.intents.filter((i) => ['processing', 'requires_action'].includes(i.status as string)),
            ...o.payouts.filter((p) => !['paid', 'failed', 'canceled'].includes(p.status as string)),
            ...o.refunds.filter((r) => r.status === 'pending'),
            ...o.contributions.filter((c) => (c.refund as { status?: string } | null)?.status === 'pending'),
          ].map((x) => x.id as string),
        );
        for (const { kind, id } of opsTaken()) {
          const op = standin.operation(kind, id)!;
          const meta = standin.data(op).metadata as Record<string, string> | undefined;
          if (!['COMPLETED', 'FAILED'].includes(op.status)) continue;
          if (open.has(meta?.paymentIntentId ?? '') || open.has(meta?.sikaId ?? '')) callbackQueue.push({ at: 0, kind, id, tries: 0 });
        }
        paystack.redeliver(open);
        hub2.redeliver(open);
      }
      await sleep(1_000);
    }
    const settledMs = Date.now() - lastFault;
    operatorRunning = false;
    await operator;
    // When the bound ran out, the model is still checked on what the service says now.
    const last = finalObjects ?? (await objects());
    const bound = lateItems ? `${LATE_BOUND_MS / 1000} s (attempts pawaPay or Hub2 never took, their sends met by faults ${UNKEPT_SENDS} times or more)` : `${SETTLE_BOUND_MS / 1000} s`;
    note(finalObjects ? `everything final ${(settledMs / 1000).toFixed(1)} s after the last fault` : `NOT everything final within ${bound} after the last fault`);
    if (!finalObjects) failures.push(`not every payment, payout and refund is final within ${bound} after the last fault`);
    if (!last) throw new Error('the service did not answer the final reads');

    failures.push(...(await checkModel({ standin, paystack, hub2, service, requests, objects: last, note })));
    stats.requests = requests.length;
    stats.kills = Object.entries(stats)
      .filter(([k]) => k.startsWith('kill '))
      .reduce((n, [, v]) => n + v, 0);
    stats.settle_ms = settledMs;
    await service.stop();
    return { seed: options.seed, ok: failures.length === 0, failures, timeline, stats, wallMs: Date.now() - started, serviceLog: service.outputs.join('\n----- restart -----\n') };
  } catch (err) {
    failures.push(`the run broke off: ${err instanceof Error ? err.stack : String(err)}`);
    return { seed: options.seed, ok: false, failures, timeline, stats, wallMs: Date.now() - started, serviceLog: [...service.outputs, service.output()].join('\n----- restart -----\n') };
  } finally {
    await cleanup();
  }
}
