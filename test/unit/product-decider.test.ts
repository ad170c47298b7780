/** The product Decider on its own: updates, activation, attachments of subscriptions, delete refused while used. */
import t from 'tap';
import { ApiError } from '../../packages/core/errors.js';
import { fold } from '../../packages/core/decider.js';
import { productDecider, toProductObject, type ProductCommand } from '../../packages/domain/product/decider.js';
import type { Price, ProductCreated, ProductEvent } from '../../packages/domain/product/events.js';

const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const price: Price = { id: 'price_1', object: 'price', product: 'prod_1', currency: 'xof', unit_amount: 500, recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' }, created: 0 };
const product: ProductCreated = { id: 'prod_1', merchantId: 'acct_1', environment: 'sandbox', name: 'Pro', description: null, active: true, prices: [price], metadata: { a: '1' }, createdAt: at.toISOString() };
const run = (history: ProductEvent[], command: ProductCommand) => [...history, ...productDecider.decide(command, fold(productDecider, history))];
const state = (h: ProductEvent[]) => fold(productDecider, h);
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return err instanceof ApiError ? [err.code, err.param] : ['not an ApiError'];
  }
  return ['no error'];
};
const attach = (subscriptionId: string, priceId = 'price_1'): ProductCommand => ({ type: 'attach', owner, at, subscriptionId, prices: [{ id: priceId, param: 'items.0.price' }] });

t.test('update merges metadata, adds prices, and decides nothing when nothing changes', async (t) => {
  let h = run([], { type: 'create', product });
  h = run(h, { type: 'update', owner, at, changes: { name: 'Pro+', metadata: { a: '', b: '2' }, addedPrices: [{ ...price, id: 'price_2' }] } });
  t.match(toProductObject(state(h)), { name: 'Pro+', metadata: { b: '2' }, prices: [{ id: 'price_1' }, { id: 'price_2' }] });
  t.notOk('a' in toProductObject(state(h)).metadata);
  t.same(productDecider.decide({ type: 'update', owner, at, changes: { name: 'Pro+' } }, state(h)), []);
  h = run(h, { type: 'update', owner, at, changes: { active: false } });
  t.match(toProductObject(state(h)), { active: false, status: 'inactive' });
});

t.test('attach checks the price and the product; delete is refused while attached, archives otherwise', async (t) => {
  let h = run([], { type: 'create', product });
  t.same(code(() => run(h, attach('sub_1', 'price_x'))), ['IKW-BIL-007', 'items.0.price']);
  h = run(h, attach('sub_1'));
  t.same(productDecider.decide(attach('sub_1'), state(h)), [], 'attach is idempotent');
  t.equal(h[1]!.type, 'product.subscription_attached');
  t.notOk('object' in h[1]!.data, 'attachments are internal');
  t.same(code(() => run(h, { type: 'delete', owner, at })), ['IKW-BIL-002', 'id']);
  h = run(h, { type: 'detach', owner, at, subscriptionId: 'sub_1' });
  t.same(productDecider.decide({ type: 'detach', owner, at, subscriptionId: 'sub_1' }, state(h)), []);
  h = run(h, { type: 'delete', owner, at });
  t.match(toProductObject(state(h)), { status: 'archived', active: false });
  t.same(productDecider.decide({ type: 'delete', owner, at }, state(h)), [], 'delete twice is harmless');
  t.same(code(() => run(h, attach('sub_2'))), ['IKW-BIL-008', 'items.0.price']);
  t.same(code(() => run(h, { type: 'update', owner, at, changes: { name: 'x' } })), ['IKW-RES-002', 'id']);
});

t.test('an inactive product takes no new subscription; another merchant gets no such product', async (t) => {
  const h = run(run([], { type: 'create', product }), { type: 'update', owner, at, changes: { active: false } });
  t.same(code(() => run(h, attach('sub_1'))), ['IKW-BIL-008', 'items.0.price']);
  t.same(code(() => productDecider.decide({ type: 'delete', owner: { merchantId: 'acct_2', environment: 'sandbox' }, at }, state(h))), ['IKW-RES-001', 'id']);
});
