/**
 * `sika listen` (docs/webhooks.md): the real command-line process follows a merchant's events
 * through the events API and forwards the ones its filter names to a receiver on loopback, signed
 * with the secret kept for the service and key, which the receiver verifies with `standardwebhooks`;
 * one line per delivery; Ctrl-C stops it; started again, it forwards what happened while it was
 * stopped, signed with the same secret (`--new-secret` replaces it); started before the service,
 * it waits for it. The key comes from SIKA_API_KEY; plain http goes to this machine only; redirects
 * are not followed; the state is the user's alone.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from '#tap';
import { Webhook } from 'standardwebhooks';
import { startProcess, type ServiceProcess } from '../../support/child-process.js';
import { advance, freePort, OPERATOR_DELAY_MS } from '../../support/system.js';
import { fundedMerchant, mobileMoney, payout } from '../../support/payouts.js';
import { createIntentEvent, Receiver, settle, startWebhookService } from '../../support/webhooks.js';

const svc = await startWebhookService(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });
const stateFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'sika-listen-')), 'listen.json');

/** `sika listen` with the key in SIKA_API_KEY, as the README has it; later arguments win. */
function sikaListen(key: string, forwardTo: string, ...extra: string[]): ServiceProcess {
  return startProcess('bin/cli.js', { SIKA_API_KEY: key }, ['listen', '--forward-to', forwardTo, '--api-base', svc.baseUrl, '--state', stateFile, ...extra]);
}

/** The signing secret a session shows, once it is following the events. */
async function session(p: ServiceProcess): Promise<string> {
  await p.waitFor(/Forwarding to .*Ctrl-C stops\.\n/);
  await p.waitFor(/Signing secret: whsec_\S+\n/); // stdout: it may arrive after stderr's lines
  return /Signing secret: (whsec_\S+)\n/.exec(p.output())![1]!;
}

