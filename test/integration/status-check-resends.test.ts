/**
 * Status checks that find nothing (docs/connectors.md, "Sending again"): through the pawaPay
 * stand-in, which keeps one record per id, an attempt the provider never recorded is sent again
 * under its own id, and the schedule starts again from that send: the answer is asked for on the
 * connector's first delay, not at the next, longer step of the old schedule. Resends are bounded:
 * an attempt whose checks keep finding nothing goes to `bin/sika rails review`. Manual clock.
 */
import t, { type Test } from 'tap';
import { pawapayId } from '../../packages/connectors/pawapay/index.js';
import { MAX_RESENDS } from '../../packages/connectors/callbacks.js';
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

t.test('an attempt whose checks keep finding nothing is sent again a bounded number of times, then listed for review', async (t) => {
  const { key } = await goLive(svc, 'Never recorded');
  for (let i = 0; i <= MAX_RESENDS; i++) standin.next({ type: 'server_error', taken: false });
  const { intent, depositId } = await confirmed(key);
  const listed = async () => (await attemptsForReview(svc.system.knex)).map((a) => a.id);
  for (let i = 1; i <= MAX_RESENDS; i++) {
    await advance(svc, FIRST_CHECK);
    t.equal(depositsSent(depositId), 1 + i, `resend ${i}: a 5xx, nothing kept`);
  }
  for (const delay of [FIRST_CHECK, ...LATER_CHECKS.slice(0, -1)]) {
    await advance(svc, delay);
    t.notOk((await listed()).includes(intent.id), 'not listed while a check is still to come');
  }
  t.equal(depositsSent(depositId), 1 + MAX_RESENDS, `never sent more than ${MAX_RESENDS} times again`);
  await advance(svc, LATER_CHECKS.at(-1)!);
  t.match(await retrieve(svc, key, intent.id), { status: 'processing' }, 'never failed by guess');
  t.ok((await listed()).includes(intent.id), 'listed for review (sika rails review)');
  t.notOk(standin.operation('deposits', depositId), 'pawaPay never recorded it');
  conforms(t);
});
