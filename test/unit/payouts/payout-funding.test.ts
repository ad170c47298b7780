/**
 * Where a payout's money comes from and returns to (packages/families/payouts/payout/funding.ts): exactly one
 * registered source funds a payout; an escrow release's payout returns the release to its contract.
 * That the return steps commit with the failure is shown against the store by escrow-releases.test.ts
 * ("a release's payout that fails goes back to the contract's escrow, in the failure's commit").
 */
import t from '#tap';
import { PayoutFundingSources } from '#packages/families/payouts/payout/funding.js';
import { sellerPayoutFunding } from '#packages/families/marketplace/marketplace-seller/payout-funding.js';
import type { PayoutCreated } from '#packages/families/payouts/payout/events.js';
import { escrowPayoutFunding } from '#packages/families/escrow/payout-funding.js';
import { batchPayoutFunding } from '#packages/families/payout-engine/payout-batch/payout-funding.js';
import { escrowContractStream } from '#packages/families/escrow/events.js';

const payout = (more: Partial<PayoutCreated> = {}): PayoutCreated => ({
  id: 'po_1',
  merchantId: 'acct_1',
  environment: 'sandbox',
  amount: 1_000,
  currency: 'xof',
  fee: 50,
  destination: { type: 'mobile_money', country: 'SN', currency: 'xof', operator: 'orange_money', msisdn: '+221770000000' },
  payoutMethodId: null,
  metadata: {},
  expectedBy: '2026-01-01T00:10:00.000Z',
  createdAt: '2026-01-01T00:00:00.000Z',
  ...more,
});
const at = new Date('2026-01-01T01:00:00.000Z');
const escrowPayout = payout({ source: 'escrow', escrow: { contractId: 'c_1', releaseId: 'rel_1' } });

t.test("each payout is held from its own source's funds", async (t) => {
  const sources = new PayoutFundingSources(batchPayoutFunding, escrowPayoutFunding, sellerPayoutFunding);
  t.equal(sources.of(payout({ source: 'api' })).kind, 'available');
  t.equal(sources.of(payout({ source: 'marketplace', funding: { kind: 'marketplace_seller', sellerRef: 'u_1', sellerId: 'sel_1' } })).kind, 'seller');
  t.equal(sources.of(payout({ source: 'payout_engine', batch: { id: 'pb_1', index: 0, attempt: 2 } })).kind, 'batch');
  t.equal(sources.of(escrowPayout).kind, 'escrow');
  t.equal(sources.hold(escrowPayout).type, 'post', "a source's hold is its family's recipe");
  t.same(sources.returnSteps(payout({ source: 'api' }), at, {}), [], 'the ledger alone gives a balance payout back');
});

t.test('a payout of a source nobody registered is refused, never held from the balance', async (t) => {
  const sources = new PayoutFundingSources(batchPayoutFunding);
  t.throws(() => sources.hold(escrowPayout), /po_1 is funded by no registered source/);
  t.throws(() => sources.returnSteps(escrowPayout, at, {}), /no registered source/);
});

t.test("a registered source's return steps go with the failure", async (t) => {
  const sources = new PayoutFundingSources(escrowPayoutFunding);
  const [step, ...more] = sources.returnSteps(escrowPayout, at, { actor: 'x' });
  t.same(more, []);
  t.match(step, { streamId: escrowContractStream('c_1'), command: { type: 'return_release', at, releaseId: 'rel_1', payoutId: 'po_1' }, metadata: { actor: 'x' } });
  const legacy = payout({ source: 'escrow', metadata: { escrow_contract: 'c_2', escrow_release: 'rel_2' } });
  t.match(sources.returnSteps(legacy, at, {}), [{ streamId: escrowContractStream('c_2'), command: { releaseId: 'rel_2' } }], 'a payout from before `escrow` was recorded names its release in its metadata');
});

t.test('a source registers once', async (t) => {
  t.throws(() => new PayoutFundingSources(escrowPayoutFunding, escrowPayoutFunding), /escrow is registered twice/);
});
