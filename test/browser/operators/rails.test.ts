/**
 * The console's Rails and Reconciliation sections (docs/operator.md, "Rails" and "Reconciliation"),
 * in Chromium: the sandbox rail's measured success per direction after payments and payouts made
 * here, as the page shows it and as the API counts it, and the router's decisions for them; finance reconciles live pawaPay (its
 * stand-in, configured in the service's own environment), finds the run in the history and opens
 * it; the sandbox's refusal in words; a reviewer has no Reconciliation section. axe and 320 px.
 */
import t from '#tap';
import { ManualClock } from '#packages/core/clock.js';
import { consoleSections, openSection, startConsole } from '../../support/console.js';
import { accessibilityProblems, overflowAt, screenshot, scriptProblems } from '../../support/dashboard.js';
import { PawapayStandin } from '../../support/pawapay-standin.js';
import { confirm, createIntent, mobileMoney as payWith, operatorAnswers, snNumber } from '../../support/payments.js';
import { fund, mobileMoney as wallet, payout } from '../../support/payouts.js';

const TOKEN = 'console-rails-pawapay-token';
const standin = await PawapayStandin.start({ token: TOKEN, clock: new ManualClock(new Date()) });
t.teardown(() => standin.close());
const { svc, operator } = await startConsole(t, { env: { PAWAPAY_API_TOKEN: TOKEN, PAWAPAY_API_URL: standin.url } });

t.test("the sandbox rail's success per direction, as made here", async (t) => {
  const { merchant, key } = await svc.sandboxMerchant();
  // Payments in: one succeeds, one fails by the rail (operator unreachable), one by the payer (funds).
  for (const lastTwo of ['67', '04', '01']) {
    const intent = await createIntent(svc, key, { amount: 1_000 });
    t.equal((await confirm(svc, key, intent.id, { payment_method: payWith(snNumber(lastTwo)) })).status, 200);
  }
  // Payouts out: one paid, one to a number the operator does not know, one the operator leaves without an answer.
  await fund(svc, merchant.id, 100_000);
  for (const lastTwo of ['67', '01', '04']) await payout(svc, key, { amount: 5_000, destination: wallet(lastTwo) });
  await operatorAnswers(svc);

  const { page, problems } = await operator(t, 'reviewer');
  await openSection(page, 'Rails');
  await page.getByRole('heading', { name: 'Rails', level: 1 }).waitFor();
  const payments = page.getByRole('row', { name: /Payments in/ });
  const payouts = page.getByRole('row', { name: /Payouts out/ });
  await payments.waitFor();
  t.match(await payments.textContent(), /Senegal.*Orange Money.*XOF.*Available/, 'the subject and what the rail says of it');
  t.match(await payments.textContent(), /33% success3 attempts: 1 succeeded, 2 failed \(rail faults: 1\), 0 pending/, 'the last hour: one of three, one failure the rail’s');
  t.match(await payouts.textContent(), /50% success3 attempts: 1 succeeded, 1 failed \(rail faults: 0\), 1 pending/, 'payouts: one of two with an answer, one pending');
  t.equal(
    await page
      .getByRole('row')
      .filter({ hasText: /Payments in|Payouts out/ })
      .count(),
    2,
    'one line per direction and subject',
  );

  const health = (await page.evaluate(() => fetch('/api/v1/operator/rails?environment=sandbox', { headers: { 'Sika-Operator-Cookie': '1' } }).then((r) => r.json()))) as { lines: unknown[] };
  t.match(
    health.lines,
    [
      { rail: 'sandbox', direction: 'collect', lastHour: { attempts: 3, succeeded: 1, failed: 2, railFaults: 1, pending: 0 }, lastDay: { attempts: 3 } },
      { rail: 'sandbox', direction: 'payout', lastHour: { attempts: 3, succeeded: 1, failed: 1, railFaults: 0, pending: 1 }, lastDay: { attempts: 3 } },
    ],
    'the API counts what the page shows',
  );

  const live = page.locator('section[aria-labelledby="rails-live"]');
  t.match(await live.textContent(), /pawaPay\s*No attempt in the last 24 hours/, 'live pawaPay is configured and carried nothing: said in words');
  t.match(await page.locator('section[aria-labelledby="rails-review"]').textContent(), /Nothing is left for review/, 'the review list, empty, in words');

  const recent = page.locator('section[aria-labelledby="rails-decisions"]');
  await recent.getByText('No decision yet in this environment.').waitFor();
  t.pass('live: no decision yet, in words');
  await recent.getByLabel('Environment').selectOption('sandbox');
  const decisions = recent.locator('tbody tr');
  await decisions.first().waitFor();
  t.equal(await decisions.count(), 6, "the router's six decisions made here, payments and payouts");
  t.match(await decisions.first().textContent(), /(Payment|Payout)Senegal · Orange MoneySandbox operatorNoneacct_\w+(pi|po)_\w+/, 'each with its subject, the rail chosen, nothing passed over, the merchant and the object');
  t.equal(await recent.getByRole('link', { name: merchant.id }).count(), 6, "each links to the merchant's page");
  await recent.getByLabel('Only those where a rail was passed over').check();
  await recent.getByText('No rail was passed over in the recent decisions.').waitFor();
  t.pass('no detour: said in words');
  await recent.getByLabel('Only those where a rail was passed over').uncheck();
  await decisions.first().waitFor();

  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'console-rails');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});

