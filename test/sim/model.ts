/**
 * The model a seed's end state is held to (docs/reliability.md, "What it checks"): pawaPay's
 * records (the stand-in's) and Sika's objects (read through the API) are one-to-one and agree on
 * status and amount; each object is the one its request's answer named; the balance is what
 * pawaPay's records imply, fees included (with Hub2's, for Mali's mobile money, and Paystack's
 * in NGN, each in its own file); and the service's own checks (`bin/sika reconcile`,
 * `rails review`, `projections verify`, `audit verify`) find nothing. Returns the failures.
 */
import { pawapayId } from '#packages/connectors/pawapay/index.js';
import type { Kind, PawapayStandin } from '../support/pawapay-standin.js';
import type { ServiceGroup } from './service-group.js';
import { checkPaystack, type PaystackWorld } from './paystack.js';
import { checkHub2, isMali, type Hub2World } from './hub2.js';

type Json = Record<string, unknown>;

/** A request of a client, with every answer it got; the last is the one it kept. */
export interface ClientRequest {
  n: number;
  what: 'create_intent' | 'confirm' | 'payout' | 'refund' | 'batch' | 'execute_batch' | 'create_campaign' | 'publish_campaign' | 'contribute' | 'give_back' | 'cancel_campaign';
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
  /** Every funding contribution, with its give-back's `refund`. */
  contributions: Json[];
  /** The campaigns the clients made, each with its ledger account's balance (`ledgerBalanceMinor`). */
  campaigns: Json[];
}

/** A contribution's give-back refund, as the API shows it. */
type GiveBack = { id: string; rail: string | null; status: string; failureCode: string | null } | null;

/** pawaPay's XOF amount ("2500.00") in Sika's minor units (none for XOF). */
const xof = (amount: unknown) => Math.round(Number(amount));

/** The lines of a `bin/sika reconcile` report that name a difference. */
function differences(output: string): string[] {
  return output.split('\n').filter((l) => /^(payment|payout|refund|wallet) /.test(l));
}

/** The items of `bin/sika rails review --json` (undefined when its output holds no JSON list). */
function reviewItems(output: string): { object: string; id: string; status: string }[] | undefined {
  const start = output.indexOf('[');
  const end = output.lastIndexOf(']');
  try {
    return start < 0 || end < start ? undefined : (JSON.parse(output.slice(start, end + 1)) as { object: string; id: string; status: string }[]);
  } catch {
    return undefined;
  }
}

