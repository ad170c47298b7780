/**
 * The process list: every job kind is declared once, and jobs about one object share a lane
 * (so the scheduler runs them in order) while other objects' jobs do not.
 */
import t from '#tap';
import { PROCESSES } from '#packages/families/index.js';
import { payoutCallback } from '#packages/families/payouts/processes/payout-callback.js';
import { payoutOverdue } from '#packages/families/payouts/processes/payout-overdue.js';
import { payoutReconcile } from '#packages/families/payouts/processes/payout-reconcile.js';
import type { ProcessServices } from '#packages/processes/process.js';
import { JobWaits, type Job } from '#packages/scheduler/scheduler.js';
import { StatusNotYet } from '#packages/connectors/port.js';
import { payoutStatusCheck } from '#packages/families/payouts/processes/status-check.js';
import { webhookDelivery, webhookFirstAttempts } from '#packages/families/webhooks/processes/webhook-delivery.js';

t.test('job kind names are unique', async (t) => {
  const names = PROCESSES.map((p) => p.job.name);
  t.equal(new Set(names).size, names.length, names.join(', '));
});

t.test("a payout's callback, overdue check and reconcile share one lane; another payout's do not", async (t) => {
  const ref = { merchantId: 'acct_1', environment: 'sandbox' as const, payoutId: 'po_1' };
  const lanes = new Set([payoutCallback.job.lane({ ...ref, report: { type: 'paid' } }), payoutOverdue.job.lane(ref), payoutReconcile.job.lane({ ...ref, currency: 'xof' })]);
  t.equal(lanes.size, 1);
  t.not(payoutOverdue.job.lane({ ...ref, payoutId: 'po_2' }), payoutOverdue.job.lane(ref));
});

t.test('keys dedupe what must run once and keep apart what must not', async (t) => {
  const at = new Date('2026-01-01T00:00:00Z');
  t.equal(webhookDelivery.job.key({ deliveryId: 'whd_1', attempt: 2 }, at), webhookDelivery.job.key({ deliveryId: 'whd_1', attempt: 2 }, new Date(0)), 'one job per attempt');
  t.not(webhookDelivery.job.key({ deliveryId: 'whd_1', attempt: 2 }, at), webhookDelivery.job.key({ deliveryId: 'whd_1', attempt: 3 }, at));
  const ref = { merchantId: 'acct_1', environment: 'sandbox' as const, payoutId: 'po_1' };
  t.not(payoutCallback.job.key({ ...ref, report: { type: 'delayed', reason: 'operator_pending' } }, at), payoutCallback.job.key({ ...ref, report: { type: 'paid' } }, at), 'a delay report and the final answer are different jobs');
});

t.test('first-attempts jobs claimed together: one deliverMany of attempt 1 each, and each job answered by its own deliveries', async (t) => {
  const calls: { deliveryId: string; attempt: number }[][] = [];
  const failed = new Error('record failed');
  // Only the deliverer is used by this handler; the answers are the deliverer's per attempt, in order.
  const services = {
    webhookDeliverer: {
      deliverMany: async (jobs: { deliveryId: string; attempt: number }[]) => {
        calls.push(jobs);
        return jobs.map((j) => (j.deliveryId === 'whd_b' ? failed : null));
      },
    },
  } as unknown as ProcessServices;
  const handler = webhookFirstAttempts.batch!.handler(services);
  const job = (ids: string[]) => ({ payload: { deliveryIds: ids }, job: {} as Job });
  const answers = await handler([job(['whd_a', 'whd_b']), job(['whd_c']), job(['whd_d', 'whd_e'])]);
  t.same(calls, [['whd_a', 'whd_b', 'whd_c', 'whd_d', 'whd_e'].map((deliveryId) => ({ deliveryId, attempt: 1 }))], 'one call, first attempts only');
  t.same(answers, [failed, null, null], 'a job runs again when one of its deliveries must; the others are done');
});

t.test("a payout's status check the provider cannot answer yet waits; any other failure stays one", async (t) => {
  const check = { merchantId: 'acct_1', environment: 'live' as const, payoutId: 'po_1', connector: 'hub2', attempt: 0, direction: 'payout' as const };
  const run = (thrown: Error) => payoutStatusCheck.handler!({ payoutOperatorSide: { checkStatus: async () => Promise.reject(thrown) } } as unknown as ProcessServices)(check, {} as Job);
  const waited: unknown = await run(new StatusNotYet('sent 10 s ago')).catch((err: unknown) => err);
  t.ok(waited instanceof JobWaits, 'a send still settling: a wait (logged at info)');
  t.match(waited, { message: 'sent 10 s ago' });
  const other = new Error('Hub2 answered 500');
  t.equal(await run(other).catch((err: unknown) => err), other, 'anything else: the failure itself');
});
