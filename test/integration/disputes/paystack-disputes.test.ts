/**
 * Disputes of live card payments through Paystack, end to end through the public API
 * (docs/disputes.md): the real PaystackConnector over HTTP to the Paystack stand-in, which keeps
 * the disputes the card network opens and checks each answer against Paystack's contract; its
 * signed dispute webhooks posted to POST /connectors/paystack/events, which only prompt a read of
 * the dispute. Each step's balance (available, pending, reserved) is asserted.
 */
import { createHash } from 'node:crypto';
import t, { type Test } from '#tap';
import { assertError } from '../../support/assertions.js';
import { balance } from '../../support/payouts.js';
import { openDispute, paidCard as paidCardOf } from '../../support/disputes.js';
import { goLive, startPaystackLive } from '../../support/live.js';
import { activateLive, advance } from '../../support/system.js';
import { startSmtp, type Mail } from '../../support/webhooks.js';
import { createMerchant } from '#packages/families/merchants/merchant/commands.js';
import type { Dispute } from '../../support/paystack-standin.js';

const smtp = await startSmtp(t);
const { svc, standin } = await startPaystackLive(t, { service: { env: { SMTP_URL: smtp.url } } });
const DAY = 86_400_000;
/** The catalog's NGN dispute fee (docs/fees.md, "Disputes"). */
const FEE = 150_000;
const settleJobs = () => svc.system.scheduler.runUntilIdle();
const funds = (key: string) => balance(svc, key, 'ngn');

/** A live NGN card payment Paystack collected and Sika verified, and available funds for the dispute to hold. */
const paidCard = (merchantId: string, key: string, amount?: number) => paidCardOf(svc, standin, merchantId, key, amount);
/** The card network opens a dispute; Paystack tells Sika by webhook, and the read job runs. */
const opened = (reference: string, options: { dueInMs?: number; refundAmount?: number } = {}) => openDispute(svc, standin, reference, options);

const list = async (key: string, query = '') => svc.request('GET', `/api/v1/disputes${query}`, { key });
const disputeOf = async (key: string, paymentId: string) => {
  const res = await list(key, `?payment_intent=${paymentId}`);
  return (res.body.data as Record<string, unknown>[])[0];
};
const evidence = { customer_email: 'ada@example.com', customer_name: 'Ada Obi', customer_phone: '08012345678', service_details: 'Two cups, delivered to Lekki', delivery_date: '2026-11-20' };
const submit = (key: string, id: string, body: object, idempotencyKey?: string) => svc.request('POST', `/api/v1/disputes/${id}/evidence`, { key, body, ...(idempotencyKey ? { headers: { 'Idempotency-Key': idempotencyKey } } : {}) });
const accept = (key: string, id: string, idempotencyKey?: string) => svc.request('POST', `/api/v1/disputes/${id}/accept`, { key, body: {}, ...(idempotencyKey ? { headers: { 'Idempotency-Key': idempotencyKey } } : {}) });
const resolve = async (dispute: Dispute, resolution: 'declined' | 'auto-accepted') => {
  standin.resolveDispute(dispute, resolution);
  if ((await standin.sendDisputeWebhook('charge.dispute.resolve', dispute)) !== 200) throw new Error('dispute webhook refused');
  await settleJobs();
};

async function balanced(t: Test, merchantId: string) {
  const rows = await svc.system.knex('read.ledger_accounts').where({ merchant_id: merchantId, environment: 'live' }).sum<{ total: string }[]>({ total: 'amount' });
  t.equal(Number(rows[0]!.total), 0, 'the ledger balances: every account of the merchant sums to zero');
}

function conforms(t: Test): void {
  t.same(standin.takeDeviations(), [], 'every request followed Paystack’s contract');
}

