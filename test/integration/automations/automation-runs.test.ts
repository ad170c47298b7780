/**
 * Automations running: each trigger kind (an event, a cron schedule, a test run), each action
 * against real receivers (SMTP on loopback for e-mail, the outbox for SMS, an HTTP receiver on
 * loopback, invoices, payouts, customer tags), a wait that crosses a restart, a step that fails
 * and is retried, the URL policy at call time, the disabling of an automation that keeps failing
 * (and its notice), cancel, and the step logs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from '#tap';
import { ManualClock } from '#packages/core/clock.js';
import { createLogger } from '#packages/core/logger.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { automationMigrations } from '#packages/families/automations/schema.js';
import { openSystem } from '../../../services/system.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { AUTOMATIONS, createAutomation, onPaymentIntent, publishedTemplate, runOf, runsOf } from '../../support/automations.js';
import { fundedMerchant, mobileMoney } from '../../support/payouts.js';
import { createIntentEvent, mailedCode, Receiver, startSmtp, startWebhookService, verify } from '../../support/webhooks.js';

const smtp = await startSmtp(t);
const svc = await startWebhookService(t, { env: { SMTP_URL: smtp.url } });
const MINUTE = 60_000;
const BUYER = '+221771234567';

/** Makes a payment intent (payment_intent.created) and lets the runner run what it starts. */
async function paymentIntentEvent(key: string, amount = 10_000): Promise<void> {
  await createIntentEvent(svc, key, amount);
  await svc.system.drain();
}

async function smsTo(to: string): Promise<string[]> {
  const kept = await svc.system.outbox.kept({ channel: 'sms', recipient: to, purpose: 'automation' }, 100);
  return kept.reverse().map((m) => m.text!);
}

t.test('an event runs e-mail (SMTP), SMS and a signed HTTP call; the logs hold each step', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  // A sandbox automation writes only to the merchant's team, at a verified address (automation-sending.test.ts).
  const member = await svc.member(merchant, 'buyer@example.com', 'correct horse battery');
  await svc.system.accounts.verifyContact(member, 'email', 'buyer@example.com', { actor: 'test' });
  const receiver = await Receiver.start(t, svc);
  const email = await publishedTemplate(svc, key, 'email');
  const sms = await publishedTemplate(svc, key, 'sms');
  const automation = await createAutomation(
    svc,
    key,
    onPaymentIntent([
      { id: 'email', action: 'send_email', params: { templateId: email, to: 'buyer@example.com' } },
      { id: 'sms', action: 'send_sms', params: { templateId: sms, to: BUYER } },
      { id: 'call', action: 'http_request', params: { url: receiver.url, body: { amount: '{{ event.data.amount }}', subject: '{{ steps.email.subject }}' } } },
    ]),
  );
  const before = smtp.mails.length;
  await paymentIntentEvent(key);

  const mails = smtp.mails.slice(before);
  t.equal(mails.length, 1, 'one e-mail through SMTP');
  t.same(mails[0]!.to, ['buyer@example.com']);
  t.match(mails[0]!.raw, /Subject: Payment of 10000 XOF/);
  t.match(mails[0]!.raw, /We saw your payment of 10000\./);
  t.match(mails[0]!.raw, /<b>10000<\/b>/, 'with its HTML part');
  t.same(await smsTo(BUYER), ['Sika: payment of 10000 xof'], 'the SMS is in the outbox (no gateway here; in the sandbox, held there)');

  t.equal(receiver.count, 1);
  const request = receiver.requests[0]!;
  const [run] = await runsOf(svc, key, automation.id);
  t.equal(request.headers['idempotency-key'], `${run!.id}.call`, 'the step’s key, derived from run and step');
  t.same(verify(automation.secret, request), { amount: '10000', subject: 'Payment of 10000 XOF' }, 'signed with the automation’s secret (Standard Webhooks)');

  t.match(run, { status: 'succeeded', error: null, test: false });
  const detail = await runOf(svc, key, automation.id, run!.id);
  t.same(
    detail.logs.map((l) => [l.step, l.action, l.attempt, l.status]),
    [
      ['email', 'send_email', 1, 'succeeded'],
      ['sms', 'send_sms', 1, 'succeeded'],
      ['call', 'http_request', 1, 'succeeded'],
    ],
  );
  t.match(detail.logs[0]!, { input: { templateId: email, to: 'buyer@example.com' }, output: { subject: 'Payment of 10000 XOF', delivery: 'delivered' }, error: null });
  t.match(detail.logs[2]!, { output: { status: 200, body: 'ok' } });
  t.ok(
    detail.logs.every((l) => Number.isInteger(l.durationMs) && l.durationMs >= 0),
    'each with its duration',
  );
  const logs = await svc.request('GET', `${AUTOMATIONS}/logs?automation=${automation.id}&action=send_sms`, { key });
  assertOk(t, logs);
  t.same(
    logs.body.data.map((l: { step: string }) => l.step),
    ['sms'],
    'the logs route filters by action',
  );

  await paymentIntentEvent(key);
  t.equal((await runsOf(svc, key, automation.id)).length, 2, 'one run per event');
});

