/**
 * The pawaPay request builders and answer mappers (packages/connectors/pawapay/operations.ts):
 * bodies as the contract wants them, initiation answers decided on the body's status, status
 * answers where only COMPLETED and FAILED are final and anything unknown is pending, and Sika's
 * ids recovered from the echoed metadata only when they derive the record's UUID.
 */
import t from '#tap';
import { pawapayId } from '#packages/connectors/pawapay/ids.js';
import {
  amountOf,
  collectOutcomeOf,
  depositBody,
  initiationOf,
  PawapayProtocolError,
  payoutBody,
  payoutDelayOf,
  payoutFinalOf,
  refundBody,
  sikaIdsOf,
  snapshotOf,
  statusCheckOf,
  walletBalancesOf,
} from '#packages/connectors/pawapay/operations.js';
import type { CollectRequest, PayoutRequest, RefundRequest } from '#packages/connectors/port.js';

const collect: CollectRequest = {
  operationId: 'op_A1',
  paymentIntentId: 'pi_A1',
  merchantId: 'acct_1',
  environment: 'live',
  amount: 2_500,
  currency: 'xof',
  paymentMethod: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' },
  returnUrl: 'https://shop.example/back',
};
const payout: PayoutRequest = {
  payoutId: 'po_B2',
  merchantId: 'acct_1',
  environment: 'live',
  amount: 1_050,
  currency: 'ghs',
  destination: { type: 'mobile_money', currency: 'ghs', country: 'GH', operator: 'mtn', msisdn: '+233241234567' },
};
const refund: RefundRequest = { refundId: 're_C3', operationId: 'op_A1', merchantId: 'acct_1', environment: 'live', amount: 1_000, currency: 'xof' };

t.test('request bodies: UUIDs derived from Sika ids, upper-case currency, the wallet, Sika ids as metadata', async (t) => {
  t.same(depositBody(collect, { provider: 'ORANGE_SEN', phoneNumber: '221771234567' }, '2500'), {
    depositId: pawapayId('op_A1'),
    amount: '2500',
    currency: 'XOF',
    payer: { type: 'MMO', accountDetails: { phoneNumber: '221771234567', provider: 'ORANGE_SEN' } },
    clientReferenceId: 'op_A1',
    metadata: [{ sikaId: 'op_A1' }, { merchantId: 'acct_1' }, { environment: 'live' }, { paymentIntentId: 'pi_A1' }],
  });
  t.same(payoutBody(payout, { provider: 'MTN_MOMO_GHA', phoneNumber: '233241234567' }, '10.5'), {
    payoutId: pawapayId('po_B2'),
    amount: '10.5',
    currency: 'GHS',
    recipient: { type: 'MMO', accountDetails: { phoneNumber: '233241234567', provider: 'MTN_MOMO_GHA' } },
    clientReferenceId: 'po_B2',
    metadata: [{ sikaId: 'po_B2' }, { merchantId: 'acct_1' }, { environment: 'live' }],
  });
  t.same(refundBody(refund, '1000'), {
    refundId: pawapayId('re_C3'),
    depositId: pawapayId('op_A1'),
    amount: '1000',
    currency: 'XOF',
    clientReferenceId: 're_C3',
    metadata: [{ sikaId: 're_C3' }, { merchantId: 'acct_1' }, { environment: 'live' }, { operationId: 'op_A1' }],
  });
});

t.test('initiation answers: decided on the body; DUPLICATE_IGNORED is accepted earlier; anything else is unknown', async (t) => {
  t.same(initiationOf({ depositId: 'x', status: 'ACCEPTED', created: '2026-01-01T00:00:00Z' }), { kind: 'accepted', duplicate: false });
  t.same(initiationOf({ status: 'DUPLICATE_IGNORED' }), { kind: 'accepted', duplicate: true });
  t.same(initiationOf({ status: 'ACCEPTED', authorizationUrl: 'https://pay.wave.example/c/1' }), { kind: 'accepted', duplicate: false, authorizationUrl: 'https://pay.wave.example/c/1' });
  t.same(initiationOf({ status: 'ACCEPTED', authorizationUrl: 'javascript:alert(1)' }), { kind: 'accepted', duplicate: false }, 'only an https URL is passed on');
  t.same(initiationOf({ depositId: null, status: 'REJECTED', failureReason: { failureCode: 'AMOUNT_OUT_OF_BOUNDS', failureMessage: 'Too much' } }), {
    kind: 'rejected',
    failure: { failureCode: 'amount_out_of_limits', failureMessage: 'Too much' },
  });
  t.same(initiationOf({ status: 'SUBMITTED' }), { kind: 'unknown', status: 'SUBMITTED' });
  t.same(initiationOf({}), { kind: 'unknown', status: undefined as unknown as string });
  t.throws(() => initiationOf('ACCEPTED'), PawapayProtocolError);
  t.throws(() => initiationOf(null), PawapayProtocolError);
});

