/**
 * Going live (docs/merchants.md, "Going live"): the merchant's activation application through
 * GET/POST /api/v1/merchant/activation, and the operators' decisions as use cases. Requirements by
 * country and type from the catalog; every refusal with its code; the identity document private to
 * its merchant; idempotent submission; each decision's transitions, its e-mail (a real SMTP server
 * on loopback) and its effect on live: approval opens it, suspension closes it with its reason;
 * live payment links, checkout sessions and invoices refused until then. The live rail is a
 * stand-in whose bank names the holder of one account.
 */
import t from '#tap';
import { AccountHolderMismatch, type CollectRequest } from '#packages/connectors/port.js';
import { activationStream } from '#packages/families/activation/index.js';
import { findActivationApplication, listActivationApplications } from '#packages/families/activation/read/index.js';
import { applicationBody, REVIEWER, uploadDocument } from '../../support/activation.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { confirm, createIntent, mobileMoney as payWith, snNumber } from '../../support/payments.js';
import { startService, type TestService } from '../../support/system.js';
import { lastMail, startSmtp } from '../../support/webhooks.js';
import { postForm } from '../../support/checkout.js';

const HOLDER = 'Awa Diop';
const collects: CollectRequest[] = [];
const smtp = await startSmtp(t);
const svc: TestService = await startService(t, {
  env: { SMTP_URL: smtp.url },
  // The live rail: takes every payout destination and collection; its bank names the holder of every account as HOLDER.
  rails: (environment, base) => {
    if (environment !== 'live') return base;
    const rails = Object.create(base) as typeof base;
    rails.assertCanPayOut = () => undefined;
    rails.assertCanCollect = () => undefined;
    rails.accountHolder = async () => HOLDER;
    rails.verifyDestination = async (d) => {
      if (d.type === 'bank' && d.account_name !== HOLDER) throw new AccountHolderMismatch(d.account_number, HOLDER, d.account_name, 'destination.account_name');
    };
    rails.collect = async (request) => {
      collects.push(request);
      return { status: 'processing' };
    };
    return rails;
  },
});
const decisions = svc.system.activationApplications;
const PATH = '/api/v1/merchant/activation';

const submit = (key: string, body: unknown, headers: Record<string, string> = {}) => svc.request('POST', PATH, { key, body, headers });
const read = (key: string) => svc.request('GET', PATH, { key });

/** A merchant with an owner who receives the decisions' e-mails. */
async function merchant(name: string) {
  const m = await svc.merchant(name);
  const email = `owner@${name.toLowerCase().replace(/[^a-z]/g, '')}.example`;
  await svc.member(m, email, 'correct horse battery', 'owner');
  return { m, key: m.api_keys.sandbox, live: m.api_keys.live, email };
}

/** An application body, as loosely typed as the requests a test changes into refusals. */
type Body = Record<string, any>;

/** The application body with these parts changed (a part deleted is left out). */
function body(document: string, change: (b: Body) => void = () => undefined): Record<string, unknown> {
  const b = structuredClone(applicationBody(document)) as Body;
  change(b);
  return b;
}