t.test('a failing step is retried with back-off, under the same key, then succeeds', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const receiver = await Receiver.start(t, svc);
  receiver.behaviour = { kind: 'answer', status: 503, body: 'busy' };
  const automation = await createAutomation(svc, key, onPaymentIntent([{ id: 'call', action: 'http_request', params: { url: receiver.url } }]));
  await paymentIntentEvent(key);
  const [run] = await runsOf(svc, key, automation.id);
  t.equal(run!.status, 'running', 'still running: a retry is due');
  let detail = await runOf(svc, key, automation.id, run!.id);
  t.match(detail.logs, [{ attempt: 1, status: 'failed', error: 'HTTP 503', output: null }]);

  svc.clock.advance(MINUTE - 1_000);
  await svc.system.scheduler.runUntilIdle();
  t.equal(receiver.count, 1, 'not before the back-off (1 minute)');
  receiver.behaviour = { kind: 'answer', status: 200, body: '{"received":true}' };
  svc.clock.advance(1_000);
  await svc.system.scheduler.runUntilIdle();
  t.equal(receiver.count, 2);
  t.equal(receiver.requests[1]!.headers['idempotency-key'], receiver.requests[0]!.headers['idempotency-key'], 'the same key on every attempt');
  detail = await runOf(svc, key, automation.id, run!.id);
  t.equal(detail.status, 'succeeded');
  t.match(detail.logs[1], { attempt: 2, status: 'succeeded', output: { status: 200, body: { received: true } } });
});

t.test('a run fails after its last attempt; after five failed runs the automation is disabled and the merchant told', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const receiver = await Receiver.start(t, svc);
  receiver.behaviour = { kind: 'answer', status: 500, body: 'no' };
  const automation = await createAutomation(svc, key, { name: 'Always failing', ...onPaymentIntent([{ id: 'call', action: 'http_request', params: { url: receiver.url }, retry: { maxAttempts: 2 } }]) });
  for (let i = 0; i < 5; i++) {
    await paymentIntentEvent(key);
    svc.clock.advance(MINUTE);
    await svc.system.drain();
  }
  const runs = await runsOf(svc, key, automation.id);
  t.equal(runs.length, 5);
  t.ok(
    runs.every((r) => r.status === 'failed'),
    'every run failed',
  );
  t.match(runs[0]!.error, /step call \(http_request\) failed after 2 attempts: HTTP 500/);
  t.equal(receiver.count, 10, 'two attempts each');
  const got = await svc.request('GET', `${AUTOMATIONS}/${automation.id}`, { key });
  t.match(got.body, { status: 'disabled', disabledReason: 'failures' });
  const notices = (await svc.system.knex('email_outbox').where({ merchant_id: merchant.id })) as { subject: string; body: string }[];
  t.equal(notices.length, 1, 'told once');
  t.equal(notices[0]!.subject, 'Automation disabled: Always failing');
  t.match(notices[0]!.body, /failed 5 runs in a row/);
  await paymentIntentEvent(key);
  t.equal((await runsOf(svc, key, automation.id)).length, 5, 'a disabled automation starts no run');
  const enabled = await svc.request('POST', `${AUTOMATIONS}/${automation.id}/enable`, { key });
  t.match(enabled.body, { status: 'enabled', disabledReason: null }, 'the merchant can enable it again');
});

t.test('a wait is a durable timer: it crosses a restart of the service', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const receiver = await Receiver.start(t, svc);
  const automation = await createAutomation(
    svc,
    key,
    onPaymentIntent([
      { id: 'pause', action: 'wait', params: { seconds: 3_600 } },
      { id: 'call', action: 'http_request', params: { url: receiver.url } },
    ]),
  );
  await paymentIntentEvent(key);
  const [run] = await runsOf(svc, key, automation.id);
  t.equal(run!.status, 'waiting');
  const detail = await runOf(svc, key, automation.id, run!.id);
  t.match(detail.logs, [{ step: 'pause', status: 'waiting', output: { resumeAt: new Date(svc.clock.now().getTime() + 3_600_000).toISOString() } }]);
  svc.clock.advance(3_600_000 - 1);
  await svc.system.scheduler.runUntilIdle();
  t.equal(receiver.count, 0, 'nothing before the hour');

  // Another process on the same database, an hour later: it knows nothing but what is stored.
  const restarted = await openSystem(svc.system.config, { clock: new ManualClock(svc.clock.now().getTime() + 1), log: createLogger('silent') });
  t.teardown(() => restarted.close());
  await restarted.scheduler.runUntilIdle();
  t.equal(receiver.count, 1, 'the step after the wait ran in the restarted process');
  const after = await runOf(svc, key, automation.id, run!.id);
  t.equal(after.status, 'succeeded');
  t.same(
    after.logs.map((l) => [l.step, l.status]),
    [
      ['pause', 'succeeded'],
      ['call', 'succeeded'],
    ],
  );
});

