/**
 * The dashboard's payout batches in Chromium: a CSV with a bad line refused with that line, its
 * field and the API's words; the fixed file checked; execution reviewed with its total and fees,
 * followed by its progress bar and log as the sandbox operator answers; the money on the home
 * page as the API has it; a batch the balance cannot cover refused; a batch canceled; another
 * merchant's batch not found; the live environment's own list; a viewer offered no upload and no
 * execution; axe-core and 320 px.
 */
import t from '#tap';
import { accessibilityProblems, homeBalance, listsAt, navigate, overflowAt, PASSWORD, refusals, screenshot, scriptProblems, signedInFrame, signInWithPassword, startDashboard, withHeader } from '../../support/dashboard.js';
import { snNumber } from '../../support/payments.js';
import { settle } from '../../support/payout-engine.js';
import { fund, OPERATOR_DELAY_MS } from '../../support/payouts.js';

const { svc, signedIn } = await startDashboard(t);

const HEADER = 'amount,currency,destination_type,country,operator,msisdn,reference';
const line = (amount: number, msisdn: string, reference: string) => `${amount},XOF,mobile_money,SN,orange_money,${msisdn},${reference}`;
const csv = (...lines: string[]) => Buffer.from([HEADER, ...lines].join('\n') + '\n');

t.test('payout batches: a bad line shown and fixed, executed with progress and log, the money on the home page', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Kora Supplies');
  await fund(svc, merchant.id, 500_000);
  const refused = refusals(page);

  await navigate(page, 'Payouts');
  await page.getByRole('link', { name: /payout batches/ }).click();
  await page.getByRole('heading', { name: 'Payout batches', level: 1 }).waitFor();
  await page.getByText('No batch yet.').waitFor();

  // Line 3 of the file has a number too short to be Senegalese: nothing is created.
  const upload = page.getByRole('form', { name: 'Upload a batch' });
  await upload.getByLabel('CSV file').setInputFiles({ name: 'june.csv', mimeType: 'text/csv', buffer: csv(line(10_000, snNumber('67'), 'SUP-1'), line(20_000, '+22177', 'SUP-2'), line(5_000, snNumber('01'), 'SUP-3')) });
  await upload.getByRole('button', { name: 'Check the file' }).click();
  t.match(await page.getByRole('alert').textContent(), '1 of 3 lines are invalid: nothing was created', 'how many lines are bad');
  const badLines = page.getByRole('table', { name: 'Invalid lines' });
  const cells = await badLines.getByRole('row').nth(1).locator('th, td').allTextContents();
  t.match(cells, ['3', 'msisdn', /SN mobile number/, line(20_000, '+22177', 'SUP-2')], 'the bad line: its line in the file, its field, the API’s words, its content');
  t.same(refused, ['400 POST /api/v1/payout-engine/batches'], 'refused once, by the API');
  refused.length = 0;
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const listed = await svc.request('GET', '/api/v1/payout-engine/batches', { key, headers: { 'x-environment': 'sandbox' } });
  t.same(listed.body.data, [], 'no batch was created');
  t.same(await accessibilityProblems(page), [], 'payout batches with a refused file: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'payout-batches');

  // The fixed file: checked, then reviewed and executed. The third wallet (ending 01) fails at the operator.
  await upload.getByLabel('CSV file').setInputFiles({ name: 'june.csv', mimeType: 'text/csv', buffer: csv(line(10_000, snNumber('67'), 'SUP-1'), line(20_000, snNumber('68'), 'SUP-2'), line(5_000, snNumber('01'), 'SUP-3')) });
  await upload.getByRole('button', { name: 'Check the file' }).click();
  await page.getByRole('heading', { name: /^3 payouts · F\sCFA\s35,000$/, level: 1 }).waitFor();
  const batchId = new URL(page.url()).pathname.split('/').at(-1)!;
  t.equal(
    await page
      .locator('.object-heading')
      .getByRole('button', { name: `Copy the id: ${batchId}` })
      .count(),
    1,
    "the batch's heading: its payouts and total, then its id, copyable",
  );
  const batch = (await svc.request('GET', `/api/v1/payout-engine/batches/${batchId}`, { key, headers: { 'x-environment': 'sandbox' } })).body as { total_amount: number; total_fee: number; status: string };
  t.match(batch, { total_amount: 35_000, status: 'validated' }, 'the API holds the checked batch');
  t.match(await page.locator('.facts').textContent(), /Checked, not executed.*3.*35,000/);
  t.equal(await page.getByRole('region', { name: 'Its payouts' }).getByRole('row').count(), 4, 'its three payouts, listed');
  const log = page.getByRole('region', { name: 'Execution log' });
  await log.getByRole('rowheader', { name: 'Batch checked and created' }).waitFor();

  await page.getByRole('button', { name: 'Execute the batch' }).click();
  const review = page.getByRole('group', { name: 'Execute this batch?' });
  t.match(await review.textContent(), new RegExp(`35,000.*${batch.total_fee.toLocaleString('en')}.*of fees are held`), 'the review says the total and the fees');
  await review.getByRole('button', { name: 'Execute' }).click();
  await page.getByRole('progressbar', { name: 'Progress' }).waitFor();
  t.same(await accessibilityProblems(page), [], 'an executing batch: no serious or critical axe violation');

  await settle(svc, OPERATOR_DELAY_MS);
  await page.getByText('3 of 3 payouts finished: 2 paid, 1 failed, 0 canceled.').waitFor();
  t.equal(await page.getByRole('progressbar', { name: 'Progress' }).getAttribute('value'), '3', 'the bar is full');
  t.match(await page.locator('.facts').textContent(), /Partly failed/);
  await log.getByRole('rowheader', { name: 'Batch finished, partly failed' }).waitFor();
  const steps = await log.getByRole('rowheader').allTextContents();
  t.match(steps, ['Batch checked and created', 'Execution started: total and fees held'], 'the log begins with the batch’s steps, oldest first');
  t.equal(steps.filter((s) => s === 'Payout created').length, 3, 'then each payout made');
  t.equal(steps.filter((s) => s === 'Payout paid').length, 2, 'each payout paid');
  t.equal(steps.filter((s) => s === 'Payout failed').length, 1, 'and the one that failed');
  await page.getByRole('button', { name: 'Retry the failed payouts' }).waitFor();
  t.same(await accessibilityProblems(page), [], 'a finished batch: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  t.same(await overflowAt(page, 1280), [], 'nor at 1280 px');
  await screenshot(page, 'payout-batch');

  // Its paid payout has its own page.
  const paidRow = page.getByRole('region', { name: 'Its payouts' }).getByRole('row', { name: /SUP-1/ });
  t.match(await paidRow.textContent(), /Paid/);
  await paidRow.getByRole('link').click();
  await page.getByRole('heading', { name: /^Payout .*10,000/ }).waitFor();
  t.pass('an item links to its payout');

  const api = (await svc.request('GET', '/api/v1/balance', { key, headers: { 'x-environment': 'sandbox' } })).body as { available: { currency: string; amount: number }[] };
  const available = api.available.find((a) => a.currency === 'xof')!.amount;
  t.ok(available < 500_000 - 30_000, 'the paid payouts and their fees left the balance');
  t.match(await homeBalance(page, 'XOF'), { available, reserved: 0 }, 'the home page shows the balance the API has, nothing still held');
  t.same(refused, [], 'no request refused');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});

t.test('payout batches: a batch the balance cannot cover is refused at execution; a batch canceled; another merchant’s not found; live its own', async (t) => {
  const { merchant, page, problems } = await signedIn(t, 'Tissage Ndiaye', '/payout-batches');
  await fund(svc, merchant.id, 20_000);
  const refused = refusals(page);
  const upload = page.getByRole('form', { name: 'Upload a batch' });

  await upload.getByLabel('CSV file').setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: csv(line(15_000, snNumber('67'), 'A'), line(15_000, snNumber('68'), 'B')) });
  await upload.getByRole('button', { name: 'Check the file' }).click();
  await page.getByRole('button', { name: 'Execute the batch' }).click();
  await page.getByRole('group', { name: 'Execute this batch?' }).getByRole('button', { name: 'Execute' }).click();
  t.match(await page.getByRole('alert').textContent(), /balance/i, "the balance's refusal, in the API's words");
  t.match(refused, [/^400 POST \/api\/v1\/payout-engine\/batches\/pob_\w+\/execute$/], 'refused by the API');
  refused.length = 0;
  t.match(await page.locator('.facts').textContent(), /Checked, not executed/, 'the batch is still only checked');

  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Cancel the batch' }).click();
  await page.locator('.facts').getByText('Canceled').waitFor();
  t.notOk(await page.getByRole('button', { name: 'Execute the batch' }).isVisible(), 'a canceled batch cannot be executed');
  const batchId = new URL(page.url()).pathname.split('/').at(-1)!;

  await page.getByRole('link', { name: 'All payout batches' }).click();
  // The list may first show what it had cached, then what it asks for again.
  const row = page.getByRole('row', { name: new RegExp(`Canceled.*${batchId}`) });
  await row.waitFor();
  t.match(await row.textContent(), /^2 payouts.*30,000.*Canceled/, 'listed with its payouts, total and status');
  const list = page.getByRole('region', { name: 'Batches' });
  t.same(await list.getByRole('columnheader').allTextContents(), ['Batch', 'Total', 'Status', 'Created', 'Id'], 'led by what the batch pays, the id last');
  t.equal(await row.getByRole('rowheader').getByRole('link').getAttribute('href'), `/dashboard/payout-batches/${batchId}`, 'its payouts link to its page');
  t.equal(await row.getByRole('button', { name: `Copy the id: ${batchId}` }).count(), 1, 'the id, copyable');
  t.same((await listsAt(page, 1280)).cut, [], 'at 1280 px no column cut');
  const narrow = await listsAt(page, 320);
  t.ok(narrow.cards, 'at 320 px each batch is a card');
  t.same(narrow.unlabelled, [], 'each value labelled by its column');
  t.same(await accessibilityProblems(page), [], 'the list: no serious or critical axe violation');
  await (await withHeader(page)).getByLabel('Language').selectOption('fr');
  const lots = page.getByRole('region', { name: 'Lots' });
  await lots.getByRole('rowheader', { name: '2 virements' }).waitFor();
  t.match(await lots.getByRole('columnheader').allTextContents(), ['Lot', /./, /./, /./, 'Identifiant'], 'in French, led by its payouts');
  await (await withHeader(page)).getByLabel('Langue').selectOption('en');
  await page.getByLabel('Status').selectOption('completed');
  await page.getByText('No batch yet.').waitFor();
  await page.getByLabel('Status').selectOption('');
  await row.waitFor();

  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No batch yet.').waitFor();
  t.pass('live has its own batches');
  await (await withHeader(page)).getByRole('radio', { name: 'Sandbox' }).check();

  const other = await signedIn(t, 'Autre Commerce');
  const otherRefused = refusals(other.page);
  await other.page.goto(`${svc.baseUrl}/dashboard/payout-batches/${batchId}`);
  await other.page.getByText('No such payout batch in this environment.').waitFor();
  t.same(otherRefused, [`404 GET /api/v1/payout-engine/batches/${batchId}`], "another merchant's batch is not found");
  t.same(refused, [], 'no other request refused');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});

