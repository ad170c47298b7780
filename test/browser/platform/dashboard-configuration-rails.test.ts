/**
 * The configuration page's "In live" column in Chromium, with both live rails configured against
 * their stand-ins (pawaPay's active configuration: Orange and Wave in Senegal, MTN in Ghana, M-Pesa
 * in Kenya; Paystack's lists: cards, banks, Ghana and Kenya wallets): each country's line names the
 * methods available in live, its details each method's payments in and payouts in words
 * (available, not available in live yet, paused by the platform), never a rail's name or an error
 * code, in English and French. Unconfigured, nothing is available: dashboard-configuration.test.ts.
 */
import t from '#tap';
import type { Clock } from '#packages/core/clock.js';
import { accessibilityProblems, listsAt, navigate, overflowAt, screenshot, scriptProblems, startDashboard, withHeader } from '../../support/dashboard.js';
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

t.test('in live, in a merchant’s words: available where a rail carries a method, not available yet where none does; no rail name, no error code, in English and French', async (t) => {
  const { page, problems } = await signedIn(t, 'Routed shop');
  await navigate(page, 'Configuration');
  const countries = page.getByRole('region', { name: 'Countries' });
  const row = (country: string) => countries.getByRole('row', { name: new RegExp(`^${country}`) });
  /** A country's methods in live, its details opened (one line per country, folded). */
  const inLive = async (country: string, label = `In live: ${country}`) => {
    await row(country).locator('summary').click();
    return countries.getByRole('list', { name: label }).getByRole('listitem').allTextContents();
  };
  await row('Ghana').waitFor();
  t.match(await row('Ghana').locator('summary').textContent(), /^Available in live: MTN Mobile Money, .*Telecel Cash.*Card.*Bank/, 'one line: the methods available');
  const ghana = await inLive('Ghana');
  t.ok(ghana.includes('MTN Mobile Money, payments in: available'), 'MTN (GH) collections (pawaPay)');
  t.ok(ghana.includes('MTN Mobile Money, payouts: available'), 'MTN (GH) payouts');
  t.ok(ghana.includes('Telecel Cash, payouts: available'), 'Telecel payouts (Paystack, which the pawaPay account lacks)');
  t.ok(ghana.includes('Telecel Cash, payments in: not available in live yet'), 'Telecel collections: no rail carries them');
  t.ok(ghana.includes('Card, payments in: available') && ghana.includes('Bank, payouts: available'), 'cards and banks (Paystack)');
  const kenya = await inLive('Kenya');
  t.ok(kenya.includes('M-Pesa, payouts: available'), 'M-Pesa payouts');
  t.equal(
    kenya.find((l) => l.startsWith('Airtel Money, payouts')),
    'Airtel Money, payouts: not available in live yet',
    'Airtel Money (KE)',
  );
  t.equal(await row('Mali').locator('summary').textContent(), 'Not available in live yet', 'Mali: nothing in live, said in one line');
  const words = await page.getByRole('main').textContent();
  t.notMatch(words, /IKW-/, 'no error code on the page');
  t.notMatch(words, /pawapay|paystack/i, 'no rail name: those are the operator’s');

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  const pays = page.getByRole('region', { name: 'Pays' });
  await pays.getByText('Disponible en live : MTN Mobile Money', { exact: false }).first().waitFor();
  const ghanaFr = await pays.getByRole('list', { name: 'En live : Ghana' }).getByRole('listitem').allTextContents();
  t.ok(ghanaFr.includes('Telecel Cash, encaissements : pas encore disponible en live'), 'in French');
  const mots = await page.getByRole('main').textContent();
  t.notMatch(mots, /IKW-/, 'no error code in French');
  t.notMatch(mots, /pawapay|paystack/i, 'no rail name in French');
  t.same(await accessibilityProblems(page), [], 'French: no serious or critical axe violation');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');

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
