/**
 * The merchant dashboard (apps/dashboard, served at /dashboard) in a real browser, by role and
 * label: sign-in with a password and with a second factor, the home page's balances per
 * environment, the session kept across a reload by the HttpOnly cookie alone, sign-out, French,
 * 320 px without horizontal scroll, no CSP violation, and axe-core finding no serious or critical
 * violation on each page. With DASHBOARD_SCREENSHOTS=DIR it also saves the pages at 320 and 1280 px
 * (docs/dashboard.md). Each further page has its own file, dashboard-<page>.test.ts.
 */
import t from '#tap';
import { accessibilityProblems, confirmWithEmailedCode, listsAt, navigate, overflowAt, PASSWORD, refusals, screenshot, signedInFrame, signInWithPassword, startDashboard, withHeader } from '../support/dashboard.js';
import { advance, balance, fund, mobileMoney, payout, saveDestination } from '../support/payouts.js';
import { enableTotp, totpCode } from '../support/accounts/second-factors.js';
import { createIntentEvent, settle } from '../support/webhooks.js';
import { copiedBy } from '../support/clipboard.js';

const { svc, browser, owner, signedIn } = await startDashboard(t);

t.test('sign in, see the balances of each environment, stay signed in across a reload, sign out', async (t) => {
  const { merchant, email, page, problems } = await owner(t, 'Boutique Awa');
  await fund(svc, merchant.id, 25_000);

  const first = await page.goto(`${svc.baseUrl}/dashboard`);
  t.equal(new URL(page.url()).pathname, '/dashboard/', 'redirected to the application');
  t.match(first?.headers()['content-security-policy'] ?? (await (await fetch(`${svc.baseUrl}/dashboard/`)).headers.get('content-security-policy')), /script-src 'self'/);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.same(await accessibilityProblems(page), [], 'the sign-in page: no serious or critical axe violation');
  await screenshot(page, 'sign-in');

  await signInWithPassword(page, email);
  await page.getByRole('heading', { name: 'Home' }).waitFor();
  const xof = page.getByRole('row', { name: /XOF/ });
  await xof.waitFor();
  t.match(await xof.textContent(), /25,000/, 'the available balance');
  t.ok(await page.getByRole('status').filter({ hasText: 'Sandbox' }).isVisible(), 'sandbox says so');
  t.same(await accessibilityProblems(page), [], 'home: no serious or critical axe violation');
  await screenshot(page, 'home');

  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No balance yet in this environment.').waitFor();
  t.notOk(await page.getByRole('status').filter({ hasText: 'Sandbox' }).isVisible(), 'no sandbox banner in live');

  await page.reload();
  await page.getByRole('heading', { name: 'Home' }).waitFor();
  t.pass('a reload keeps the session: a new access token from the cookie');
  const cookies = await browser.cookies(`${svc.baseUrl}/api/v1/auth/refresh`);
  const refresh = cookies.find((c) => c.name === 'sika_refresh');
  t.ok(refresh?.httpOnly, 'the refresh token is an HttpOnly cookie');
  t.equal(refresh?.sameSite, 'Strict');
  t.equal(await page.evaluate('document.cookie'), '', 'which no script of the page can read');
  t.equal(await page.evaluate('JSON.stringify(Object.values(localStorage))'), '["1"]', 'in localStorage only the hint that there is a session to resume, no token');

  await page.setViewportSize({ width: 320, height: 640 });
  t.ok(await page.evaluate('document.documentElement.scrollWidth <= 320'), 'no horizontal scroll at 320 px');
  await page.setViewportSize({ width: 360, height: 740 });

  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No balance yet in this environment.').waitFor();
  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await signInWithPassword(page, email);
  await page.getByRole('row', { name: /XOF/ }).waitFor();
  t.ok(await (await withHeader(page)).getByRole('radio', { name: 'Sandbox' }).isChecked(), 'signed in again without a reload: sandbox, switch and data alike');

  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.reload();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.pass('signed out stays signed out');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});