/** Whether `secret` signed the request (standardwebhooks throws on a signature it did not make). */
function signedWith(secret: string, req: { body: string; headers: Record<string, string> }): boolean {
  try {
    new Webhook(secret).verify(req.body, req.headers);
    return true;
  } catch {
    return false;
  }
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

t.test("a payout's events forwarded, signed, verified by standardwebhooks; resumed after a stop with the same secret; --new-secret replaces it", async (t) => {
  const { key } = await fundedMerchant(svc, 500_000);
  const receiver = await Receiver.start(t, svc);
  const first = sikaListen(key, receiver.url, '--events', 'payout.*');
  t.teardown(() => void first.child.kill('SIGKILL'));
  const secret = await session(first);
  t.match(first.output(), `A new signing secret, kept for ${svc.baseUrl} and this key in ${stateFile}.`);

  await createIntentEvent(svc, key); // not a payout event: not forwarded
  await paidPayout(key);
  const expected = await payoutEvents(key);
  t.same(expected.map((e) => e.type).slice(0, 1), ['payout.created']);
  t.ok(expected.length >= 2, `the payout's events: ${expected.map((e) => e.type).join(', ')}`);
  await receiver.received(expected.length);

  t.same(
    receiver.requests.map((r) => r.headers['webhook-id']),
    expected.map((e) => e.id),
    'every payout event, in order, nothing else',
  );
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
  t.equal(await session(second), secret, 'the secret shown the first time');
  t.notMatch(second.output(), /A new signing secret/);
  t.match(second.output(), new RegExp(`Resuming after ${expected.at(-1)!.id}`));
  await receiver.received(expected.length + missed.length);
  const resumed = receiver.requests.slice(expected.length);
  t.same(
    resumed.map((r) => r.headers['webhook-id']),
    missed.map((e) => e.id),
    'what happened while it was stopped, once',
  );
  for (const req of resumed) t.ok(signedWith(secret, req), 'caught up on, and verified with the secret the receiver has');
  second.child.kill('SIGINT');
  t.equal(await second.exit, 0);
  const kept = JSON.parse(readFileSync(stateFile, 'utf8')) as Record<string, { signing_secret: string; last_event_id: string }>;
  t.same(Object.values(kept), [{ signing_secret: secret, last_event_id: missed.at(-1)!.id }], 'kept: the secret and the position, not the key');
  t.notMatch(JSON.stringify(kept), key);

  const other = await svc.sandboxMerchant();
  const elsewhere = sikaListen(other.key, 'http://127.0.0.1:9/hooks');
  t.teardown(() => void elsewhere.child.kill('SIGKILL'));
  t.not(await session(elsewhere), secret, 'another key: a secret of its own');
  elsewhere.child.kill('SIGINT');
  t.equal(await elsewhere.exit, 0);

  const third = sikaListen(key, receiver.url, '--events', 'payout.*', '--new-secret');
  t.teardown(() => void third.child.kill('SIGKILL'));
  const replaced = await session(third);
  t.not(replaced, secret, '--new-secret: another secret');
  t.match(third.output(), 'A new signing secret replaces the one kept (--new-secret): give it to your receiver.');
  await paidPayout(key);
  const later = (await payoutEvents(key)).slice(expected.length + missed.length);
  await receiver.received(expected.length + missed.length + later.length);
  for (const req of receiver.requests.slice(expected.length + missed.length)) {
    t.ok(signedWith(replaced, req), 'signed with the new secret');
    t.notOk(signedWith(secret, req), 'not with the old one');
  }
  third.child.kill('SIGINT');
  t.equal(await third.exit, 0);

  const fourth = sikaListen(key, receiver.url, '--events', 'payout.*');
  t.teardown(() => void fourth.child.kill('SIGKILL'));
  t.equal(await session(fourth), replaced, 'the new secret is the one kept');
  fourth.child.kill('SIGINT');
  t.equal(await fourth.exit, 0);
});

t.test('started before the service: it says so once, waits, and forwards once the service is up', async (t) => {
  // A service stopped (its merchant's key made), then started again on the same database and port.
  const port = await freePort();
  const before = await startWebhookService(t, { publicOrigin: port });
  const { key } = await before.sandboxMerchant();
  const receiver = await Receiver.start(t, before);
  await before.stop();

  const p = startProcess('bin/cli.js', { SIKA_API_KEY: key, SIKA_LISTEN_FIRST_RETRY_MS: '20' }, [
    'listen',
    '--forward-to',
    receiver.url,
    '--api-base',
    `http://127.0.0.1:${port}`,
    '--state',
    path.join(path.dirname(stateFile), 'early.json'),
  ]);
  t.teardown(() => void p.child.kill('SIGKILL'));
  await p.waitFor(/did not answer: .*; asking again after 0\.02 s, then less often \(up to every 30 s\) until it answers\.\n/);
  // The secret is on stdout, the wait on stderr: two pipes, so the stderr line may be read first.
  await p.waitFor(/Signing secret: whsec_\S+\n/);
  const secret = /Signing secret: (whsec_\S+)\n/.exec(p.output())?.[1];
  t.ok(secret, 'the secret is shown at once, for the receiver to be set up meanwhile');
  t.equal(p.child.exitCode, null, 'still running');

  const after = await startWebhookService(t, { publicOrigin: port, databaseUrl: before.databaseUrl });
  t.equal(await session(p), secret);
  t.equal(p.output().match(/asking again/g)?.length, 1, 'one line for the whole wait');
  await createIntentEvent(after, key);
  await settle(after);
  await receiver.received(1);
  t.ok(signedWith(secret!, receiver.requests[0]!), 'forwarded, signed with the secret shown');
  p.child.kill('SIGINT');
  t.equal(await p.exit, 0);
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
  t.notMatch(typo.output(), /Warning/, 'no warning with the key in SIKA_API_KEY');
  const bad = sikaListen(`sk_test_${'x'.repeat(43)}`, 'http://127.0.0.1:9/hooks');
  t.equal(await bad.exit, 1);
  t.match(bad.output(), /IKW-AUT-002/);
  const none = startProcess('bin/cli.js', {}, ['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--api-base', svc.baseUrl]);
  t.equal(await none.exit, 2);
  t.match(none.output(), /SIKA_API_KEY \(or --api-key\) is required/);
});

t.test('--api-key still works, with a warning: other users of the machine see it in the process list', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const p = startProcess('bin/cli.js', {}, ['listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--api-key', key, '--api-base', svc.baseUrl, '--state', path.join(path.dirname(stateFile), 'flag.json'), '--events', 'payout.sent']);
  t.equal(await p.exit, 1, 'the key was used: the API refused the filter, not the key');
  t.match(p.output(), /IKW-VAL-001/);
  t.match(p.output(), /Warning: --api-key shows the key to other users of this machine \(process list\) and keeps it in shell history; export SIKA_API_KEY instead\./);
});