t.test('a cron schedule starts a run at each tick until the automation is disabled', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const to = '+221770000001';
  const automation = await createAutomation(svc, key, {
    trigger: { type: 'schedule', cron: '*/5 * * * *' },
    steps: [{ id: 'remind', action: 'send_sms', params: { templateId: sms, to, data: { amount: 1, currency: '{{ run.scheduledFor | slice: 0, 10 }}' } } }],
  });
  await svc.system.drain();
  const nextTick = Math.ceil((svc.clock.now().getTime() + 1) / (5 * MINUTE)) * 5 * MINUTE;
  svc.clock.advance(nextTick - svc.clock.now().getTime() - 1);
  await svc.system.scheduler.runUntilIdle();
  t.equal((await runsOf(svc, key, automation.id)).length, 0, 'nothing before the tick');
  svc.clock.advance(1);
  await svc.system.drain();
  let runs = await runsOf(svc, key, automation.id);
  t.equal(runs.length, 1);
  t.match(runs[0], { status: 'succeeded', trigger: { kind: 'schedule', scheduledFor: new Date(nextTick).toISOString() } });
  t.same(await smsTo(to), [`Sika: payment of 1 ${new Date(nextTick).toISOString().slice(0, 10)}`]);
  svc.clock.advance(5 * MINUTE);
  await svc.system.drain();
  runs = await runsOf(svc, key, automation.id);
  t.equal(runs.length, 2, 'the next tick');
  await svc.request('POST', `${AUTOMATIONS}/${automation.id}/disable`, { key });
  svc.clock.advance(15 * MINUTE);
  await svc.system.drain();
  t.equal((await runsOf(svc, key, automation.id)).length, 2, 'no tick runs a disabled automation');
});

t.test('invoices and customer tags; a step re-run after a crash makes no second invoice', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const automation = await createAutomation(
    svc,
    key,
    onPaymentIntent([
      { id: 'invoice', action: 'create_invoice', params: { customer: 'ada@example.com', amount: '{{ event.data.amount }}', currency: '{{ event.data.currency }}', description: 'Follow-up' } },
      { id: 'tag', action: 'tag_customer', params: { customer: '{{ steps.invoice.customer }}', tag: 'vip' } },
    ]),
  );
  await paymentIntentEvent(key, 7_500);
  const [run] = await runsOf(svc, key, automation.id);
  t.equal(run!.status, 'succeeded', run!.error ?? '');
  const detail = await runOf(svc, key, automation.id, run!.id);
  const invoiceId = detail.logs[0]!.output.invoice;
  const invoice = await svc.request('GET', `/api/v1/merchant/invoices/${invoiceId}`, { key });
  assertOk(t, invoice);
  t.match(invoice.body, { id: invoiceId, status: 'open', currency: 'xof', metadata: { automation_id: automation.id, automation_run_id: run!.id } });
  const customerId = detail.logs[0]!.output.customer;
  const customer = await svc.request('GET', `/api/v1/merchant/customers/${customerId}`, { key });
  t.match(customer.body, { email: 'ada@example.com', metadata: { tags: 'vip' } });

  // The process died after the invoice was made and before the step was recorded: the job runs again.
  const { knex } = svc.system;
  await knex('automation_step_logs').where({ run_id: run!.id }).delete();
  await knex('automation_runs').where({ id: run!.id }).update({ status: 'running', current_step: 0 });
  await svc.system.automationRuns.runStep({ runId: run!.id, stepIndex: 0, attempt: 1 });
  await svc.system.drain();
  const again = await runOf(svc, key, automation.id, run!.id);
  t.equal(again.logs[0]!.output.invoice, invoiceId, 'the same invoice: its id derives from run and step');
  const invoices = await knex('read.invoices').whereRaw(`object->'metadata'->>'automation_run_id' = ?`, [run!.id]).count<{ count: string }[]>('* as count');
  t.equal(Number(invoices[0]!.count), 1, 'one invoice');
  t.match((await svc.request('GET', `/api/v1/merchant/customers/${customerId}`, { key })).body.metadata, { tags: 'vip' }, 'tagging is idempotent');
});

