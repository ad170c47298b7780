/**
 * The retry schedule of failed deliveries (5 min, 30 min, 2 h, 8 h, 24 h; nothing earlier), the
 * endpoint marked failing after the 5th failed retry with exactly one e-mail (a real SMTP server
 * on loopback) and one outbox row, a later success clearing `failing`, and WEBHOOK_RETRY_SCHEDULE.
 */
import t, { type Test } from '#tap';
import { createMerchant } from '#packages/families/merchants/merchant/commands.js';
import type { TestService } from '../../support/system.js';
import { attemptsOf, createIntentEvent, deliveriesOf, getEndpoint, HOUR, listeningEndpoint, MINUTE, OK, settle, startSmtp, startWebhookService, verify, WEBHOOK_TIMEOUT_MS, type Mail } from '../../support/webhooks.js';

interface OutboxRow {
  merchant_id: string;
  recipient: string | null;
  subject: string;
  body: string;
  sent_at: Date | null;
  error: string | null;
}

const service = (t: Test, smtpUrl: string, env: Record<string, string> = {}) => startWebhookService(t, { env: { SMTP_URL: smtpUrl, ...env } });

const outbox = (svc: TestService, merchantId: string): Promise<OutboxRow[]> => svc.system.knex('email_outbox').where({ merchant_id: merchantId }).orderBy('id');
const mailsTo = (mails: Mail[], address: string) => mails.filter((m) => m.to.includes(address));

t.test('retries after 5 min, 30 min, 2 h, 8 h and 24 h, then the endpoint is failing and the merchant gets one e-mail', async (t) => {
  const smtp = await startSmtp(t);
  const svc = await service(t, smtp.url);
  const email = 'ops@retry-merchant.example';
  const m = await createMerchant(svc.system.store, svc.clock, 'Retry merchant', 'test', email);
  const key = m.api_keys.sandbox;
  const { receiver, endpoint: e } = await listeningEndpoint(t, svc, key, ['payment_intent.created']);
  receiver.behaviour = { kind: 'answer', status: 500 };

  // Two events fail side by side: two deliveries, one endpoint, one e-mail.
  await createIntentEvent(svc, key);
  await createIntentEvent(svc, key);
  const start = svc.clock.now().getTime();
  await settle(svc);
  t.equal(receiver.count, 2, 'first attempts');

  const schedule = [5 * MINUTE, 30 * MINUTE, 2 * HOUR, 8 * HOUR, 24 * HOUR];
  for (const [i, delay] of schedule.entries()) {
    svc.clock.advance(delay - 1000);
    await settle(svc);
    t.equal(receiver.count, 2 * (i + 1), `retry ${i + 1}: nothing one second early`);
    t.equal((await getEndpoint(svc, key, e.id)).body.status, 'active', `retry ${i + 1}: still active`);
    svc.clock.advance(1000);
    await settle(svc);
    t.equal(receiver.count, 2 * (i + 2), `retry ${i + 1} after ${delay / MINUTE} min`);
  }
  t.same(mailsTo(smtp.mails, email).length, 1, 'one e-mail reached the SMTP server');

  // Every request verifies, and each delivery keeps its event id.
  const byId = new Map<string, number>();
  for (const req of receiver.requests) {
    const payload = verify(e.secret, req);
    t.equal(req.headers['webhook-id'], payload.id);
    byId.set(payload.id, (byId.get(payload.id) ?? 0) + 1);
  }
  t.same([...byId.values()], [6, 6], 'two events, six attempts each');

  const offsets = [0, 5 * MINUTE, 35 * MINUTE, 155 * MINUTE, 635 * MINUTE, 2075 * MINUTE];
  for (const d of await deliveriesOf(svc, e.id)) {
    t.match(d, { status: 'failed', attempts: 6, next_attempt_at: null });
    const attempts = await attemptsOf(svc, d.id);
    t.same(
      attempts.map((a) => [a.attempt, a.started_at.getTime() - start, a.response_status, a.error]),
      offsets.map((o, i) => [i + 1, o, 500, 'HTTP 500']),
      'six attempts recorded, at the scheduled times',
    );
    t.ok(attempts.every((a) => a.duration_ms >= 0 && a.duration_ms < WEBHOOK_TIMEOUT_MS));
  }

  const detail = (await getEndpoint(svc, key, e.id)).body;
  t.equal(detail.status, 'failing', 'GET shows the endpoint failing');
  t.equal(detail.enabled, true, 'failing does not disable it');

  const rows = await outbox(svc, m.id);
  t.equal(rows.length, 1, 'one outbox row');
  t.match(rows[0], { recipient: email, subject: `Webhook endpoint failing: ${receiver.url}`, error: null });
  t.ok(rows[0]!.sent_at, 'marked sent');
  t.match(rows[0]!.body, e.id);
  const [mail] = mailsTo(smtp.mails, email);
  t.same(mail!.to, [email]);
  t.match(mail!.raw, /Subject: Webhook endpoint failing/);
  t.match(mail!.raw, e.id, 'the e-mail names the endpoint');

  // No sixth retry.
  svc.clock.advance(72 * HOUR);
  await settle(svc);
  t.equal(receiver.count, 12, 'nothing after the last retry');

  // A later success clears `failing`, and sends no e-mail.
  receiver.behaviour = OK;
  await createIntentEvent(svc, key);
  await settle(svc);
  t.equal(receiver.count, 13);
  t.ok(verify(e.secret, receiver.requests[12]!));
  t.equal((await getEndpoint(svc, key, e.id)).body.status, 'active', 'active again');
  t.equal(mailsTo(smtp.mails, email).length, 1, 'still one e-mail');
  t.equal((await outbox(svc, m.id)).length, 1);
});

