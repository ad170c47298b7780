/**
 * Issue 37's whole journey in one Chromium session, through the dashboard's pages only (the test
 * reads e-mails from the service's outbox and plays the payer and the operator): a new merchant
 * signs up and proves the address, sees the go-live checklist, registers a webhook endpoint, takes
 * a sandbox payment through a payment link opened in a second tab, sees it on the home page's
 * chart and in payments with its history, sees the webhook delivered, pays out, uploads a payout
 * batch with a bad line, fixes and executes it, creates and revokes an API key, and invites a
 * viewer, who signs in and cannot pay out.
 */
import t from '#tap';
import { closeAtEnd, openPage } from '../support/browser.js';
import { confirmWithEmailedCode, navigate, refusals, scriptProblems, signUp, signedInFrame, startDashboard, withHeader } from '../support/dashboard.js';
import { operatorAnswers, snNumber } from '../support/payments.js';
import { settle as batchesSettle } from '../support/payout-engine.js';
import { OPERATOR_DELAY_MS } from '../support/system.js';
import { Receiver, settle, WEBHOOK_TIMEOUT_MS } from '../support/webhooks.js';

const { svc, browser, owner } = await startDashboard(t, {
  webhookTimeoutMs: WEBHOOK_TIMEOUT_MS,
  clockStart: Date.now(),
  env: { WEBHOOK_ALLOW_PRIVATE_URLS: '127.0.0.0/8,::1', SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) },
});
const latest = async (recipient: string, purpose: string) => (await svc.system.outbox.kept({ channel: 'email', recipient, purpose }, 1))[0]?.text ?? '';
const EMAIL = 'fatou@journey-shop.example';
const PASSWORD = 'a long journey password';

