/**
 * The Python client (clients/python) as its README says to install it: `make python-client` builds
 * the wheel (sika.openapi generated from docs/openapi.json), pip installs it into an empty virtual
 * environment, and there, against a real server: the README's first payment and webhook receiver,
 * taken from the README itself; then the checks of test/support/python-client-checks.py: one
 * Idempotency-Key on every attempt of a POST (an answer lost, 409 IKW-IDM-003, a proxy's 503), no
 * answer at all, typed errors, every page of cursor and page lists, webhook verification of a real
 * delivery, and a wheel generated from today's docs/openapi.json.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from '#tap';
import { root } from '../support/child-process.js';
import { README_RECEIVER_TIMEOUT_MS, readmeExamples, receiverVerifies, run, succeeds } from '../support/client-readmes.js';
import { fund } from '../support/payouts.js';
import { advance, OPERATOR_DELAY_MS } from '../support/system.js';
import { createIntentEvent, listeningEndpoint, settle, startWebhookService } from '../support/webhooks.js';

const svc = await startWebhookService(t, { webhookTimeoutMs: README_RECEIVER_TIMEOUT_MS, env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

const project = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-python-project-'));
t.teardown(() => fs.rmSync(project, { recursive: true, force: true }));
const python = path.join(project, 'venv/bin/python');
const examples = readmeExamples('clients/python/README.md', 'python');
const checks = path.join(root, 'test/support/python-client-checks.py');

/** One check of checks.py in the virtual environment, with this key: what it printed, parsed. */
async function check(name: string, key: string, env: Record<string, string> = {}): Promise<any> {
  const p = run(python, [checks, name], project, { SIKA_API_KEY: key, SIKA_API_BASE: svc.baseUrl, ...env });
  const code = await p.exit;
  if (code !== 0) throw new Error(`checks.py ${name}: exit ${code}\n${p.output()}`);
  return JSON.parse(p.output().trim().split('\n').at(-1)!);
}

const POST_KEY = /^[0-9a-f-]{36}$/;

t.test('make python-client builds the wheel; pip installs it into an empty virtual environment', async (t) => {
  t.same([...examples.keys()], ['first_payment.py', 'receiver.py'], "the README's examples");
  const build = run('make', ['-s', 'python-client'], root);
  await succeeds(t, build, 'make python-client');
  const wheel = path.join(root, build.output().trim().split('\n').at(-1)!);
  t.match(path.basename(wheel), /^sika-\d+\.\d+\.\d+-py3-none-any\.whl$/);

  await succeeds(t, run('python3.11', ['-m', 'venv', 'venv'], project), 'an empty virtual environment');
  const before = run(python, ['-m', 'pip', 'list', '--format=freeze', '--disable-pip-version-check'], project);
  await succeeds(t, before, 'pip list');
  t.notMatch(before.output(), /^(sika|httpx)==/m, 'empty: neither sika nor httpx');
  await succeeds(t, run(python, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', wheel], project), 'pip install of the wheel');
  for (const [file, code] of examples) fs.writeFileSync(path.join(project, file), code);

  const { openapi_sha256 } = await check('source', '');
  const today = createHash('sha256')
    .update(fs.readFileSync(path.join(root, 'docs/openapi.json')))
    .digest('hex');
  t.equal(openapi_sha256, today, "the installed client was generated from today's docs/openapi.json (else: make python-client)");
});

t.test('a model is loaded when it is first used: a program that uses a few does not load them all', async (t) => {
  // Importing every model's module took seconds per process (each check here is one).
  const models = await check('models', '');
  t.ok(models.models > 1_000, `the client has every model (${models.models})`);
  t.ok(models.loaded_at_start.includes('post_payouts_body'), 'what the program imports is loaded');
  t.ok(models.loaded_at_start.length < 100, `and little else: ${models.loaded_at_start.length} modules of ${models.models} models`);
  t.equal(models.every_model_is_a_class, true, 'every name of __all__ is a model class once asked for');
  t.match(models.unknown, /has no attribute 'NoSuchModel'/, 'an unknown name is an AttributeError');
});

t.test("the README's first payment, run in that environment", async (t) => {
  const { key } = await svc.sandboxMerchant();
  const script = run(python, ['first_payment.py'], project, { SIKA_API_KEY: key, SIKA_API_BASE: svc.baseUrl });
  t.teardown(() => void script.child.kill('SIGKILL'));
  await script.waitFor(/^pi_\S+ processing$/m);
  await advance(svc); // the sandbox operator answers, on the service's clock
  await succeeds(t, script, 'the script');
  const lines = script.output().trim().split('\n');
  t.match(lines, [/^pi_\S+ processing$/, /^pi_\S+ succeeded$/, /^po_\S+ in_transit$/, /^404 IKW-RES-001 req_\S+$/]);
  t.equal(lines.length, 4);
  const payout = await svc.request('GET', `/api/v1/payouts/${lines[2]!.split(' ')[0]}`, { key, headers: { 'X-Environment': 'sandbox' } });
  t.match(payout.body, { amount: 1000, currency: 'xof' }, 'the payout of 1,000 XOF, from the payment');
});

t.test("the README's webhook receiver verifies a real delivery and refuses a forged one", async (t) => {
  const { key } = await svc.sandboxMerchant();
  await receiverVerifies(t, svc, key, (env) => run(python, ['receiver.py'], project, env));
});

t.test('an answer lost on the way: the retry carries the same key and creates nothing twice', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const r = await check('lost_answer', key);
  t.equal(r.sent.length, 2, 'sent twice');
  t.match(r.sent[0], { method: 'POST', idempotency_key: POST_KEY, environment: 'sandbox', authorization: `Bearer ${key}` });
  t.equal(r.sent[1].idempotency_key, r.sent[0].idempotency_key, 'with one key');
  t.equal(r.waits.length, 1);
  t.ok(r.waits[0] >= 0.25 && r.waits[0] <= 0.5, `backoff ${r.waits[0]} s`);
  t.same(r.intents, [r.intent], 'one payment intent');
});

t.test('409 IKW-IDM-003 and a 5xx are retried with the same key; retries end', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const r = await check('refusals_retried', key);
  t.equal(r.sent.length, 3, '409, 503, then the service');
  t.equal(new Set(r.sent.map((s: { idempotency_key: string }) => s.idempotency_key)).size, 1, 'one key on the three attempts');
  t.match(r.sent[0].idempotency_key, POST_KEY);
  t.equal(r.waits.length, 2);
  t.same(
    r.intents.filter((id: string) => id === r.intent),
    [r.intent],
  );
  t.equal(r.exhausted_sent.length, 3, 'an attempt and two retries, then the error');
  t.match(r.exhausted, { type: 'SikaError', status: 409, code: 'IKW-IDM-003', retryable: true, request_id: 'req_injected' });
  t.equal(new Set(r.exhausted_sent.map((s: { idempotency_key: string }) => s.idempotency_key)).size, 1);
  t.ok(r.exhausted_waits[1] > r.exhausted_waits[0] * 0.9 || r.exhausted_waits[1] >= 0.5, `growing backoff ${r.exhausted_waits}`);
});