t.test('a dispute opened by a verified webhook holds its amount; forged news does nothing; evidence before the due date; won gives it back', async (t) => {
  const { merchant, key } = await goLive(svc, 'Disputed shop');
  const { paymentId, reference } = await paidCard(merchant.id, key);
  const before = await funds(key);

  const dispute = standin.openDispute(reference, { now: svc.clock.now(), category: 'fraud' });
  for (const forge of ['unsigned', 'other_key', 'tampered'] as const) t.equal(await standin.sendDisputeWebhook('charge.dispute.create', dispute, { forge }), 401, `forged (${forge}): refused`);
  await settleJobs();
  t.same((await list(key)).body.data, [], 'forged news opens nothing');
  t.same(await funds(key), before, 'and holds nothing');

  t.equal(await standin.sendDisputeWebhook('charge.dispute.create', dispute), 200);
  await settleJobs();
  const created = await disputeOf(key, paymentId);
  t.match(created, { object: 'dispute', livemode: true, status: 'needs_response', reason: 'fraud', amount: 500_000, currency: 'ngn', payment_intent: paymentId, evidence: null, closed_at: null });
  t.match(created!.id, /^dp_[0-9A-Za-z]{24}$/);
  t.equal(created!.evidence_due_by, dispute.dueAt, "Paystack's due date");
  t.match(created, { fee: FEE, shortfall: 0 });
  t.same(await funds(key), { ...before, available: before.available - 500_000 - FEE, reserved: before.reserved + 500_000 }, 'the disputed amount moved from available to reserved, the fee charged');

  t.equal(await standin.sendDisputeWebhook('charge.dispute.create', dispute), 200, 'Paystack retries');
  t.equal(await standin.sendDisputeWebhook('charge.dispute.remind', dispute), 200, 'and reminds');
  await settleJobs();
  t.equal((await list(key)).body.data.length, 1, 'one dispute');
  t.same(await funds(key), { ...before, available: before.available - 500_000 - FEE, reserved: before.reserved + 500_000 }, 'held and charged once');

  const id = created!.id as string;
  const retrieved = await svc.request('GET', `/api/v1/disputes/${id}`, { key });
  t.equal(retrieved.status, 200);
  t.same(retrieved.body, created);

  assertError(t, await submit(key, id, { ...evidence, files: ['as_nothing'] }), 'IKW-DSP-004', 'files');
  const sent = await submit(key, id, evidence, 'evidence-1');
  t.equal(sent.status, 200, sent.text);
  t.match(sent.body, { status: 'under_review', evidence: { customer_name: 'Ada Obi', delivery_date: '2026-11-20', delivery_address: null, files: [] } });
  const again = await submit(key, id, evidence, 'evidence-1');
  t.same(again.body, sent.body, 'the same Idempotency-Key: the first answer');
  t.match(standin.disputeRequests, [
    {
      method: 'POST',
      path: `/dispute/${dispute.id}/evidence`,
      body: { customer_email: 'ada@example.com', customer_name: 'Ada Obi', customer_phone: '08012345678', service_details: 'Two cups, delivered to Lekki', delivery_date: '2026-11-20' },
    },
  ]);
  t.equal(standin.disputeRequests.length, 1, 'sent to Paystack once');
  assertError(t, await submit(key, id, evidence), 'IKW-DSP-001');

  await resolve(dispute, 'declined');
  t.match(await disputeOf(key, paymentId), { status: 'won', closed_at: String });
  t.same(await funds(key), { ...before, available: before.available - FEE }, 'won: the amount is back on the available balance; the fee is kept');
  await resolve(dispute, 'declined');
  t.same(await funds(key), { ...before, available: before.available - FEE }, 'a repeated resolution moves nothing');
  assertError(t, await accept(key, id), 'IKW-DSP-003');
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a lost dispute is debited for good; an accepted one too; late evidence is refused; another merchant’s dispute is 404', async (t) => {
  const { merchant, key } = await goLive(svc, 'Losing shop');
  const other = await goLive(svc, 'Other shop');
  const lost = await paidCard(merchant.id, key, 300_000);
  const before = await funds(key);
  const clearing = async () =>
    Number((await svc.system.knex('read.ledger_accounts').where({ merchant_id: merchant.id, environment: 'live', currency: 'ngn', account: 'rail_clearing:paystack' }).first<{ amount: string }>('amount'))?.amount ?? 0);
  const clearingBefore = await clearing();

  const dispute = await opened(lost.reference, { dueInMs: 2 * DAY });
  const d = await disputeOf(key, lost.paymentId);
  t.same(await funds(key), { ...before, available: before.available - 300_000 - FEE, reserved: before.reserved + 300_000 });
  assertError(t, await svc.request('GET', `/api/v1/disputes/${d!.id}`, { key: other.key }), 'IKW-RES-001');
  assertError(t, await submit(other.key, d!.id as string, evidence), 'IKW-RES-001');
  assertError(t, await accept(other.key, d!.id as string), 'IKW-RES-001');
  t.same((await list(other.key)).body.data, [], "another merchant's list does not show it");

  await advance(svc, 3 * DAY);
  assertError(t, await submit(key, d!.id as string, evidence), 'IKW-DSP-002');
  t.equal(standin.disputeRequests.filter((r) => r.path.startsWith(`/dispute/${dispute.id}/`)).length, 0, 'late evidence never reaches Paystack');

  // Three days on, the payment settled: what is pending and available together is what counts.
  const spendable = async () => {
    const f = await funds(key);
    return { spendable: f.available + f.pending, reserved: f.reserved };
  };
  t.same(await spendable(), { spendable: before.available + before.pending - 300_000 - FEE, reserved: before.reserved + 300_000 });
  await resolve(dispute, 'auto-accepted');
  t.match(await disputeOf(key, lost.paymentId), { status: 'lost' });
  t.same(await spendable(), { spendable: before.available + before.pending - 300_000 - FEE, reserved: before.reserved }, 'lost: out of reserved for good');
  t.equal(await clearing(), clearingBefore + 300_000, "back out through Paystack's clearing account");
  await resolve(dispute, 'auto-accepted');
  t.same(await spendable(), { spendable: before.available + before.pending - 300_000 - FEE, reserved: before.reserved }, 'a repeat debits nothing more');

  const accepted = await paidCard(merchant.id, key, 200_000);
  const mid = await funds(key);
  const second = await opened(accepted.reference);
  const s = await disputeOf(key, accepted.paymentId);
  t.same(await funds(key), { ...mid, available: mid.available - 200_000 - FEE, reserved: mid.reserved + 200_000 });
  const res = await accept(key, s!.id as string, 'accept-1');
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'accepted', closed_at: String });
  t.same((await accept(key, s!.id as string, 'accept-1')).body, res.body, 'the same Idempotency-Key: the first answer');
  const [note] = standin.disputeUploads(second);
  t.match(note, { uploadFilename: `dispute-${second.id}-accepted.txt`, contentType: 'text/plain' }, "no file named: Sika's note of the acceptance is uploaded");
  t.match(note!.bytes!.toString(), `accepts dispute ${second.id}`);
  t.match(
    standin.disputeRequests.filter((r) => r.path === `/dispute/${second.id}/resolve`),
    [{ method: 'PUT', body: { resolution: 'merchant-accepted', refund_amount: 200_000, uploaded_filename: note!.fileName } }],
  );
  t.same(await funds(key), { ...mid, available: mid.available - 200_000 - FEE }, 'accepted: as lost');
  t.equal(await standin.sendDisputeWebhook('charge.dispute.resolve', second), 200, "Paystack's news of the acceptance");
  await settleJobs();
  t.same(await funds(key), { ...mid, available: mid.available - 200_000 - FEE }, 'changes nothing');
  t.match(await disputeOf(key, accepted.paymentId), { status: 'accepted' });
  t.same(
    (await list(key, '?status=accepted')).body.data.map((x: { id: string }) => x.id),
    [s!.id],
  );

  await balanced(t, merchant.id);
  t.same(await svc.system.verifyProjections(), [], 'projections verify: every read model equals its rebuild');
  conforms(t);
});