t.test('after a quarter of an hour idle the access token has run out: a page of many queries refreshes it once, a button too, and stays signed in', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Idle shop');
  const refreshes: string[] = [];
  page.on('request', (r) => void (new URL(r.url()).pathname === '/api/v1/auth/refresh' && refreshes.push(r.method())));
  // One query's expired answer held until the refresh is answered: the race where it came back
  // late and refreshed a second time.
  const refreshed = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/auth/refresh');
  await page.route('**/api/v1/intelligence/recommendations*', async (route) => {
    const answer = await route.fetch();
    if (answer.status() === 401) await refreshed;
    await route.fulfill({ response: answer });
  });
  svc.clock.advance(16 * 60_000);
  await navigate(page, 'Insights');
  await page.getByText('No payment in this period.').first().waitFor();
  await page.getByText('No recommendation right now.').waitFor();
  t.same(refreshes, ['POST'], 'the page’s queries, whose token ran out together, share one refresh (a second use of the refresh token would end the session)');

  svc.clock.advance(16 * 60_000);
  await navigate(page, 'Webhooks');
  const form = page.getByRole('form', { name: 'New webhook endpoint' });
  // The page's own queries (and their refresh) done first.
  await page.getByText('No webhook endpoint in this environment yet.').waitFor();
  refreshes.length = 0;
  svc.clock.advance(16 * 60_000);
  await form.getByLabel('URL').fill('https://example.com/hooks');
  await form.getByRole('button', { name: /Create/ }).click();
  await page.getByText(/it is shown only once/).waitFor();
  t.same(refreshes, ['POST'], "a button's call refreshes the token too");
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  t.equal((await svc.request('GET', '/api/v1/webhook-endpoints', { key })).body.data.length, 1, 'and its change is made');
  t.ok(await signedInFrame(page).isVisible(), 'still signed in');
  t.same(
    problems.filter((p) => !/status of 401/.test(p)),
    [],
    'no problem but the expired token’s answers, which the page recovers from',
  );
});

t.test('a wrong password is said; a second factor is asked and answered; French', async (t) => {
  const { email, page, problems } = await owner(t, 'Atelier Fatou');
  const token = (await svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })).body.accessToken as string;
  const { secret } = await enableTotp(svc, token, PASSWORD);
  svc.clock.advance(30_000);

  await page.goto(`${svc.baseUrl}/dashboard/`);
  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Connexion' }).waitFor();
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');

  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  t.match(await page.getByRole('alert').textContent(), /Sign-in failed/);

  await signInWithPassword(page, email);
  const code = page.getByLabel('Security code');
  await code.waitFor();
  t.match(await page.getByText(/authenticator app/).textContent(), /6-digit code/);
  t.same(await accessibilityProblems(page), [], 'the second-factor step: no serious or critical axe violation');
  await code.fill(await totpCode(secret, svc));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { name: 'Home' }).waitFor();

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Accueil' }).waitFor();
  t.ok(await (await withHeader(page)).getByRole('button', { name: 'Se déconnecter' }).isVisible());
  t.equal(await page.evaluate('document.documentElement.lang'), 'fr');
  t.same(
    problems.filter((p) => !/401|400/.test(p)),
    [],
    'no CSP violation or script error (the refused password is a 401 the console reports)',
  );
});