t.test('payouts: made once per run and step, refused on the merits when the balance is short', async (t) => {
  const { key } = await fundedMerchant(svc, 1_000_000);
  const automation = await createAutomation(svc, key, onPaymentIntent([{ id: 'payout', action: 'create_payout', params: { amount: 2_500, currency: 'xof', destination: mobileMoney() } }]));
  await paymentIntentEvent(key);
  const [run] = await runsOf(svc, key, automation.id);
  t.equal(run!.status, 'succeeded', run!.error ?? '');
  const detail = await runOf(svc, key, automation.id, run!.id);
  t.match(detail.logs[0]!.output, { payout: /^po_/, amount: 2_500, currency: 'xof' });
  const { knex } = svc.system;
  await knex('automation_step_logs').where({ run_id: run!.id }).delete();
  await knex('automation_runs').where({ id: run!.id }).update({ status: 'running', current_step: 0 });
  await svc.system.automationRuns.runStep({ runId: run!.id, stepIndex: 0, attempt: 1 });
  t.equal((await runOf(svc, key, automation.id, run!.id)).logs[0]!.output.payout, detail.logs[0]!.output.payout, 'the same payout after a crash');

  const poor = await svc.sandboxMerchant();
  const short = await createAutomation(svc, poor.key, onPaymentIntent([{ id: 'payout', action: 'create_payout', params: { amount: 2_500, currency: 'xof', destination: mobileMoney() }, retry: { maxAttempts: 1 } }]));
  await paymentIntentEvent(poor.key);
  const [failed] = await runsOf(svc, poor.key, short.id);
  t.match(failed, { status: 'failed', error: /IKW-BAL-001/ });
});

t.test('the URL policy applies when the step runs: a templated URL reaching a private address is refused', async (t) => {
  const live = await svc.merchant();
  const automation = await createAutomation(svc, live.api_keys.live, onPaymentIntent([{ id: 'call', action: 'http_request', params: { url: 'https://{{ event.data.host }}/hook' }, retry: { maxAttempts: 1 } }]));
  for (const host of ['127.0.0.1', 'localhost', '169.254.169.254', '[::ffff:127.0.0.1]']) {
    const res = await svc.request('POST', `${AUTOMATIONS}/${automation.id}/test`, { key: live.api_keys.live, body: { event: { data: { host } } } });
    assertOk(t, res, 202);
    await svc.system.drain();
    const run = await runOf(svc, live.api_keys.live, automation.id, res.body.id);
    t.equal(run.status, 'failed', host);
    t.match(run.logs[0]!.error, /^refused: /, `${host}: refused before any connection`);
  }
});

t.test('a test run: messages are sent, payouts and waits only rendered; it never counts as a failure', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const to = '+221770000002';
  const automation = await createAutomation(
    svc,
    key,
    onPaymentIntent([
      { id: 'sms', action: 'send_sms', params: { templateId: sms, to } },
      { id: 'pause', action: 'wait', params: { seconds: 86_400 } },
      { id: 'payout', action: 'create_payout', params: { amount: '{{ event.data.amount }}', currency: 'xof', destination: mobileMoney() } },
    ]),
  );
  const res = await svc.request('POST', `${AUTOMATIONS}/${automation.id}/test`, { key, body: { event: { data: { amount: 4_200, currency: 'xof' } } } });
  assertOk(t, res, 202);
  t.match(res.body, { object: 'automation_run', test: true, status: 'running', trigger: { kind: 'test', eventType: 'payment_intent.created' } });
  await svc.system.drain();
  const run = await runOf(svc, key, automation.id, res.body.id);
  t.equal(run.status, 'succeeded');
  t.same(
    run.logs.map((l) => [l.step, l.status]),
    [
      ['sms', 'succeeded'],
      ['pause', 'skipped'],
      ['payout', 'skipped'],
    ],
  );
  t.match(run.logs[2]!.output, { test: true, wouldRun: { amount: '4200', currency: 'xof' } });
  t.same(await smsTo(to), ['Sika: payment of 4200 xof']);
  t.equal(
    await svc.system
      .knex('read.payouts')
      .where({ merchant_id: (await svc.system.knex('read.automations').where({ id: automation.id }).first()).merchant_id })
      .count('* as c')
      .then((r) => Number(r[0]!.c)),
    0,
    'no payout',
  );
  assertError(t, await svc.request('POST', `${AUTOMATIONS}/${automation.id}/test`, { key, body: { event: { type: 'no.such' } } }), 'IKW-VAL-001', 'event.type');
});