t.test('WEBHOOK_RETRY_SCHEDULE replaces the delays; a merchant without an address gets an outbox row only', async (t) => {
  const smtp = await startSmtp(t);
  const svc = await service(t, smtp.url, { WEBHOOK_RETRY_SCHEDULE: '1m,10m' });
  const email = 'alerts@short-schedule.example';
  const m = await createMerchant(svc.system.store, svc.clock, 'Short schedule', 'test', email);
  const silent = await createMerchant(svc.system.store, svc.clock, 'No address', 'test');
  const { receiver, endpoint: e } = await listeningEndpoint(t, svc, m.api_keys.sandbox);
  receiver.behaviour = { kind: 'close' };
  const { receiver: quiet, endpoint: q } = await listeningEndpoint(t, svc, silent.api_keys.sandbox);
  quiet.behaviour = { kind: 'answer', status: 404 };

  await createIntentEvent(svc, m.api_keys.sandbox);
  await createIntentEvent(svc, silent.api_keys.sandbox);
  await settle(svc);
  t.same([receiver.count, quiet.count], [1, 1]);

  svc.clock.advance(MINUTE - 1000);
  await settle(svc);
  t.same([receiver.count, quiet.count], [1, 1], 'nothing one second before 1 minute');
  svc.clock.advance(1000);
  await settle(svc);
  t.same([receiver.count, quiet.count], [2, 2], 'retry 1 after 1 minute (not 5)');

  svc.clock.advance(10 * MINUTE - 1000);
  await settle(svc);
  t.same([receiver.count, quiet.count], [2, 2], 'nothing one second before 10 minutes');
  svc.clock.advance(1000);
  await settle(svc);
  t.same([receiver.count, quiet.count], [3, 3], 'retry 2 after 10 minutes');
  for (const req of receiver.requests) verify(e.secret, req);
  for (const req of quiet.requests) verify(q.secret, req);

  t.equal((await getEndpoint(svc, m.api_keys.sandbox, e.id)).body.status, 'failing', 'failing after the last retry of the schedule');
  t.equal((await getEndpoint(svc, silent.api_keys.sandbox, q.id)).body.status, 'failing');
  const [d] = await deliveriesOf(svc, e.id);
  t.match(d, { status: 'failed', attempts: 3 });
  const attempts = await attemptsOf(svc, d!.id);
  t.ok(
    attempts.every((a) => a.response_status === null && /socket hang up|ECONNRESET/.test(a.error ?? '')),
    'a closed socket: no status, the error recorded',
  );

  t.same(
    smtp.mails.map((mail) => mail.to),
    [[email]],
    'one e-mail, to the merchant with an address',
  );
  t.match(await outbox(svc, m.id), [{ recipient: email, error: null }]);
  const rows = await outbox(svc, silent.id);
  t.equal(rows.length, 1, 'recorded for the merchant without an address too');
  t.match(rows[0], { recipient: null, sent_at: null });

  svc.clock.advance(24 * HOUR);
  await settle(svc);
  t.same([receiver.count, quiet.count], [3, 3], 'no further retries');
});