t.test('before applying: not_submitted, what every business gives is due, and live money-taking objects are refused with what to do', async (t) => {
  const { m, key, live } = await merchant('Fresh shop');
  const res = await read(key);
  assertOk(t, res);
  t.same(res.body, {
    object: 'activation',
    merchantId: m.id,
    status: 'not_submitted',
    requirements: {
      currently_due: [
        'business.legal_name',
        'business.type',
        'business.country',
        'business.address',
        'business.product_description',
        'representative.name',
        'representative.date_of_birth',
        'representative.identity_document',
        'settlement_destination',
        'expected_monthly_volume',
      ],
      pending_verification: [],
      errors: [],
    },
    decision: null,
    submitted: null,
    application: null,
  });

  const link = await svc.request('POST', '/api/v1/payment_links', { key: live, body: { amount: 5_000, currency: 'XOF', country: 'SN' } });
  assertError(t, link, 'IKW-ACT-005', null);
  t.match(link.body.message, /submit the activation application/, 'the merchant is told what to do');
  assertError(
    t,
    await svc.request('POST', '/api/v1/checkout/sessions', { key: live, body: { amount: 10_000, currency: 'XOF', country: 'SN', successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/no' } }),
    'IKW-ACT-005',
    null,
  );
  assertError(t, await svc.request('POST', '/api/v1/merchant/invoices', { key: live, body: { customer_email: 'buyer@fresh.example', currency: 'xof', amount_due: 3_000 } }), 'IKW-ACT-005', null);
  t.equal((await svc.system.knex('read.payment_links').where({ merchant_id: m.id })).length, 0, 'no live link made');
  assertOk(t, await svc.request('POST', '/api/v1/payment_links', { key, body: { amount: 5_000, currency: 'XOF', country: 'SN' } })); // sandbox is never gated
});

t.test('a complete application is under review, with the destination checked by the live rail for the reviewer', async (t) => {
  const { m, key } = await merchant('Boutique Awa');
  const document = await uploadDocument(svc, key);
  const res = await submit(key, body(document));
  assertOk(t, res);
  t.match(res.body, { status: 'under_review', requirements: { currently_due: [], errors: [] }, decision: null, submitted: Math.floor(svc.clock.now().getTime() / 1000) });
  t.ok(res.body.requirements.pending_verification.includes('business.registration_number'), 'a Senegalese sole trader gives a registration number');
  t.match(res.body.application, {
    business: { legal_name: 'Awa Diop', country: 'SN', type: 'individual', website: null },
    settlement_destination: { msisdn: '+221771234567', currency: 'xof' },
    expected_monthly_volume: { amount: 2_500_000, currency: 'xof' },
  });

  const review = await findActivationApplication(svc.system.knex, m.id);
  t.match(
    review,
    { merchantId: m.id, status: 'under_review', submissions: 1, details: { representative: { identity_document: document } }, destinationCheck: { result: 'accepted', holderName: null } },
    'the reviewer sees the document id and the check',
  );
  t.equal(await findActivationApplication(svc.system.knex, 'acct_nobody'), undefined);
});

t.test('a bank settlement destination: the bank’s name for the holder is kept, a mismatch too', async (t) => {
  const { m, key } = await merchant('Bank shop');
  const document = await uploadDocument(svc, key);
  const bank = (name: string) => body(document, (b) => (b.settlement_destination = { type: 'bank', bank_code: 'SN001', account_number: '0123 4567 89', account_name: name }));
  assertOk(t, await submit(key, bank('Someone Else')));
  t.match(await findActivationApplication(svc.system.knex, m.id), { destinationCheck: { result: 'holder_mismatch', holderName: HOLDER, detail: /Awa Diop/ } }, 'submitted anyway: the reviewer decides');
  await decisions.requestInformation(m.id, [{ field: 'settlement_destination', message: 'The bank names another holder: give an account in the business’s name' }], REVIEWER);
  assertOk(t, await submit(key, bank(HOLDER)));
  t.match(await findActivationApplication(svc.system.knex, m.id), { submissions: 2, destinationCheck: { result: 'accepted', holderName: HOLDER }, details: { settlement_destination: { account_number: '0123456789' } } });
});

t.test('each refusal has its code, and records nothing', async (t) => {
  const { m, key } = await merchant('Refused shop');
  const other = await merchant('Other shop');
  const document = await uploadDocument(svc, key);

  assertError(
    t,
    await submit(
      key,
      body(document, (b) => (b.extra = 1)),
    ),
    'IKW-VAL-002',
  );
  assertError(
    t,
    await submit(
      key,
      body(document, (b) => (b.business.type = 'trust')),
    ),
    'IKW-VAL-001',
    'business.type',
  );
  assertError(
    t,
    await submit(
      key,
      body(document, (b) => (b.expected_monthly_volume.amount = 12.5)),
    ),
    'IKW-VAL-001',
    'expected_monthly_volume.amount',
  );

  // Requirements by country and type (the catalog).
  const noRegistration = await submit(
    key,
    body(document, (b) => delete b.business.registration_number),
  );
  assertError(t, noRegistration, 'IKW-ACT-001', 'business.registration_number');
  t.match(noRegistration.body.message, 'business.registration_number', 'a Senegalese individual gives a registration number');
  t.same(noRegistration.body.errors, [{ code: 'IKW-ACT-001', param: 'business.registration_number', message: 'business.registration_number is required of individual businesses of SN' }], 'the missing field in `errors`, by its path');
  const ghIndividual = body(document, (b) => {
    delete b.business.registration_number;
    b.business.country = 'GH';
    b.settlement_destination = { type: 'mobile_money', country: 'GH', operator: 'mtn', msisdn: '+233241234567' };
  });
  const company = await submit(
    key,
    body(document, (b) => (b.business.type = 'company')),
  );
  assertError(t, company, 'IKW-ACT-001', 'owners');
  t.match(company.body.message, 'owners', 'a company names its owners');
  t.same(
    company.body.errors.map((e: { param: string }) => e.param),
    ['owners'],
    'its registration number was given: only the owners are missing',
  );
  const ngCompany = await submit(
    key,
    body(document, (b) => Object.assign(b.business, { type: 'company', country: 'NG' })),
  );
  t.match(ngCompany.body.message, 'business.website', 'a Nigerian company gives its website');
  t.same(
    ngCompany.body.errors.map((e: { param: string }) => e.param),
    ['owners', 'business.website'],
  );
  const nothing = await submit(key, {});
  assertError(t, nothing, 'IKW-ACT-001', 'business.legal_name');
  t.match(nothing.body.message, 'business.legal_name', 'the message still names them all');
  t.same(
    nothing.body.errors,
    [
      'business.legal_name',
      'business.type',
      'business.country',
      'business.address',
      'business.product_description',
      'representative.name',
      'representative.date_of_birth',
      'representative.identity_document',
      'settlement_destination',
      'expected_monthly_volume',
    ].map((param) => ({ code: 'IKW-ACT-001', param, message: `${param} is required of every business` })),
    'every missing field in `errors`, each by its path with a message',
  );
  assertError(
    t,
    await submit(
      key,
      body(document, (b) => (b.business.country = 'FR')),
    ),
    'IKW-VAL-004',
    'business.country',
  );

  assertError(
    t,
    await submit(
      key,
      body(document, (b) => (b.representative.date_of_birth = '2015-01-01')),
    ),
    'IKW-VAL-001',
    'representative.date_of_birth',
  );
  assertError(
    t,
    await submit(
      key,
      body(document, (b) => (b.settlement_destination.msisdn = '77123')),
    ),
    'IKW-VAL-007',
    'settlement_destination.msisdn',
  );
  assertError(
    t,
    await submit(
      key,
      body(document, (b) => (b.settlement_destination = { type: 'mobile_money', country: 'GH', operator: 'mtn', msisdn: '+233241234567' })),
    ),
    'IKW-VAL-009',
    'settlement_destination.currency',
  );
  assertError(
    t,
    await submit(
      key,
      body(document, (b) => (b.expected_monthly_volume.currency = 'zzz')),
    ),
    'IKW-VAL-003',
    'expected_monthly_volume.currency',
  );

  // The identity document: this merchant's, complete, an onboarding document.
  const theirs = await uploadDocument(svc, other.key);
  assertError(t, await submit(key, body(theirs)), 'IKW-RES-001', 'representative.identity_document');
  assertError(t, await submit(key, body('asset_nobody')), 'IKW-RES-001', 'representative.identity_document');
  assertError(t, await submit(key, body(await uploadDocument(svc, m.api_keys.live))), 'IKW-RES-001', 'representative.identity_document'); // another environment's
  assertError(t, await submit(key, body(await uploadDocument(svc, key, { complete: false }))), 'IKW-ACT-003', 'representative.identity_document');
  assertError(t, await submit(key, body(await uploadDocument(svc, key, { purpose: 'invoice_attachment' }))), 'IKW-ACT-003', 'representative.identity_document');
  t.same(await svc.system.store.readStream(activationStream(m.id)), [], 'nothing recorded');

  // A Ghanaian sole trader needs no registration number: the same body is accepted there.
  assertOk(t, await submit(key, ghIndividual));
  assertError(t, await submit(key, body(document)), 'IKW-ACT-002', null);
  t.match((await submit(key, body(document))).body.message, 'under review');
});

t.test('the identity document is private: another merchant neither reads it nor sees the application', async (t) => {
  const { key } = await merchant('Private shop');
  const other = await merchant('Curious shop');
  const document = await uploadDocument(svc, key);
  assertOk(t, await submit(key, body(document)));
  for (const path of [`/api/v1/assets/${document}`, `/api/v1/assets/${document}/download-url`]) {
    const res = await svc.request(path.endsWith('url') ? 'POST' : 'GET', path, { key: other.key });
    t.equal(res.status, 404, `${path}: another merchant's asset is no asset`);
  }
  t.match((await read(other.key)).body, { status: 'not_submitted', application: null }, "another merchant's application is not theirs to read");
  t.equal((await svc.request('GET', `/api/v1/assets/${document}/download?expires=9999999999&signature=${'0'.repeat(64)}`)).status >= 400, true, 'no public download without a signature');
});

t.test('a submission retried with its Idempotency-Key answers the first; another body with it is refused', async (t) => {
  const { m, key } = await merchant('Retry shop');
  const document = await uploadDocument(svc, key);
  const first = await submit(key, body(document), { 'idempotency-key': 'apply-1' });
  assertOk(t, first);
  const again = await submit(key, body(document), { 'idempotency-key': 'apply-1' });
  t.equal(again.status, 200);
  t.same(again.body, first.body, 'the same answer');
  t.equal((await svc.system.store.readStream(activationStream(m.id))).length, 1, 'submitted once');
  assertError(
    t,
    await submit(
      key,
      body(document, (b) => (b.business.trading_name = 'Other')),
      { 'idempotency-key': 'apply-1' },
    ),
    'IKW-IDM-002',
  );
});

t.test('credentials: owners, admins and keys with activation.write submit; others read', async (t) => {
  const { m, key, email } = await merchant('Team shop');
  await svc.member(m, 'dev@teamshop.example', 'correct horse battery', 'developer');
  const developer = await svc.signIn('dev@teamshop.example', 'correct horse battery');
  const owner = await svc.signIn(email, 'correct horse battery');
  const readOnly = await svc.apiKey(m.id, ['activation.read']);
  const document = await uploadDocument(svc, key);
  assertOk(t, await read(developer));
  assertError(t, await submit(developer, body(document)), 'IKW-AUT-004');
  assertOk(t, await read(readOnly.secret));
  assertError(t, await submit(readOnly.secret, body(document)), 'IKW-AUT-004');
  assertOk(t, await submit(owner, body(document))); // the owner's dashboard session submits
});

t.test('decisions: information requested, resubmitted, approved; wrong transitions refused; each e-mailed; live opens', async (t) => {
  const { m, key, live, email } = await merchant('Decided shop');
  const document = await uploadDocument(svc, key);
  assertOk(t, await submit(key, body(document)));
  const intent = await createIntent(svc, live);
  assertError(t, await confirm(svc, live, intent.id, { payment_method: payWith(snNumber('67')) }), 'IKW-PRV-005', 'id');

  await t.rejects(decisions.approve('acct_nobody', REVIEWER), { code: 'IKW-ACT-004' }, 'no application: nothing to approve');
  await t.rejects(decisions.suspend(m.id, 'Fraud', REVIEWER), { code: 'IKW-ACT-004' }, 'only an active account is suspended');
  await t.rejects(decisions.reinstate(m.id, REVIEWER), { code: 'IKW-ACT-004' });
  await t.rejects(decisions.requestInformation(m.id, [], REVIEWER), { code: 'IKW-ACT-007' });
  await t.rejects(decisions.requestInformation(m.id, [{ field: 'colour', message: 'Which?' }], REVIEWER), { code: 'IKW-ACT-007' });
  // Only the application's own fields and their parts: the merchant's form shows nothing beside another.
  for (const field of ['business.anything', 'business.legal_name.first', 'representative.nickname', 'settlement_destination.iban', 'owners.9.name', 'expected_monthly_volume.per_day', 'business.address.country']) {
    await t.rejects(
      decisions.requestInformation(
        m.id,
        [
          { field: 'business.address', message: 'Fine' },
          { field, message: 'Which?' },
        ],
        REVIEWER,
      ),
      { code: 'IKW-ACT-007', message: new RegExp(field.replaceAll('.', '\\.')) },
      `${field} is no field of the application`,
    );
  }
  t.equal((await read(key)).body.status, 'under_review', 'nothing asked');
  await t.rejects(decisions.reject(m.id, '  ', REVIEWER), { code: 'IKW-VAL-001' });

  const asked = await decisions.requestInformation(m.id, [{ field: 'representative.identity_document', message: 'The scan is blurred: upload a sharper one' }], REVIEWER);
  t.equal(asked.status, 'information_requested');
  t.match((await read(key)).body, {
    status: 'information_requested',
    requirements: { currently_due: ['representative.identity_document'], errors: [{ field: 'representative.identity_document', message: 'The scan is blurred: upload a sharper one' }] },
    decision: { decision: 'information_requested', reason: null },
  });
  t.match(lastMail(smtp.mails, email), /needs more information[\s\S]*representative\.identity_document: The scan is blurred/, 'e-mailed with the fields named');
  await t.rejects(decisions.approve(m.id, REVIEWER), { code: 'IKW-ACT-004' }, 'not approved while waiting for the merchant');

  assertOk(t, await submit(key, body(await uploadDocument(svc, key))));
  t.equal((await read(key)).body.status, 'under_review', 'resubmitted');
  svc.clock.advance(60_000);
  const approved = await decisions.approve(m.id, REVIEWER);
  t.equal(approved.status, 'active');
  await t.rejects(decisions.approve(m.id, REVIEWER), { code: 'IKW-ACT-004' }, 'approved once');
  await t.rejects(decisions.reject(m.id, 'Too late', REVIEWER), { code: 'IKW-ACT-004' });
  t.match(lastMail(smtp.mails, email), /Subject: Your Sika account is approved: live payments are open/);

  assertOk(t, await confirm(svc, live, intent.id, { payment_method: payWith(snNumber('67')) })); // the live confirm refused before is accepted
  t.equal(collects.filter((c) => c.paymentIntentId === intent.id).length, 1, 'the operator is asked');
  assertOk(t, await svc.request('POST', '/api/v1/payment_links', { key: live, body: { amount: 5_000, currency: 'XOF', country: 'SN' } })); // a live payment link now

  const review = await findActivationApplication(svc.system.knex, m.id);
  t.same(
    review?.decisions.map((d) => [d.decision, d.by]),
    [
      ['information_requested', REVIEWER.actor],
      ['approved', REVIEWER.actor],
    ],
    'the history with its operators',
  );
  const events = await svc.system.store.readStream(activationStream(m.id));
  t.same(
    events.map((e) => e.type),
    ['activation.submitted', 'activation.information_requested', 'activation.submitted', 'activation.approved'],
  );
  t.ok(
    events.slice(1).every((e) => e.metadata.actor === 'test' || e.metadata.merchant_id === m.id),
    'in the merchant’s audit trail',
  );
  t.equal(events.at(-1)!.metadata.actor, REVIEWER.actor, 'the decision’s actor is its operator');
  const merchantEvents = await svc.system.store.readStream(`merchant-${m.id}`);
  t.equal(merchantEvents.at(-1)!.type, 'merchant.live_activated');
  const commitOf = (position: unknown) => String(position).split(':')[0];
  t.equal(commitOf(merchantEvents.at(-1)!.position), commitOf(events.at(-1)!.position), 'the live switch is in the approval’s commit');

  // Suspended: live closes with the reason the merchant reads; reinstated: it opens again.
  await decisions.suspend(m.id, 'Unusual refund rate under investigation', REVIEWER);
  const link = await svc.request('POST', '/api/v1/payment_links', { key: live, body: { amount: 5_000, currency: 'XOF', country: 'SN' } });
  assertError(t, link, 'IKW-ACT-006', null);
  t.match(link.body.message, 'suspended');
  const again = await createIntent(svc, live);
  assertError(t, await confirm(svc, live, again.id, { payment_method: payWith(snNumber('67')) }), 'IKW-ACT-006', 'id');
  t.match((await read(live)).body, { status: 'suspended', decision: { decision: 'suspended', reason: 'Unusual refund rate under investigation' } });
  t.match(lastMail(smtp.mails, email), /Subject: Your Sika account is suspended[\s\S]*Unusual refund rate under investigation/);
  assertError(t, await submit(key, body(document)), 'IKW-ACT-002', null);
  await decisions.reinstate(m.id, REVIEWER);
  assertOk(t, await confirm(svc, live, again.id, { payment_method: payWith(snNumber('67')) })); // reinstated: live takes money again
  t.match(lastMail(smtp.mails, email), /Subject: Your Sika account is reinstated/);
});

t.test('a rejection is final for the merchant, with its reason in words', async (t) => {
  const { m, key, email } = await merchant('Rejected shop');
  const document = await uploadDocument(svc, key);
  assertOk(t, await submit(key, body(document)));
  await decisions.reject(m.id, 'The business sells goods our acquirers do not accept', REVIEWER);
  t.match((await read(key)).body, { status: 'rejected', requirements: { currently_due: [] }, decision: { decision: 'rejected', reason: 'The business sells goods our acquirers do not accept' } });
  t.match(lastMail(smtp.mails, email), /not approved[\s\S]*The business sells goods our acquirers do not accept/);
  assertError(t, await submit(key, body(document)), 'IKW-ACT-002', null);
  await t.rejects(decisions.approve(m.id, REVIEWER), { code: 'IKW-ACT-004' });
  assertError(t, await svc.request('POST', '/api/v1/payment_links', { key: m.api_keys.live, body: { amount: 5_000, currency: 'XOF', country: 'SN' } }), 'IKW-ACT-005', null);
});

t.test('the review queue: by status, the longest waiting first, cursor-paged', async (t) => {
  const waiting: string[] = [];
  for (const name of ['Queue one', 'Queue two', 'Queue three']) {
    const { m, key } = await merchant(name);
    svc.clock.advance(1_000);
    assertOk(t, await submit(key, body(await uploadDocument(svc, key))));
    waiting.push(m.id);
  }
  const all = await listActivationApplications(svc.system.knex, { status: 'under_review', limit: 100 });
  const mine = all.data.map((a) => a.merchantId).filter((id) => waiting.includes(id));
  t.same(mine, waiting, 'oldest submission first');
  const submittedTimes = all.data.map((a) => Date.parse(a.submittedAt!));
  t.same(
    submittedTimes,
    [...submittedTimes].sort((a, b) => a - b),
    'the whole queue in order',
  );
  const first = await listActivationApplications(svc.system.knex, { status: 'under_review', limit: 1, startingAfter: waiting[0] });
  t.equal(first.data[0]?.merchantId, waiting[1], 'the page after a merchant starts with the next');
  t.equal(first.hasMore, true);
  await t.rejects(listActivationApplications(svc.system.knex, { status: 'active', limit: 10, startingAfter: waiting[0] }), { code: 'IKW-VAL-001' }, 'a cursor not in the list');
  await decisions.approve(waiting[0]!, REVIEWER);
  t.notOk(
    (await listActivationApplications(svc.system.knex, { status: 'under_review', limit: 100 })).data.some((a) => a.merchantId === waiting[0]),
    'decided: out of the queue',
  );
  t.ok((await listActivationApplications(svc.system.knex, { status: 'active', limit: 100 })).data.some((a) => a.merchantId === waiting[0]));
});

t.test('a payer on the hosted page of a merchant whose live closed reads neutral words, never the operator’s, and is not told to try another number', async (t) => {
  const { m, key, live } = await merchant('Hosted shop');
  assertOk(t, await submit(key, body(await uploadDocument(svc, key))));
  await decisions.approve(m.id, REVIEWER);
  const session = await svc.request('POST', '/api/v1/checkout/sessions', { key: live, body: { amount: 10_000, currency: 'XOF', country: 'SN', successUrl: 'https://shop.example/ok', cancelUrl: 'https://shop.example/no' } });
  assertOk(t, session);
  await decisions.suspend(m.id, 'Internal fraud review of the merchant', REVIEWER);
  const page = await postForm(svc, session.body.id, { Operator: 'orange_money', PhoneNumber: '771234567' });
  t.equal(page.status, 403, page.text.slice(0, 300));
  t.match(page.text, 'This merchant cannot take payments at the moment. Nothing was charged.');
  t.notMatch(page.text, /operator opens|suspended|fraud|activation/i, 'no operator-facing words, no reason meant for the merchant');
  t.notMatch(page.text, 'another number', 'not invited to try another number');
});

t.test('the platform may name a part of a field: the address’s city, an owner, the wallet’s number', async (t) => {
  const { m, key } = await merchant('Parts shop');
  assertOk(t, await submit(key, body(await uploadDocument(svc, key))));
  const fields = ['business.address.city', 'owners.0.name', 'settlement_destination.msisdn', 'business.trading_name'];
  await decisions.requestInformation(
    m.id,
    fields.map((field) => ({ field, message: 'Give it again' })),
    REVIEWER,
  );
  t.same((await read(key)).body.requirements.currently_due, fields);
});

t.test('what a country and a type require, asked before submitting', async (t) => {
  const { key } = await merchant('Asking shop');
  const requirements = (query: string) => svc.request('GET', `${PATH}/requirements?${query}`, { key });
  const common = [
    'business.legal_name',
    'business.type',
    'business.country',
    'business.address',
    'business.product_description',
    'representative.name',
    'representative.date_of_birth',
    'representative.identity_document',
    'settlement_destination',
    'expected_monthly_volume',
  ];
  const sn = await requirements('country=sn&type=individual');
  assertOk(t, sn);
  t.same(
    sn.body,
    { object: 'activation_requirements', country: 'SN', type: 'individual', required: [...common, 'business.registration_number'], optional: ['owners', 'business.website', 'business.trading_name'] },
    'a Senegalese sole trader gives a registration number',
  );
  t.same((await requirements('country=GH&type=individual')).body.required, common, 'a Ghanaian one does not');
  t.same((await requirements('country=NG&type=company')).body.required, [...common, 'business.registration_number', 'owners', 'business.website'], 'a Nigerian company gives its owners and website');
  t.same((await read(key)).body.requirements.currently_due, common, "the application's own requirements are unchanged");
  assertError(t, await requirements('country=FR&type=individual'), 'IKW-VAL-004', 'country');
  assertError(t, await requirements('country=SN&type=trust'), 'IKW-VAL-001', 'type');
  assertError(t, await requirements('country=SN'), 'IKW-VAL-001', 'type');
  assertError(t, await requirements('type=company'), 'IKW-VAL-001', 'country');
});

t.test('the reference describes every property of the submitted application', async (t) => {
  const { key } = await merchant('Described shop');
  const document = await uploadDocument(svc, key);
  const company = body(document, (b) => {
    Object.assign(b.business, { type: 'company', trading_name: 'Awa Couture', website: 'https://awa.example', address: { line1: '12 rue Carnot', line2: 'Étage 2', city: 'Dakar', postal_code: '10200' } });
    b.owners = [{ name: 'Awa Diop', date_of_birth: '1990-04-12', ownership_percent: 60 }];
    b.settlement_destination = { type: 'bank', bank_code: 'SN001', account_number: '0123456789', account_name: HOLDER };
  });
  const other = await merchant('Described wallet');
  const answers = [(await submit(key, company)).body.application, (await submit(other.key, body(await uploadDocument(svc, other.key)))).body.application]; // a bank account, a wallet
  const reference = (await svc.request('GET', '/openapi.json')).body;
  for (const [method, status] of [
    ['get', '200'],
    ['post', '200'],
  ] as const) {
    const schema = reference.paths[PATH][method].responses[status].content['application/json'].schema.properties.application;
    const undescribed: string[] = [];
    const walk = (value: unknown, s: Body | undefined, at: string) => {
      if (Array.isArray(value)) return value.forEach((v) => walk(v, s?.items, `${at}.*`));
      if (value === null || typeof value !== 'object') return;
      for (const [name, v] of Object.entries(value)) {
        const property = s?.properties?.[name];
        if (typeof property?.description !== 'string') undescribed.push(`${at}.${name}`);
        walk(v, property, `${at}.${name}`);
      }
    };
    for (const application of answers) walk(application, schema, 'application');
    t.same(undescribed, [], `${method} ${PATH}: every property of the application is described`);
    t.not(schema.additionalProperties, true, 'not a free-form object');
  }
});