export async function checkModel(world: { standin: PawapayStandin; paystack: PaystackWorld; hub2: Hub2World; service: ServiceGroup; requests: ClientRequest[]; objects: SikaObjects; note: (line: string) => void }): Promise<string[]> {
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
  const ops = new Map<string, { kind: Kind; id: string; status: string; amount: number; sikaId?: string; paymentIntentId?: string; depositId?: string }>();
  for (const r of standin.requests) {
    const m = /^\/v2\/(deposits|payouts|refunds)$/.exec(r.path);
    const id = /"(?:deposit|payout|refund)Id":"([^"]+)"/.exec(r.body)?.[1];
    if (r.method !== 'POST' || !m || !id) continue;
    const op = standin.operation(m[1] as Kind, id);
    if (!op || ops.has(`${op.kind}/${id}`)) continue;
    const data = standin.data(op);
    const meta = data.metadata as Record<string, string> | undefined;
    ops.set(`${op.kind}/${id}`, {
      kind: op.kind,
      id,
      status: op.status,
      amount: xof(data.amount),
      ...(meta?.sikaId ? { sikaId: meta.sikaId } : {}),
      ...(meta?.paymentIntentId ? { paymentIntentId: meta.paymentIntentId } : {}),
      ...(typeof data.depositId === 'string' && op.kind === 'refunds' ? { depositId: data.depositId } : {}),
    });
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
  // A contribution's give-back is one pawaPay refund, under the contribution's id (its `refund.id`).
  const contributions = new Map(objects.contributions.map((c) => [c.id as string, c]));
  const giveBackOf = (c: Json | undefined): Json | undefined => {
    const refund = c?.refund as GiveBack | undefined;
    return c && refund ? { id: refund.id, status: refund.status, amount: c.amountMinor } : undefined;
  };
  for (const o of opsOf('refunds')) {
    if (contributions.has(o.sikaId ?? '')) agree('give-back', giveBackOf(contributions.get(o.sikaId!)), o, 'succeeded', ['failed']);
    else agree('refund', refunds.get(o.sikaId ?? ''), o, 'succeeded', ['failed']);
  }
  // No provider saw one Sika object twice: one deposit per payment intent (each is confirmed once).
  for (const [pi, n] of depositsOfIntent) if (n > 1) fail(`payment ${pi} was sent to pawaPay as ${n} deposits`);

  // And the reverse: every Sika object of mobile money (XOF) that moved money is one pawaPay record that did (Mali's is Hub2's).
  const completed = (kind: Kind, sikaId: string) => ops.get(`${kind}/${pawapayId(sikaId)}`)?.status === 'COMPLETED';
  const mobileMoney = (o: Json) => o.currency === 'xof' && !isMali(o);
  for (const pi of objects.intents.filter(mobileMoney)) {
    if (pi.status === 'succeeded' && !opsOf('deposits').some((o) => o.paymentIntentId === pi.id && o.status === 'COMPLETED')) fail(`payment ${pi.id as string} succeeded in Sika, no deposit COMPLETED at pawaPay`);
  }
  for (const p of objects.payouts.filter(mobileMoney)) if (p.status === 'paid' && !completed('payouts', p.id as string)) fail(`payout ${p.id as string} paid in Sika, not COMPLETED at pawaPay`);
  for (const r of objects.refunds.filter(mobileMoney)) if (r.status === 'succeeded' && !completed('refunds', r.id as string)) fail(`refund ${r.id as string} succeeded in Sika, not COMPLETED at pawaPay`);
  // Give-backs: each refunded contribution (paid by mobile money) names its one pawaPay refund, and a
  // contribution's deposit is refunded at pawaPay by that refund alone, never twice, never by another.
  const depositOfIntent = new Map(
    opsOf('deposits')
      .filter((o) => o.status === 'COMPLETED')
      .map((o) => [o.paymentIntentId ?? '', o.id]),
  );
  for (const c of objects.contributions) {
    const refund = c.refund as GiveBack;
    if (c.status !== 'refunded') {
      if (refund) fail(`contribution ${c.id as string} is ${c.status as string} with a refund ${JSON.stringify(refund)}`);
      continue;
    }
    if (!refund || refund.id !== c.id || refund.rail !== 'pawapay') fail(`contribution ${c.id as string} was given back, but names no pawaPay refund under its id: ${JSON.stringify(refund)}`);
    else if (refund.status === 'succeeded' && !completed('refunds', refund.id)) fail(`give-back ${refund.id} succeeded in Sika, not COMPLETED at pawaPay`);
    const deposit = depositOfIntent.get(c.paymentIntentId as string);
    const atPawapay = opsOf('refunds').filter((o) => o.depositId !== undefined && o.depositId === deposit);
    if (atPawapay.length > 1 || atPawapay.some((o) => o.sikaId !== c.id))
      fail(`contribution ${c.id as string}'s deposit ${String(deposit)} was refunded at pawaPay by ${atPawapay.map((o) => `${o.id} (${o.sikaId ?? '?'}, ${o.status})`).join(', ')}`);
  }
  for (const c of objects.contributions) if (c.status !== 'refunded' && opsOf('refunds').some((o) => o.sikaId === c.id)) fail(`contribution ${c.id as string} is ${c.status as string}, but pawaPay has a refund of it`);

  // Cards, bank payouts and card refunds: Paystack's records (paystack.ts).
  const { neverTaken } = checkPaystack(world.paystack, objects, fail, world.note);
  // Mali's mobile money: Hub2's records (hub2.ts).
  const hub2 = checkHub2(world.hub2, objects, fail, world.note);

  // Each object is the one its request's answer named, and no object is one no request was answered.
  const named = new Map<string, string[]>();
  for (const r of requests) {
    // A give-back, a campaign's publish and cancel answer objects their first request named.
    if (['confirm', 'execute_batch', 'publish_campaign', 'give_back', 'cancel_campaign'].includes(r.what)) continue;
    // A contribution names its payment intent too.
    if (r.what === 'contribute' && r.answer?.status === 200) named.set(r.answer.body.paymentIntentId as string, [...(named.get(r.answer.body.paymentIntentId as string) ?? []), r.key]);
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
    if (['batch', 'execute_batch', 'create_campaign', 'publish_campaign', 'cancel_campaign'].includes(r.what)) continue;
    const exists = r.what === 'create_intent' ? intents.has(id) : r.what === 'payout' ? payouts.has(id) : r.what === 'contribute' || r.what === 'give_back' ? contributions.has(id) : refunds.has(id);
    if (!exists) fail(`#${r.n} ${r.key} was answered ${id}, which does not exist`);
  }
  // A give-back's answer is the contribution it was asked of, given back; a refusal of it is the campaign's cancel having given it back first.
  for (const r of requests.filter((r) => r.what === 'give_back')) {
    const asked = r.path.split('/')[5]!;
    if (r.answer?.status === 200 && (r.answer.body.id !== asked || r.answer.body.status !== 'refunded')) fail(`#${r.n} ${r.key}: a give-back of ${asked} was answered ${String(r.answer.body.id)} ${String(r.answer.body.status)}`);
    if (r.answer && r.answer.status !== 200 && contributions.get(asked)?.refundReason === 'requested_by_organizer')
      fail(`#${r.n} ${r.key}: the give-back of ${asked} was answered ${r.answer.status} ${String(r.answer.body.code)}, yet it was given back by the organizer (only this request asked)`);
  }
  for (const id of [...intents.keys(), ...payouts.keys(), ...refunds.keys(), ...contributions.keys()]) {
    if (!named.has(id)) fail(`${id} exists, but no request was answered with it (made by a request whose answer named another object)`);
  }
  for (const c of confirms) {
    const pi = intents.get(c.answer!.body.id as string);
    if (pi && pi.latest_operation !== c.answer!.body.latest_operation) fail(`#${c.n} ${c.key}: answered operation ${String(c.answer!.body.latest_operation)}, the payment's is ${String(pi.latest_operation)} (${String(pi.status)})`);
  }

  // The balance is what pawaPay's and Hub2's records imply: collections less their fees, less payouts and their fees, less refunds.
  // A contribution's money is its campaign's (no campaign is closed here): neither it nor its give-back is in the balance.
  const contributionIntents = new Set(objects.contributions.map((c) => c.paymentIntentId as string));
  let expected = hub2.balance;
  for (const o of opsOf('deposits')) if (o.status === 'COMPLETED' && !contributionIntents.has(o.paymentIntentId ?? '')) expected += o.amount - Number(intents.get(o.paymentIntentId ?? '')?.fee ?? 0);
  for (const o of opsOf('payouts')) if (o.status === 'COMPLETED') expected -= o.amount + Number(payouts.get(o.sikaId ?? '')?.fee ?? 0);
  for (const o of opsOf('refunds')) if (o.status === 'COMPLETED' && !contributions.has(o.sikaId ?? '')) expected -= o.amount;
  const of = (field: string) => ((objects.balance[field] as { amount: number; currency: string }[] | undefined) ?? []).filter((b) => b.currency === 'xof').reduce((s, b) => s + b.amount, 0);
  const balance = { available: of('available'), pending: of('pending'), reserved: of('reserved') };
  world.note(`balance ${JSON.stringify(balance)}; pawaPay's and Hub2's records imply available ${expected} (Hub2's ${hub2.balance})`);
  if (balance.available + balance.pending !== expected || balance.reserved !== 0) fail(`the balance is ${JSON.stringify(balance)}; pawaPay's and Hub2's records imply ${expected} (Hub2's ${hub2.balance}) and nothing reserved`);

  // Each campaign holds what pawaPay collected for its contributions less what went back: its ledger
  // account, the contributions it counts (`heldAmountMinor`), nothing fee'd (nothing released).
  for (const campaign of objects.campaigns) {
    const its = objects.contributions.filter((c) => c.campaignId === campaign.id);
    const collected = its.filter((c) => opsOf('deposits').some((o) => o.paymentIntentId === c.paymentIntentId && o.status === 'COMPLETED')).reduce((n, c) => n + Number(c.amountMinor), 0);
    const gone = its.filter((c) => ops.get(`refunds/${pawapayId(c.id as string)}`)?.status === 'COMPLETED').reduce((n, c) => n + Number(c.amountMinor), 0);
    // A give-back pawaPay failed returns its money to the campaign's account (for review); one pending is on its way out.
    const onTheirWay = its.filter((c) => (c.refund as GiveBack)?.status === 'pending').reduce((n, c) => n + Number(c.amountMinor), 0);
    const held = its.filter((c) => c.status === 'succeeded').reduce((n, c) => n + Number(c.amountMinor), 0);
    world.note(
      `campaign ${campaign.id as string} ${campaign.status as string}: ledger ${String(campaign.ledgerBalanceMinor)}, held ${String(campaign.heldAmountMinor)}; pawaPay's records imply ${collected - gone - onTheirWay}, held ${held}`,
    );
    if (campaign.ledgerBalanceMinor !== collected - gone - onTheirWay)
      fail(
        `campaign ${campaign.id as string}'s ledger account holds ${String(campaign.ledgerBalanceMinor)}; pawaPay's records imply ${collected - gone - onTheirWay} (collected ${collected}, given back ${gone}, on their way ${onTheirWay})`,
      );
    if (campaign.heldAmountMinor !== held) fail(`campaign ${campaign.id as string} says it holds ${String(campaign.heldAmountMinor)}; its succeeded contributions add up to ${held}`);
  }

  // pawaPay's wallet is what it took less what it paid out: the reconciliation compares it with the ledger.
  let wallet = 0;
  for (const o of ops.values()) if (o.status === 'COMPLETED') wallet += o.kind === 'deposits' ? o.amount : -o.amount;
  for (const country of ['SEN', 'BFA', 'GHA', 'KEN']) standin.wallets.set(country, country === 'SEN' ? `${wallet}.00` : '0.00');

  // The service's own checks, at once: each is a process of its own that mostly waits to start.
  const checks: { args: string[]; ok: (r: { code: number | null; output: string }) => boolean }[] = [
    { args: ['reconcile', 'pawapay'], ok: (r) => r.code === 0 },
    // The one difference it may find is a refund Paystack never took, pending at Sika (never sent again).
    { args: ['reconcile', 'paystack'], ok: (r) => r.code === 0 || differences(r.output).every((d) => neverTaken.has(/^refund (re_\w+) .*: Sika pending, paystack not_found$/.exec(d)?.[1] ?? '')) },
    // The one difference it may find is a Mali payment whose one attempt Hub2 never took, processing at Sika (never sent again).
    { args: ['reconcile', 'hub2'], ok: (r) => r.code === 0 || (differences(r.output).length > 0 && differences(r.output).every((d) => hub2.neverTaken.has(/^payment (pi_\w+) .*: Sika processing, hub2 not_found$/.exec(d)?.[1] ?? ''))) },
    // Listed by design: a give-back pawaPay failed (the contribution stays given back, its money back on the campaign's account, for an operator).
    { args: ['rails', 'review', '--json'], ok: (r) => r.code === 0 && reviewItems(r.output)?.every((i) => i.object === 'refund' && i.status === 'failed' && (contributions.get(i.id)?.refund as GiveBack)?.status === 'failed') === true },
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