t.test('a new merchant from sign-up to a viewer who cannot pay out', async (t) => {
  const { page, problems } = await owner(t, 'Journey placeholder');
  const refused = refusals(page);

  // Sign up, proving the address.
  await signUp(svc, page, svc.baseUrl, { email: EMAIL, name: 'Fatou Sow', business: 'Journey Shop', password: PASSWORD });
  const checklist = page.getByRole('region', { name: 'Get ready to go live' });
  await checklist.waitFor();
  t.match(await checklist.getByRole('listitem').filter({ hasText: 'Confirm your e-mail address' }).textContent(), /^Done/, 'signed up, the address proved');
  const stepDone = (name: string) => checklist.getByRole('listitem').filter({ hasText: name }).filter({ hasText: /^Done/ });

  // A webhook endpoint, from the checklist's link.
  const receiver = await Receiver.start(t, svc);
  await checklist.getByRole('link', { name: 'Do it: Register a webhook endpoint' }).click();
  const endpointForm = page.getByRole('form', { name: 'New webhook endpoint' });
  await endpointForm.getByLabel('URL').fill(receiver.url);
  await endpointForm.getByRole('button', { name: 'Create the endpoint' }).click();
  await page.getByText(/it is shown only once/).waitFor();
  await page.getByRole('button', { name: 'Done' }).click();

  // A payment link, paid by the customer in a second tab.
  await navigate(page, 'Payment links');
  const linkForm = page.getByRole('form', { name: 'New payment link' });
  await linkForm.getByLabel(/Amount/).fill('7500');
  await linkForm.getByLabel('What it is for').fill('Basket of mangoes');
  await linkForm.getByRole('button', { name: 'Create the link' }).click();
  const created = page.getByRole('status').filter({ hasText: 'Payment link created' });
  await created.waitFor();
  const url = (await created.getByRole('link').textContent())!;
  const customer = await openPage(browser);
  closeAtEnd(t, customer.page);
  await customer.page.goto(`${svc.baseUrl}${new URL(url).pathname}`);
  await customer.page.getByLabel('Mobile money operator').selectOption('orange_money');
  await customer.page.getByLabel('Mobile money number').fill(snNumber('05'));
  await customer.page.getByRole('button', { name: /^Pay/ }).click();
  await customer.page.getByText(/Approve the payment on your phone/).waitFor();
  await operatorAnswers(svc);
  await settle(svc);

  // The home page: the chart and the checklist.
  await navigate(page, 'Home');
  const chart = page.getByRole('img', { name: /Money in and out per day/ });
  await chart.waitFor();
  t.match(await chart.getAttribute('aria-label'), /7,500/, "the payment on the home page's chart");
  await stepDone('Take a first payment in sandbox').waitFor();
  await stepDone('Register a webhook endpoint').waitFor();
  t.pass('the checklist follows: the payment and the endpoint done');

  // Payments: the payment and its history.
  await navigate(page, 'Payments');
  await page.getByRole('region', { name: 'Payments' }).getByRole('rowheader').first().getByRole('link').click();
  const history = page.getByRole('region', { name: 'History' });
  await history.getByRole('row', { name: /Paid.*The operator/ }).waitFor();
  t.match(await page.locator('dl.facts').textContent(), /StatusSucceeded.*Amount\D*7,500/, 'the payment, succeeded, with its history');

  // The webhook: delivered, as its endpoint's page shows.
  await navigate(page, 'Webhooks');
  await page.getByRole('link', { name: receiver.url }).click();
  await page
    .getByRole('region', { name: 'Deliveries' })
    .getByRole('row', { name: /payment_intent\.succeeded.*Succeeded|Succeeded.*payment_intent\.succeeded/i })
    .waitFor();
  t.ok(
    receiver.requests.some((r) => r.body.includes('payment_intent.succeeded')),
    'the receiver got the payment',
  );

  // A payout of part of the money.
  await navigate(page, 'Payouts');
  const payout = page.getByRole('form', { name: 'New payout' });
  await payout.getByLabel('Country').selectOption('SN');
  await payout.getByLabel('Operator').selectOption('orange_money');
  await payout.getByLabel('Mobile money number').fill('+221771234567');
  await payout.getByLabel(/Amount/).fill('2000');
  await page.getByRole('button', { name: 'Review' }).click();
  await page.getByRole('button', { name: 'Confirm payout' }).click();
  await page.getByRole('status').filter({ hasText: 'Payout created' }).waitFor();
  // A phone's card names who and how much: the payout's id is on its page.
  await page.getByRole('row', { name: /2,000/ }).first().waitFor();

  // A payout batch from a CSV file with one bad line, fixed, then executed to the end.
  await page.getByRole('link', { name: /payout batches/ }).click();
  const upload = page.getByRole('form', { name: 'Upload a batch' });
  const batchFile = (second: string) => ({
    name: 'suppliers.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`amount,currency,destination_type,country,operator,msisdn,reference\n1200,XOF,mobile_money,SN,orange_money,${snNumber('67')},S-1\n600,XOF,mobile_money,SN,wave,${second},S-2\n`),
  });
  await upload.getByLabel('CSV file').setInputFiles(batchFile('+2217'));
  await upload.getByRole('button', { name: 'Check the file' }).click();
  const badLine = page.getByRole('table', { name: 'Invalid lines' }).getByRole('row', { name: /^3 msisdn/ });
  await badLine.waitFor();
  t.match(await badLine.textContent(), /SN mobile number/, 'the bad line, its field and the API’s words');
  await upload.getByLabel('CSV file').setInputFiles(batchFile(snNumber('68')));
  await upload.getByRole('button', { name: 'Check the file' }).click();
  await page.getByRole('button', { name: 'Execute the batch' }).click();
  await page.getByRole('group', { name: 'Execute this batch?' }).getByRole('button', { name: 'Execute' }).click();
  await page.getByRole('progressbar', { name: 'Progress' }).waitFor();
  await batchesSettle(svc, OPERATOR_DELAY_MS);
  await page.getByText('2 of 2 payouts finished: 2 paid, 0 failed, 0 canceled.').waitFor();
  await page.getByRole('region', { name: 'Execution log' }).getByRole('rowheader', { name: 'Batch completed' }).waitFor();
  t.pass('the fixed batch ran to the end, its progress and log on its page');

  // An API key, created then revoked.
  await navigate(page, 'Developers');
  await page.getByRole('form', { name: 'Create a key' }).getByLabel('Name').fill('Shop server');
  await page.getByRole('button', { name: 'Create a key' }).click();
  await confirmWithEmailedCode(svc, page, EMAIL);
  const secret = (await page.locator('.secret code').textContent())!;
  await page.getByRole('button', { name: 'Done' }).click();
  t.equal((await fetch(`${svc.baseUrl}/api/v1/balance`, { headers: { authorization: `Bearer ${secret}` } })).status, 200, 'the new key works');
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Revoke: Shop server' }).first().click();
  await page.getByRole('row', { name: /Shop server.*Revoked/ }).waitFor();
  t.equal((await fetch(`${svc.baseUrl}/api/v1/balance`, { headers: { authorization: `Bearer ${secret}` } })).status, 401, 'and stops once revoked');

  // A viewer joins, signs in and cannot pay out.
  await navigate(page, 'Team');
  const invite = page.getByRole('form', { name: 'Invite' });
  await invite.getByLabel('E-mail address').fill('vera@journey-shop.example');
  await invite.getByLabel('Role').selectOption({ label: 'Viewer' });
  await invite.getByRole('button', { name: 'Invite' }).click();
  await page.getByRole('status').filter({ hasText: 'Invitation sent to vera@journey-shop.example.' }).waitFor();
  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  const link = new URL(/(http\S+\/dashboard\/invitation\?token=\S+)/.exec(await latest('vera@journey-shop.example', 'invitation'))![1]!);
  await page.goto(`${svc.baseUrl}${link.pathname}${link.search}`);
  await page.getByLabel('Your name').fill('Vera');
  await page.getByLabel('Choose a password (8 characters or more)').fill('viewer password 1');
  await page.getByRole('button', { name: 'Accept the invitation' }).click();
  await signedInFrame(page).waitFor();
  await navigate(page, 'Payouts');
  // The page offers a viewer no payout, and says why; the payouts are there to see.
  await page.getByText('Your role can see payouts but not make them').waitFor();
  t.equal(await page.getByRole('form', { name: 'New payout' }).count(), 0, 'no payout form for a viewer');
  await page.getByRole('row', { name: /2,000/ }).first().waitFor();
  // And the API refuses a viewer's payout all the same.
  const viewer = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'vera@journey-shop.example', password: 'viewer password 1' } });
  const attempt = await svc.request('POST', '/api/v1/merchant/payouts', {
    key: viewer.body.accessToken,
    body: { amount: 1_000, currency: 'xof', destination: { type: 'mobile_money', country: 'SN', operator: 'orange_money', msisdn: '+221771234567' } },
  });
  t.match(attempt, { status: 403, body: { code: 'IKW-AUT-004', message: /lacks the scope payouts\.write/ } }, "the API's refusal");
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email: EMAIL, password: PASSWORD } });
  const payouts = await svc.request('GET', '/api/v1/merchant/payouts', { key: login.body.accessToken });
  t.same(
    (payouts.body.data as { amount: number }[]).map((p) => p.amount).sort((a, b) => a - b),
    [600, 1200, 2000],
    "only the owner's and the batch's payouts exist",
  );
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
  t.same(refused, ['400 POST /api/v1/payout-engine/batches'], "no refused request but the batch's bad line");
});
