/**
 * The configuration page's "Rails in live" column in Chromium, with both live rails configured
 * against their stand-ins (pawaPay's active configuration: Orange and Wave in Senegal, MTN in
 * Ghana, M-Pesa in Kenya; Paystack's lists: cards, banks, Ghana and Kenya wallets): each country's
 * methods show the rail the router chooses, or the refusal and why. Unconfigured, every method is
 * refused: dashboard-configuration.test.ts.
 */
import t from 'tap';
import type { Clock } from '../../../packages/core/clock.js';
import { accessibilityProblems, listsAt, navigate, overflowAt, screenshot, scriptProblems, startDashboard } from '../../support/dashboard.js';
import { PAWAPAY_TOKEN, PAYSTACK_LIVE_KEY } from '../../support/live.js';
import { PawapayStandin } from '../../support/pawapay-standin.js';
import { PaystackStandin } from '../../support/paystack-standin.js';
import type { TestService } from '../../support/system.js';

let service: TestService | undefined;
const clock: Clock = { now: () => service!.clock.now() };
const pawapay = await PawapayStandin.start({ token: PAWAPAY_TOKEN, clock });
t.teardown(() => pawapay.close());
const paystack = await PaystackStandin.start({ secretKey: PAYSTACK_LIVE_KEY });
t.teardown(() => paystack.close());
const { svc, signedIn } = await startDashboard(t, { env: { PAWAPAY_API_TOKEN: PAWAPAY_TOKEN, PAWAPAY_API_URL: pawapay.url, PAYSTACK_SECRET_KEY: PAYSTACK_LIVE_KEY, PAYSTACK_API_URL: paystack.url } });
service = svc;

t.test('rails in live: pawaPay for the mobile money it carries, Paystack for cards, banks and the Ghana wallets pawaPay lacks; the rest refused with why', async (t) => {
  const { page, problems } = await signedIn(t, 'Routed shop');
  await navigate(page, 'Configuration');
  const countries = page.getByRole('region', { name: 'Countries' });
  const rails = (country: string) => countries.getByRole('list', { name: `Rails in live: ${country}` });
  await rails('Ghana').waitFor();
  const ghana = await rails('Ghana').getByRole('listitem').allTextContents();
  t.ok(ghana.includes('MTN Mobile Money (in): pawaPay'), 'MTN (GH) collections: pawaPay');
  t.ok(ghana.includes('MTN Mobile Money (out): pawaPay'), 'MTN (GH) payouts: pawaPay first');
  t.ok(ghana.includes('Telecel Cash (out): Paystack'), 'Telecel payouts: Paystack, which the pawaPay account lacks');
  t.ok(ghana.includes('Telecel Cash (in): refused'), 'Telecel collections: no rail');
  t.match(await countries.getByRole('row', { name: /^Ghana/ }).textContent(), /refused — IKW-PRV-001: no configured rail \(pawapay, paystack\) carries it/, 'and why, once');
  t.ok(ghana.includes('Card (in): Paystack') && ghana.includes('Bank (out): Paystack'), 'cards and banks: Paystack');
  const kenya = await rails('Kenya').getByRole('listitem').allTextContents();
  t.ok(kenya.includes('M-Pesa (out): pawaPay'), 'M-Pesa payouts: pawaPay first');
  t.match(kenya.find((l) => l.startsWith('Airtel Money (out)')), /refused/, 'Airtel Money (KE): refused');
  t.match((await rails('Mali').getByRole('listitem').allTextContents()).join('\n'), /refused/, 'Mali: refused');

  const api = await svc.request('GET', '/api/v1/configuration/countries', { key: (await svc.apiKey((await svc.merchant('API reader')).id, ['*'])).secret });
  const gh = (api.body.data as { countryCode: string; liveRails: unknown[] }[]).find((c) => c.countryCode === 'GH')!;
  t.match(gh.liveRails, [{ method: 'mobile_money', direction: 'collect', operator: 'mtn', rail: 'pawapay', availability: 'available', refusal: null }], 'the API answers the same choices');

  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same((await listsAt(page, 1280)).cut, [], 'at 1280 px no column cut, with both live rails configured');
  const narrow = await listsAt(page, 320);
  t.ok(narrow.cards, 'at 320 px every row is a card');
  t.same(narrow.unlabelled, [], 'each value labelled by its column');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'configuration-rails');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(paystack.takeDeviations(), [], 'the bank lists were asked as Paystack’s contract says');
});