t.test('news of a dispute of no payment of Sika’s, or of another amount, does nothing', async (t) => {
  const { merchant, key } = await goLive(svc, 'Unmatched shop');
  const { reference } = await paidCard(merchant.id, key, 100_000);
  const before = await funds(key);
  const dispute = standin.openDispute(reference, { now: svc.clock.now() });
  // The transaction Paystack reads back is another amount than the payment's: not matched.
  standin.transaction(reference)!.request.amount = 90_000;
  t.equal(await standin.sendDisputeWebhook('charge.dispute.create', dispute), 200);
  await settleJobs();
  t.same((await list(key)).body.data, []);
  t.same(await funds(key), before);
  t.equal(await standin.sendDisputeWebhook('charge.dispute.create', dispute, { override: { id: 999_999 } }), 200, 'a dispute Paystack does not know');
  await settleJobs();
  t.same((await list(key)).body.data, []);
  conforms(t);
});

/** A PDF as a merchant uploads it through the assets API (declare, upload, complete); its id. */
async function pdfAsset(key: string, name: string, text: string): Promise<{ id: string; bytes: Buffer }> {
  const bytes = Buffer.from(`%PDF-1.4\n% ${text}\n%%EOF\n`);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const created = await svc.request('POST', '/api/v1/assets', { key, body: { name, purpose: 'invoice_attachment', contentType: 'application/pdf', size: bytes.length, sha256 } });
  if (created.status !== 201) throw new Error(created.text);
  const id = created.body.id as string;
  if ((await svc.request('PUT', `/api/v1/assets/${id}/content`, { key, rawBody: bytes, headers: { 'content-type': 'application/octet-stream' } })).status !== 200) throw new Error('upload refused');
  if ((await svc.request('POST', `/api/v1/assets/${id}/complete`, { key })).status !== 200) throw new Error('completion refused');
  return { id, bytes };
}

