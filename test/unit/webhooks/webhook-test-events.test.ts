import t from '#tap';
import { PUBLIC_EVENTS } from '#packages/families/index.js';
import { testEventId, testEventPayload } from '#packages/families/webhooks/test-events.js';

/** The object each family's events carry (docs/events.md, "The types"). */
const OBJECTS: Record<string, string> = {
  payment_intent: 'payment_intent',
  payout: 'payout',
  payout_batch: 'payout_batch',
  customer: 'customer',
  product: 'product',
  subscription: 'subscription',
  invoice: 'invoice',
  refund: 'refund',
  marketplace_order: 'marketplace_order',
  escrow_contract: 'escrow_contract',
  funding_campaign: 'funding.campaign',
  dispute: 'dispute',
  statement: 'statement',
};

/** Every string in a value, at any depth. */
function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(strings);
  if (v && typeof v === 'object') return Object.values(v).flatMap(strings);
  return [];
}

t.test('every public event type has a test example: its family object, marked as a test, with every field set', async (t) => {
  const at = new Date('2026-11-25T12:00:00Z');
  for (const { type } of PUBLIC_EVENTS.types) {
    const id = testEventId();
    t.match(id, /^evt_test_[0-9A-Za-z]{24}$/);
    const event = JSON.parse(testEventPayload(PUBLIC_EVENTS, id, type, at, false)) as { id: string; object: string; type: string; created: number; livemode: boolean; test: boolean; data: Record<string, unknown> };
    t.same({ id: event.id, object: event.object, type: event.type, created: event.created, livemode: event.livemode, test: event.test }, { id, object: 'event', type, created: at.getTime() / 1000, livemode: false, test: true }, type);
    const family = type.slice(0, type.indexOf('.'));
    const object = type === 'funding_campaign.contribution_received' ? 'funding.contribution' : OBJECTS[family];
    t.equal(event.data.object, object, `${type} carries the ${object}`);
    t.match(event.data.id, /^[a-z]+_test_[0-9A-Za-z]{24}$/, `${type}: the object's id is a test id`);
    // A payer's number is shown as real objects show it (the payment intent's maskedMethod).
    const paidWith = (event.data.payment_method as { mobile_money?: { msisdn: string } } | null | undefined)?.mobile_money;
    if (paidWith) t.match(paidWith.msisdn, /^••••\d{4}$/, `${type}: the payer's number is masked`);
    if ('status' in event.data) t.type(event.data.status, 'string', `${type}: a status`);
    // Ids that name other objects are test ids too: no example points at a real object.
    for (const s of strings(event.data).filter((s) => /^[a-z]+_(test_)?[0-9A-Za-z]{24}$/.test(s))) t.match(s, /_test_/, `${type}: ${s} is a test id`);
  }
  t.equal(JSON.parse(testEventPayload(PUBLIC_EVENTS, testEventId(), 'payout.paid', at, true)).livemode, true, 'live follows the environment');
});

t.test('each type leaves its example in the state the type says', async (t) => {
  const data = (type: string) => (JSON.parse(testEventPayload(PUBLIC_EVENTS, testEventId(), type, new Date(), false)) as { data: Record<string, unknown> }).data;
  t.equal(data('payment_intent.succeeded').status, 'succeeded');
  t.equal(data('payment_intent.succeeded').amount_received, 5000);
  t.equal(data('payment_intent.payment_failed').status, 'failed');
  t.not(data('payment_intent.payment_failed').last_payment_error, null);
  t.equal(data('payout.paid').status, 'paid');
  t.equal(data('payout.delayed').delay_state, 'delayed');
  t.equal(data('invoice.voided').status, 'void');
  t.equal(data('refund.failed').status, 'failed');
  t.equal(data('product.deleted').status, 'archived');
  t.equal(data('payout_batch.partially_failed').status, 'partially_failed');
  t.same(data('payout_batch.partially_failed').counts, { validated: 0, queued: 0, paid: 1, failed: 1, canceled: 0 });
});
