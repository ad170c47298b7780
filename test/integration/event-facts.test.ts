/**
 * Events as domain facts (docs/architecture.md, "Decide, render, append"): one scripted
 * scenario drives the commands of every aggregate whose events carry its public object through the
 * real server, on the manual clock, and the events it appends to those aggregates' streams must be,
 * JSON byte for byte, the ones today's main code appended for the same scenario
 * (test/fixtures/event-facts.json). The fixture was written once by this file run on main's code
 * with `UPDATE_SNAPSHOTS=1`; only random values (ids, slugs, the process number) are normalised,
 * and streams that run side by side are put in a canonical order (see `facts`), nothing else. Its
 * lines for the scenario's second part (`laterScenario`, the aggregates converted after the first
 * 17) were added the same way, on the code before their conversion, the first part's unchanged.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';
import { dataDirFor } from '../support/data-dir.js';
import { fundedContract } from '../support/escrow.js';
import { createOrder, createRule, createSeller, mkt, payOrder } from '../support/marketplace.js';
import { confirm, createIntent, mobileMoney, snNumber } from '../support/payments.js';
import { engine, settle, walletInstruction } from '../support/payout-engine.js';
import { fund, mobileMoney as payoutWallet, postPayout } from '../support/payouts.js';
import { orangeMoney } from '../support/funding.js';
import { createAdminKey } from '#packages/families/platform/platform-admin/commands.js';
import { advance, startService, type TestResponse, type TestService } from '../support/system.js';

const FILE = path.resolve(import.meta.dirname, '../../../test/fixtures/event-facts.json');

/** The event types of the aggregates whose stored events carry their public object (`data.object`). */
const AGGREGATES = [
  'asset',
  'commission_rule',
  'country_activation',
  'customer',
  'escrow_contract',
  'invoice',
  'marketplace_order',
  'marketplace_seller',
  'payment_capability',
  'payment_intent',
  'payment_link',
  'payout',
  'payout_batch',
  'payout_recipient',
  'product',
  'refund',
  'subscription',
];

/**
 * The aggregates the second part of the scenario covers (`laterScenario`), converted after the
 * first 17; their fixture lines were written, like the first ones, on the code before the change.
 */
const LATER_AGGREGATES = ['checkout_session', 'feature_flag', 'funding_campaign', 'support_ticket'];

/** The answer's body; it must be a success, or exactly `status` when given. */
function ok(res: TestResponse, what: string, status?: number): TestResponse['body'] {
  if (status === undefined ? res.status >= 300 : res.status !== status) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body;
}