t.test('payout batches: a viewer sees the batches and their log, and is offered no upload and no execution', async (t) => {
  const { merchant, page } = await signedIn(t, 'Viewing shop');
  await fund(svc, merchant.id, 50_000);
  const upload = page.getByRole('form', { name: 'Upload a batch' });
  await page.goto(`${svc.baseUrl}/dashboard/payout-batches`);
  await upload.getByLabel('CSV file').setInputFiles({ name: 'one.csv', mimeType: 'text/csv', buffer: csv(line(1_000, snNumber('67'), 'V-1')) });
  await upload.getByRole('button', { name: 'Check the file' }).click();
  await page.getByRole('button', { name: 'Execute the batch' }).waitFor();
  const batchPath = new URL(page.url()).pathname;

  await svc.member(merchant, 'viewer@viewing-shop.example', PASSWORD, 'viewer');
  await (await withHeader(page)).getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await signInWithPassword(page, 'viewer@viewing-shop.example');
  await signedInFrame(page).waitFor();
  await page.goto(`${svc.baseUrl}${batchPath}`);
  await page.getByText('Your role can see payouts but not make them').waitFor();
  t.equal(await page.getByRole('button', { name: 'Execute the batch' }).count(), 0, 'no execution offered');
  await page.getByRole('region', { name: 'Execution log' }).getByRole('rowheader', { name: 'Batch checked and created' }).waitFor();
  await page.getByRole('link', { name: 'All payout batches' }).click();
  await page.getByText('Your role can see payouts but not make them').waitFor();
  t.equal(await upload.count(), 0, 'no upload offered');
  await page.getByRole('row', { name: /Checked, not executed/ }).waitFor();
  t.pass('the batch listed');
});