t.test('cancel a waiting run: what follows the wait never runs', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const receiver = await Receiver.start(t, svc);
  const automation = await createAutomation(
    svc,
    key,
    onPaymentIntent([
      { id: 'pause', action: 'wait', params: { seconds: 600 } },
      { id: 'call', action: 'http_request', params: { url: receiver.url } },
    ]),
  );
  await paymentIntentEvent(key);
  const [run] = await runsOf(svc, key, automation.id);
  const headers = { 'idempotency-key': `cancel-${run!.id}` };
  const canceled = await svc.request('POST', `${AUTOMATIONS}/${automation.id}/runs/${run!.id}/cancel`, { key, headers });
  assertOk(t, canceled);
  t.match(canceled.body, { status: 'canceled', error: 'canceled by the merchant' });
  const replay = await svc.request('POST', `${AUTOMATIONS}/${automation.id}/runs/${run!.id}/cancel`, { key, headers });
  t.equal(replay.text, canceled.text, 'an Idempotency-Key replay');
  assertError(t, await svc.request('POST', `${AUTOMATIONS}/${automation.id}/runs/${run!.id}/cancel`, { key }), 'IKW-RES-002', 'runId');
  svc.clock.advance(600_000);
  await svc.system.drain();
  t.equal(receiver.count, 0);
  assertError(t, await svc.request('GET', `${AUTOMATIONS}/${automation.id}/runs/arun_nope`, { key }), 'IKW-RES-001');
});

t.test("the list and the automation carry each one's last run as it goes (lastRun); another merchant's is not found", async (t) => {
  const { key } = await svc.sandboxMerchant();
  const listed = async () => {
    const res = await svc.request('GET', AUTOMATIONS, { key });
    assertOk(t, res);
    return new Map<string, { lastRun: unknown }>(res.body.data.map((a: { id: string; lastRun: unknown }) => [a.id, a]));
  };
  const waits = await createAutomation(svc, key, onPaymentIntent([{ id: 'pause', action: 'wait', params: { seconds: 600 } }]));
  const idle = await createAutomation(svc, key, { trigger: { type: 'event', eventType: 'payout.paid' }, steps: [{ id: 'pause', action: 'wait', params: { seconds: 60 } }] });
  t.equal((await svc.request('POST', AUTOMATIONS, { key, body: { name: 'Fresh', ...onPaymentIntent([{ id: 'pause', action: 'wait', params: { seconds: 60 } }]) } })).body.lastRun, null, 'a new automation: no run yet');
  t.same(
    [...(await listed()).values()].map((a) => a.lastRun),
    [null, null, null],
    'no run yet',
  );

  const startedAt = svc.clock.now().toISOString();
  await paymentIntentEvent(key);
  const [run] = await runsOf(svc, key, waits.id);
  let list = await listed();
  t.same(list.get(waits.id)!.lastRun, { id: run!.id, status: 'waiting', test: false, startedAt, finishedAt: null }, 'the run, waiting, in the list');
  t.equal(list.get(idle.id)!.lastRun, null, 'the other automation has still none');

  svc.clock.advance(5_000);
  assertOk(t, await svc.request('POST', `${AUTOMATIONS}/${waits.id}/runs/${run!.id}/cancel`, { key }));
  const finishedAt = svc.clock.now().toISOString();
  list = await listed();
  t.same(list.get(waits.id)!.lastRun, { id: run!.id, status: 'canceled', test: false, startedAt, finishedAt }, 'canceled: its status and when it finished');
  const one = await svc.request('GET', `${AUTOMATIONS}/${waits.id}`, { key });
  assertOk(t, one);
  t.same(one.body.lastRun, list.get(waits.id)!.lastRun, 'the automation itself says the same');

  svc.clock.advance(5_000);
  const test = await svc.request('POST', `${AUTOMATIONS}/${waits.id}/test`, { key, body: {} });
  assertOk(t, test, 202);
  await svc.system.drain();
  t.match((await listed()).get(waits.id)!.lastRun, { id: test.body.id, status: 'succeeded', test: true }, 'the newest run, a test run included');
  const disabled = await svc.request('POST', `${AUTOMATIONS}/${waits.id}/disable`, { key });
  t.match(disabled.body.lastRun, { id: test.body.id }, 'every answer that is an automation carries it');

  const other = await svc.sandboxMerchant();
  assertError(t, await svc.request('GET', `${AUTOMATIONS}/${waits.id}`, { key: other.key }), 'IKW-RES-001', 'id');
  t.same((await svc.request('GET', AUTOMATIONS, { key: other.key })).body.data, [], "another merchant's list holds none of them");
});