t.test('payouts: review the fee, confirm once, see it in the list and the balance go down', async (t) => {
  const { merchant, email, page, problems } = await owner(t, 'Payout shop');
  await fund(svc, merchant.id, 100_000);
  await page.goto(`${svc.baseUrl}/dashboard/`);
  await signInWithPassword(page, email);
  await navigate(page, 'Payouts');
  await page.getByRole('heading', { name: 'New payout' }).waitFor();
  t.equal(new URL(page.url()).pathname, '/dashboard/payouts');

  const form = page.getByRole('form', { name: 'New payout' });
  await form.getByLabel('Country').selectOption('SN');
  await form.getByLabel('Operator').selectOption('orange_money');
  await form.getByLabel('Mobile money number').fill('+221771234567');
  await form.getByLabel(/Amount/).fill('5000');
  await page.getByRole('button', { name: 'Review' }).click();
  const review = page.getByRole('group', { name: 'Review the payout' });
  await review.waitFor();
  t.match(await review.textContent(), /5,000/, 'the amount');
  t.match(await review.textContent(), /Fee/, 'the fee before confirming');
  t.same(await accessibilityProblems(page), [], 'payouts review: no serious or critical axe violation');

  const confirm = page.getByRole('button', { name: 'Confirm payout' });
  await Promise.all([confirm.click(), confirm.click().catch(() => undefined)]);
  await page.getByRole('status').filter({ hasText: 'Payout created' }).waitFor();
  // Found by its recipient: on a phone the card's name is who and how much (the id is on its page).
  const row = page.getByRole('row', { name: /Orange Money · \+221771234567/ });
  await row.waitFor();
  t.equal(await row.count(), 1, 'one payout, however often confirm was pressed');
  t.match(await row.textContent(), /^Orange Money · \+221771234567.*5,000/, 'the destination first, then the amount');
  t.same(await listsAt(page, 1280).then(({ tables, cards, cut }) => ({ tables, cards, cut })), { tables: 1, cards: false, cut: [] }, 'at 1280 px no column cut, the id and its copy button included');
  await screenshot(page, 'payouts');

  // The payout's own page: its figures, whether it is late, and what it took from the balance.
  const payoutId = (await row.locator('code').textContent())!;
  await row.getByRole('link', { name: 'Orange Money · +221771234567' }).click();
  await page.getByRole('heading', { name: /^Payout/, level: 1 }).waitFor();
  t.match(
    await page.locator('dl.facts').textContent(),
    new RegExp(`Payout${payoutId}Status(Pending|In transit|Paid)Amount\\D*5,000Fee.*Created.*DestinationOrange Money · \\+221771234567 · Senegal`),
    'its figures, the operator and country by name',
  );
  t.match(await page.locator('dl.facts').textContent(), /DelayOn time/, 'not delayed');
  await page.getByRole('region', { name: 'Its money on the balance' }).getByRole('row', { name: /5,000/ }).first().waitFor();
  // Its history from the log: made by the signed-in owner, then the operator's answers.
  const history = page.getByRole('region', { name: 'History' });
  await history.getByRole('row', { name: /Created.*Pending.*owner@/ }).waitFor();
  await advance(svc);
  await advance(svc);
  await page.reload();
  await history.getByRole('row', { name: /Paid.*Paid/ }).waitFor();
  const steps = await history.getByRole('row').allTextContents();
  t.match(steps.slice(1), [/Paid.*Paid/, /Sent to the operator.*In transit/, /Created.*Pending.*owner@/], 'the history, newest first, with who caused each step');
  t.same(await accessibilityProblems(page), [], 'a payout: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'payout');
  await page.getByRole('link', { name: 'All payouts' }).click();

  await navigate(page, 'Home');
  await page.getByRole('row', { name: /XOF/ }).filter({ hasNotText: '100,000' }).waitFor();
  t.pass('the balance went down');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});

t.test('payouts: a saved destination fills the form; the payout goes there', async (t) => {
  const { merchant, email, page, problems } = await owner(t, 'Saved payout shop');
  await fund(svc, merchant.id, 50_000);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  await saveDestination(svc, key, { type: 'mobile_money', currency: 'xof', country: 'SN', operator: 'orange_money', msisdn: '+221771112233' });
  await page.goto(`${svc.baseUrl}/dashboard/payouts`);
  await signInWithPassword(page, email);
  const form = page.getByRole('form', { name: 'New payout' });
  await form.getByLabel('Saved destination').selectOption({ label: '+221771112233' });
  t.equal(await form.getByLabel('Mobile money number').inputValue(), '+221771112233', 'the number filled in');
  t.equal(await form.getByLabel('Operator').inputValue(), 'orange_money', 'and its operator');
  await form.getByLabel(/Amount/).fill('3000');
  await page.getByRole('button', { name: 'Review' }).click();
  t.match(await page.getByRole('group', { name: 'Review the payout' }).textContent(), /\+221771112233/, 'reviewed before it goes');
  await page.getByRole('button', { name: 'Confirm payout' }).click();
  await page.getByRole('status').filter({ hasText: 'Payout created' }).waitFor();
  const made = (await svc.request('GET', '/api/v1/merchant/payouts', { key })).body.data as { amount: number; destination: { msisdn: string } }[];
  t.match(made, [{ amount: 3_000, destination: { msisdn: '+221771112233' } }], 'the API holds the payout to the saved number');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});

t.test('payouts: the list says when, the fee and why one failed (English, French); the form shows the balance; a new payout is listed at once', async (t) => {
  const { merchant, email, page, problems } = await owner(t, 'Failed payout shop');
  await fund(svc, merchant.id, 100_000);
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  // A number ending in 01: the sandbox operator has no account for it (README, "Sandbox test numbers").
  const failed = (await payout(svc, key, { amount: 7_000, destination: mobileMoney('01') })) as { id: string; created: number; fee: number };
  await advance(svc);
  await advance(svc);
  const available = (await balance(svc, key)).available;
  await page.goto(`${svc.baseUrl}/dashboard/payouts`);
  await signInWithPassword(page, email);

  const form = page.getByRole('form', { name: 'New payout' });
  await form.getByText(new RegExp(`Available to pay out: \\D*${available.toLocaleString('en-GB')}`)).waitFor();
  t.pass('the form shows the available balance');
  const list = page.getByRole('region', { name: 'Payouts' }).first();
  const row = page.getByRole('row', { name: /Orange Money · \+221771234501/ });
  await row.filter({ hasText: 'Failed' }).waitFor();
  const day = (locale: string) => new Date(failed.created * 1000).toLocaleDateString(locale, { dateStyle: 'medium' });
  t.match(
    await row.textContent(),
    new RegExp(`^Orange Money · \\+221771234501.*7,000.*${failed.fee.toLocaleString('en-GB')}.*Failed.*The operator has no account for this number recipient_not_found.*${day('en-GB')}.*${failed.id}`),
    'the recipient first (operator by name), its amount, fee, why it failed in words and code, its date, then its id',
  );
  t.same(await list.getByRole('columnheader').allTextContents(), ['Recipient', 'Amount', 'Fee', 'Status', 'Created', 'Id'], 'the columns');
  t.same(
    await page.evaluate(`[...document.querySelectorAll('main .scroll table thead th')].map((th) => getComputedStyle(th).textAlign)`),
    ['left', 'right', 'right', 'left', 'left', 'left'],
    'the amounts and their headers right-aligned, the words left',
  );
  // The id and its copy button are the table's last column: a phone's two-line card leaves them to the payout's page.
  await page.setViewportSize({ width: 1280, height: 800 });
  await browser.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: svc.baseUrl });
  const copied = await copiedBy(page, async () => {
    await row.getByRole('button', { name: `Copy the id: ${failed.id}` }).click();
    await row.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
  });
  t.equal(copied, failed.id, "the id's button copies it");
  t.same(await accessibilityProblems(page), [], 'the payouts list: no serious or critical axe violation');
  t.same(await listsAt(page, 1280).then(({ tables, cards, cut }) => ({ tables, cards, cut })), { tables: 1, cards: false, cut: [] }, 'at 1280 px a table with no column cut');
  t.same(await listsAt(page, 320), { tables: 1, cards: true, unlabelled: [], cut: [] }, 'at 320 px each payout is a card, each value labelled by its column');
  await page.setViewportSize({ width: 320, height: 640 });
  t.same(await accessibilityProblems(page), [], 'the payouts as cards: no serious or critical axe violation');
  await page.setViewportSize({ width: 360, height: 740 });

  await form.getByLabel('Operator').selectOption({ label: 'Orange Money' });
  await form.getByLabel('Mobile money number').fill('+221771234567');
  await form.getByLabel(/Amount/).fill('2000');
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Confirm payout' }).click();
  await page.getByRole('status').filter({ hasText: 'Payout created' }).waitFor();
  await list.getByRole('row', { name: /2,000/ }).waitFor();
  t.equal(await list.locator('tbody tr').count(), 2, 'the new payout is listed without a reload');

  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  await page.getByRole('heading', { name: 'Nouveau virement' }).waitFor();
  t.match(await row.textContent(), new RegExp(`Orange Money.*Échoué.*L’opérateur n’a pas de compte pour ce numéro recipient_not_found.*${day('fr-FR')}`), 'in French: the date, and why in French words');
  t.equal(await page.getByRole('form', { name: 'Nouveau virement' }).getByLabel('Pays').locator('option:checked').textContent(), 'Sénégal', 'the country named in French');
  await row.getByRole('link', { name: 'Orange Money · +221771234501' }).click();
  await page.locator('dl.facts').filter({ hasText: 'Motif de l’échec' }).waitFor();
  t.match(await page.locator('dl.facts').textContent(), /Motif de l’échecL’opérateur n’a pas de compte pour ce numéro recipient_not_found/, 'its page says why, in French');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');
  t.match(await page.locator('dl.facts').textContent(), /Why it failedThe operator has no account for this number recipient_not_found/, 'and in English');
  t.same(await accessibilityProblems(page), [], 'a failed payout: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'a failed payout: no horizontal scroll at 320 px');
  await screenshot(page, 'payout-failed');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});

