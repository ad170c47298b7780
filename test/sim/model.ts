/**
 * The model a seed's end state is held to (docs/reliability.md, "What it checks"): pawaPay's
 * records (the stand-in's) and Sika's objects (read through the API) are one-to-one and agree on
 * status and amount; each object is the one its request's answer named; the balance is what
 * pawaPay's records imply, fees included; and the service's own checks (`bin/sika reconcile`,
 * `rails review`, `projections verify`, `audit verify`) find nothing. Returns the failures.
 */
import { pawapayId } from '../../packages/connectors/pawapay/index.js';
import type { Kind, PawapayStandin } from '../support/pawapay-standin.js';
import type { ServiceGroup } from './service-group.js';
import { checkPaystack, type PaystackWorld } from './paystack.js';

type Json = Record<string, unknown>;

/** A request of a client, with every answer it got; the last is the one it kept. */
export interface ClientRequest {
  n: number;
  what: 'create_intent' | 'confirm' | 'payout' | 'refund' | 'batch' | 'execute_batch';
  key: string;
  method: 'POST';
  path: string;
  body: Record<string, unknown>;
  attempts: number;
  answer?: { status: number; body: Record<string, unknown> };
  serverErrors: { status: number; body: string }[];
}

export interface SikaObjects {
  intents: Json[];
  payouts: Json[];
  refunds: Json[];
  /** The items of the batches the clients made, each with its payout once executed. */
  batchItems: Json[];
  balance: Json;
}

/** pawaPay's XOF amount ("2500.00") in Sika's minor units (none for XOF). */
const xof = (amount: unknown) => Math.round(Number(amount));

/** The lines of a `bin/sika reconcile` report that name a difference. */
function differences(output: string): string[] {
  return output.split('\n').filter((l) => /^(payment|payout|refund|wallet) /.test(l));
}