t.test('plain http only to this machine: the key would cross the network in clear', async (t) => {
  const { key } = await svc.sandboxMerchant();
  for (const base of ['http://sika.example:3000', 'http://10.0.0.5:3000', 'http://[fd00::1]:3000', 'ftp://sika.example']) {
    const p = sikaListen(key, 'http://127.0.0.1:9/hooks', '--api-base', base);
    t.equal(await p.exit, 2, `${base}: refused before any request`);
    t.match(p.output(), base.startsWith('ftp') ? /--api-base must be an https:\/\/ URL/ : /is plain http to another machine: the API key would cross the network in clear/);
  }
  const env = startProcess('bin/cli.js', { SIKA_API_KEY: key, SIKA_API_BASE: 'http://sika.example' }, ['listen', '--forward-to', 'http://127.0.0.1:9/hooks']);
  t.equal(await env.exit, 2, 'SIKA_API_BASE alike');
  t.match(env.output(), /--api-base http:\/\/sika\.example is plain http/);
  // Loopback in its spellings is accepted: these runs get to their first request, which nothing on port 9 answers, and wait.
  for (const base of ['http://localhost:9', 'http://127.0.0.2:9', 'http://[::1]:9']) {
    const p = sikaListen(key, 'http://127.0.0.1:9/hooks', '--api-base', base);
    t.teardown(() => void p.child.kill('SIGKILL'));
    await p.waitFor(/did not answer/);
    p.child.kill('SIGINT');
    t.equal(await p.exit, 0, `${base}: accepted, then tried, and waited until stopped`);
  }
});

t.test("redirects are not followed: not the API's (the key would follow), not the receiver's", async (t) => {
  const { key } = await svc.sandboxMerchant();
  const elsewhere = await Receiver.start(t, svc);
  const redirector = await Receiver.start(t, svc);
  redirector.behaviour = { kind: 'answer', status: 307, body: '', headers: { location: `${elsewhere.url}/api/v1/events` } };
  const api = sikaListen(key, 'http://127.0.0.1:9/hooks', '--api-base', new URL(redirector.url).origin);
  t.equal(await api.exit, 1, 'a redirecting API base stops it');
  t.match(api.output(), /answered 307 to http:\/\/127\.0\.0\.1:\d+\/hooks\/api\/v1\/events, which is not followed/);
  t.equal(redirector.requests.length, 1);
  t.same(elsewhere.requests, [], 'the key went nowhere else');

  const receiver = await Receiver.start(t, svc);
  receiver.behaviour = { kind: 'answer', status: 302, body: '', headers: { location: elsewhere.url } };
  const p = sikaListen(key, receiver.url, '--state', path.join(path.dirname(stateFile), 'redirect.json'));
  t.teardown(() => void p.child.kill('SIGKILL'));
  await session(p);
  await createIntentEvent(svc, key);
  await settle(svc);
  await receiver.received(1);
  await p.waitFor(/-> 302/);
  t.match(p.output(), new RegExp(`payment_intent\\.created {2}evt_\\S+ {2}-> 302 \\(redirect to ${elsewhere.url.replace(/[.]/g, '\\.')} not followed\\)`));
  t.same(elsewhere.requests, [], 'the event was posted to the local URL only');
  p.child.kill('SIGINT');
  t.equal(await p.exit, 0);
});

t.test("the state directory it makes is the user's alone (0700), the state file 0600", async (t) => {
  const { key } = await svc.sandboxMerchant();
  const receiver = await Receiver.start(t, svc);
  const dir = path.join(path.dirname(stateFile), 'made', 'here');
  const p = sikaListen(key, receiver.url, '--state', path.join(dir, 'listen.json'));
  t.teardown(() => void p.child.kill('SIGKILL'));
  await session(p);
  await createIntentEvent(svc, key);
  await settle(svc);
  await receiver.received(1);
  await p.waitFor(/-> 200/);
  p.child.kill('SIGINT');
  t.equal(await p.exit, 0);
  t.equal(statSync(dir).mode & 0o777, 0o700);
  t.equal(statSync(path.dirname(dir)).mode & 0o777, 0o700, 'each directory it made');
  t.equal(statSync(path.join(dir, 'listen.json')).mode & 0o777, 0o600);
});