t.test('runs per minute are limited per merchant: triggers beyond the limit are recorded as skipped runs', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const automation = await createAutomation(svc, key, onPaymentIntent([{ id: 'sms', action: 'send_sms', params: { templateId: sms, to: '+221770000003' } }]));
  for (let i = 0; i < 61; i++) await createIntentEvent(svc, key, 100 + i);
  await svc.system.drain();
  const runs = await runsOf(svc, key, automation.id);
  const page2 = await svc.request('GET', `${AUTOMATIONS}/${automation.id}/runs?limit=100&status=skipped`, { key });
  t.equal(runs.length, 61);
  t.equal(page2.body.data.length, 1, 'the 61st run within a minute is skipped');
  t.match(page2.body.data[0].error, /rate limit/);
  svc.clock.advance(MINUTE);
  await paymentIntentEvent(key);
  const latest = (await runsOf(svc, key, automation.id))[0]!;
  t.equal(latest.status, 'succeeded', 'a minute later runs start again');
});

t.test('a redelivered event starts no second run, and an event older than the automation starts none', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const before = await createIntentEvent(svc, key, 900);
  await svc.system.drain();
  svc.clock.advance(1_000);
  const automation = await createAutomation(svc, key, onPaymentIntent([{ id: 'sms', action: 'send_sms', params: { templateId: sms, to: '+221770000004' } }]));
  const after = await createIntentEvent(svc, key, 901);
  await svc.system.drain();
  t.equal((await runsOf(svc, key, automation.id)).length, 1);
  // The consumer handles both events again, as after a crash before its checkpoint moved.
  const consumer = svc.system.automationTriggers.consumer();
  const events = [...(await svc.system.store.readStream(`payment_intent-${before.id}`)), ...(await svc.system.store.readStream(`payment_intent-${after.id}`))].filter((e) => e.type === 'payment_intent.created');
  t.equal(events.length, 2);
  await svc.system.knex.transaction((trx) => consumer.handle(trx, events));
  await svc.system.drain();
  t.equal((await runsOf(svc, key, automation.id)).length, 1, 'one run: the event after the automation, once');
  t.same(await smsTo('+221770000004'), ['Sika: payment of 901 xof']);
});

