/**
 * The review (docs/operator.md, "The review"): the operators' API over the activation application
 * on the real server, with a real SMTP server on loopback. The queue, one application with its
 * document's bytes and sandbox activity, a request for information the merchant reads, approval
 * that opens live, rejection and suspension in words the merchant reads, each decision an event
 * with its operator as actor and in the merchant's audit trail; roles at the edge (403), merchant
 * credentials answered as no route (404), another merchant's document a 404. The live rail is a
 * stand-in that takes every collection and payout.
 */
import t from '#tap';
import type { CollectRequest } from '#packages/connectors/port.js';
import { applicationBody, ID_PDF, liveRailsRecording, uploadDocument } from '../../support/activation.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { operatorSession, type TestOperator } from '../../support/operators.js';
import { confirm, createIntent, mobileMoney as payWith, snNumber } from '../../support/payments.js';
import { fund, mobileMoney, postPayout } from '../../support/payouts.js';
import { advance, startPaymentsService, type TestResponse, type TestService } from '../../support/system.js';
import { lastMail, startSmtp } from '../../support/webhooks.js';

const collects: CollectRequest[] = [];
const smtp = await startSmtp(t);
const svc: TestService = await startPaymentsService(t, {
  env: { SMTP_URL: smtp.url },
  rails: liveRailsRecording(collects),
});
const reviewer = await operatorSession(svc, 'reviewer');
const risk = await operatorSession(svc, 'risk');
const finance = await operatorSession(svc, 'finance');
const admin = await operatorSession(svc, 'admin');

const QUEUE = '/api/v1/operator/applications';
const get = (path: string, who: TestOperator | string) => svc.request('GET', path, { key: typeof who === 'string' ? who : who.token });
const post = (path: string, who: TestOperator | string, body?: unknown) => svc.request('POST', path, { key: typeof who === 'string' ? who : who.token, ...(body !== undefined ? { body } : {}) });
const actorOf = (o: TestOperator) => `operator:${o.operatorId}`;

/** A merchant with an owner who receives the decisions' e-mails, that has submitted its application. */
async function applicant(name: string) {
  const m = await svc.merchant(name);
  const email = `owner@${name.toLowerCase().replace(/[^a-z]/g, '')}.example`;
  await svc.member(m, email, 'correct horse battery', 'owner');
  const key = m.api_keys.sandbox;
  const document = await uploadDocument(svc, key);
  assertOk(t, await svc.request('POST', '/api/v1/merchant/activation', { key, body: applicationBody(document) }));
  return { m, key, live: m.api_keys.live, email, document };
}

/** The actors of the stored events of `type` on the merchant's application, oldest first. */
async function actorsOf(merchantId: string, type: string): Promise<string[]> {
  const rows = await svc.system
    .knex('events')
    .where({ type, stream_id: `activation-${merchantId}` })
    .orderBy('global_position')
    .select<{ metadata: { actor: string } }[]>('metadata');
  return rows.map((r) => r.metadata.actor);
}

/** The merchant's audit trail as operators read it: [type, actor], newest first (a decision's live switch is the last event of its commit). */
async function trail(merchantId: string): Promise<[string, string][]> {
  const page = await get(`/api/v1/operator/merchants/${merchantId}`, reviewer);
  assertOk(t, page);
  return page.body.auditTrail.map((e: { type: string; actor: string }) => [e.type, e.actor]);
}