t.test('429: waits as Retry-After says, then succeeds', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const r = await check('rate_limited', key);
  t.equal(r.balance, 'balance');
  t.equal(r.sent.length, 2);
  t.same(r.waits, [2], 'Retry-After: 2');
});

t.test('no answer at all: retried, then a SikaError with status 0', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const r = await check('no_answer', key);
  t.equal(r.sent.length, 4, 'one attempt and three retries');
  t.equal(r.waits.length, 3);
  t.match(r.error, { type: 'SikaError', status: 0, code: null, retryable: true, message: /No answer/ });
});

t.test('refusals are typed errors, not retried', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const r = await check('refused', key);
  t.match(r.invalid, { type: 'SikaError', status: 400, code: 'IKW-VAL-001', param: 'amount', retryable: false, request_id: /^req_/ });
  t.match(r.missing, { type: 'SikaError', status: 404, code: 'IKW-RES-001', retryable: false, errors: [] });
  t.match(r.wrong_environment, { type: 'SikaError', status: 403, code: 'IKW-AUT-003' }, 'environment="live" is sent as X-Environment');
  t.equal(r.sent.length, 2, 'each sent once');
  t.same(r.waits, []);
  t.equal(r.sent[0].environment, 'sandbox', "a payout, whose X-Environment the document requires: the key's");
});

t.test('list: every item of cursor lists and page lists, page after page', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  await fund(svc, merchant.id, 1_000_000);
  const intents: string[] = [];
  for (let i = 0; i < 5; i++) {
    intents.push((await createIntentEvent(svc, key, 1_000 + i)).id);
    svc.clock.advance(1_000); // one creation time each: newest first is one order
  }
  const { payouts } = await check('make_payouts', key, { COUNT: '3' });
  const r = await check('pages', key);
  t.same(r.cursor, [...intents].reverse(), 'newest first, all five');
  t.equal(r.cursor_sent.length, 3, 'three pages of two');
  t.match(r.cursor_sent[2].url, new RegExp(`starting_after=${intents[1]}`));
  t.same([...r.paged].sort(), [...payouts].sort(), 'a page list: every payout');
  t.equal(r.paged_sent.length, 2);
  t.match(r.paged_sent[1].url, /page=2/);
});

t.test('webhooks.verify: a real delivery verifies; a changed one, another secret, a bad signature do not', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const { receiver, endpoint } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  const intent = await createIntentEvent(svc, key, 3_000);
  await settle(svc);
  await receiver.received(1);
  const delivery = receiver.requests[0]!;
  t.match(delivery.body, /"amount":3000/, 'the body the check changes');
  const r = await check('webhook', key, { DELIVERY: JSON.stringify({ body: delivery.body, headers: delivery.headers, secret: endpoint.secret }) });
  t.match(r.event, { object: 'event', type: 'payment_intent.created', data: { id: intent.id } });
  t.same(r.event, (await svc.request('GET', `/api/v1/events/${r.event.id}`, { key })).body, 'the events API holds the same event');
  t.equal(r.changed_body, 'WebhookVerificationError');
  t.equal(r.other_secret, 'WebhookVerificationError');
  t.equal(r.malformed_signature, 'WebhookVerificationError');
  t.equal(r.no_signature, 'WebhookVerificationError');
});