t.test('finance reconciles live pawaPay, finds the run in the history and opens it; the sandbox is refused in words', async (t) => {
  const finance = await operator(t, 'finance');
  const { page } = finance;
  await openSection(page, 'Reconciliation');
  const form = page.getByRole('form', { name: 'Run a reconciliation' });
  await form.waitFor();
  await page.getByText('No reconciliation has run yet.').waitFor();
  t.pass('the empty history in words');
  t.same(await form.getByLabel('Rail').locator('option').allTextContents(), ['pawaPay'], "the rails offered are live's configured ones");
  await form.getByRole('button', { name: 'Run' }).click();
  const done = page.locator('main p[role="status"]');
  await done.waitFor();
  const runId = /Run (recon_\w+): 0 attempts checked, (\d+) differences/.exec((await done.textContent()) ?? '');
  t.ok(runId, "the run's summary in words");
  const differences = Number(runId?.[2]);
  t.ok(differences > 0, "the stand-in's wallets hold money the ledger does not explain");

  const history = page.locator('section[aria-labelledby="recon-history"] tbody tr');
  await history.first().waitFor();
  t.equal(await history.count(), 1, 'the run is in the history');
  t.match(await history.textContent(), new RegExp(`pawaPay.*Live.*You0${differences}Wallets: ${differences} · Attempts: 0`), 'with its rail, environment, actor and differences');
  t.same(await accessibilityProblems(page), [], 'no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'no horizontal scroll at 320 px');
  await screenshot(page, 'console-reconciliation');

  await history.getByRole('link').click();
  await page.getByRole('heading', { name: 'pawaPay reconciliation, Live', level: 1 }).waitFor();
  t.equal(new URL(page.url()).pathname, `/console/reconciliation/${runId?.[1]}`, 'the run has its own address');
  t.equal(await page.locator('section[aria-labelledby="run-wallets"] tbody tr').count(), differences, 'each wallet that differs is listed');
  t.match(await page.locator('main').textContent(), /Every attempt checked matches the rail’s record/);
  t.same(await accessibilityProblems(page), [], 'the run: no serious or critical axe violation');
  t.same(await overflowAt(page), [], 'the run: no horizontal scroll at 320 px');
  await screenshot(page, 'console-reconciliation-run');

  await page.getByRole('link', { name: 'Every run' }).click();
  await form.getByLabel('Environment').selectOption('sandbox');
  await form.getByLabel('Rail').locator('option', { hasText: 'Sandbox' }).waitFor({ state: 'attached' });
  await form.getByRole('button', { name: 'Run' }).click();
  await page.getByRole('alert').filter({ hasText: "keeps no money of Sika's: nothing to reconcile" }).waitFor();
  t.pass("the sandbox's refusal is said in words");
  t.same(scriptProblems(finance.problems), [], 'no CSP violation or script error');
});

t.test('a reviewer has no Reconciliation section, and the page by its address offers nothing', async (t) => {
  const { page, problems } = await operator(t, 'reviewer');
  t.notOk((await consoleSections(page)).includes('Reconciliation'), 'no Reconciliation in the navigation');
  await page.goto(`${svc.baseUrl}/console/reconciliation`);
  await page.getByRole('heading', { name: 'Reconciliation', level: 1 }).waitFor();
  t.match(await page.getByRole('note').textContent(), /This page is for another role\. Your role: Reviewer/);
  t.equal(await page.locator('main form, main table').count(), 0, 'no form, no history');
  t.same(scriptProblems(problems), [], 'no CSP violation or script error');
});
