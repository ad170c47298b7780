/**
 * A sandbox card payment through Paystack's test mode in a real browser (chromium): with
 * PAYSTACK_SANDBOX_SECRET_KEY set, confirming a card answers Paystack's checkout page (the
 * stand-in's); the payer pays there, comes back to Sika's status page with `trxref` and
 * `reference`, which waits until Paystack's `charge.success` is verified, then leads on to the
 * merchant's return URL. A payer who declines lands on a failure once the status check finds it.
 */
import t, { type Test } from '#tap';
import { paystackReference } from '#packages/connectors/paystack/index.js';
import { closeAtEnd, openPage, startBrowser, startMerchantSite } from '../support/browser.js';
import { startPaystackLive } from '../support/live.js';
import { confirm, createIntent, retrieve } from '../support/payments.js';
import { advance } from '../support/system.js';

const { svc, standin } = await startPaystackLive(t, { environment: 'sandbox' });
const shop = await startMerchantSite(t);
const browser = await startBrowser(t);
const { api_keys } = await svc.merchant('Lagos books');
const key = api_keys.sandbox;

/** A sandbox NGN card payment confirmed without a token: Paystack's checkout page to go to. */
async function cardPayment(t: Test) {
  const intent = await createIntent(svc, key, { amount: 750_000, currency: 'ngn', transaction_country: 'NG', customer_email: 'tobi@example.com' });
  const res = await confirm(svc, key, intent.id, { payment_method: { type: 'card', card: {} }, return_url: `${shop}/thanks` });
  t.match(res.body, { status: 'requires_action', livemode: false, next_action: { type: 'redirect_to_url' } });
  const { page, problems } = await openPage(browser);
  closeAtEnd(t, page);
  // The browser asks the checkout page's host for an icon on its own: answered here, not Paystack's API.
  await page.route(`${standin.url}/favicon.ico`, (route) => route.fulfill({ status: 204 }));
  await page.goto(res.body.next_action.redirect_to_url.url as string);
  return { intent, page, problems, reference: paystackReference(res.body.latest_operation as string), operation: res.body.latest_operation as string };
}

t.test('the payer pays on Paystack’s test checkout, comes back to the status page, and goes on to the shop once verified', async (t) => {
  const { intent, page, reference, operation } = await cardPayment(t);
  await page.getByRole('heading', { name: 'Pay NGN 7500.00' }).waitFor();
  await page.getByRole('button', { name: 'Pay' }).click();
  await page.waitForURL((u) => u.pathname === `/operations/status/${operation}`);
  t.equal(new URL(page.url()).search, '', 'back from Paystack with its trxref, then sent on to the page without it (the return asked Paystack once)');
  t.notOk(await page.getByRole('link', { name: 'Return to the merchant' }).isVisible(), 'no way on before the verified outcome');
  t.equal(await standin.sendChargeWebhook(reference), 200, 'charge.success, signed with the test key');
  await svc.system.scheduler.runUntilIdle();
  await page.getByRole('heading', { name: 'Payment received. Thank you!' }).waitFor({ timeout: 15_000 });
  t.match(await retrieve(svc, key, intent.id), { status: 'succeeded', amount_received: 750_000 }, 'succeeded once the verification matched');
  await page.getByRole('link', { name: 'Return to the merchant' }).click();
  await page.getByText('Back at the shop').waitFor();
  t.match(page.url(), new RegExp(`^${shop}/thanks`), 'on the merchant’s return URL');
  t.same(standin.takeDeviations(), [], 'every request followed Paystack’s contract');
});

t.test('a payer who declines on the checkout page sees the failure once the status check finds it', async (t) => {
  const { intent, page, operation } = await cardPayment(t);
  await page.getByRole('button', { name: 'Decline' }).click();
  await page.waitForURL((u) => u.pathname === `/operations/status/${operation}`);
  await advance(svc, 2 * 60_000);
  await page.getByRole('heading', { name: 'The payment did not go through.' }).waitFor({ timeout: 15_000 });
  t.match(await retrieve(svc, key, intent.id), { status: 'failed', last_payment_error: { code: 'card_declined' } });
  t.same(standin.takeDeviations(), [], 'every request followed Paystack’s contract');
});
