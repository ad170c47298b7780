/** The product Decider on its own: updates, activation, attachments of subscriptions, delete refused while used. */
import t from '#tap';
import type { ProductCommand } from '#packages/families/billing/product/decider.js';
import { productAggregate, toProductObject } from '#packages/families/billing/product/render.js';
import type { Price, ProductCreated } from '#packages/families/billing/product/events.js';
import { spec } from '../../support/decider-spec.js';

const products = spec(productAggregate);
const at = new Date('2026-01-01T00:00:00Z');
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const price: Price = { id: 'price_1', object: 'price', product: 'prod_1', currency: 'xof', unit_amount: 500, recurring: { interval: 'month', interval_count: 1, usage_type: 'licensed' }, created: 0 };
const product: ProductCreated = { id: 'prod_1', merchantId: 'acct_1', environment: 'sandbox', name: 'Pro', description: null, active: true, prices: [price], metadata: { a: '1' }, createdAt: at.toISOString() };
const create: ProductCommand = { type: 'create', product };
const update = (changes: Extract<ProductCommand, { type: 'update' }>['changes']): ProductCommand => ({ type: 'update', owner, at, changes });
const attach = (subscriptionId: string, priceId = 'price_1'): ProductCommand => ({ type: 'attach', owner, at, subscriptionId, prices: [{ id: priceId, field: 'items.0.price' }] });
const detach = (subscriptionId: string): ProductCommand => ({ type: 'detach', owner, at, subscriptionId });
const remove: ProductCommand = { type: 'delete', owner, at };

t.test('update merges metadata, adds prices, and decides nothing when nothing changes', async (t) => {
  const updated = products
    .given(products.history(create))
    .when(update({ name: 'Pro+', metadata: { a: '', b: '2' }, addedPrices: [{ ...price, id: 'price_2' }] }))
    .thenState((s) => {
      t.match(toProductObject(s), { name: 'Pro+', metadata: { b: '2' }, prices: [{ id: 'price_1' }, { id: 'price_2' }] });
      t.notOk('a' in toProductObject(s).metadata);
    });
  products
    .given(updated)
    .when(update({ name: 'Pro+' }))
    .thenNothing(t);
  products
    .given(updated)
    .when(update({ active: false }))
    .thenState((s) => {
      t.match(toProductObject(s), { active: false, status: 'inactive' });
    });
});

t.test('attach checks the price and the product; delete is refused while attached, archives otherwise', async (t) => {
  const created = products.history(create);
  products.given(created).when(attach('sub_1', 'price_x')).thenThrows(t, { code: 'IKW-BIL-007', param: 'items.0.price' });
  const attached = products
    .given(created)
    .when(attach('sub_1'))
    .thenState((_, decided) => {
      t.same(
        decided.map((e) => e.type),
        ['product.subscription_attached'],
      );
      t.notOk('object' in decided[0]!.data, 'attachments are internal');
    });
  products.given(attached).when(attach('sub_1')).thenNothing(t, 'attach is idempotent');
  products.given(attached).when(remove).thenThrows(t, { code: 'IKW-BIL-002', param: 'productId' });
  const detached = products.given(attached).history(detach('sub_1'));
  products.given(detached).when(detach('sub_1')).thenNothing(t);
  const deleted = products
    .given(detached)
    .when(remove)
    .thenState((s) => {
      t.match(toProductObject(s), { status: 'archived', active: false });
    });
  products.given(deleted).when(remove).thenNothing(t, 'delete twice is harmless');
  products.given(deleted).when(attach('sub_2')).thenThrows(t, { code: 'IKW-BIL-008', param: 'items.0.price' });
  products
    .given(deleted)
    .when(update({ name: 'x' }))
    .thenThrows(t, { code: 'IKW-RES-002', param: 'productId' });
});

t.test('an inactive product takes no new subscription; another merchant gets no such product', async (t) => {
  const inactive = products.history(create, update({ active: false }));
  products.given(inactive).when(attach('sub_1')).thenThrows(t, { code: 'IKW-BIL-008', param: 'items.0.price' });
  products
    .given(inactive)
    .when({ ...remove, owner: { merchantId: 'acct_2', environment: 'sandbox' } })
    .thenThrows(t, { code: 'IKW-RES-001', param: 'productId' });
});
