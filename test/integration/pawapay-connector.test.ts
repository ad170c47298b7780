/**
 * PawapayConnector against the pawaPay stand-in over real HTTP on loopback (docs/connectors.md,
 * "pawaPay"): deposits, payouts and refunds with their status checks, pawaPay's signed callbacks
 * received by a real server and turned into Sika's news, and each fault the stand-in injects.
 * Every test ends by asserting that no request left pawaPay's contract.
 */
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from '#tap';
import { getCurrency } from '#packages/catalog/index.js';
import { ManualClock } from '#packages/core/clock.js';
import { PawapayCallFailed, PawapayClient } from '#packages/connectors/pawapay/client.js';
import { pawapayId, PawapayConnector, type CallbackKind, type CallbackVerdict, type PawapayOptions } from '#packages/connectors/pawapay/index.js';
import { OutcomeUnknown, type CollectRequest, type PayoutRequest, type RefundRequest } from '#packages/connectors/port.js';
import { PawapayStandin, type StandinOptions } from '../support/pawapay-standin.js';

const TOKEN = 'pawapay-test-token';

interface Stand {
  clock: ManualClock;
  standin: PawapayStandin;
  connector: PawapayConnector;
  /** What the callback receiver made of each callback, in order, with the status it answered. */
  verdicts: CallbackVerdict[];
  connect(options?: Partial<PawapayOptions>): Promise<PawapayConnector>;
}

/**
 * A stand-in, a callback receiver on loopback that hands each callback to the connector (answering
 * 401 to what is unauthenticated, 200 otherwise), and the connector, configuration loaded.
 */
async function stand(t: Test, options: Partial<StandinOptions> = {}, connectorOptions: Partial<PawapayOptions> = {}): Promise<Stand> {
  const clock = new ManualClock(new Date('2026-03-01T10:00:00Z'));
  const verdicts: CallbackVerdict[] = [];
  let connector: PawapayConnector | undefined;
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const kind = (req.url ?? '').split('/').at(-1) as CallbackKind;
      void connector!.receiveCallback(kind, { method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks) }).then((verdict) => {
        verdicts.push(verdict);
        res.writeHead(verdict.verdict === 'unauthenticated' ? 401 : 200).end();
      });
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const publicUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const standin = await PawapayStandin.start({ token: TOKEN, clock, callbackBaseUrl: `${publicUrl}/connectors/pawapay`, ...options });
  t.teardown(async () => {
    await standin.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });
  const connect = async (more: Partial<PawapayOptions> = {}) => {
    const c = new PawapayConnector({
      baseUrl: standin.url,
      apiToken: TOKEN,
      clock,
      minorUnits: (currency) => getCurrency(currency)?.minorUnits,
      publicUrl,
      timeoutMs: 5_000,
      ...connectorOptions,
      ...more,
    });
    await c.refresh();
    return c;
  };
  connector = await connect();
  return { clock, standin, connector, verdicts, connect };
}

/** Ends a test: no request left pawaPay's contract. */
function conforms(t: Test, standin: PawapayStandin): void {
  t.same(standin.deviations, [], 'every request followed pawaPay’s contract');
}

const collect = (over: Partial<CollectRequest> = {}): CollectRequest => ({
  operationId: 'op_pawapay0000000000000001',
  paymentIntentId: 'pi_pawapay0000000000000001',
  merchantId: 'acct_1',
  environment: 'live',
  amount: 2_500,
  currency: 'xof',
  paymentMethod: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' },
  returnUrl: 'https://shop.example/back',
  ...over,
});
const payout = (over: Partial<PayoutRequest> = {}): PayoutRequest => ({
  payoutId: 'po_pawapay0000000000000001',
  merchantId: 'acct_1',
  environment: 'live',
  amount: 1_050,
  currency: 'ghs',
  destination: { type: 'mobile_money', currency: 'ghs', country: 'GH', operator: 'mtn', msisdn: '+233241234567' },
  ...over,
});