t.test('a cancel while a step is under way wins: the run stays canceled and the next step never runs', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const next = await Receiver.start(t, svc);
  let automationId = '';
  let canceled: number | null = null;
  // A receiver that cancels the run while its request is being answered.
  const cancelThenAnswer = async (res: http.ServerResponse) => {
    const [run] = await runsOf(svc, key, automationId);
    canceled = (await svc.request('POST', `${AUTOMATIONS}/${automationId}/runs/${run!.id}/cancel`, { key })).status;
    res.writeHead(200).end('ok');
  };
  const server = http.createServer((req, res) => {
    req.resume();
    // Not awaited by the server: a failure leaves the request unanswered and `canceled` null, which the assertions report.
    req.on('end', () => void cancelThenAnswer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cancel`;
  const automation = await createAutomation(
    svc,
    key,
    onPaymentIntent([
      { id: 'first', action: 'http_request', params: { url } },
      { id: 'second', action: 'http_request', params: { url: next.url } },
    ]),
  );
  automationId = automation.id;
  await paymentIntentEvent(key);
  t.equal(canceled, 200, 'canceled during the first step');
  const [run] = await runsOf(svc, key, automation.id);
  t.equal(run!.status, 'canceled');
  t.equal(next.count, 0, 'the second step never ran');
  const detail = await runOf(svc, key, automation.id, run!.id);
  t.same(
    detail.logs.map((l) => [l.step, l.status]),
    [['first', 'succeeded']],
    'what the first step did is logged',
  );
});

t.test('a batch of events finds its automations in one query, each merchant only its own', async (t) => {
  const merchants = [await svc.sandboxMerchant(), await svc.sandboxMerchant()];
  const automations = [];
  for (const [i, m] of merchants.entries()) {
    const sms = await publishedTemplate(svc, m.key, 'sms');
    automations.push(await createAutomation(svc, m.key, onPaymentIntent([{ id: 'sms', action: 'send_sms', params: { templateId: sms, to: `+22177000001${i}` } }])));
  }
  const intents: { id: string }[] = [];
  for (let i = 0; i < 6; i++) intents.push(await createIntentEvent(svc, merchants[i % 2]!.key, 200 + i));
  const events: RecordedEvent[] = [];
  for (const intent of intents) events.push(...(await svc.system.store.readStream(`payment_intent-${intent.id}`)));
  // Only this transaction's queries: the service's own consumers may be reading meanwhile.
  let ours: string | undefined;
  const lookups: string[] = [];
  const count = (q: { sql: string; __knexTxId?: string }) => {
    if (q.sql === "SELECT 'batch lookup probe'") ours = q.__knexTxId;
    else if (q.__knexTxId !== undefined && q.__knexTxId === ours && /from "read"\."automations"/.test(q.sql)) lookups.push(q.sql);
  };
  svc.system.knex.on('query', count);
  try {
    await svc.system.knex.transaction(async (trx) => {
      await trx.raw("SELECT 'batch lookup probe'");
      await svc.system.automationTriggers.consumer().handle(trx, events);
    });
  } finally {
    svc.system.knex.off('query', count);
  }
  t.equal(lookups.length, 1, `one automations query for ${events.length} events: ${lookups.join(' | ')}`);
  await svc.system.drain();
  for (const [i, m] of merchants.entries()) t.equal((await runsOf(svc, m.key, automations[i]!.id)).length, 3, `merchant ${i}: a run for each of its 3 payments, none for the other's`);
});

t.test('a run acts with the credential that saved its version: a rolled key through its successor, a revoked key or a lost role not at all', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  const ownerId = await svc.member(merchant, 'owner@credentials.example', 'correct horse battery');
  const owner = { merchantId: merchant.id, environment: 'sandbox' as const };
  const manager = { userId: ownerId, role: 'owner' as const, challengeId: null };
  const receiver = await Receiver.start(t, svc);
  const call = [{ id: 'call', action: 'http_request', params: { url: receiver.url }, retry: { maxAttempts: 3 } }];
  // Rolling a key takes a verified challenge (docs/merchants.md, "API keys"): a user without a second factor answers the code e-mailed to them.
  const rollChallenge = async (): Promise<string> => {
    const asked = await svc.system.secondFactors.challenge(ownerId, 'api-keys/roll', { actor: 'test' });
    await svc.system.secondFactors.verify(asked.challengeId, mailedCode(smtp.mails, 'owner@credentials.example'), { actor: 'test' });
    return asked.challengeId;
  };

  const saver = await svc.apiKey(merchant.id, ['automations.write', 'http_requests.write', 'payment_intents.read']);
  const automation = await createAutomation(svc, saver.secret, onPaymentIntent(call));
  await paymentIntentEvent(key);
  t.equal(receiver.count, 1, 'the saving key holds what the step needs');

  // A roll changes the secret, not the authority: the successor carries the key's scopes.
  const successor = await svc.system.apiKeyManagement.roll(owner, { ...manager, challengeId: await rollChallenge() }, saver.id, 0, { actor: 'test' });
  await paymentIntentEvent(key);
  t.equal(receiver.count, 2, 'the rolled key acts through its successor');

  await svc.system.apiKeyManagement.revoke(owner, manager, successor.id, { actor: 'test' });
  await paymentIntentEvent(key);
  t.equal(receiver.count, 2, 'nothing is called for a revoked credential');
  const [failed] = await runsOf(svc, key, automation.id);
  t.equal(failed!.status, 'failed');
  t.match(failed!.error, `step call (http_request) failed after 1 attempt: credential: version 1 was saved by API key ${saver.id}, rolled to ${successor.id}, which is revoked`, 'at once, not retried: the log says why');
  const detail = await runOf(svc, key, automation.id, failed!.id);
  t.same(
    detail.logs.map((l) => [l.step, l.attempt, l.status]),
    [['call', 1, 'failed']],
  );

  // Saving it again with a valid credential gives it that credential's authority.
  const patched = await svc.request('PATCH', `${AUTOMATIONS}/${automation.id}`, { key, body: { steps: call } });
  t.match(patched.body, { version: 2 }, 'the same definition saved by another credential is a new version');
  await paymentIntentEvent(key);
  t.equal(receiver.count, 3);

  // A user acts with the role they hold when the step runs.
  const adminId = await svc.member(merchant, 'admin@credentials.example', 'correct horse battery', 'admin');
  const signedIn = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'admin@credentials.example', password: 'correct horse battery' } });
  const byAdmin = await createAutomation(svc, signedIn.body.accessToken, onPaymentIntent(call));
  await paymentIntentEvent(key);
  t.equal(receiver.count, 5, 'both automations called');
  await svc.system.organizations.changeRole((await svc.system.knex('read.organization_merchants').where({ merchant_id: merchant.id }).first()).organization_id, merchant.id, ownerId, adminId, 'developer', { actor: 'test' });
  await paymentIntentEvent(key);
  t.equal(receiver.count, 6, 'only the key’s automation called');
  const [demoted] = await runsOf(svc, key, byAdmin.id);
  t.match(demoted!.error, `credential: version 1 was saved by user ${adminId} (role developer), which no longer holds automations.write`);
});