t.test('the queue, the application with its document and sandbox activity, information asked and given, approval: live opens', async (t) => {
  const first = await applicant('Queue first');
  svc.clock.advance(1_000);
  const { m, key, live, email, document } = await applicant('Kora Foods');
  // Sandbox activity: one intent paid (the sandbox operator answers after its delay), one left unpaid.
  const paid = await createIntent(svc, key);
  assertOk(t, await confirm(svc, key, paid.id, { payment_method: payWith(snNumber('67')) }));
  await advance(svc);
  await createIntent(svc, key);

  const queue = await get(QUEUE, reviewer);
  assertOk(t, queue);
  const ids = queue.body.data.map((a: { merchantId: string }) => a.merchantId);
  t.ok(ids.indexOf(first.m.id) >= 0 && ids.indexOf(first.m.id) < ids.indexOf(m.id), 'the longest waiting first');
  t.match(
    queue.body.data.find((a: { merchantId: string }) => a.merchantId === m.id),
    { id: m.id, merchantName: 'Kora Foods', status: 'under_review', legalName: 'Awa Diop', country: 'SN', businessType: 'individual', submissions: 1 },
  );
  const paged = await get(`${QUEUE}?limit=1&starting_after=${first.m.id}`, reviewer);
  t.match(paged.body, { object: 'list', data: [{ merchantId: ids[ids.indexOf(first.m.id) + 1] }] });
  assertError(t, await get(`${QUEUE}?starting_after=acct_nobody`, reviewer), 'IKW-VAL-001', 'starting_after');
  t.same((await get(`${QUEUE}?status=active`, reviewer)).body.data, [], 'nothing approved yet');

  const opened = await get(`${QUEUE}/${m.id}`, reviewer);
  assertOk(t, opened);
  t.match(opened.body, {
    object: 'activation_application',
    merchantId: m.id,
    merchantName: 'Kora Foods',
    status: 'under_review',
    application: { business: { legal_name: 'Awa Diop', country: 'SN' }, representative: { identity_document: document }, settlement_destination: { msisdn: '+221771234567' } },
    documents: [{ field: 'representative.identity_document', assetId: document, name: 'passport.pdf', contentType: 'application/pdf', size: ID_PDF.length, url: `${QUEUE}/${m.id}/documents/${document}` }],
    destinationCheck: { result: 'accepted' },
    decisions: [],
    sandboxActivity: { payments: { total: 2, succeeded: 1, failed: 0 }, payouts: { total: 0, succeeded: 0, lastCreated: null } },
  });
  t.equal(opened.body.sandboxActivity.lastActivity, opened.body.sandboxActivity.payments.lastCreated, 'the last activity is the last intent');

  const bytes = await get(opened.body.documents[0].url, reviewer);
  t.equal(bytes.status, 200);
  t.equal(bytes.headers.get('content-type'), 'application/pdf');
  t.match(bytes.headers.get('content-disposition'), /^inline; filename="passport.pdf"/);
  t.equal(bytes.text, ID_PDF.toString(), 'the document as uploaded');
  assertError(t, await get(`${QUEUE}/${m.id}/documents/${first.document}`, reviewer), 'IKW-RES-001', 'assetId');
  assertError(t, await get(`${QUEUE}/${first.m.id}/documents/${document}`, reviewer), 'IKW-RES-001', 'assetId');
  const unnamed = await uploadDocument(svc, key);
  assertError(t, await get(`${QUEUE}/${m.id}/documents/${unnamed}`, reviewer), 'IKW-RES-001', 'assetId');
  assertError(t, await get(`${QUEUE}/acct_nobody`, reviewer), 'IKW-RES-001', 'merchantId');

  const intent = await createIntent(svc, live);
  assertError(t, await confirm(svc, live, intent.id, { payment_method: payWith(snNumber('67')) }), 'IKW-PRV-005', 'id');

  // A field the application has not is refused: the merchant's form could not show it.
  assertError(t, await post(`${QUEUE}/${m.id}/request-information`, reviewer, { fields: [{ field: 'business.colour', message: 'Which?' }] }), 'IKW-ACT-007', 'fields');
  assertError(t, await post(`${QUEUE}/${m.id}/request-information`, reviewer, { fields: [] }), 'IKW-VAL-001', 'fields');
  const asked = await post(`${QUEUE}/${m.id}/request-information`, reviewer, {
    fields: [
      { field: 'representative.identity_document', message: 'The scan is blurred: upload a sharper one' },
      { field: 'business.address.city', message: 'Give the city of the shop' },
    ],
  });
  assertOk(t, asked);
  t.match(asked.body, { status: 'information_requested', decisions: [{ decision: 'information_requested', by: actorOf(reviewer), fields: [{ field: 'representative.identity_document' }, { field: 'business.address.city' }] }] });
  t.match((await svc.request('GET', '/api/v1/merchant/activation', { key })).body, {
    status: 'information_requested',
    requirements: {
      currently_due: ['representative.identity_document', 'business.address.city'],
      errors: [
        { field: 'representative.identity_document', message: 'The scan is blurred: upload a sharper one' },
        { field: 'business.address.city', message: 'Give the city of the shop' },
      ],
    },
  });
  t.match(lastMail(smtp.mails, email), /needs more information[\s\S]*representative\.identity_document: The scan is blurred/);
  assertError(t, await post(`${QUEUE}/${m.id}/approve`, reviewer), 'IKW-ACT-004');

  assertOk(t, await svc.request('POST', '/api/v1/merchant/activation', { key, body: applicationBody(await uploadDocument(svc, key)) }));
  svc.clock.advance(60_000);
  const approved = await post(`${QUEUE}/${m.id}/approve`, reviewer);
  assertOk(t, approved);
  t.match(approved.body, { status: 'active', submissions: 2, decisions: [{ decision: 'information_requested' }, { decision: 'approved', by: actorOf(reviewer) }] });
  t.match(lastMail(smtp.mails, email), /Subject: Your Sika account is approved/);
  assertOk(t, await confirm(svc, live, intent.id, { payment_method: payWith(snNumber('67')) })); // the live confirm refused before
  t.equal(collects.filter((c) => c.paymentIntentId === intent.id).length, 1, 'the live rail is asked');
  assertError(t, await post(`${QUEUE}/${m.id}/approve`, admin), 'IKW-ACT-004');

  t.same(await actorsOf(m.id, 'activation.information_requested'), [actorOf(reviewer)]);
  t.same(await actorsOf(m.id, 'activation.approved'), [actorOf(reviewer)]);
  t.match(await trail(m.id), [
    ['merchant.live_activated', actorOf(reviewer)],
    ['activation.approved', actorOf(reviewer)],
    ['activation.submitted', /^key_/],
    ['activation.information_requested', actorOf(reviewer)],
  ]);
  t.ok(
    (await get(`${QUEUE}?status=active`, reviewer)).body.data.some((a: { merchantId: string }) => a.merchantId === m.id),
    'decided: in the active list',
  );
});