export async function checkModel(world: { standin: PawapayStandin; paystack: PaystackWorld; service: ServiceGroup; requests: ClientRequest[]; objects: SikaObjects; note: (line: string) => void }): Promise<string[]> {
  const { standin, service, requests, objects } = world;
  const failures: string[] = [];
  const fail = (what: string) => {
    failures.push(what);
    world.note(`MODEL: ${what}`);
  };

  // No 5xx, and every request answered. A 502 IKW-PRV-002 is the documented answer of a rail that
  // did not answer a read made before anything is held (a bank account's name): retryable, and retried.
  for (const r of requests) {
    for (const e of r.serverErrors) if (!(e.status === 502 && e.body.includes('"IKW-PRV-002"'))) fail(`#${r.n} ${r.what} ${r.key} was answered ${e.status}: ${e.body}`);
    if (!r.answer) fail(`#${r.n} ${r.what} ${r.key} got no answer within the clients' retry bound`);
  }
  for (const d of standin.deviations) fail(`pawaPay's contract: ${d}`);
  // Each client confirms an intent once, with its own key: a 409 can only be its own retry refused.
  for (const r of requests) if (r.what === 'confirm' && r.answer?.status === 409) fail(`#${r.n} ${r.key}: the confirm was answered ${String(r.answer.body.code)} (${String(r.answer.body.message)}), not the payment it started`);

  // pawaPay's records: every operation the stand-in kept, by kind.
  const ops = new Map<string, { kind: Kind; id: string; status: string; amount: number; sikaId?: string; paymentIntentId?: string }>();
  for (const r of standin.requests) {
    const m = /^\/v2\/(deposits|payouts|refunds)$/.exec(r.path);
    const id = /"(?:deposit|payout|refund)Id":"([^"]+)"/.exec(r.body)?.[1];
    if (r.method !== 'POST' || !m || !id) continue;
    const op = standin.operation(m[1] as Kind, id);
    if (!op || ops.has(`${op.kind}/${id}`)) continue;
    const data = standin.data(op);
    const meta = data.metadata as Record<string, string> | undefined;
    ops.set(`${op.kind}/${id}`, { kind: op.kind, id, status: op.status, amount: xof(data.amount), ...(meta?.sikaId ? { sikaId: meta.sikaId } : {}), ...(meta?.paymentIntentId ? { paymentIntentId: meta.paymentIntentId } : {}) });
  }
  const opsOf = (kind: Kind) => [...ops.values()].filter((o) => o.kind === kind);
  for (const o of ops.values()) if (o.status !== 'COMPLETED' && o.status !== 'FAILED') fail(`pawaPay's ${o.kind} ${o.id} is still ${o.status}`);

  // Each pawaPay record is exactly one Sika object, and agrees with it.
  const intents = new Map(objects.intents.map((i) => [i.id as string, i]));
  const payouts = new Map(objects.payouts.map((p) => [p.id as string, p]));
  const refunds = new Map(objects.refunds.map((r) => [r.id as string, r]));
  const agree = (what: string, sika: Json | undefined, op: { status: string; amount: number; id: string }, paid: string, failed: string[]) => {
    if (!sika) return fail(`pawaPay's ${what} ${op.id} (${op.status}) is no Sika object`);
    const status = sika.status as string;
    if (op.status === 'COMPLETED' && status !== paid) fail(`${what} ${sika.id as string}: pawaPay COMPLETED, Sika ${status}`);
    if (op.status === 'FAILED' && !failed.includes(status)) fail(`${what} ${sika.id as string}: pawaPay FAILED, Sika ${status}`);
    if (sika.amount !== op.amount) fail(`${what} ${sika.id as string}: pawaPay ${op.amount}, Sika ${String(sika.amount)}`);
  };
  const depositsOfIntent = new Map<string, number>();
  for (const o of opsOf('deposits')) {
    depositsOfIntent.set(o.paymentIntentId ?? '', (depositsOfIntent.get(o.paymentIntentId ?? '') ?? 0) + 1);
    agree('payment', intents.get(o.paymentIntentId ?? ''), o, 'succeeded', ['failed', 'requires_payment_method']);
  }
  for (const o of opsOf('payouts')) agree('payout', payouts.get(o.sikaId ?? ''), o, 'paid', ['failed']);
  for (const o of opsOf('refunds')) agree('refund', refunds.get(o.sikaId ?? ''), o, 'succeeded', ['failed']);
  // No provider saw one Sika object twice: one deposit per payment intent (each is confirmed once).
  for (const [pi, n] of depositsOfIntent) if (n > 1) fail(`payment ${pi} was sent to pawaPay as ${n} deposits`);

  // And the reverse: every Sika object of mobile money (XOF) that moved money is one pawaPay record that did.
  const completed = (kind: Kind, sikaId: string) => ops.get(`${kind}/${pawapayId(sikaId)}`)?.status === 'COMPLETED';
  const mobileMoney = (o: Json) => o.currency === 'xof';
  for (const pi of objects.intents.filter(mobileMoney)) {
    if (pi.status === 'succeeded' && !opsOf('deposits').some((o) => o.paymentIntentId === pi.id && o.status === 'COMPLETED')) fail(`payment ${pi.id as string} succeeded in Sika, no deposit COMPLETED at pawaPay`);
  }
  for (const p of objects.payouts.filter(mobileMoney)) if (p.status === 'paid' && !completed('payouts', p.id as string)) fail(`payout ${p.id as string} paid in Sika, not COMPLETED at pawaPay`);
  for (const r of objects.refunds.filter(mobileMoney)) if (r.status === 'succeeded' && !completed('refunds', r.id as string)) fail(`refund ${r.id as string} succeeded in Sika, not COMPLETED at pawaPay`);

  // Cards, bank payouts and card refunds: Paystack's records (paystack.ts).
  const { neverTaken } = checkPaystack(world.paystack, objects, fail, world.note);

  // Each object is the one its request's answer named, and no object is one no request was answered.
  const named = new Map<string, string[]>();
  for (const r of requests) {
    if (r.what === 'confirm' || r.what === 'execute_batch') continue;
    // A refund the balance could not cover is recorded as failed, and its 400 IKW-BAL-001 names it.
    const id = r.answer?.status === 200 ? (r.answer.body.id as string) : r.answer?.body.code === 'IKW-BAL-001' ? /refund (re_\w+) is recorded as failed/.exec(String(r.answer.body.message))?.[1] : undefined;
    if (id) named.set(id, [...(named.get(id) ?? []), r.key]);
  }
  // A batch's payouts are named by its items; an item names one payout, a payout one item.
  for (const item of objects.batchItems) {
    if (typeof item.payout_id === 'string') named.set(item.payout_id, [...(named.get(item.payout_id) ?? []), `${String(item.batch_id)}#${String(item.index)}`]);
  }
  const confirms = requests.filter((r) => r.what === 'confirm' && r.answer?.status === 200);
  for (const [id, keys] of named) if (keys.length > 1) fail(`${id} was the answer to ${keys.length} requests (${keys.join(', ')})`);
  for (const r of requests.filter((r) => r.answer?.status === 200 && r.what !== 'confirm')) {
    const id = r.answer!.body.id as string;
    if (r.what === 'batch' || r.what === 'execute_batch') continue;
    const exists = r.what === 'create_intent' ? intents.has(id) : r.what === 'payout' ? payouts.has(id) : refunds.has(id);
    if (!exists) fail(`#${r.n} ${r.key} was answered ${id}, which does not exist`);
  }
  for (const id of [...intents.keys(), ...payouts.keys(), ...refunds.keys()]) {
    if (!named.has(id)) fail(`${id} exists, but no request was answered with it (made by a request whose answer named another object)`);
  }
  for (const c of confirms) {
    const pi = intents.get(c.answer!.body.id as string);
    if (pi && pi.latest_operation !== c.answer!.body.latest_operation) fail(`#${c.n} ${c.key}: answered operation ${String(c.answer!.body.latest_operation)}, the payment's is ${String(pi.latest_operation)}`);
  }

  // The balance is what pawaPay's records imply: collections less their fees, less payouts and their fees, less refunds.
  let expected = 0;
  for (const o of opsOf('deposits')) if (o.status === 'COMPLETED') expected += o.amount - Number(intents.get(o.paymentIntentId ?? '')?.fee ?? 0);
  for (const o of opsOf('payouts')) if (o.status === 'COMPLETED') expected -= o.amount + Number(payouts.get(o.sikaId ?? '')?.fee ?? 0);
  for (const o of opsOf('refunds')) if (o.status === 'COMPLETED') expected -= o.amount;
  const of = (field: string) => ((objects.balance[field] as { amount: number; currency: string }[] | undefined) ?? []).filter((b) => b.currency === 'xof').reduce((s, b) => s + b.amount, 0);
  const balance = { available: of('available'), pending: of('pending'), reserved: of('reserved') };
  world.note(`balance ${JSON.stringify(balance)}; pawaPay's records imply available ${expected}`);
  if (balance.available + balance.pending !== expected || balance.reserved !== 0) fail(`the balance is ${JSON.stringify(balance)}; pawaPay's records imply ${expected} and nothing reserved`);

  // pawaPay's wallet is what it took less what it paid out: the reconciliation compares it with the ledger.
  let wallet = 0;
  for (const o of ops.values()) if (o.status === 'COMPLETED') wallet += o.kind === 'deposits' ? o.amount : -o.amount;
  for (const country of ['SEN', 'BFA', 'GHA', 'KEN']) standin.wallets.set(country, country === 'SEN' ? `${wallet}.00` : '0.00');

  // The service's own checks, at once: each is a process of its own that mostly waits to start.
  const checks: { args: string[]; ok: (r: { code: number | null; output: string }) => boolean }[] = [
    { args: ['reconcile', 'pawapay'], ok: (r) => r.code === 0 },
    // The one difference it may find is a refund Paystack never took, pending at Sika (never sent again).
    { args: ['reconcile', 'paystack'], ok: (r) => r.code === 0 || differences(r.output).every((d) => neverTaken.has(/^refund (re_\w+) .*: Sika pending, paystack not_found$/.exec(d)?.[1] ?? '')) },
    { args: ['rails', 'review', '--json'], ok: (r) => r.code === 0 && /^\s*\[\s*\]\s*$/m.test(r.output) },
    { args: ['projections', 'verify'], ok: (r) => r.code === 0 },
    { args: ['audit', 'verify'], ok: (r) => r.code === 0 },
  ];
  const results = await Promise.all(checks.map((c) => service.cli(c.args)));
  checks.forEach((c, i) => {
    const r = results[i]!;
    world.note(`bin/sika ${c.args.join(' ')}: exit ${r.code}`);
    if (!c.ok(r)) fail(`bin/sika ${c.args.join(' ')} (exit ${r.code}): ${r.output.trim().slice(0, 2_000)}`);
  });
  return failures;
}