t.test('header values of http_request steps are sealed at rest and shown redacted, in definitions and step logs', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const receiver = await Receiver.start(t, svc);
  const token = 'Bearer tok_SealedAtRest_9f3Kq7';
  const headers = { Authorization: token, 'X-Short': 'abc', 'X-Amount': 'amount-{{ event.data.amount }}' };
  const call = (h: Record<string, string>) => [{ id: 'call', action: 'http_request', params: { url: receiver.url, headers: h } }];
  const created = await svc.request('POST', AUTOMATIONS, { key, body: { name: 'Sealed', ...onPaymentIntent(call(headers)) } });
  assertOk(t, created);
  const redacted = { Authorization: `…${token.slice(-4)}`, 'X-Short': '…', 'X-Amount': `…${headers['X-Amount'].slice(-4)}` };
  t.same(created.body.steps[0].params.headers, redacted, 'the answer shows the last four characters (none of a short value)');
  const id = created.body.id as string;

  await paymentIntentEvent(key);
  t.equal(receiver.count, 1);
  t.equal(receiver.requests[0]!.headers.authorization, token, 'the call carries the real value');
  t.equal(receiver.requests[0]!.headers['x-amount'], 'amount-10000', 'rendered as a template');
  const [run] = await runsOf(svc, key, id);
  const detail = await runOf(svc, key, id, run!.id);
  t.same(detail.logs[0]!.input.headers, { Authorization: redacted.Authorization, 'X-Short': '…', 'X-Amount': '…0000' }, 'the log shows the rendered values redacted');

  const { knex } = svc.system;
  const holding = async (table: string, column: string) => Number((await knex(table).whereRaw(`${column}::text LIKE ?`, ['%SealedAtRest%']).count<{ count: string }[]>('* as count'))[0]!.count);
  for (const [table, column] of [
    ['events', 'data'],
    ['read.automations', 'definition'],
    ['read.automation_versions', 'definition'],
    ['automation_runs', 'steps'],
    ['automation_step_logs', 'input'],
  ] as const) {
    t.equal(await holding(table, column), 0, `${table} does not hold it in the clear`);
  }

  // A client sends back what it read: the values are kept, and nothing else changing, no version is made.
  const read = (await svc.request('GET', `${AUTOMATIONS}/${id}`, { key })).body;
  const same = await svc.request('PATCH', `${AUTOMATIONS}/${id}`, { key, body: { steps: read.steps } });
  t.match(same.body, { version: 1 }, 'the redacted values sent back change nothing');
  const renamed = await svc.request('PATCH', `${AUTOMATIONS}/${id}`, { key, body: { name: 'Renamed', steps: read.steps } });
  t.match(renamed.body, { version: 2, steps: [{ params: { headers: redacted } }] });
  const versions = await svc.request('GET', `${AUTOMATIONS}/${id}/versions`, { key });
  t.same(
    versions.body.data.map((v: { steps: { params: { headers: unknown } }[] }) => v.steps[0]!.params.headers),
    [redacted, redacted],
    'versions are redacted too',
  );
  await paymentIntentEvent(key);
  t.equal(receiver.requests[1]!.headers.authorization, token, 'the kept value still reaches the receiver');

  const replaced = await svc.request('PATCH', `${AUTOMATIONS}/${id}`, { key, body: { steps: call({ ...headers, Authorization: 'Bearer tok_Replaced_77AbCd' }) } });
  t.match(replaced.body, { version: 3, steps: [{ params: { headers: { Authorization: '…AbCd' } } }] });
  await paymentIntentEvent(key);
  t.equal(receiver.requests[2]!.headers.authorization, 'Bearer tok_Replaced_77AbCd', 'a new value replaces it');

  // Logs written before headers were redacted are redacted by the migration.
  const logged = (await knex('automation_step_logs').where({ run_id: run!.id }).first()) as Record<string, unknown>;
  await knex('automation_step_logs').insert({ ...logged, id: 'alog_before', seq: undefined, attempt: 9, input: JSON.stringify({ url: receiver.url, headers: { Authorization: token, 'X-Short': 'abc' } }) });
  await automationMigrations.find((m) => m.name === 'automation-runs/002-redact-logged-headers')!.up(knex);
  const before = (await knex('automation_step_logs').where({ id: 'alog_before' }).first()) as { input: { url: string; headers: unknown } };
  t.same(before.input, { url: receiver.url, headers: { Authorization: redacted.Authorization, 'X-Short': '…' } });
});