const record = (status: string, extra: Record<string, unknown> = {}) => ({
  depositId: pawapayId('op_A1'),
  status,
  amount: '2500.00',
  currency: 'XOF',
  country: 'SEN',
  payer: { type: 'MMO', accountDetails: { phoneNumber: '221771234567', provider: 'ORANGE_SEN' } },
  created: '2026-01-01T00:00:00Z',
  metadata: { sikaId: 'op_A1', merchantId: 'acct_1', environment: 'live', paymentIntentId: 'pi_A1' },
  ...extra,
});

t.test('status answers: NOT_FOUND, FOUND; only COMPLETED and FAILED are final; unknown statuses are pending', async (t) => {
  t.same(statusCheckOf('deposit', { status: 'NOT_FOUND' }), { found: false });
  t.throws(() => statusCheckOf('deposit', { status: 'MAYBE' }), PawapayProtocolError);
  t.throws(() => statusCheckOf('deposit', { status: 'FOUND' }), PawapayProtocolError, 'FOUND without data');
  const completed = statusCheckOf('deposit', { status: 'FOUND', data: record('COMPLETED', { providerTransactionId: 'MP2601.1234' }) });
  t.ok(completed.found);
  const snap = (completed as { snapshot: ReturnType<typeof snapshotOf> }).snapshot;
  t.same(collectOutcomeOf(snap), { status: 'succeeded' });
  t.equal(snap.providerTransactionId, 'MP2601.1234', 'the receipt the customer sees is kept');
  t.equal(snap.provider, 'ORANGE_SEN');
  t.equal(amountOf(snap, 0), 2_500, 'echoed "2500.00" read exactly');
  t.same(collectOutcomeOf(snapshotOf('deposit', record('FAILED', { failureReason: { failureCode: 'PAYER_LIMIT_REACHED' } }))), {
    status: 'failed',
    failureCode: 'payer_limit_reached',
    failureMessage: "The payer's wallet has reached a transaction limit",
  });
  t.same(collectOutcomeOf(snapshotOf('deposit', record('FAILED'))), { status: 'failed', failureCode: 'provider_error', failureMessage: 'The operator failed the transfer (pawaPay UNKNOWN_ERROR)' });
  for (const status of ['ACCEPTED', 'PROCESSING', 'IN_RECONCILIATION', 'ENQUEUED', 'SUBMITTED', 'COMPLETED_MAYBE', 'completed']) {
    t.equal(collectOutcomeOf(snapshotOf('deposit', record(status))), null, `${status} is not final`);
  }
  t.throws(() => amountOf(snapshotOf('deposit', record('COMPLETED', { amount: '2500.50' })), 0), PawapayProtocolError, 'half a franc');
  t.throws(() => snapshotOf('deposit', { ...record('COMPLETED'), amount: 2500 }), PawapayProtocolError, 'a number where pawaPay sends a string');
  t.throws(() => snapshotOf('payout', record('COMPLETED')), PawapayProtocolError, 'a deposit is not a payout');
});

t.test('payout reports: paid, failed, held up (ENQUEUED, IN_RECONCILIATION), or nothing yet', async (t) => {
  const payoutRecord = (status: string, extra: Record<string, unknown> = {}) =>
    snapshotOf('payout', {
      payoutId: pawapayId('po_B2'),
      status,
      amount: '10.50',
      currency: 'GHS',
      recipient: { type: 'MMO', accountDetails: { phoneNumber: '233241234567', provider: 'MTN_MOMO_GHA' } },
      metadata: { sikaId: 'po_B2', merchantId: 'acct_1', environment: 'live' },
      ...extra,
    });
  t.same(payoutFinalOf(payoutRecord('COMPLETED')), { type: 'paid' });
  t.same(payoutFinalOf(payoutRecord('FAILED', { failureReason: { failureCode: 'RECIPIENT_NOT_FOUND' } })), { type: 'failed', failureCode: 'recipient_not_found', failureMessage: 'The operator has no account for this number' });
  t.same(payoutFinalOf(payoutRecord('FAILED', { failureReason: { failureCode: 'MANUALLY_CANCELLED' } }))?.type, 'failed');
  t.equal(payoutFinalOf(payoutRecord('ENQUEUED')), null);
  t.equal(payoutDelayOf(payoutRecord('ENQUEUED')), 'operator_down');
  t.equal(payoutDelayOf(payoutRecord('IN_RECONCILIATION')), 'operator_pending');
  t.equal(payoutDelayOf(payoutRecord('PROCESSING')), undefined);
  t.equal(amountOf(payoutRecord('COMPLETED'), 2), 1_050);
  t.same(sikaIdsOf('payout', payoutRecord('COMPLETED')), { sikaId: 'po_B2', merchantId: 'acct_1', environment: 'live' });
});