t.test('evidence files reach Paystack: each uploaded to its signed URL from the assets’ storage, then named on the dispute; an accepted dispute names the merchant’s file', async (t) => {
  const { merchant, key } = await goLive(svc, 'Evidence shop');
  const other = await goLive(svc, 'Nosy shop');
  const { paymentId, reference } = await paidCard(merchant.id, key);
  const dispute = await opened(reference);
  const id = (await disputeOf(key, paymentId))!.id as string;
  const receipt = await pdfAsset(key, 'receipt.pdf', 'receipt of two cups');
  const delivery = await pdfAsset(key, 'delivery.pdf', 'signed for at Lekki');
  const foreign = await pdfAsset(other.key, 'theirs.pdf', 'not yours');

  assertError(t, await submit(key, id, { ...evidence, files: [receipt.id, foreign.id] }), 'IKW-DSP-004', 'files');
  t.same(standin.disputeUploads(dispute), [], 'a refused file: nothing uploaded');
  const sent = await submit(key, id, { ...evidence, files: [receipt.id, delivery.id] }, 'evidence-files');
  t.equal(sent.status, 200, sent.text);
  t.match(sent.body, { status: 'under_review', evidence: { files: [receipt.id, delivery.id] } });
  t.same((await submit(key, id, { ...evidence, files: [receipt.id, delivery.id] }, 'evidence-files')).body, sent.body, 'the same Idempotency-Key: the first answer');
  const uploads = standin.disputeUploads(dispute);
  t.same(
    uploads.map((u) => [u.uploadFilename, u.contentType, u.bytes]),
    [
      ['receipt.pdf', 'application/pdf', receipt.bytes],
      ['delivery.pdf', 'application/pdf', delivery.bytes],
    ],
    "the assets' bytes, uploaded once each",
  );
  const answered = standin.disputeRequests.filter((r) => r.path.startsWith(`/dispute/${dispute.id}`));
  t.match(
    answered,
    [
      { method: 'PUT', path: `/dispute/${dispute.id}`, body: { refund_amount: 500_000, uploaded_filename: uploads[0]!.fileName } },
      { method: 'PUT', path: `/dispute/${dispute.id}`, body: { refund_amount: 500_000, uploaded_filename: uploads[1]!.fileName } },
      { method: 'POST', path: `/dispute/${dispute.id}/evidence`, body: { customer_name: 'Ada Obi' } },
    ],
    'each file named on the dispute, then the evidence',
  );
  t.same(
    standin.attachedFiles(dispute),
    uploads.map((u) => u.fileName),
  );

  // Accepting with the merchant's own file (a refund receipt).
  const second = await paidCard(merchant.id, key, 200_000);
  const secondDispute = await opened(second.reference);
  const s = (await disputeOf(key, second.paymentId))!.id as string;
  assertError(t, await svc.request('POST', `/api/v1/disputes/${s}/accept`, { key, body: { file: foreign.id } }), 'IKW-DSP-004', 'file');
  assertError(t, await svc.request('POST', `/api/v1/disputes/${s}/accept`, { key: other.key, body: { file: foreign.id } }), 'IKW-RES-001');
  assertError(t, await svc.request('POST', `/api/v1/disputes/${s}/accept`, { key, body: { file: 7 } }), 'IKW-VAL-001');
  const refund = await pdfAsset(key, 'refund.pdf', 'refunded in store');
  const res = await svc.request('POST', `/api/v1/disputes/${s}/accept`, { key, body: { file: refund.id }, headers: { 'Idempotency-Key': 'accept-file' } });
  t.equal(res.status, 200, res.text);
  t.match(res.body, { status: 'accepted' });
  const [file] = standin.disputeUploads(secondDispute);
  t.same([file!.uploadFilename, file!.bytes], ['refund.pdf', refund.bytes]);
  t.match(
    standin.disputeRequests.filter((r) => r.path === `/dispute/${secondDispute.id}/resolve`),
    [{ body: { resolution: 'merchant-accepted', uploaded_filename: file!.fileName } }],
  );
  await balanced(t, merchant.id);
  conforms(t);
});

