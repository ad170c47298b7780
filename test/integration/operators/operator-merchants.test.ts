/**
 * The operators' list of merchants filtered by where their activation application stands
 * (docs/operator.md, "Merchants"): each merchant comes with its application status, a merchant
 * that never applied is `not_submitted`, the filter keeps only the merchants of one status (with
 * the search and the cursor), an unknown status is refused, and every role lists.
 */
import t from '#tap';
import { approvedMerchant, REVIEWER, submitApplication } from '../../support/activation.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { operatorSession, type TestOperator } from '../../support/operators.js';
import { startService, type TestService } from '../../support/system.js';

const svc: TestService = await startService(t);
const reviewer = await operatorSession(svc, 'reviewer');

const list = (query: string, who: TestOperator = reviewer) => svc.request('GET', `/api/v1/operator/merchants${query}`, { key: who.token });
const idsOf = async (query: string) => {
  const res = await list(query);
  assertOk(t, res);
  return (res.body.data as { id: string }[]).map((m) => m.id);
};

// One merchant in each status, the newest last: the list shows the newest first.
const never = await svc.merchant('Never Applied Shop');
svc.clock.advance(1_000);
const waiting = await svc.merchant('Waiting Shop');
await submitApplication(svc, waiting.api_keys.sandbox);
svc.clock.advance(1_000);
const asked = await svc.merchant('Asked Shop');
await submitApplication(svc, asked.api_keys.sandbox);
await svc.system.activationApplications.requestInformation(asked.id, [{ field: 'business.address', message: 'Which street?' }], REVIEWER);
svc.clock.advance(1_000);
const approved = await svc.merchant('Approved Shop');
await approvedMerchant(svc, approved.api_keys.sandbox, approved.id);
svc.clock.advance(1_000);
const approvedToo = await svc.merchant('Approved Market');
await approvedMerchant(svc, approvedToo.api_keys.sandbox, approvedToo.id);
svc.clock.advance(1_000);
const refused = await svc.merchant('Refused Shop');
await submitApplication(svc, refused.api_keys.sandbox);
await svc.system.activationApplications.reject(refused.id, 'Goods our acquirers do not accept', REVIEWER);
svc.clock.advance(1_000);
const suspended = await svc.merchant('Suspended Shop');
await approvedMerchant(svc, suspended.api_keys.sandbox, suspended.id);
await svc.system.activationApplications.suspend(suspended.id, 'Chargebacks', REVIEWER);

t.test('each merchant comes with its application status; one that never applied is not_submitted', async (t) => {
  const res = await list('?limit=100');
  assertOk(t, res);
  const statuses = Object.fromEntries((res.body.data as { id: string; applicationStatus: string }[]).map((m) => [m.id, m.applicationStatus]));
  t.same(statuses, {
    [never.id]: 'not_submitted',
    [waiting.id]: 'under_review',
    [asked.id]: 'information_requested',
    [approved.id]: 'active',
    [approvedToo.id]: 'active',
    [refused.id]: 'rejected',
    [suspended.id]: 'suspended',
  });
  t.match((await svc.request('GET', `/api/v1/operator/merchants/${suspended.id}`, { key: reviewer.token })).body, { merchant: { id: suspended.id, applicationStatus: 'suspended' } }, "and on the merchant's page");
});

t.test('the filter keeps only the merchants whose application stands there', async (t) => {
  t.same(await idsOf('?application_status=not_submitted'), [never.id], 'no application: not_submitted');
  t.same(await idsOf('?application_status=under_review'), [waiting.id]);
  t.same(await idsOf('?application_status=information_requested'), [asked.id]);
  t.same(await idsOf('?application_status=active'), [approvedToo.id, approved.id], 'newest first');
  t.same(await idsOf('?application_status=rejected'), [refused.id]);
  t.same(await idsOf('?application_status=suspended'), [suspended.id]);
  t.same(await idsOf('?application_status=active&search=market'), [approvedToo.id], 'with the search');
  t.same(await idsOf(`?application_status=rejected&search=${approved.id}`), [], 'both must hold');
  t.same(await idsOf('?application_status=active&live_status=active'), [approvedToo.id, approved.id], 'with the live status');
  t.same(await idsOf('?application_status=suspended&live_status=active'), [], 'a suspended merchant is not live');
  t.match((await list('?application_status=active&limit=1')).body, { data: [{ id: approvedToo.id }], has_more: true }, 'paged');
  t.match((await list(`?application_status=active&limit=1&starting_after=${approvedToo.id}`)).body, { data: [{ id: approved.id }], has_more: false });
});

t.test('an unknown status is refused; every role lists', async (t) => {
  assertError(t, await list('?application_status=approved'), 'IKW-VAL-001', 'application_status');
  assertError(t, await list('?application_status='), 'IKW-VAL-001', 'application_status');
  for (const role of ['risk', 'finance', 'admin'] as const) {
    const operator = await operatorSession(svc, role);
    t.same(
      (await list('?application_status=under_review', operator)).body.data?.map((m: { id: string }) => m.id),
      [waiting.id],
      `${role} lists`,
    );
  }
});
