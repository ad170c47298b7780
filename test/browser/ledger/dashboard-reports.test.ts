/**
 * The dashboard's reports page in Chromium, for finance: the balance at a chosen moment, balance
 * transactions filtered by type, days and payout (a payout's reconciliation) and downloaded as CSV,
 * and daily summaries whose opening + in − out − fees = closing the page checks, on the manual
 * clock over three days; statements: the last full month's with its totals and its CSV, and a
 * longer one computed in the background, shown pending until the list, asked again, says ready.
 */
import t from '#tap';
import { accessibilityProblems, listsAt, navigate, overflowAt, screenshot, scriptProblems, signInWithPassword, startDashboard, withHeader } from '../../support/dashboard.js';
import { confirm, createIntent, mobileMoney, operatorAnswers, snNumber } from '../../support/payments.js';
import { fund, mobileMoney as payoutDestination, payout, retrievePayout } from '../../support/payouts.js';
import { OPERATOR_DELAY_MS } from '../../support/system.js';
import { downloaded } from '../../support/browser.js';

const DAY = 86_400_000;
const { svc, owner } = await startDashboard(t, { env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS) } });

t.test('reports: the balance at a moment, transactions by type, day and payout, CSV, daily summaries', async (t) => {
  const { merchant, email, page, problems } = await owner(t, 'Comptoir Ndiaye');
  const { secret: key } = await svc.apiKey(merchant.id, ['*']);
  const day1 = new Date(svc.clock.now());
  await fund(svc, merchant.id, 50_000);
  const endOfDay1 = svc.clock.now().getTime() + DAY / 2;
  svc.clock.advance(DAY);
  const intent = await createIntent(svc, key, { amount: 10_000 });
  t.equal((await confirm(svc, key, intent.id, { payment_method: mobileMoney(snNumber('00')) })).status, 200);
  await operatorAnswers(svc);
  svc.clock.advance(DAY);
  const paid = await payout(svc, key, { amount: 5_000, currency: 'xof', destination: payoutDestination() });
  await operatorAnswers(svc);
  t.equal((await retrievePayout(svc, key, paid.id)).status, 'paid');
  const day = (d: number) => new Date(day1.getTime() + d * DAY).toISOString().slice(0, 10);

  // Signed in after the clock moved: a session outlives neither its refresh token nor two days.
  await page.goto(`${svc.baseUrl}/dashboard/`);
  await signInWithPassword(page, email);
  await navigate(page, 'Reports');
  await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();

  // The balance at the end of the first day, typed in the browser's own time.
  const local = await page.evaluate((ms) => {
    const d = new Date(ms);
    const two = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
  }, endOfDay1);
  const balanceAt = page.getByRole('form', { name: 'The balance at a moment' });
  await balanceAt.getByLabel('Moment (your time)').fill(local);
  await balanceAt.getByRole('button', { name: 'Show the balance' }).click();
  const then = page.getByRole('region', { name: 'The balance at a moment' }).getByRole('row', { name: /XOF/ });
  await then.waitFor();
  t.match(await then.textContent(), /^XOF\D*50,000\D/, 'only the first day’s 50,000 was there then');

  const transactions = page.getByRole('region', { name: 'Balance transactions' });
  await transactions.getByRole('row', { name: new RegExp(paid.id) }).waitFor();
  t.equal(await transactions.getByRole('row').count(), 4, 'every movement: two payments, a payout, and the header');
  const filters = page.getByRole('form', { name: 'Balance transactions' });
  await filters.getByLabel('Type').selectOption('payment');
  await filters.getByRole('button', { name: 'Filter' }).click();
  // Each filter's answer is known by a row the last answer had and this one has not, then one it has.
  await transactions.getByRole('row', { name: new RegExp(paid.id) }).waitFor({ state: 'detached' });
  await transactions.getByRole('row', { name: new RegExp(intent.id) }).waitFor();
  t.equal(await transactions.getByRole('row').count(), 3, 'the two payments');
  await filters.getByLabel('From (UTC day)').fill(day(1));
  await filters.getByLabel('To (UTC day, included)').fill(day(1));
  await filters.getByRole('button', { name: 'Filter' }).click();
  await transactions.getByRole('row', { name: /pi_test_/ }).waitFor({ state: 'detached' });
  await transactions.getByRole('row', { name: new RegExp(intent.id) }).waitFor();
  t.equal(await transactions.getByRole('row').count(), 2, 'the second day’s payment only');
  t.match(await transactions.getByRole('row').nth(1).textContent(), /10,000/);

  const [download] = await Promise.all([page.waitForEvent('download'), filters.getByRole('button', { name: 'Download CSV' }).click()]);
  t.match(download.suggestedFilename(), /^balance-transactions-sandbox-\d{4}-\d\d-\d\d\.csv$/);
  const csv = (await downloaded(download)).toString('utf8').trim().split('\n');
  t.equal(csv[0], 'id,created,available_on,type,source,status,currency,amount,fee,net', 'the API’s CSV header');
  t.equal(csv.length, 2, 'and the one row the filters match');
  t.match(csv[1], new RegExp(`,payment,${intent.id},`));

  await filters.getByLabel('Type').selectOption('');
  await filters.getByLabel('From (UTC day)').fill('');
  await filters.getByLabel('To (UTC day, included)').fill('');
  await filters.getByLabel('Settled by payout').fill(paid.id);
  await filters.getByRole('button', { name: 'Filter' }).click();
  await transactions.getByRole('row', { name: new RegExp(intent.id) }).waitFor({ state: 'detached' });
  await page.getByText(`Payout ${paid.id} drew on these 1 transactions, oldest funds first.`).waitFor();
  t.match(await transactions.getByRole('row').nth(1).textContent(), /Payment.*50,000/, 'the payout drew on the oldest funds: the first day’s');

  const summaries = page.getByRole('form', { name: 'Daily summaries' });
  await summaries.getByLabel('From (UTC day)').fill(day(0));
  await summaries.getByLabel('To (UTC day, included)').fill(day(2));
  await summaries.getByRole('button', { name: 'Filter' }).click();
  const summaryRows = page.getByRole('region', { name: 'Daily summaries' }).getByRole('row');
  await summaryRows.nth(3).waitFor();
  t.match(await summaryRows.nth(1).textContent(), new RegExp(`${day(0)}XOF.*50,000.*✓ Yes`), 'day one: 50,000 in, and it adds up');
  t.match(await summaryRows.nth(2).textContent(), /10,000.*✓ Yes/, 'day two: the payment');
  t.match(await summaryRows.nth(3).textContent(), /5,000.*✓ Yes/, 'day three: the payout');

  t.same(await accessibilityProblems(page), [], 'reports: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  t.same((await listsAt(page, 1280)).cut, [], 'at 1280 px no table is cut, the balances and the daily summaries included');
  await screenshot(page, 'reports');

  await (await withHeader(page)).getByRole('radio', { name: 'Live' }).check();
  await page.getByText('No balance transaction matches.').waitFor();
  t.equal(await filters.getByLabel('Settled by payout').inputValue(), '', "a sandbox payout's filter is not carried into live");
  t.pass('live has none of it');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});

t.test('statements: the last month’s with its totals and CSV; a longer one pending, then ready without a reload', async (t) => {
  const { merchant, email, page, problems } = await owner(t, 'Cabinet Sow');
  await fund(svc, merchant.id, 50_000);
  // Into the next calendar month (UTC): the month of the funding is then the last full one.
  const now = svc.clock.now();
  svc.clock.advance(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime() + DAY / 2);
  const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString().slice(0, 10);

  await page.goto(`${svc.baseUrl}/dashboard/reports`);
  await signInWithPassword(page, email);
  const form = page.getByRole('form', { name: 'New statement' });
  await form.getByLabel('Currency').selectOption('XOF');
  await form.getByRole('button', { name: 'Create the statement' }).click();
  const statements = page.getByRole('region', { name: 'Statements' });
  const month = statements.getByRole('row', { name: new RegExp(`^${lastMonth} – `) });
  await month.waitFor();
  t.match(await month.textContent(), /XOFReady.*0.*50,000.*50,000/, 'ready at once, opening 0, the month’s change and the closing balance 50,000');

  const [download] = await Promise.all([page.waitForEvent('download'), month.getByRole('button', { name: /^Download the CSV of the statement/ }).click()]);
  t.equal(download.suggestedFilename(), `statement-xof-${lastMonth}-sandbox.csv`);
  const csv = (await downloaded(download)).toString('utf8').trim().split('\n');
  t.equal(csv[0], 'row,category,balance_transaction,entry,kind,source,posted_at,available,pending,reserved,total', 'the API’s CSV');
  t.match(
    csv.find((line) => line.startsWith('closing,')),
    /,50000$/,
    'closing at 50,000',
  );

  // 100 days, ending yesterday: computed in the background.
  const today = svc.clock.now().getTime();
  const from = new Date(today - 100 * DAY).toISOString().slice(0, 10);
  const to = new Date(today - DAY).toISOString().slice(0, 10);
  await form.getByLabel('Period').selectOption({ label: 'From a day to a day' });
  await form.getByLabel('From (UTC day)').fill(from);
  await form.getByLabel('To (UTC day, included)').fill(to);
  await form.getByRole('button', { name: 'Create the statement' }).click();
  const long = statements.getByRole('row', { name: new RegExp(`^${from} – ${to}`) });
  await long.getByText('Being computed').waitFor();
  t.match(await long.textContent(), /Its files can be downloaded once it is ready/, 'no files while pending');
  await svc.system.drain();
  await long.getByText('Ready', { exact: true }).waitFor();
  t.match(await long.textContent(), /50,000/, 'then its totals, without a reload');

  await form.getByLabel('Period').selectOption({ label: 'From a day to a day' });
  await form.getByLabel('From (UTC day)').fill(to);
  await form.getByLabel('To (UTC day, included)').fill(from);
  await form.getByRole('button', { name: 'Create the statement' }).click();
  await page.getByRole('alert').filter({ hasText: /to/ }).waitFor();
  t.pass('a period that ends before it starts: the API’s refusal, in its words');

  t.same(await accessibilityProblems(page), [], 'statements: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error (the refusal is its one failed load)');
});