t.test('a dispute larger than the available balance holds what there is; the rest is its shortfall', async (t) => {
  const { merchant, key } = await goLive(svc, 'Thin shop');
  const { paymentId, reference } = await paidCardOf(svc, standin, merchant.id, key, 400_000, 250_000);
  const before = await funds(key);
  t.equal(before.available, 250_000, 'the payment is still pending: 250,000 available');

  await opened(reference);
  const d = await disputeOf(key, paymentId);
  t.match(d, { amount: 400_000, fee: 0, shortfall: 400_000 - 250_000 + FEE }, 'the hold takes all that is available; the fee and the rest are the shortfall');
  t.same(await funds(key), { ...before, available: 0, reserved: before.reserved + 250_000 });
  await balanced(t, merchant.id);
  t.same(await svc.system.verifyProjections(), [], 'projections verify');
  conforms(t);
});

/** A mail as its reader sees it: the subject's encoded words and the quoted-printable body decoded, no-break spaces as spaces. */
function readable(mail: Mail): string {
  const qp = (text: string) =>
    Buffer.from(
      text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
      'latin1',
    ).toString('utf8');
  const [head = '', ...body] = mail.raw.split('\r\n\r\n');
  const unfolded = head.replace(/\r\n[ \t]+/g, ' ').replace(/\?=\s+=\?/g, '?==?');
  const subject = unfolded.replace(/=\?UTF-8\?Q\?(.*?)\?=/gi, (_, words: string) => qp(words.replace(/_/g, ' ')));
  return `${subject}\n\n${qp(body.join('\r\n\r\n'))}`.replace(/\u00a0/g, ' ');
}

t.test('the merchant is e-mailed once as a dispute opens (with its due date) and once as it closes: won, lost or accepted', async (t) => {
  const email = 'owner@mailed-shop.example';
  const merchant = await createMerchant(svc.system.store, svc.clock, 'Mailed shop', 'test', email);
  await activateLive(svc, merchant.id);
  const key = merchant.api_keys.live;
  const mails = () => smtp.mails.filter((m) => m.to.includes(email)).map(readable);

  const won = await paidCard(merchant.id, key, 500_000);
  const first = await opened(won.reference);
  t.equal(await standin.sendDisputeWebhook('charge.dispute.remind', first), 200);
  await settleJobs();
  t.equal(mails().length, 1, 'one e-mail for the opening, however often Paystack tells it');
  const d = (await disputeOf(key, won.paymentId))!;
  t.match(mails()[0], 'Subject: A payment of NGN 5,000.00 is disputed');
  t.match(mails()[0], `answer by ${first.dueAt!.slice(0, 16).replace('T', ' ')} UTC`);
  t.match(mails()[0], `Dispute ${d.id as string} holds NGN 5,000.00 on your reserved balance`);
  t.match(mails()[0], 'its fee of NGN 1,500.00 is charged');
  t.match(mails()[0], 'Hello Mailed shop');

  await resolve(first, 'declined');
  await resolve(first, 'declined');
  t.equal(mails().length, 2, 'one e-mail for the closing');
  t.match(mails()[1], 'Subject: Dispute won: NGN 5,000.00');
  t.match(mails()[1], 'is back on your available balance');

  const lost = await paidCard(merchant.id, key, 100_000);
  const second = await opened(lost.reference);
  await resolve(second, 'auto-accepted');
  t.match(mails().at(-1), 'Subject: Dispute lost');

  const accepted = await paidCard(merchant.id, key, 100_000);
  await opened(accepted.reference);
  const a = (await disputeOf(key, accepted.paymentId))!;
  t.equal((await accept(key, a.id as string, 'accept-mail')).status, 200);
  t.equal((await accept(key, a.id as string, 'accept-mail')).status, 200, 'a retry');
  t.match(mails().at(-1), 'Subject: Dispute accepted');
  t.equal(mails().length, 6, 'three disputes: each opened once and closed once');
  conforms(t);
});
