/**
 * `sika listen` (docs/webhooks.md): the real command-line process follows a merchant's events
 * through the events API and forwards the ones its filter names to a receiver on loopback, signed
 * with the session's secret, which the receiver verifies with `standardwebhooks`; one line per
 * delivery; Ctrl-C stops it; started again, it forwards what happened while it was stopped.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { startProcess, type ServiceProcess } from '../support/child-process.js';
import { advance, OPERATOR_DELAY_MS } from '../support/system.js';
import { fundedMerchant, mobileMoney, payout } from '../support/payouts.js';
import { createIntentEvent, Receiver, settle, startWebhookService } from '../support/webhooks.js';

const svc = await startWebhookService(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });
const stateFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'sika-listen-')), 'listen.json');

function sikaListen(key: string, forwardTo: string, ...extra: string[]): ServiceProcess {
  return startProcess('bin/cli.js', {}, ['listen', '--forward-to', forwardTo, '--api-key', key, '--api-base', svc.baseUrl, '--state', stateFile, ...extra]);
}

/** Starts a session and answers its signing secret, once it is following the events. */
async function session(p: ServiceProcess): Promise<string> {
  await p.waitFor(/Signing secret of this session: whsec_\S+\n/);
  return /Signing secret of this session: (whsec_\S+)/.exec(p.output())![1]!;
}

/** The merchant's payout events as the events API holds them, oldest first. */
async function payoutEvents(key: string): Promise<{ id: string; type: string }[]> {
  const res = await svc.request('GET', '/api/v1/events?type=payout.*&limit=100', { key });
  return (res.body.data as { id: string; type: string }[]).reverse();
}

async function paidPayout(key: string): Promise<void> {
  await payout(svc, key, { destination: mobileMoney('67') });
  await advance(svc);
  await settle(svc);
}

t.test("a payout's events forwarded, signed, verified by standardwebhooks; resumed after a stop", async (t) => {
  const { key } = await fundedMerchant(svc, 500_000);
  const receiver = await Receiver.start(t, svc);
  const first = sikaListen(key, receiver.url, '--events', 'payout.*');
  t.teardown(() => void first.child.kill('SIGKILL'));
  const secret = await session(first);

  await createIntentEvent(svc, key); // not a payout event: not forwarded
  await paidPayout(key);
  const expected = await payoutEvents(key);
  t.same(expected.map((e) => e.type).slice(0, 1), ['payout.created']);
  t.ok(expected.length >= 2, `the payout's events: ${expected.map((e) => e.type).join(', ')}`);
  await receiver.received(expected.length);

  t.same(receiver.requests.map((r) => r.headers['webhook-id']), expected.map((e) => e.id), 'every payout event, in order, nothing else');
  for (const req of receiver.requests) {
    const payload = new Webhook(secret).verify(req.body, req.headers) as { id: string };
    const stored = await svc.request('GET', `/api/v1/events/${payload.id}`, { key });
    t.equal(req.body, JSON.stringify(stored.body), 'the body is the event as its webhooks carry it');
    t.equal(req.method, 'POST');
  }
  for (const e of expected) t.match(first.output(), new RegExp(`${e.type.replace('.', '\\.')}  ${e.id}  -> 200 \\(\\d+ ms\\)`), `a line for ${e.type}`);

  first.child.kill('SIGINT');
  t.equal(await first.exit, 0, 'Ctrl-C stops it');
  t.match(first.output(), /Stopped\./);

  // While it is stopped: another payout.
  await paidPayout(key);
  const missed = (await payoutEvents(key)).slice(expected.length);
  t.ok(missed.length >= 2);
  const second = sikaListen(key, receiver.url, '--events', 'payout.*');
  t.teardown(() => void second.child.kill('SIGKILL'));
  const secondSecret = await session(second);
  t.not(secondSecret, secret, 'a new secret each session');
  t.match(second.output(), new RegExp(`Resuming after ${expected.at(-1)!.id}`));
  await receiver.received(expected.length + missed.length);
  const resumed = receiver.requests.slice(expected.length);
  t.same(resumed.map((r) => r.headers['webhook-id']), missed.map((e) => e.id), 'what happened while it was stopped, once');
  for (const req of resumed) t.ok(new Webhook(secondSecret).verify(req.body, req.headers));
  second.child.kill('SIGINT');
  t.equal(await second.exit, 0);
});

t.test('a receiver that is down: the line says so, and the next event is still forwarded', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const receiver = await Receiver.start(t, svc);
  receiver.behaviour = { kind: 'answer', status: 500, body: 'boom' };
  const p = sikaListen(key, receiver.url, '--state', path.join(path.dirname(stateFile), 'other.json'));
  t.teardown(() => void p.child.kill('SIGKILL'));
  await session(p);
  await createIntentEvent(svc, key);
  await settle(svc);
  await receiver.received(1);
  receiver.behaviour = { kind: 'answer', status: 204, body: '' };
  await createIntentEvent(svc, key);
  await settle(svc);
  await receiver.received(2);
  await p.waitFor(/-> 204/);
  t.match(p.output(), /payment_intent\.created {2}evt_\S+ {2}-> 500/);
  p.child.kill('SIGINT');
  t.equal(await p.exit, 0);
});

t.test('refusals: a mistyped filter, a bad key, no key', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const typo = sikaListen(key, 'http://127.0.0.1:9/hooks', '--events', 'payout.sent');
  t.equal(await typo.exit, 1);
  t.match(typo.output(), /IKW-VAL-001/);
  const bad = sikaListen(`sk_test_${'x'.repeat(43)}`, 'http://127.0.0.1:9/hooks');
  t.equal(await bad.exit, 1);
  t.match(bad.output(), /IKW-AUT-002/);
  const none = startProcess('bin/cli.js', {}, ['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--api-base', svc.baseUrl]);
  t.equal(await none.exit, 2);
  t.match(none.output(), /--api-key or SIKA_API_KEY is required/);
});