/** The scenario: each aggregate's commands, one after another, every reaction drained before the next. */
async function scenario(svc: TestService): Promise<{ merchant: { id: string }; key: string }> {
  const { merchant, key } = await svc.sandboxMerchant();
  const call = (method: string, p: string, body?: unknown, what = `${method} ${p}`, status?: number) => svc.request(method, p, { key, ...(body !== undefined ? { body } : {}) }).then((res) => ok(res, what, status));
  const step = async () => svc.system.drain();

  // Payment intents: created, updated, paid; canceled; refused by the operator. Refunds of the paid one.
  const paid = await createIntent(svc, key, { amount: 20_000, customer_email: 'payer@example.com', description: 'Order 1' });
  await call('PATCH', `/api/v1/payment-intents/${paid.id}`, { description: 'Order 1, gift wrapped' });
  ok(await confirm(svc, key, paid.id, { payment_method: mobileMoney(snNumber('67')) }), 'confirm');
  await advance(svc);
  await step();
  const canceled = await createIntent(svc, key, { amount: 3_000 });
  await call('POST', `/api/v1/payment-intents/${canceled.id}/cancel`, {});
  const refused = await createIntent(svc, key, { amount: 4_000 });
  ok(await confirm(svc, key, refused.id, { payment_method: mobileMoney(snNumber('01')) }), 'confirm refused');
  await advance(svc);
  await step();
  await call('POST', `/api/v1/merchant/payments/${paid.id}/refund`, { amount: 2_500, reason: 'duplicate' });
  // More than the balance holds after the first: recorded as failed.
  await call('POST', `/api/v1/merchant/payments/${paid.id}/refund`, {}, 'refund over the balance', 400);
  await step();

  // Customers and their wallets; products and prices; subscriptions; invoices, paid from the wallet.
  const customer = await call('POST', '/api/v1/merchant/customers', { email: 'awa@example.com', name: 'Awa Diop' });
  await call('POST', `/api/v1/merchant/billing/wallet/customers/${customer.id}/credit`, { amount: 20_000, currency: 'xof' });
  const product = await call('POST', '/api/v1/merchant/products', { name: 'Pro plan', prices: [{ currency: 'xof', unit_amount: 5_000, recurring: { interval: 'month', interval_count: 1 } }] });
  await call('PATCH', `/api/v1/merchant/products/${product.id}`, { name: 'Pro plan 2', description: 'Everything' });
  const spare = await call('POST', '/api/v1/merchant/products', { name: 'Spare', prices: [{ currency: 'xof', unit_amount: 1_000 }] });
  await call('PATCH', `/api/v1/merchant/products/${spare.id}/active`, { active: false });
  await call('DELETE', `/api/v1/merchant/products/${spare.id}`);
  const sub = await call('POST', '/api/v1/merchant/subscriptions', { customer: customer.id, items: [{ price: product.prices[0].id, quantity: 2 }], metadata: { plan: 'pro' } });
  await step();
  await call('POST', `/api/v1/merchant/billing/wallet/invoices/${sub.latest_invoice}/apply`);
  const later = await call('POST', '/api/v1/merchant/subscriptions', { customer_email: 'later@example.com', items: [{ price: product.prices[0].id }] });
  await call('POST', `/api/v1/merchant/subscriptions/${later.id}/cancel`, { at_period_end: true });
  await step();
  const invoice = await call('POST', '/api/v1/merchant/invoices', { customer: customer.id, currency: 'xof', amount_due: 2_000, description: 'Setup' });
  await call('PATCH', `/api/v1/merchant/invoices/${invoice.id}/status`, { status: 'open' });
  await call('POST', `/api/v1/merchant/billing/wallet/invoices/${invoice.id}/apply`);
  const voided = await call('POST', '/api/v1/merchant/invoices', { customer: customer.id, currency: 'xof', amount_due: 500 });
  await call('PATCH', `/api/v1/merchant/invoices/${voided.id}/status`, { status: 'open' });
  await call('PATCH', `/api/v1/merchant/invoices/${voided.id}/status`, { status: 'void' });
  const plan = await call('POST', '/api/v1/billing/plans', { name: 'API', currency: 'xof', recurringAmount: 1000, interval: 'month', usageBasedEnabled: true, usageUnitAmount: 5 });
  const metered = await call('POST', '/api/v1/billing/subscriptions', { billingPlanId: plan.id, customerId: customer.id });
  await call('POST', '/api/v1/billing/usage/records', { subscriptionId: metered.id, meterKey: 'api_calls', quantity: 100, idempotencyKey: 'u-1', occurredAt: '2026-01-05T10:00:00Z' });
  await call('POST', `/api/v1/billing/subscriptions/${metered.id}/cancel`, {});
  await step();
  // A month on: the subscriptions renew (and the one canceled at the period's end ends).
  svc.clock.advance(32 * 86_400_000);
  await step();

  // Payment links: created, paid through the session it opens, deactivated.
  const link = await call('POST', '/api/v1/payment_links', { amount: 5_000, currency: 'XOF', country: 'SN', description: 'Basket of mangoes' });
  const opened = await fetch(`${svc.baseUrl}/pay/${link.url.split('/pay/')[1]}`, { redirect: 'manual', headers: { accept: 'application/json' } });
  const sessionId = /\/checkout\/session\/(cs_\w+)$/.exec(opened.headers.get('location') ?? '')?.[1];
  if (!sessionId) throw new Error(`payment link did not open a session: ${opened.status}`);
  ok(await svc.request('POST', `/api/checkout/${sessionId}/pay`, { body: { payment_method: { type: 'mobile_money', mobile_money: { operator: 'orange_money', msisdn: snNumber('67') } } } }), 'pay session');
  await advance(svc);
  await step();
  await call('POST', `/api/v1/payment_links/${link.id}/deactivate`);

  // Payment capabilities and country activations.
  const cap = await call('POST', '/api/v1/payment_capabilities', { country: 'CI', currency: 'xof', payment_method_type: 'card' });
  await call('POST', `/api/v1/payment_capabilities/${cap.id}`, { is_enabled: false });
  await call('POST', `/api/v1/payment_capabilities/${cap.id}/suspend`, { reason: 'review' });
  await call('POST', `/api/v1/payment_capabilities/${cap.id}/resume`);
  await call('DELETE', `/api/v1/payment_capabilities/${cap.id}`);
  const activation = await call('POST', '/api/v1/configuration/activations', { countryCode: 'ci', enabledForPayIn: true, enabledForPayout: false, minAmount: 500, maxAmount: 100_000 });
  await call('PUT', `/api/v1/configuration/activations/${activation.id}`, { enabledForPayout: true, maxAmount: null });
  await call('DELETE', `/api/v1/configuration/activations/${activation.id}`);

  // Escrow: a contract funded from the balance, its parties and milestones, a release, a dispute, a refund; another canceled.
  const contract = await fundedContract(svc, merchant.id, key, 20_000);
  const E = '/api/v1/escrow';
  await call('POST', `${E}/contracts/${contract.id}/participants`, { role: 'payer', displayName: 'Awa', email: 'awa@example.com' });
  await call('POST', `${E}/contracts/${contract.id}/participants`, { role: 'beneficiary', displayName: 'Moussa' });
  const milestone = await call('POST', `${E}/contracts/${contract.id}/milestones`, { title: 'Design', amountMinor: 4_000 });
  await call('POST', `${E}/contracts/${contract.id}/milestones/${milestone.milestones[0].id}/complete`);
  const release = await call('POST', `${E}/releases/contract/${contract.id}`, { amountMinor: 4_000 });
  await call('POST', `${E}/releases/${release.id}/execute`, {});
  const dispute = await call('POST', `${E}/disputes/contract/${contract.id}`, { reason: 'Item not delivered', openedByRole: 'payer' });
  await call('POST', `${E}/disputes/${dispute.id}/resolve`, { outcome: 'dismissed', outcomeMetadata: '{"note":"delivered"}' });
  await call('POST', `${E}/contracts/${contract.id}/refund`, { amountMinor: 5_000 });
  await step();
  const draft = await call('POST', `${E}/contracts`, { currency: 'xof', amountMinor: 1_000 });
  await call('POST', `${E}/contracts/${draft.id}/cancel`);

  // Marketplace: a seller, a rule, an order paid and partly refunded, a settlement run, a seller payout; an order canceled.
  const seller = await createSeller(svc, key, 'seller-1');
  await call('POST', `/api/v1/marketplace/sellers/${seller.id}/settlement`, { settlementMode: 'rolling', settlementDelayDays: 0 });
  const rule = await createRule(svc, key);
  await call('PATCH', `/api/v1/marketplace/commission-rules/${rule.id}`, { percentBasisPoints: 1200 });
  const order = await createOrder(svc, key, [{ sellerId: 'seller-1', amountMinor: 30_000, commissionRuleId: rule.id }]);
  await payOrder(svc, key, order);
  await step();
  ok(await mkt(svc, key, 'POST', '/refunds', { orderId: order.id, amountMinor: 3_000 }), 'marketplace refund');
  await step();
  ok(await mkt(svc, key, 'POST', '/settlements/process-due', {}), 'settlements');
  await step();
  ok(await mkt(svc, key, 'POST', `/sellers/${seller.id}/payouts`, { amountMinor: 5_000, currency: 'xof', destination: payoutWallet('67') }), 'seller payout');
  await advance(svc);
  await step();
  const unpaid = await createOrder(svc, key, [{ sellerId: 'seller-1', amountMinor: 1_000 }]);
  ok(await mkt(svc, key, 'POST', `/orders/${unpaid.id}/cancel`), 'cancel order');

  // Payouts: one that succeeds, one the operator refuses.
  await fund(svc, merchant.id, 100_000);
  ok(await postPayout(svc, key, { amount: 10_000, currency: 'xof', destination: payoutWallet('67'), metadata: { note: 'rent' } }), 'payout');
  ok(await postPayout(svc, key, { amount: 2_000, currency: 'xof', destination: payoutWallet('01') }), 'refused payout');
  await advance(svc);
  await step();

  // The payout engine: recipients created, changed, archived; a batch executed to the end; another canceled.
  const recipient = ok(await engine(svc, key, 'POST', '/recipients', { display_name: 'Awa Diop', destination_type: 'mobile_money', country: 'sn', operator: 'orange_money', msisdn: '77 123 45 67' }), 'recipient');
  ok(await engine(svc, key, 'PATCH', `/recipients/${recipient.id}`, { display_name: 'Awa D.', msisdn: '+221 77 123 45 99' }), 'recipient change');
  ok(await engine(svc, key, 'POST', `/recipients/${recipient.id}/archive`), 'recipient archive');
  const batch = ok(await engine(svc, key, 'POST', '/batches', { currency: 'xof', instructions: [walletInstruction(3_000), walletInstruction(2_000, '01')] }), 'batch');
  ok(await engine(svc, key, 'POST', `/batches/${batch.id}/execute`), 'execute batch');
  await settle(svc, 10_000);
  const dropped = ok(await engine(svc, key, 'POST', '/batches', { currency: 'xof', instructions: [walletInstruction(1_000)] }), 'batch to cancel');
  ok(await engine(svc, key, 'POST', `/batches/${dropped.id}/cancel`), 'cancel batch');
  await step();

  // Assets: declared, uploaded, completed, deleted.
  const bytes = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]);
  const asset = await call('POST', '/api/v1/assets', { name: 'logo.png', purpose: 'logo', contentType: 'image/png', size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  const upload = new URL(asset.uploadUrl);
  ok(await svc.request('PUT', `${upload.pathname}${upload.search}`, { rawBody: bytes, headers: { 'content-type': 'application/octet-stream' } }), 'upload');
  await call('POST', `/api/v1/assets/${asset.id}/complete`);
  await call('DELETE', `/api/v1/assets/${asset.id}`);
  await step();
  return { merchant, key };
}

/** The scenario's second part, for LATER_AGGREGATES: each one's commands, every reaction drained before the next. */
async function laterScenario(svc: TestService, { merchant, key }: { merchant: { id: string }; key: string }): Promise<void> {
  const call = (method: string, p: string, body?: unknown, what = `${method} ${p}`, status?: number, withKey = key) => svc.request(method, p, { key: withKey, ...(body !== undefined ? { body } : {}) }).then((res) => ok(res, what, status));
  const step = async () => svc.system.drain();

  // Funding: a campaign created, changed, published; contributions paid, failed, canceled, refunded; updates; closed. Another canceled with its contribution given back.
  const F = '/api/v1/funding';
  const campaign = await call('POST', `${F}/campaigns`, { title: 'School roof', description: 'A new roof', targetAmountMinor: 30_000, currency: 'XOF', country: 'SN' });
  await call('PATCH', `${F}/campaigns/${campaign.id}`, { title: 'School roof, Ndiaganiao', metadata: 'roof' });
  await call('POST', `${F}/campaigns/${campaign.id}/publish`);
  const gift = await call('POST', `${F}/contributions`, { campaignId: campaign.id, amountMinor: 20_000, currency: 'XOF', contributorName: 'Awa', contributorEmail: 'awa@example.com', message: 'Courage !', paymentMethod: orangeMoney('67') });
  await call('POST', `${F}/contributions`, { campaignId: campaign.id, amountMinor: 1_000, currency: 'XOF', paymentMethod: orangeMoney('01') });
  await advance(svc);
  await step();
  await call('POST', `${F}/contributions`, { campaignId: campaign.id, amountMinor: 12_000, currency: 'XOF', anonymous: true, paymentMethod: orangeMoney('67') });
  await advance(svc);
  await step();
  const abandoned = await call('POST', `${F}/contributions`, { campaignId: campaign.id, amountMinor: 2_000, currency: 'XOF' });
  await call('POST', `${F}/contributions/${abandoned.id}/cancel`);
  await call('POST', `${F}/contributions/${gift.id}/refund`);
  const update = await call('POST', `${F}/campaigns/${campaign.id}/updates`, { title: 'Tiles bought', body: 'Thanks to you, the tiles are here.' });
  await call('PATCH', `${F}/campaigns/${campaign.id}/updates/${update.update.id}`, { body: 'The tiles are here.' });
  await call('DELETE', `${F}/campaigns/${campaign.id}/updates/${update.update.id}`);
  await call('POST', `${F}/campaigns/${campaign.id}/close`);
  await step();
  const dropped = await call('POST', `${F}/campaigns`, { title: 'Well', targetAmountMinor: 50_000, currency: 'XOF', country: 'SN' });
  await call('POST', `${F}/campaigns/${dropped.id}/publish`);
  await call('POST', `${F}/contributions`, { campaignId: dropped.id, amountMinor: 3_000, currency: 'XOF', paymentMethod: orangeMoney('67') });
  await advance(svc);
  await step();
  await call('POST', `${F}/campaigns/${dropped.id}/cancel`);
  await step();

  // Checkout sessions: one paid, one canceled by the customer, one expired by the merchant.
  const C = '/api/v1/checkout/sessions';
  const session = { amount: 10_000, currency: 'XOF', country: 'SN', successUrl: 'https://shop.example/thanks', cancelUrl: 'https://shop.example/cart' };
  const paid = await call('POST', C, { ...session, customerEmail: 'payer@example.com', metadata: { cart: '42' } });
  ok(await svc.request('POST', `/api/checkout/${paid.id}/pay`, { body: { payment_method: { type: 'mobile_money', mobile_money: { operator: 'orange_money', msisdn: snNumber('67') } } } }), 'pay session');
  await advance(svc);
  await step();
  const left = await call('POST', C, session);
  ok(await svc.request('POST', `/api/checkout/${left.id}/cancel`), 'cancel session');
  const expired = await call('POST', C, session);
  await call('POST', `${C}/${expired.id}/expire`);
  await step();

  // Support: a ticket submitted, then forwarded (no support address here: forwarded to nobody).
  await call('POST', '/api/v1/support/intake/contact', {
    name: 'Awa Diop',
    email: 'Awa@Example.com',
    subject: 'Payout not received',
    message: 'Payout po_123 is late.',
    category: 'payouts',
    page: '/payouts/po_123',
    relatedObject: 'po_123',
  });
  await step();

  // Feature flags (the platform operator's): set for everyone, changed, overridden for the merchant, the override deleted.
  const admin = await createAdminKey(svc.system.store, svc.clock, 'ops', 'test');
  await step();
  const flags = '/api/v1/configuration/feature-flags';
  await call('POST', flags, { key: 'batch_payouts', isEnabled: true, description: 'Bulk payouts' }, undefined, undefined, admin.secret);
  await call('POST', flags, { key: 'batch_payouts', isEnabled: false, description: 'Bulk payouts, paused' }, undefined, undefined, admin.secret);
  const override = await call('POST', flags, { key: 'batch_payouts', isEnabled: true, merchantId: merchant.id }, undefined, undefined, admin.secret);
  await call('DELETE', `${flags}/${override.id}`, undefined, undefined, undefined, admin.secret);
  await step();
}

const ID = /\b([a-z]+_)?([0-9A-Za-z]{24}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\b/g;

/**
 * The random values of the events: prefixed public ids, UUIDs, payment link slugs, and the number
 * of the process that started a confirmation (`instanceId`), each replaced by `mask`.
 */
function replaceRandom(text: string, mask: (value: string, kind: string) => string): string {
  const slugs = [...text.matchAll(/"slug":"([^"]+)"/g)].map(([, slug]) => slug!);
  let out = text.replace(/"instanceId":\d+/g, '"instanceId":"#"');
  for (const slug of slugs) out = out.replaceAll(slug, mask(slug, 'slug'));
  return out.replace(ID, (id, prefix: string | undefined) => mask(id, prefix ?? 'uuid_'));
}

/** The events of the given aggregates' streams as stored, stream by stream: stream, type and the data's JSON. */
async function streamsOf(svc: TestService, aggregates: readonly string[]): Promise<Map<string, string[]>> {
  const streams = new Map<string, string[]>();
  for (let after: string | null = null; ;) {
    const page = await svc.system.store.readAll(after, 1_000);
    if (page.length === 0) break;
    for (const e of page) {
      if (!aggregates.includes(e.type.slice(0, e.type.indexOf('.')))) continue;
      const lines = streams.get(e.streamId) ?? [];
      lines.push(`${e.streamId} ${e.type} ${JSON.stringify(e.data)}`);
      streams.set(e.streamId, lines);
    }
    after = page[page.length - 1]!.position;
  }
  return streams;
}

/**
 * Every event of those aggregates' streams. Streams run side by side (a batch's payouts), so they
 * come in a canonical order, not the log's: sorted by their events with the random values masked,
 * first the streams the first part of the scenario opened (`first`), then the others; then each
 * random value is named `<kind>#n` in the order of its first appearance (so the second part names
 * none of the first part's values anew). Nothing else is changed.
 */
async function facts(svc: TestService, first: ReadonlySet<string>): Promise<string[]> {
  const streams = await streamsOf(svc, [...AGGREGATES, ...LATER_AGGREGATES]);
  const masked = (lines: string[]) => replaceRandom(lines.join('\n'), (_, kind) => `${kind}#`);
  const canonical = (ids: string[]) => ids.map((id) => ({ lines: streams.get(id)!, key: masked(streams.get(id)!) })).sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const ids = [...streams.keys()];
  const ordered = [...canonical(ids.filter((id) => first.has(id))), ...canonical(ids.filter((id) => !first.has(id)))];
  const names = new Map<string, string>();
  const name = (value: string, kind: string) => {
    let named = names.get(value);
    if (!named) names.set(value, (named = `${kind}#${names.size + 1}`));
    return named;
  };
  return ordered.flatMap(({ lines }) => lines.map((line) => replaceRandom(line, name)));
}

t.test('every event the scenario appends is, byte for byte, the one main appended (test/fixtures/event-facts.json)', async (t) => {
  // Assets are stored under DATA_DIR.
  const svc = await startService(t, { env: { DATA_DIR: dataDirFor(t) } });
  const merchant = await scenario(svc);
  const first = new Set((await streamsOf(svc, AGGREGATES)).keys());
  await laterScenario(svc, merchant);
  const lines = await facts(svc, first);
  const types = new Set(lines.map((l) => l.split(' ')[1]!.split('.')[0]));
  t.same([...types].sort(), [...AGGREGATES, ...LATER_AGGREGATES].sort(), 'the scenario appends events of every one of those aggregates');
  if (process.env['UPDATE_SNAPSHOTS'] === '1') fs.writeFileSync(FILE, JSON.stringify(lines, null, 1) + '\n');
  const recorded = JSON.parse(fs.readFileSync(FILE, 'utf8')) as string[];
  t.equal(lines.length, recorded.length, 'as many events');
  for (let i = 0; i < Math.max(lines.length, recorded.length); i++) {
    if (lines[i] !== recorded[i]) {
      t.equal(lines[i], recorded[i], `event ${i} is the one main appended`);
      return;
    }
  }
  t.pass(`all ${lines.length} events are byte-identical`);
});