t.test('a rejection: the merchant reads the reason and is e-mailed it', async (t) => {
  const { m, key, email } = await applicant('Rejected goods');
  assertError(t, await post(`${QUEUE}/${m.id}/reject`, reviewer, { reason: '   ' }), 'IKW-VAL-001', 'reason');
  assertError(t, await post(`${QUEUE}/${m.id}/reject`, reviewer, {}), 'IKW-VAL-001', 'reason');
  const rejected = await post(`${QUEUE}/${m.id}/reject`, reviewer, { reason: 'The business sells goods our acquirers do not accept' });
  assertOk(t, rejected);
  t.match(rejected.body, { status: 'rejected', decisions: [{ decision: 'rejected', by: actorOf(reviewer), reason: 'The business sells goods our acquirers do not accept' }] });
  t.match((await svc.request('GET', '/api/v1/merchant/activation', { key })).body, { status: 'rejected', decision: { decision: 'rejected', reason: 'The business sells goods our acquirers do not accept' } });
  t.match(lastMail(smtp.mails, email), /not approved[\s\S]*The business sells goods our acquirers do not accept/);
  t.same(await actorsOf(m.id, 'activation.rejected'), [actorOf(reviewer)]);
  t.match((await trail(m.id))[0], ['activation.rejected', actorOf(reviewer)], 'in the audit trail, though the merchant itself did not change');
  assertError(t, await post(`${QUEUE}/${m.id}/reject`, reviewer, { reason: 'Again' }), 'IKW-ACT-004');
});

t.test('a decision names the submission read: one made on an older submission is refused and changes nothing', async (t) => {
  const { m, key, document } = await applicant('Resubmitted shop');
  const read = await get(`${QUEUE}/${m.id}`, reviewer);
  t.equal(read.body.submissions, 1);
  assertOk(t, await post(`${QUEUE}/${m.id}/request-information`, reviewer, { submission: 1, fields: [{ field: 'business.address', message: 'Give the street number' }] }));
  assertOk(t, await svc.request('POST', '/api/v1/merchant/activation', { key, body: applicationBody(document) }));
  // A second reviewer had the first submission open: their approval would be made on details nobody read.
  assertError(t, await post(`${QUEUE}/${m.id}/approve`, reviewer, { submission: 1 }), 'IKW-ACT-004', 'submission');
  assertError(t, await post(`${QUEUE}/${m.id}/reject`, reviewer, { reason: 'Stale', submission: 1 }), 'IKW-ACT-004', 'submission');
  t.equal((await svc.request('GET', '/api/v1/merchant/activation', { key })).body.status, 'under_review', 'nothing was decided');
  assertError(t, await post(`${QUEUE}/${m.id}/approve`, reviewer, { submission: 0 }), 'IKW-VAL-001', 'submission');
  const approved = await post(`${QUEUE}/${m.id}/approve`, reviewer, { submission: 2 });
  assertOk(t, approved);
  t.equal(approved.body.status, 'active', 'naming the submission on the page, it is approved');
});

