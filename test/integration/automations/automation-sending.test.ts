/**
 * Automations are not a mail relay (docs/automations.md, "Sending"): a sandbox automation writes
 * only to its merchant's team at verified addresses (the outbox records the rest); test runs count
 * against the per-minute limit; sends are limited per merchant and per recipient; every message
 * goes under the merchant's name with its Reply-To, never from the account sender. A real SMTP
 * server on loopback shows what actually left.
 */
import t from '#tap';
import { ACCOUNT_SENDER } from '#packages/messaging/messenger.js';
import { LIMITS } from '#packages/families/automations/definition.js';
import { AUTOMATIONS, createAutomation, onPaymentIntent, publishedTemplate, runOf } from '../../support/automations.js';
import { startService } from '../../support/system.js';
import { startSmtp } from '../../support/webhooks.js';

const smtp = await startSmtp(t);
const svc = await startService(t, { env: { SMTP_URL: smtp.url, AUTOMATION_RECIPIENT_LIMIT: '3/1h', AUTOMATION_SEND_LIMIT: '6/1h' } });

/** Test-runs the automation once and lets its steps run: the run, with its logs. */
async function testRun(key: string, automationId: string) {
  const res = await svc.request('POST', `${AUTOMATIONS}/${automationId}/test`, { key, body: { event: { data: { amount: 500, currency: 'xof' } } } });
  if (res.status !== 202) throw new Error(res.text);
  await svc.system.drain();
  return runOf(svc, key, automationId, res.body.id);
}

const emailTo = (templateId: string, to: string) => onPaymentIntent([{ id: 'email', action: 'send_email', params: { templateId, to }, retry: { maxAttempts: 1 } }]);

t.test('sandbox: only the team’s verified addresses get mail; the outbox records the rest, and no mail leaves from the account sender', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant('Boutique Awa');
  const verified = await svc.member(merchant, 'awa@boutique.example', 'correct horse battery');
  await svc.system.accounts.verifyContact(verified, 'email', 'awa@boutique.example', { actor: 'test' });
  await svc.member(merchant, 'unverified@boutique.example', 'correct horse battery', 'viewer');
  const template = await publishedTemplate(svc, key, 'email');

  for (const to of ['victim@elsewhere.example', 'unverified@boutique.example']) {
    const before = smtp.mails.length;
    const run = await testRun(key, (await createAutomation(svc, key, emailTo(template, to))).id);
    t.match(run.logs[0], { status: 'succeeded', output: { delivery: 'held', held: /not a verified address of the merchant's team/ } }, to);
    t.equal(smtp.mails.length, before, `${to}: nothing left through SMTP`);
    const row = await svc.system.knex('message_outbox').where({ recipient: to, purpose: 'automation' }).first();
    t.match(row, { sent_at: null, error: /^held: sandbox/ }, 'the outbox records what would have gone');
  }

  const before = smtp.mails.length;
  const run = await testRun(key, (await createAutomation(svc, key, emailTo(template, 'AWA@boutique.example'))).id);
  t.match(run.logs[0], { status: 'succeeded', output: { delivery: 'delivered' } });
  const mail = smtp.mails.slice(before);
  t.equal(mail.length, 1, 'the team’s verified address gets it');
  t.match(mail[0]!.raw, /^From: "?Boutique Awa via Sika"? <merchants@sika\.invalid>/m, 'under the merchant’s name, from the merchants’ address');
  t.notMatch(mail[0]!.raw, new RegExp(ACCOUNT_SENDER.replace(/[<>.]/g, '.')), 'never the sign-in sender');
});

t.test('live: mail leaves under the merchant’s name with its Reply-To; limited per recipient and per merchant', async (t) => {
  const m = await svc.merchant('Epicerie Bo');
  const key = m.api_keys.live;
  await svc.system.knex('read.merchants').where({ id: m.id }).update({ email: 'contact@epicerie.example' });
  const template = await publishedTemplate(svc, key, 'email');
  const toCustomer = await createAutomation(svc, key, emailTo(template, 'customer@somewhere.example'));

  const before = smtp.mails.length;
  const first = await testRun(key, toCustomer.id);
  t.match(first.logs[0], { status: 'succeeded', output: { delivery: 'delivered' } });
  const [mail] = smtp.mails.slice(before);
  t.same(mail!.to, ['customer@somewhere.example']);
  t.match(mail!.raw, /^From: "?Epicerie Bo via Sika"? <merchants@sika\.invalid>/m);
  t.match(mail!.raw, /^Reply-To: contact@epicerie\.example/m, 'replies go to the merchant');

  // AUTOMATION_RECIPIENT_LIMIT is 3 an hour here: the fourth to the same person fails its step.
  for (let i = 0; i < 2; i++) t.match((await testRun(key, toCustomer.id)).logs[0], { status: 'succeeded' });
  const fourth = await testRun(key, toCustomer.id);
  t.match(fourth.logs[0], { status: 'failed', error: /rate limit: too many messages/ });
  t.equal(smtp.mails.length, before + 3, 'three mails to one recipient, no more');

  // AUTOMATION_SEND_LIMIT is 6 an hour per merchant and environment, the refused attempt included: two more recipients, then no more.
  for (const to of ['a@somewhere.example', 'b@somewhere.example']) t.match((await testRun(key, (await createAutomation(svc, key, emailTo(template, to))).id)).logs[0], { status: 'succeeded' }, to);
  const over = await testRun(key, (await createAutomation(svc, key, emailTo(template, 'c@somewhere.example'))).id);
  t.match(over.logs[0], { status: 'failed', error: /rate limit/ }, 'the merchant’s hourly limit');
  svc.clock.advance(60 * 60_000);
  t.match((await testRun(key, toCustomer.id)).logs[0], { status: 'succeeded' }, 'the next hour');
});

t.test('test runs count against the per-minute run limit', async (t) => {
  const { key } = await svc.sandboxMerchant();
  const sms = await publishedTemplate(svc, key, 'sms');
  const automation = await createAutomation(svc, key, onPaymentIntent([{ id: 'sms', action: 'send_sms', params: { templateId: sms, to: '+221770000009' } }]));
  const statuses: string[] = [];
  for (let i = 0; i <= LIMITS.runsPerMinute; i++) {
    const res = await svc.request('POST', `${AUTOMATIONS}/${automation.id}/test`, { key, body: {} });
    statuses.push(res.body.status);
  }
  t.equal(statuses.filter((s) => s === 'skipped').length, 1, `the ${LIMITS.runsPerMinute + 1}th test run in a minute is skipped`);
  const last = await svc.request('POST', `${AUTOMATIONS}/${automation.id}/test`, { key, body: {} });
  t.match(last.body, { status: 'skipped', error: /rate limit/ });
});