t.test("payouts: another merchant's payout in the address is not found", async (t) => {
  const { email, page } = await owner(t, 'Nosy shop');
  const other = await svc.merchant('Private payouts');
  await fund(svc, other.id, 10_000);
  const { secret } = await svc.apiKey(other.id, ['*']);
  const theirs = await svc.request('POST', '/api/v1/merchant/payouts', { key: secret, body: { amount: 1_000, currency: 'xof', destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } } });
  t.equal(theirs.status, 200);
  await page.goto(`${svc.baseUrl}/dashboard/payouts/${theirs.body.id}`);
  await signInWithPassword(page, email);
  await page.getByText('No such payout in this environment.').waitFor();
  t.pass('not found, with a way back');
});

/** The page's answer to the API with `key`. */
const balanceStatus = async (key: string) => (await fetch(`${svc.baseUrl}/api/v1/balance`, { headers: { authorization: `Bearer ${key}` } })).status;

t.test('developers: create a key (its secret once), roll it with a grace period, revoke it; the events list', async (t) => {
  const { merchant, email, page, problems } = await owner(t, 'Dev shop');
  const refused = refusals(page);
  await page.goto(`${svc.baseUrl}/dashboard/developers`);
  await signInWithPassword(page, email);
  await page.getByRole('heading', { name: 'Developers' }).waitFor();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  t.equal(await page.getByRole('link', { name: 'Open the API reference' }).getAttribute('href'), '/docs/', 'the page links the API reference the service serves');

  await page.getByRole('form', { name: 'Create a key' }).getByLabel('Name').fill('Shop server');
  await page.getByRole('button', { name: 'Create a key' }).click();
  await confirmWithEmailedCode(svc, page, email); // no second factor: the code comes by e-mail
  const shown = page.locator('.secret code');
  await shown.waitFor();
  const secret = (await shown.textContent())!;
  t.match(secret, /^sk_test_\w{43}$/, 'the secret, shown once');
  t.equal(await balanceStatus(secret), 200, 'and it works');
  await page.getByRole('button', { name: 'Done' }).click();
  t.equal(await page.locator('.secret').count(), 0, 'gone once done');
  const row = page.getByRole('row', { name: /Shop server/ });
  t.match(await row.textContent(), /Active/);
  t.same(await accessibilityProblems(page), [], 'developers: no serious or critical axe violation');
  await screenshot(page, 'developers');

  await page.getByLabel('Old secret works: Shop server').selectOption('60');
  await page.getByRole('button', { name: 'Roll: Shop server' }).click();
  await confirmWithEmailedCode(svc, page, email);
  await shown.waitFor();
  const rolled = (await shown.textContent())!;
  t.not(rolled, secret);
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByRole('row', { name: /Shop server.*Expiring/ }).waitFor();
  t.equal(await balanceStatus(secret), 200, 'the old secret works during its grace period');
  t.equal(await balanceStatus(rolled), 200);

  await page.getByRole('button', { name: 'Revoke: Shop server' }).first().click();
  await page
    .getByRole('row', { name: /Revoked/ })
    .first()
    .waitFor();
  const revokedStatuses = [await balanceStatus(secret), await balanceStatus(rolled)];
  t.ok(revokedStatuses.includes(401), `one of them revoked at once (${revokedStatuses})`);

  const { secret: apiKey } = await svc.apiKey(merchant.id, ['*']);
  await createIntentEvent(svc, apiKey);
  await settle(svc);
  await page.getByLabel('Event type').fill('payment_intent.*');
  await page.getByRole('button', { name: 'Filter' }).click();
  const event = page.locator('.events li').first();
  await event.waitFor();
  t.match(await event.textContent(), /payment_intent\.created/);
  await event.locator('summary').click();
  t.match(await event.locator('pre').textContent(), /"object": "event"/, 'the payload as its webhook carries it');
  const id = (await event.locator('summary code').textContent())!;
  await page.getByLabel('Event id').fill(id);
  await page.getByRole('button', { name: 'Find' }).click();
  t.equal(JSON.parse((await page.getByRole('region', { name: 'The event' }).locator('pre').textContent())!).id, id, 'one event found by its id');
  t.same(problems, [], 'no CSP violation, script error or failed load');
  await page.getByLabel('Event id').fill('evt_unknown');
  await page.getByRole('button', { name: 'Find' }).click();
  await page.getByRole('alert').waitFor();
  t.same(refused.splice(0), ['404 GET /api/v1/events/evt_unknown'], 'an unknown id is said not found');
});

