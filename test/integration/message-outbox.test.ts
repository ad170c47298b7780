/**
 * The message outbox keeps no secret in clear (docs/operations.md, "The message outbox"): a message
 * no transport took keeps its text sealed with the secrets key, readable through the outbox (the
 * CLI, tests) and only for OUTBOX_TEXT_RETENTION; rows go after OUTBOX_RETENTION, by an hourly
 * scheduler job that sets the next one.
 */
import t from '#tap';
import { startService } from '../support/system.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

t.test('kept texts are sealed; the hourly pass drops them after a week and the rows after thirty days', async (t) => {
  const svc = await startService(t);
  const { knex } = svc.system;
  // No SMTP here: the e-mail with the link is kept, the outbox being its only delivery.
  const m = await svc.merchant();
  await svc.member(m, 'awa@shop.example', 'correct horse battery');
  t.equal((await svc.request('POST', '/api/v1/auth/magic-link', { body: { email: 'awa@shop.example' } })).status, 202);

  const [row] = (await knex('message_outbox').where({ recipient: 'awa@shop.example', purpose: 'magic_link' })) as { body: string; subject: string }[];
  t.notMatch(row!.body, /ml_/, 'the link is not in the table in clear');
  t.notMatch(row!.subject, /ml_/);
  const [kept] = await svc.system.outbox.kept({ recipient: 'awa@shop.example' }, 1);
  t.match(kept!.text, /dashboard\/magic-link\?token=ml_/, 'the outbox opens it for whoever runs the service');

  const jobs = () => knex('scheduled_jobs').where({ kind: 'outbox.purge' }).orderBy('run_at').select('run_at');
  t.equal((await jobs()).length, 1, 'one retention pass is set, at the next hour');

  svc.clock.advance(7 * DAY + HOUR);
  await svc.system.scheduler.runUntilIdle();
  t.equal((await svc.system.outbox.kept({ recipient: 'awa@shop.example' }, 1))[0]!.text, null, 'after a week the text is gone');
  t.equal((await jobs()).length, 1, 'each pass sets the next');

  svc.clock.advance(23 * DAY);
  await svc.system.scheduler.runUntilIdle();
  t.equal((await knex('message_outbox').where({ recipient: 'awa@shop.example' })).length, 0, 'after thirty days the row is gone');
});
