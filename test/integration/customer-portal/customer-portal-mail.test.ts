/**
 * A portal code is the merchant's message to its customer, in the merchant's words once it
 * publishes its own template (docs/operations.md, "Merchants' messages"): it goes under the
 * merchant's name from the merchants' sender with the merchant's Reply-To, never from the account
 * sender; a sandbox merchant's reaches only its team's verified addresses (the outbox holds the
 * rest); code requests have a quota per merchant. A real SMTP server on loopback shows what left.
 */
import t from '#tap';
import { ACCOUNT_SENDER } from '#packages/messaging/messenger.js';
import { assertError, assertOk } from '../../support/payments.js';
import { startService } from '../../support/system.js';
import { startSmtp } from '../../support/webhooks.js';

const smtp = await startSmtp(t);
const svc = await startService(t, { env: { SMTP_URL: smtp.url, CUSTOMER_PORTAL_CODE_LIMIT: '4/1h' } });

/** Publishes the merchant's own customer_portal_code template: its words, its HTML. */
async function ownCodeTemplate(key: string): Promise<void> {
  const res = await svc.request('POST', '/api/template-engine/templates', {
    key,
    body: {
      kind: 'email',
      name: 'Portal code',
      purpose: 'customer_portal_code',
      variables: { type: 'object', required: ['code', 'minutes'], properties: { code: { type: 'string' }, minutes: { type: 'integer' } } },
      locales: { en: { subject: 'Your account needs attention', text: 'Code {{ code }}', html: '<p>Verify your account at <a href="https://evil.example">sika</a></p>' } },
      publish: true,
    },
  });
  if (res.status !== 200) throw new Error(res.text);
}

async function customer(key: string, email: string): Promise<void> {
  const res = await svc.request('POST', '/api/v1/merchant/customers', { key, body: { email } });
  if (res.status !== 200) throw new Error(res.text);
}

/** Asks for a code and answers what left through SMTP because of it. */
async function signIn(merchantId: string, environment: 'sandbox' | 'live', email: string) {
  const before = smtp.mails.length;
  const res = await svc.request('POST', '/api/v1/customer-portal/sign-in', { body: { merchantId, environment, email } });
  return { res, mails: smtp.mails.slice(before) };
}

const fromMerchant = (name: string) => new RegExp(`^From: "?${name} via Sika"? <merchants@sika\\.invalid>`, 'm');
const accountSender = new RegExp(ACCOUNT_SENDER.replace(/[<>.]/g, '.'));

t.test('live: the merchant’s words go under its name from the merchants’ sender with its Reply-To, never from the account sender', async (t) => {
  const m = await svc.merchant('Boutique Awa');
  const key = m.api_keys.live;
  await svc.system.knex('read.merchants').where({ id: m.id }).update({ email: 'contact@boutique.example' });
  await ownCodeTemplate(key);
  await customer(key, 'victim@elsewhere.example');

  const { res, mails } = await signIn(m.id, 'live', 'victim@elsewhere.example');
  assertOk(t, res);
  t.equal(mails.length, 1);
  const raw = mails[0]!.raw;
  t.match(raw, /Verify your account at/, 'the merchant’s template');
  t.match(raw, fromMerchant('Boutique Awa'), 'under the merchant’s name, from the merchants’ address');
  t.match(raw, /^Reply-To: contact@boutique\.example/m, 'replies go to the merchant');
  t.notMatch(raw, accountSender, 'never the account sender');
});

t.test('sandbox: only the team’s verified addresses get the mail; the outbox holds the rest', async (t) => {
  const { merchant, key } = await svc.sandboxMerchant('Mango stall');
  const member = await svc.member(merchant, 'awa@mango.example', 'correct horse battery');
  await svc.system.accounts.verifyContact(member, 'email', 'awa@mango.example', { actor: 'test' });
  await ownCodeTemplate(key);
  await customer(key, 'victim@elsewhere.example');
  await customer(key, 'awa@mango.example');

  const stranger = await signIn(merchant.id, 'sandbox', 'victim@elsewhere.example');
  assertOk(t, stranger.res);
  t.equal(stranger.mails.length, 0, 'nothing leaves for a stranger');
  const [held] = await svc.system.outbox.kept({ recipient: 'victim@elsewhere.example', purpose: 'customer_portal_code' }, 1);
  t.match(held, { sent_at: null, error: /^held: sandbox: victim@elsewhere\.example is not a verified address of the merchant's team/, text: /Code \d{6}/ }, 'held, its code readable in the outbox');

  const team = await signIn(merchant.id, 'sandbox', 'awa@mango.example');
  t.equal(team.mails.length, 1, 'the team’s verified address gets it');
  t.match(team.mails[0]!.raw, fromMerchant('Mango stall'));
  t.notMatch(team.mails[0]!.raw, accountSender);
});

t.test('code requests have a quota per merchant and environment, unknown addresses counted alike', async (t) => {
  const { merchant } = await svc.sandboxMerchant('Busy stall');
  const other = await svc.sandboxMerchant('Quiet stall');
  // CUSTOMER_PORTAL_CODE_LIMIT is 4 an hour here; none of these addresses is a customer.
  for (let i = 0; i < 4; i++) assertOk(t, (await signIn(merchant.id, 'sandbox', `nobody${i}@example.com`)).res);
  const over = (await signIn(merchant.id, 'sandbox', 'nobody4@example.com')).res;
  assertError(t, over, 'IKW-LIM-001');
  t.ok(Number(over.headers.get('retry-after')) > 0, 'with Retry-After');
  t.equal((await signIn(other.merchant.id, 'sandbox', 'nobody4@example.com')).res.status, 200, 'another merchant has its own');
  t.equal((await signIn(merchant.id, 'live', 'nobody4@example.com')).res.status, 200, 'and so has the other environment');
  svc.clock.advance(60 * 60_000);
  t.equal((await signIn(merchant.id, 'sandbox', 'nobody4@example.com')).res.status, 200, 'the next hour');
});