t.test('deposit accepted, then the signed callback (DER, then raw) becomes the same verified success', async (t) => {
  const { standin, connector, verdicts } = await stand(t);
  t.ok(connector.serves('collect', { rail: 'mobile_money', country: 'SN', operator: 'orange_money', currency: 'xof' }));
  t.notOk(connector.serves('collect', { rail: 'mobile_money', country: 'SN', operator: 'orange_money', currency: 'ghs' }), 'not in another currency');
  t.notOk(connector.serves('collect', { rail: 'mobile_money', country: 'ML', operator: 'orange_money' }), 'Mali is not served');
  t.notOk(connector.serves('collect', { rail: 'mobile_money', country: 'BF', operator: 'orange_money' }), 'a PREAUTH provider does not collect');
  t.ok(connector.serves('payout', { rail: 'mobile_money', country: 'BF', operator: 'orange_money' }), 'but pays out');
  t.notOk(connector.serves('collect', { rail: 'card' }));

  t.same(await connector.collect(collect()), { status: 'processing' });
  const id = pawapayId('op_pawapay0000000000000001');
  t.same(JSON.parse(standin.requests.at(-1)!.body), {
    depositId: id,
    amount: '2500',
    currency: 'XOF',
    payer: { type: 'MMO', accountDetails: { phoneNumber: '221771234567', provider: 'ORANGE_SEN' } },
    clientReferenceId: 'op_pawapay0000000000000001',
    metadata: [{ sikaId: 'op_pawapay0000000000000001' }, { merchantId: 'acct_1' }, { environment: 'live' }, { paymentIntentId: 'pi_pawapay0000000000000001' }],
  });
  t.same(await connector.collectStatus(collect()), { found: true, final: null, reported: { amount: 2_500, currency: 'xof' } }, 'accepted, not final');

  standin.settle('deposits', id, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', id, { encoding: 'der' }), 200);
  t.equal(await standin.sendCallback('deposits', id, { encoding: 'raw', digest: 'sha-256' }), 200, 'the same callback again, raw r‖s');
  const expected: CallbackVerdict = {
    verdict: 'news',
    news: {
      kind: 'collect',
      callback: { paymentIntentId: 'pi_pawapay0000000000000001', operationId: 'op_pawapay0000000000000001', merchantId: 'acct_1', environment: 'live', outcome: { status: 'succeeded' } },
    },
    reported: { amount: 2_500, currency: 'xof', providerReference: 'PP00000001' },
  };
  t.same(verdicts, [expected, expected], 'repeated callbacks tell the same news (the sinks apply it once)');
  t.same(await connector.collectStatus(collect()), { found: true, final: { status: 'succeeded' }, reported: { amount: 2_500, currency: 'xof', providerReference: 'PP00000001' } });

  // Out of order: a stale PROCESSING callback after the final one changes nothing.
  await standin.sendCallback('deposits', id, { override: { status: 'PROCESSING', providerTransactionId: undefined } });
  t.match(verdicts.at(-1), { verdict: 'pending', status: 'PROCESSING', ids: { sikaId: 'op_pawapay0000000000000001' } });
  // Final news is read back from pawaPay before it is news: a body pawaPay's record does not back up is rechecked.
  const reads = () => standin.requests.filter((r) => r.method === 'GET' && r.path === `/v2/deposits/${id}`).length;
  const before = reads();
  await standin.sendCallback('deposits', id, { override: { amount: '25000.00' } });
  t.match(verdicts.at(-1), { verdict: 'recheck', reason: /says another amount/, pawapayId: id, ids: { sikaId: 'op_pawapay0000000000000001', paymentIntentId: 'pi_pawapay0000000000000001' } });
  t.equal(reads(), before + 1, 'pawaPay’s record of the deposit was read');
  conforms(t, standin);
});

t.test('final news agrees with pawaPay’s own record (status, amount, currency, receipt, ids) or is rechecked; a failed read is rechecked', async (t) => {
  const { standin, connector, verdicts } = await stand(t);
  await connector.collect(collect());
  await connector.payout(payout());
  const deposit = pawapayId('op_pawapay0000000000000001');
  const paidOut = pawapayId('po_pawapay0000000000000001');
  standin.settle('deposits', deposit, 'COMPLETED');
  standin.settle('payouts', paidOut, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', deposit), 200);
  t.match(verdicts.at(-1), { verdict: 'news', reported: { amount: 2_500 } }, 'the record agrees: news');
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['a record still ACCEPTED', { status: 'ACCEPTED', providerTransactionId: undefined }, /another status, receipt/],
    ['another amount', { amount: '2000.00' }, /another amount/],
    ['another currency', { currency: 'GHS' }, /another currency/],
    ['another receipt', { providerTransactionId: 'PP99999999' }, /another receipt/],
    ['other ids', { metadata: { sikaId: 'op_pawapay0000000000000001', merchantId: 'acct_2', environment: 'live', paymentIntentId: 'pi_pawapay0000000000000001' } }, /another ids/],
  ];
  for (const [what, fields, reason] of cases) {
    const { stand: s, id } = await misreported(t, fields);
    t.equal(await s.standin.sendCallback('deposits', id), 200, what);
    t.match(s.verdicts.at(-1), { verdict: 'recheck', reason, ids: { sikaId: 'op_pawapay0000000000000001' } }, `${what}: rechecked`);
    conforms(t, s.standin);
  }
  standin.misreport('payouts', paidOut, { status: 'FAILED', failureReason: { failureCode: 'OTHER_ERROR' } });
  t.equal(await standin.sendCallback('payouts', paidOut), 200);
  t.match(verdicts.at(-1), { verdict: 'recheck', reason: /another status/, ids: { sikaId: 'po_pawapay0000000000000001' } }, 'a payout too');
  // pawaPay's record cannot be read (a 5xx): nothing is believed, the status check decides.
  standin.failStatusReads = true;
  t.equal(await standin.sendCallback('deposits', deposit), 200);
  t.match(verdicts.at(-1), { verdict: 'recheck', reason: /could not be read/, ids: { sikaId: 'op_pawapay0000000000000001' } }, 'a record that cannot be read: rechecked');
  conforms(t, standin);

  async function misreported(t: Test, fields: Record<string, unknown>) {
    const s = await stand(t);
    await s.connector.collect(collect());
    const id = pawapayId('op_pawapay0000000000000001');
    s.standin.settle('deposits', id, 'COMPLETED');
    s.standin.misreport('deposits', id, fields);
    return { stand: s, id };
  }
});

t.test('rejections and failures: pawaPay codes become Sika failure codes; what pawaPay cannot take is refused before sending', async (t) => {
  const { standin, connector, verdicts } = await stand(t);
  standin.next({ type: 'reject', code: 'PROVIDER_TEMPORARILY_UNAVAILABLE', message: 'Orange is down' });
  t.same(await connector.collect(collect({ operationId: 'op_rejected_1' })), { status: 'failed', failureCode: 'operator_unavailable', failureMessage: 'Orange is down' });
  standin.next({ type: 'reject', code: 'SOMETHING_NEW' });
  t.same(await connector.collect(collect({ operationId: 'op_rejected_2' })), { status: 'failed', failureCode: 'provider_error', failureMessage: 'Rejected: SOMETHING_NEW (pawaPay SOMETHING_NEW)' });
  t.same(await connector.collectStatus(collect({ operationId: 'op_rejected_1' })), { found: false }, 'a rejected deposit was never taken');
  standin.next({ type: 'reject', code: 'INVALID_PHONE_NUMBER' });
  t.same(await connector.payout(payout()), { status: 'rejected', failureCode: 'invalid_phone_number', failureMessage: 'Rejected: INVALID_PHONE_NUMBER' });

  const sent = standin.requests.length;
  const kenya = collect({ operationId: 'op_kes', currency: 'kes', amount: 10_050, paymentMethod: { type: 'mobile_money', country: 'KE', operator: 'mpesa', msisdn: '+254712345678' } });
  await t.rejects(connector.collect(kenya), { code: 'IKW-VAL-008', param: 'amount', message: /whole units only/ }, 'KES 100.50 cannot go to M-Pesa');
  await t.rejects(connector.collect(collect({ amount: 2_000_001 })), { code: 'IKW-VAL-008', message: /100 to 2000000 XOF/ }, "above the provider's limit");
  t.throws(() => connector.assertCanCollect({ type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+225071234567' }), { code: 'IKW-VAL-007', param: 'payment_method.mobile_money.msisdn' });
  t.throws(() => connector.assertCanPayOut({ type: 'mobile_money', currency: 'xof', country: 'TG', operator: 'tmoney', msisdn: '+22890123456' }), { code: 'IKW-PRV-001' });
  t.equal(standin.requests.length, sent, 'none of these was sent');
  t.same(await connector.collect({ ...kenya, amount: 10_000 }), { status: 'processing' }, 'KES 100 goes as "100"');
  t.equal(JSON.parse(standin.requests.at(-1)!.body).amount, '100');

  // A final failure arrives by callback.
  const id = pawapayId('op_kes');
  standin.settle('deposits', id, 'FAILED', 'INSUFFICIENT_BALANCE');
  await standin.sendCallback('deposits', id);
  t.match(verdicts.at(-1), { verdict: 'news', news: { callback: { operationId: 'op_kes', outcome: { status: 'failed', failureCode: 'insufficient_funds' } } }, reported: { amount: 10_000, currency: 'kes' } });
  conforms(t, standin);
});

t.test('duplicates: the same id again is DUPLICATE_IGNORED, read as accepted earlier', async (t) => {
  const { standin, connector } = await stand(t);
  t.same(await connector.collect(collect()), { status: 'processing' });
  t.same(await connector.collect(collect()), { status: 'processing' }, 'sent again with the same id');
  t.equal(JSON.parse(standin.requests.at(-1)!.body).depositId, pawapayId('op_pawapay0000000000000001'));
  standin.next({ type: 'duplicate' });
  t.same(await connector.payout(payout()), { status: 'accepted' }, 'DUPLICATE_IGNORED on a payout');
  conforms(t, standin);
});

t.test('a lost answer is an unknown outcome; the status check decides; a 5xx too; an unreachable pawaPay is provably not sent', async (t) => {
  const { standin, connector, connect } = await stand(t);
  standin.next({ type: 'lose_answer' });
  await t.rejects(connector.collect(collect()), OutcomeUnknown, 'taken, then the connection broke');
  t.same(await connector.collectStatus(collect()), { found: true, final: null, reported: { amount: 2_500, currency: 'xof' } }, 'pawaPay has it');
  standin.settle('deposits', pawapayId('op_pawapay0000000000000001'), 'COMPLETED');
  t.match(await connector.collectStatus(collect()), { found: true, final: { status: 'succeeded' } }, 'and the check finds the outcome: no callback needed');

  standin.next({ type: 'server_error', taken: false });
  await t.rejects(connector.payout(payout()), OutcomeUnknown, 'a 500');
  t.same(await connector.payoutStatus(payout()), { found: false }, 'never taken: it may be sent again with the same id');
  t.same(await connector.payout(payout()), { status: 'accepted' });

  standin.next({ type: 'server_error', taken: true });
  await t.rejects(connector.payout(payout({ payoutId: 'po_taken' })), OutcomeUnknown);
  t.match(await connector.payoutStatus(payout({ payoutId: 'po_taken' })), { found: true, final: null });

  const impatient = await connect({ timeoutMs: 100 });
  standin.next({ type: 'hang' });
  await t.rejects(impatient.collect(collect({ operationId: 'op_hang' })), OutcomeUnknown, 'no answer in time');

  const wrongToken = new PawapayClient({ baseUrl: standin.url, apiToken: 'not-the-token', timeoutMs: 5_000, clock: new ManualClock() });
  const refused = await wrongToken.post('/v2/deposits', {}).catch((err: unknown) => err);
  t.ok(refused instanceof PawapayCallFailed);
  t.match(refused, { sent: 'no', httpStatus: 401, failureCode: 'AUTHENTICATION_ERROR' }, 'a 4xx: pawaPay did not take it');
  t.match(standin.takeDeviations(), [/no valid bearer token/], 'the stand-in saw the bad token');

  conforms(t, standin);
  await standin.close();
  await t.rejects(connector.collect(collect({ operationId: 'op_refused' })), { code: 'IKW-PRV-002', message: /could not be reached \(ECONNREFUSED\)/ }, 'connection refused: nothing was sent');
});

t.test('a payout held up (ENQUEUED, IN_RECONCILIATION) reports the delay, then pays', async (t) => {
  const { standin, connector, verdicts } = await stand(t);
  t.same(await connector.payout(payout()), { status: 'accepted' });
  t.equal(JSON.parse(standin.requests.at(-1)!.body).amount, '10.5', 'GHS 10.50');
  const id = pawapayId('po_pawapay0000000000000001');
  standin.settle('payouts', id, 'ENQUEUED');
  t.same(await connector.payoutStatus(payout()), { found: true, final: null, reported: { amount: 1_050, currency: 'ghs' }, delayed: 'operator_down' });
  standin.settle('payouts', id, 'IN_RECONCILIATION');
  t.match(await connector.payoutStatus(payout()), { found: true, final: null, delayed: 'operator_pending' });
  standin.settle('payouts', id, 'COMPLETED');
  await standin.sendCallback('payouts', id);
  t.same(verdicts.at(-1), {
    verdict: 'news',
    news: { kind: 'payout', callback: { payoutId: 'po_pawapay0000000000000001', merchantId: 'acct_1', environment: 'live', report: { type: 'paid' } } },
    reported: { amount: 1_050, currency: 'ghs', providerReference: 'PP00000001' },
  });
  t.same(await connector.payoutStatus(payout()), { found: true, final: { type: 'paid' }, reported: { amount: 1_050, currency: 'ghs', providerReference: 'PP00000001' } });
  conforms(t, standin);
});

t.test('refunds: of a completed deposit, through its provider; the callback and the check tell the outcome', async (t) => {
  const { standin, connector, verdicts } = await stand(t);
  const refund: RefundRequest = { refundId: 're_pawapay0000000000000001', operationId: 'op_pawapay0000000000000001', merchantId: 'acct_1', environment: 'live', amount: 1_000, currency: 'xof' };
  t.same(await connector.refund(refund), { status: 'rejected', failureCode: 'refund_not_possible', failureMessage: 'pawaPay has no record of the payment to refund' });
  await connector.collect(collect());
  standin.settle('deposits', pawapayId('op_pawapay0000000000000001'), 'COMPLETED');
  t.same(await connector.refund(refund), { status: 'accepted' });
  t.same(JSON.parse(standin.requests.at(-1)!.body), {
    refundId: pawapayId('re_pawapay0000000000000001'),
    depositId: pawapayId('op_pawapay0000000000000001'),
    amount: '1000',
    currency: 'XOF',
    clientReferenceId: 're_pawapay0000000000000001',
    metadata: [{ sikaId: 're_pawapay0000000000000001' }, { merchantId: 'acct_1' }, { environment: 'live' }, { operationId: 'op_pawapay0000000000000001' }],
  });
  t.same(await connector.refundStatus(refund), { found: true, final: null, reported: { amount: 1_000, currency: 'xof' } });
  const id = pawapayId('re_pawapay0000000000000001');
  standin.settle('refunds', id, 'COMPLETED');
  await standin.sendCallback('refunds', id);
  t.same(verdicts.at(-1), {
    verdict: 'news',
    news: { kind: 'refund', refund: { refundId: 're_pawapay0000000000000001', operationId: 'op_pawapay0000000000000001', merchantId: 'acct_1', environment: 'live', outcome: { status: 'succeeded' } } },
    reported: { amount: 1_000, currency: 'xof', providerReference: 'PP00000002' },
  });
  t.match(await connector.refundStatus(refund), { found: true, final: { status: 'succeeded' } });
  conforms(t, standin);
});

t.test('forged callbacks are unauthenticated; a rotated key is fetched; unsigned callbacks of an account that does not sign are rechecked', async (t) => {
  const { standin, connector, verdicts, clock } = await stand(t);
  await connector.collect(collect());
  const id = pawapayId('op_pawapay0000000000000001');
  standin.settle('deposits', id, 'COMPLETED');
  t.equal(await standin.sendCallback('deposits', id, { forge: 'other_key' }), 401);
  t.match(verdicts.at(-1), { verdict: 'unauthenticated', reason: /does not verify/ });
  t.equal(await standin.sendCallback('deposits', id, { forge: 'tampered' }), 401);
  t.match(verdicts.at(-1), { verdict: 'unauthenticated', reason: /Content-Digest does not match/ });
  t.equal(await standin.sendCallback('deposits', id, { forge: 'unsigned' }), 401, 'pawaPay signs callbacks for this account: an unsigned one is forged');
  t.match(verdicts.at(-1), { verdict: 'unauthenticated' });

  standin.rotateKey();
  clock.advance(61_000);
  t.equal(await standin.sendCallback('deposits', id), 200, 'a new key id: the keys are fetched again');
  t.match(verdicts.at(-1), { verdict: 'news', news: { callback: { outcome: { status: 'succeeded' } } } });
  t.same(
    verdicts.map((v) => v.verdict),
    ['unauthenticated', 'unauthenticated', 'unauthenticated', 'news'],
  );

  const unsigned = await stand(t, { signedCallbacks: false });
  await unsigned.connector.collect(collect());
  unsigned.standin.settle('deposits', id, 'COMPLETED');
  t.equal(await unsigned.standin.sendCallback('deposits', id), 200);
  t.match(unsigned.verdicts.at(-1), { verdict: 'recheck', pawapayId: id, ids: { sikaId: 'op_pawapay0000000000000001', paymentIntentId: 'pi_pawapay0000000000000001' } });
  t.equal(await unsigned.standin.sendCallback('deposits', id, { override: { metadata: undefined } }), 200);
  t.match(unsigned.verdicts.at(-1), { verdict: 'recheck', reason: /does not carry Sika's ids/ });
  t.notOk('pawapayId' in unsigned.verdicts.at(-1)!, 'unsigned and without ids: no search of the attempt by pawaPay’s id');
  conforms(t, standin);
  conforms(t, unsigned.standin);
});

t.test('a callback’s signature covers @method, @authority, @path, signature-date and content-digest, in its window, or it is unauthenticated', async (t) => {
  const { standin, connector, verdicts, clock } = await stand(t);
  await connector.collect(collect());
  const id = pawapayId('op_pawapay0000000000000001');
  standin.settle('deposits', id, 'COMPLETED');
  const refused = async (what: string, options: Parameters<PawapayStandin['sendCallback']>[2], reason: RegExp) => {
    t.equal(await standin.sendCallback('deposits', id, options), 401, what);
    t.match(verdicts.at(-1), { verdict: 'unauthenticated', reason }, what);
  };
  await refused('over the body’s digest alone', { components: ['content-digest'] }, /does not cover @method, @authority, @path, signature-date$/);
  for (const left of ['@method', '@authority', '@path', 'signature-date', 'content-digest']) {
    await refused(`without ${left}`, { components: ['@method', '@authority', '@path', 'signature-date', 'content-digest', 'content-type'].filter((c) => c !== left) }, new RegExp(`does not cover ${left}$`));
  }
  const now = clock.now().getTime();
  await refused('created 6 minutes ago (the window is 5)', { created: new Date(now - 6 * 60_000), expiresInSeconds: 3600 }, /created time is 360 s ago/);
  await refused('created 2 minutes ahead (1 tolerated)', { created: new Date(now + 2 * 60_000) }, /created time is in the future/);
  await refused('expired (2 minutes ago, valid 30 s)', { created: new Date(now - 2 * 60_000), expiresInSeconds: 30 }, /has expired/);
  const signed = 'sig-pp=("@method" "@authority" "@path" "signature-date" "content-digest" "content-type");alg="ecdsa-p256-sha256";keyid="HTTP_EC_P256_KEY:1"';
  await refused('no expires', { headers: { 'Signature-Input': `${signed};created=${Math.floor(now / 1000)}` } }, /no expires time/);
  await refused('no created', { headers: { 'Signature-Input': `${signed};expires=${Math.floor(now / 1000) + 60}` } }, /no created time/);
  await refused('not a structured field', { headers: { 'Signature-Input': 'sig-pp=(' } }, /not a structured dictionary/);
  t.equal(await standin.sendCallback('deposits', id, { created: new Date(now - 4 * 60_000), expiresInSeconds: 300 }), 200, 'four minutes old, not expired: taken');
  t.match(verdicts.at(-1), { verdict: 'news' });
  t.equal(standin.requests.filter((r) => r.method === 'GET' && r.path === `/v2/deposits/${id}`).length, 1, 'pawaPay was asked about the deposit for the verified callback only');
  conforms(t, standin);
});

t.test('while pawaPay’s keys cannot be fetched, callbacks are unauthenticated and the fetches back off (doubling, bounded)', async (t) => {
  const { standin, connector, verdicts, clock } = await stand(t, {}, { keyFetchBackoff: { firstMs: 5_000, maxMs: 20_000 } });
  await connector.collect(collect());
  const id = pawapayId('op_pawapay0000000000000001');
  standin.settle('deposits', id, 'COMPLETED');
  const fetches = () => standin.requests.filter((r) => r.path === '/v2/public-key/http').length;
  const burst = async (n: number) => {
    for (let i = 0; i < n; i++) t.equal(await standin.sendCallback('deposits', id), 401);
  };
  standin.failKeyFetches = true;
  await burst(10);
  t.equal(fetches(), 1, '10 callbacks, one fetch');
  t.match(verdicts.at(-1), { verdict: 'unauthenticated', reason: /keys could not be fetched .*next try in 5 s/ });
  clock.advance(4_999);
  await burst(5);
  t.equal(fetches(), 1, 'none before the back-off has passed');
  // Then 5 s, 10 s, 20 s, 20 s: one fetch each, whatever the number of callbacks.
  for (const [wait, total] of [
    [1, 2],
    [10_000, 3],
    [20_000, 4],
    [20_000, 5],
  ] as const) {
    clock.advance(wait);
    await burst(5);
    t.equal(fetches(), total, `after ${wait} ms more: ${total} fetches`);
  }
  clock.advance(19_999);
  await burst(5);
  t.equal(fetches(), 5, 'the back-off stays at its bound');
  standin.failKeyFetches = false;
  clock.advance(1);
  t.equal(await standin.sendCallback('deposits', id), 200, 'the endpoint back: the next callback verifies');
  t.match(verdicts.at(-1), { verdict: 'news' });
  t.equal(fetches(), 6);
  await standin.sendCallback('deposits', id);
  t.equal(fetches(), 6, 'and the keys are kept');
  t.equal(standin.requests.filter((r) => r.method === 'GET' && r.path === `/v2/deposits/${id}`).length, 2, 'pawaPay was asked about the deposit for the two verified callbacks only');
  conforms(t, standin);
});

t.test('a redirect provider (Wave) asks the payer to authorise on its page', async (t) => {
  const { standin, connector } = await stand(t);
  const wave = collect({ operationId: 'op_wave', paymentMethod: { type: 'mobile_money', country: 'SN', operator: 'wave', msisdn: '+221771234567' } });
  t.same(await connector.collect(wave), {
    status: 'requires_action',
    nextAction: { type: 'redirect_to_url', redirect_to_url: { url: `https://checkout.wave.example/pay/${pawapayId('op_wave')}`, return_url: 'https://shop.example/back' } },
  });
  conforms(t, standin);
});

t.test('an account that takes signed requests only: each financial request is signed and verified; without a key nothing is sent', async (t) => {
  const merchant = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signing = { key: { keyId: 'SIKA_KEY:1', privateKey: merchant.privateKey, algorithm: 'ecdsa-p256-sha256' as const } };
  const { standin, connector, connect } = await stand(t, { signedRequests: { keyId: 'SIKA_KEY:1', publicKey: merchant.publicKey } }, { requestSigning: signing });
  t.same(await connector.collect(collect()), { status: 'processing' });
  t.same(await connector.payout(payout()), { status: 'accepted' });
  t.match(standin.requests.at(-1)!.headers, { 'signature-input': /^sig-pp=\("@method" "@authority" "@path" "signature-date" "content-digest" "content-type"\);alg="ecdsa-p256-sha256";keyid="SIKA_KEY:1"/ });
  const unsigned = await connect({ requestSigning: undefined });
  const sent = standin.requests.filter((r) => r.method === 'POST').length;
  await t.rejects(unsigned.collect(collect({ operationId: 'op_unsigned' })), { code: 'IKW-PRV-002', message: /signed requests only/ });
  t.equal(standin.requests.filter((r) => r.method === 'POST').length, sent, 'nothing was sent');
  conforms(t, standin);
});

t.test('availability: from pawaPay, cached on the clock', async (t) => {
  const { standin, connector, clock } = await stand(t);
  const orange = { rail: 'mobile_money', country: 'SN', operator: 'orange_money' } as const;
  t.equal(await connector.availability('collect', orange), 'available');
  standin.availability.set('ORANGE_SEN/DEPOSIT', 'CLOSED');
  t.equal(await connector.availability('collect', orange), 'available', 'cached for a minute');
  clock.advance(60_000);
  t.equal(await connector.availability('collect', orange), 'unavailable');
  standin.availability.set('ORANGE_SEN/DEPOSIT', 'DELAYED');
  clock.advance(60_000);
  t.equal(await connector.availability('collect', orange), 'degraded');
  t.equal(await connector.availability('collect', { rail: 'mobile_money', country: 'TG', operator: 'flooz' }), 'unavailable');
  conforms(t, standin);
});