t.test('developers: a user with a second factor confirms a new key with it; a viewer is told keys are for owners', async (t) => {
  const { email, page } = await owner(t, 'Careful shop');
  const token = (await svc.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } })).body.accessToken as string;
  const { secret } = await enableTotp(svc, token, PASSWORD);
  svc.clock.advance(30_000);
  await page.goto(`${svc.baseUrl}/dashboard/developers`);
  await signInWithPassword(page, email);
  await page.getByLabel('Security code').fill(await totpCode(secret, svc));
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  svc.clock.advance(30_000);

  await page.getByRole('form', { name: 'Create a key' }).getByLabel('Name').fill('Proved');
  await page.getByRole('button', { name: 'Create a key' }).click();
  await page.getByRole('heading', { name: 'Confirm with your second factor' }).waitFor();
  t.same(await accessibilityProblems(page), [], 'the confirmation: no serious or critical axe violation');
  await page
    .getByRole('form', { name: 'Confirm with your second factor' })
    .getByLabel('Security code')
    .fill(await totpCode(secret, svc));
  await page.getByRole('form', { name: 'Confirm with your second factor' }).getByRole('button', { name: 'Verify' }).click();
  await page.locator('.secret code').waitFor();
  t.match(await page.locator('.secret code').textContent(), /^sk_test_/);

  const viewerShop = await svc.merchant('Viewer shop');
  await svc.member(viewerShop, 'viewer@viewer-shop.example', PASSWORD, 'viewer');
  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const viewer = { page };
  await signInWithPassword(viewer.page, 'viewer@viewer-shop.example');
  await viewer.page.getByText('Only owners and admins manage API keys.').waitFor();
  t.pass('a viewer sees why, and no key');
});

t.test('served as files: index.html for the application’s paths, 404 for a missing asset, no cache for the page', async (t) => {
  const deep = await fetch(`${svc.baseUrl}/dashboard/payouts/po_123`);
  t.equal(deep.status, 200);
  t.match(await deep.text(), /<div id="root"><\/div>/, "the application's page, whose router takes the path");
  t.equal(deep.headers.get('cache-control'), 'no-store');
  t.match(deep.headers.get('content-security-policy'), /^default-src 'none'; script-src 'self'/);
  const asset = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(await (await fetch(`${svc.baseUrl}/dashboard/`)).text())![1]!;
  const script = await fetch(`${svc.baseUrl}${asset}`);
  t.equal(script.status, 200);
  t.match(script.headers.get('cache-control'), /immutable/, 'hashed assets are cached for good');
  const missing = await fetch(`${svc.baseUrl}/dashboard/assets/nothing.js`);
  t.equal(missing.status, 404);
  t.equal(((await missing.json()) as { code: string }).code, 'IKW-RTE-001');
  const posted = await fetch(`${svc.baseUrl}/dashboard/`, { method: 'POST' });
  t.not(posted.status, 200, 'only GET and HEAD are served');
});