t.test('a suspension by the risk team: live payouts refused, the merchant reads why; reinstated, they go again', async (t) => {
  const { m, key, live, email } = await applicant('Suspended shop');
  await fund(svc, m.id, 100_000, 'live');
  assertError(t, await post(`/api/v1/operator/merchants/${m.id}/suspend`, risk, { reason: 'Fraud' }), 'IKW-ACT-004'); // not active yet
  assertOk(t, await post(`${QUEUE}/${m.id}/approve`, reviewer));
  let payouts = 0;
  const livePayout = () => postPayout(svc, live, { amount: 10_000, currency: 'xof', destination: mobileMoney('67') }, { idempotencyKey: `suspension-${++payouts}` });
  assertOk(t, await livePayout());

  assertError(t, await post(`/api/v1/operator/merchants/${m.id}/suspend`, reviewer, { reason: 'Fraud' }), 'IKW-OPR-001');
  svc.clock.advance(1_000);
  const suspended = await post(`/api/v1/operator/merchants/${m.id}/suspend`, risk, { reason: 'Chargebacks reported by the card acquirer' });
  assertOk(t, suspended);
  t.match(suspended.body, { status: 'suspended', decisions: [{ decision: 'approved' }, { decision: 'suspended', by: actorOf(risk), reason: 'Chargebacks reported by the card acquirer' }] });
  assertError(t, await livePayout(), 'IKW-ACT-006', 'amount');
  t.match((await svc.request('GET', '/api/v1/merchant/activation', { key })).body, { status: 'suspended', decision: { decision: 'suspended', reason: 'Chargebacks reported by the card acquirer' } });
  t.match(lastMail(smtp.mails, email), /Subject: Your Sika account is suspended[\s\S]*Chargebacks reported by the card acquirer/);

  assertError(t, await post(`/api/v1/operator/merchants/${m.id}/reinstate`, reviewer), 'IKW-OPR-001');
  assertOk(t, await post(`/api/v1/operator/merchants/${m.id}/reinstate`, risk));
  assertOk(t, await livePayout());
  assertError(t, await post(`/api/v1/operator/merchants/${m.id}/reinstate`, risk), 'IKW-ACT-004');
  t.same(await actorsOf(m.id, 'activation.suspended'), [actorOf(risk)]);
  t.same(await actorsOf(m.id, 'activation.reinstated'), [actorOf(risk)]);
  t.match((await trail(m.id)).slice(0, 4), [
    ['merchant.live_activated', actorOf(risk)],
    ['activation.reinstated', actorOf(risk)],
    ['merchant.live_deactivated', actorOf(risk)],
    ['activation.suspended', actorOf(risk)],
  ]);
});

/** A 404's body without its request id. */
const notFound = (res: TestResponse) => ({ status: res.status, body: { ...res.body, request_id: undefined } });

t.test('roles at the edge: 403 for an operator without the role; merchant credentials are no route; unknown merchants 404', async (t) => {
  const { m, key, document } = await applicant('Guarded shop');
  for (const operator of [risk, finance]) {
    for (const decision of ['approve', 'reject', 'request-information']) {
      const body = decision === 'reject' ? { reason: 'No' } : decision === 'request-information' ? { fields: [{ field: 'business.address', message: 'Where?' }] } : undefined;
      assertError(t, await post(`${QUEUE}/${m.id}/${decision}`, operator, body), 'IKW-OPR-001');
    }
  }
  assertError(t, await post(`/api/v1/operator/merchants/${m.id}/suspend`, finance, { reason: 'No' }), 'IKW-OPR-001');
  for (const path of [QUEUE, `${QUEUE}/${m.id}`, `${QUEUE}/${m.id}/documents/${document}`]) assertError(t, await get(path, finance), 'IKW-OPR-001');
  assertOk(t, await get(`${QUEUE}/${m.id}`, risk)); // the risk team reads what it suspends
  t.equal((await svc.request('GET', '/api/v1/merchant/activation', { key })).body.status, 'under_review', 'nothing was decided');

  const appToken = await svc.signIn(`owner@guardedshop.example`, 'correct horse battery');
  for (const [method, path] of [
    ['GET', QUEUE],
    ['GET', `${QUEUE}/${m.id}/documents/${document}`],
    ['POST', `${QUEUE}/${m.id}/approve`],
    ['POST', `/api/v1/operator/merchants/${m.id}/suspend`],
  ] as const) {
    const unknown = notFound(await svc.request(method, `${path}-nowhere`));
    const expected = { ...unknown, body: { ...unknown.body, message: `No such route: ${method} ${path}` } };
    for (const credential of [key, m.api_keys.live, appToken]) t.same(notFound(await svc.request(method, path, { key: credential })), expected, `${method} ${path} with a merchant credential`);
  }

  assertError(t, await post(`${QUEUE}/acct_nobody/approve`, reviewer), 'IKW-RES-001', 'merchantId');
  assertError(t, await post('/api/v1/operator/merchants/acct_nobody/suspend', risk, { reason: 'Fraud' }), 'IKW-RES-001', 'merchantId');
  const never = await svc.merchant('Never applied');
  assertError(t, await post(`${QUEUE}/${never.id}/approve`, admin), 'IKW-ACT-004');
  t.match((await get(`${QUEUE}/${never.id}`, reviewer)).body, { status: 'not_submitted', application: null, documents: [], decisions: [] });
});