t.test("Sika ids from the echoed metadata, trusted only when they derive the record's UUID", async (t) => {
  t.same(sikaIdsOf('deposit', snapshotOf('deposit', record('COMPLETED'))), { sikaId: 'op_A1', merchantId: 'acct_1', environment: 'live', paymentIntentId: 'pi_A1' });
  t.same(
    sikaIdsOf('deposit', snapshotOf('deposit', record('COMPLETED', { metadata: [{ sikaId: 'op_A1' }, { merchantId: 'acct_1' }, { environment: 'live' }, { paymentIntentId: 'pi_A1' }] }))),
    { sikaId: 'op_A1', merchantId: 'acct_1', environment: 'live', paymentIntentId: 'pi_A1' },
    'the list form is read too',
  );
  t.equal(sikaIdsOf('deposit', snapshotOf('deposit', record('COMPLETED', { metadata: { sikaId: 'op_OTHER', merchantId: 'acct_1', environment: 'live', paymentIntentId: 'pi_A1' } }))), null, 'ids of another operation');
  t.equal(sikaIdsOf('deposit', snapshotOf('deposit', record('COMPLETED', { metadata: { sikaId: 'op_A1', merchantId: 'acct_1', environment: 'prod', paymentIntentId: 'pi_A1' } }))), null);
  t.equal(sikaIdsOf('deposit', snapshotOf('deposit', record('COMPLETED', { metadata: undefined }))), null);
  const refundSnap = snapshotOf('refund', {
    refundId: pawapayId('re_C3'),
    depositId: pawapayId('op_A1'),
    status: 'COMPLETED',
    amount: '1000',
    currency: 'XOF',
    metadata: { sikaId: 're_C3', merchantId: 'acct_1', environment: 'live', operationId: 'op_A1' },
  });
  t.same(sikaIdsOf('refund', refundSnap), { sikaId: 're_C3', merchantId: 'acct_1', environment: 'live', operationId: 'op_A1' });
  t.same(sikaIdsOf('deposit', snapshotOf('deposit', record('COMPLETED', { metadata: JSON.parse('[{"__proto__": {"polluted": true}}, {"sikaId": "op_A1"}]') as unknown }))), null);
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'metadata cannot reach a prototype');
});

t.test('wallet balances: the documented answer read as it is; an answer without its fields is a protocol error', async (t) => {
  // The example of GET /v2/wallet-balances in pawaPay's v2 reference.
  const example = {
    balances: [
      { country: 'ZMB', balance: '21798.03', currency: 'ZMW', provider: '' },
      { country: 'UGA', balance: '10798.03', currency: 'UGX', provider: '' },
    ],
  };
  t.same(walletBalancesOf(example), [
    { country: 'ZMB', currency: 'ZMW', balance: '21798.03', provider: '' },
    { country: 'UGA', currency: 'UGX', balance: '10798.03', provider: '' },
  ]);
  t.same(walletBalancesOf({ balances: [{ country: 'BEN', balance: '1000', currency: 'XOF', provider: 'MTN_MOMO_BEN' }] })[0]?.provider, 'MTN_MOMO_BEN', "a provider's own wallet");
  t.throws(() => walletBalancesOf({}), PawapayProtocolError);
  t.throws(() => walletBalancesOf({ balances: [{ country: 'SEN', currency: 'XOF' }] }), PawapayProtocolError);
  t.throws(() => walletBalancesOf({ balances: [{ country: 'SEN', balance: 1000, currency: 'XOF' }] }), PawapayProtocolError, 'a balance is a decimal string');
});
