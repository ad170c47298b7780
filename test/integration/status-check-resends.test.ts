/**
 * Status checks that find nothing (docs/connectors.md, "Sending again"): through the pawaPay
 * stand-in, which keeps one record per id, an attempt the provider never recorded is sent again
 * under its own id, and the schedule starts again from that send: the answer is asked for on the
 * connector's first delay, not at the next, longer step of the old schedule, three times at most;
 * later checks still send it again, on the schedule's growing delays, and an attempt whose checks
 * keep finding nothing goes to `bin/sika rails review` when the schedule runs out. Manual clock.
 */
import t, { type Test } from '#tap';
import { pawapayId } from '#packages/connectors/pawapay/index.js';
import { MAX_RESENDS } from '#packages/connectors/callbacks.js';
import { confirm, createIntent, mobileMoney, retrieve, snNumber } from '../support/payments.js';
import { goLive, startPawapayLive } from '../support/live.js';
import { attemptsForReview } from '../../services/rails.js';
import { advance } from '../support/system.js';

const { svc, standin } = await startPawapayLive(t);
const MINUTE = 60_000;
/** PAWAPAY_STATUS_CHECK_AFTER's default: the first delay of the schedule. */
const FIRST_CHECK = 2 * MINUTE;
/** The later delays, each after the one before. */
const LATER_CHECKS = [5, 15, 60, 180, 360, 720, 1440].map((m) => m * MINUTE);

const depositsSent = (depositId: string) => standin.requests.filter((r) => r.method === 'POST' && r.path === '/v2/deposits' && r.body.includes(depositId)).length;

function conforms(t: Test): void {
  t.same(standin.takeDeviations(), [], 'every request followed pawaPay’s contract');
}

async function confirmed(key: string) {
  const intent = await createIntent(svc, key, { amount: 10_000 });
  const res = await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('67')) });
  if (res.status !== 200) throw new Error(res.text);
  return { intent, depositId: pawapayId(res.body.latest_operation as string) };
}

t.test('a deposit whose request and resend both got a 5xx is sent again at the next check on the first delay, and followed as soon', async (t) => {
  const { key } = await goLive(svc, 'Resent soon');
  standin.next({ type: 'server_error', taken: false });
  const { intent, depositId } = await confirmed(key);
  t.notOk(standin.operation('deposits', depositId), 'pawaPay kept nothing');
  standin.next({ type: 'server_error', taken: false });
  await advance(svc, FIRST_CHECK);
  t.equal(depositsSent(depositId), 2, 'the first check found nothing and sent it again: a 5xx again, nothing kept');
  t.notOk(standin.operation('deposits', depositId));
  await advance(svc, FIRST_CHECK);
  t.equal(depositsSent(depositId), 3, 'the schedule started again from that resend: the next check, one first delay later, sent it again');
  t.match(standin.operation('deposits', depositId), { status: 'ACCEPTED' }, 'taken this time');
  standin.settle('deposits', depositId, 'COMPLETED');
  // No callback comes: the check decides.
  await advance(svc, FIRST_CHECK);
  t.match(await retrieve(svc, key, intent.id), { status: 'succeeded' }, 'succeeded three first delays after the first check, not some 20 minutes later');
  t.equal(depositsSent(depositId), 3, 'found: not sent again');
  conforms(t);
});

t.test('an attempt pawaPay keeps not recording is sent again at each check, on the first delay three times, then on the growing delays, and listed for review when they run out', async (t) => {
  const { key } = await goLive(svc, 'Never recorded');
  // The first request, the quick resends, then one resend at the end of each step of the schedule.
  const sends = 1 + MAX_RESENDS + 1 + LATER_CHECKS.length;
  for (let i = 0; i < sends; i++) standin.next({ type: 'server_error', taken: false });
  const { intent, depositId } = await confirmed(key);
  const listed = async () => (await attemptsForReview(svc.system.knex)).map((a) => a.id);
  for (let i = 1; i <= MAX_RESENDS + 1; i++) {
    await advance(svc, FIRST_CHECK);
    t.equal(depositsSent(depositId), 1 + i, `resend ${i}, one first delay after the one before: a 5xx, nothing kept`);
  }
  for (const [i, delay] of LATER_CHECKS.entries()) {
    await advance(svc, delay - 1_000);
    t.equal(depositsSent(depositId), 2 + MAX_RESENDS + i, `not sent again before the next step of the schedule (${delay / MINUTE} min)`);
    t.notOk((await listed()).includes(intent.id), 'not listed while a check is still to come');
    await advance(svc, 1_000);
    t.equal(depositsSent(depositId), 3 + MAX_RESENDS + i, 'sent again at it: pawaPay keeps one record per id');
  }
  t.equal(depositsSent(depositId), sends, 'every send met a 5xx');
  t.match(await retrieve(svc, key, intent.id), { status: 'processing' }, 'never failed by guess');
  t.ok((await listed()).includes(intent.id), 'listed for review (sika rails review) once the schedule has run out');
  t.notOk(standin.operation('deposits', depositId), 'pawaPay never recorded it');
  conforms(t);
});

t.test('an attempt whose quick resends all met a 5xx is taken by the resend at the next, longer step', async (t) => {
  const { key } = await goLive(svc, 'Recorded late');
  for (let i = 0; i < 1 + MAX_RESENDS + 1; i++) standin.next({ type: 'server_error', taken: false });
  const { intent, depositId } = await confirmed(key);
  for (let i = 0; i <= MAX_RESENDS; i++) await advance(svc, FIRST_CHECK);
  t.equal(depositsSent(depositId), 2 + MAX_RESENDS, 'the request and every quick resend met a 5xx');
  await advance(svc, LATER_CHECKS[0]!);
  t.equal(depositsSent(depositId), 3 + MAX_RESENDS, 'sent again at the next step: taken');
  t.match(standin.operation('deposits', depositId), { status: 'ACCEPTED' });
  standin.settle('deposits', depositId, 'COMPLETED');
  await advance(svc, LATER_CHECKS[1]!);
  t.match(await retrieve(svc, key, intent.id), { status: 'succeeded' }, 'followed by the check after it, with no callback');
  conforms(t);
});
