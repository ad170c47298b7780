/**
 * The rendered API reference at /docs (services/api/reference) in Chromium: Redoc draws the served
 * document under the page's strict policy (no CSP violation, no script error), its search finds the
 * create-payout operation, which shows its request and response examples and its curl and
 * TypeScript samples; axe-core finds no violation on the reference or on a guide; a guide links
 * back to the reference; GET / names /docs as the service's documentation.
 */
import fs from 'node:fs';
import t from '#tap';
import type { Page } from 'playwright-core';
import { closeAtEnd, openPage, startBrowser } from '../support/browser.js';
import { axeViolations } from '../support/dashboard.js';
import { startService } from '../support/system.js';

/** The create-payout operation as docs/openapi.json gives it, and its example recorded from the service (docs/examples). */
const CREATE_PAYOUT = (JSON.parse(fs.readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }).paths['/api/v1/payouts']!.post!;
const EXAMPLE = JSON.parse(fs.readFileSync(new URL('../../../docs/examples/postPayouts.json', import.meta.url), 'utf8')) as {
  request: { amount: number; currency: string; destination: { msisdn: string } };
  response: { id: string; status: string };
};

/** axe-core's violations on the page, whatever their impact, with up to three of their nodes each. */
async function violationsSaid(page: Page, include?: string[], disable: string[] = []): Promise<string[]> {
  return (await axeViolations(page, include, disable)).map(
    (v) =>
      `${v.id} (${v.impact}): ${v.help}: ${v.nodes
        .slice(0, 3)
        .map((n) => n.target.join(' '))
        .join(', ')}`,
  );
}

/**
 * The reference's axe run is scoped, for two reasons. Time: the page draws all of the API's ~345
 * operations (about 200,000 elements), and axe-core's colour-contrast rule lays out a grid of the
 * whole document whatever the scope (50 s of a core, the rest of the rules 15 s), so it
 * checks the parts Redoc draws once (the sidebar with its search, the introduction) and one
 * operation, create-payout, whose markup every operation shares, once the other operations'
 * sections are taken out of the page (OTHER_SECTIONS_REMOVED). Redoc's own markup: two rules its
 * sidebar and operation headings break, which the service cannot change without patching Redoc:
 * `label-content-name-mismatch` (each sidebar entry's aria-label is its summary, without the method
 * badge it shows) and `heading-order` (an operation's h2 is followed by h5 sections, moderate).
 */
const REFERENCE_AXE_SCOPE = ['.menu-content', '.api-info', '[id="tag/payouts/operation/postPayouts"]'];
const REDOC_AXE_EXCEPTIONS = ['label-content-name-mismatch', 'heading-order'];

/**
 * Removes Redoc's sections (`data-section-id`) other than the introduction and create-payout and
 * those holding them; what stays is styled as drawn (Redoc's styles are its classes').
 */
const OTHER_SECTIONS_REMOVED = `(() => {
  const kept = [...document.querySelectorAll('.api-info, [id="tag/payouts/operation/postPayouts"]')];
  let removed = 0;
  for (const section of document.querySelectorAll('[data-section-id]')) {
    if (section.isConnected && !kept.some((k) => k.contains(section) || section.contains(k))) {
      section.remove();
      removed += 1;
    }
  }
  return removed;
})()`;

/**
 * Redoc draws the whole reference before its search box or any operation shows: about 18 s alone on
 * our two cores, several times that while the other suites run beside it (CI once took over 30 s,
 * playwright's default wait). Waits for that first draw get this long instead.
 */
const REDOC_FIRST_DRAW_MS = 150_000;

const svc = await startService(t);
const browser = await startBrowser(t);

t.test('GET / names the reference as the service documentation', async (t) => {
  const res = await fetch(`${svc.baseUrl}/`, { redirect: 'manual' });
  t.equal(res.status, 302);
  t.match(res.headers.get('link'), /<\/docs\/>; rel="service-doc"/, 'a Link header (RFC 8631) to /docs');
});

t.test('/docs: search finds the payout, which shows its examples and code samples', async (t) => {
  const { page, problems } = await openPage(browser);
  closeAtEnd(t, page);
  await page.setViewportSize({ width: 1280, height: 900 });
  const answer = await page.goto(`${svc.baseUrl}/docs`);
  t.equal(answer?.status(), 200);
  t.match(answer?.headers()['content-security-policy'], /script-src 'self';/, 'served under the strict policy');
  t.notMatch(answer?.headers()['content-security-policy'], /unsafe/, "no 'unsafe-inline', no 'unsafe-eval'");

  const search = page.getByRole('textbox', { name: /search/i });
  await search.waitFor({ timeout: REDOC_FIRST_DRAW_MS });
  await search.fill('payout');
  const result = page.locator('[role="search"] li, .search-results li, [data-role="search:results"] li').filter({ hasText: /Create a payout to a mobile money or bank destination/ });
  await result.first().click();
  const operation = page.locator('[id="tag/payouts/operation/postPayouts"]');
  await operation.waitFor();
  t.match(await operation.textContent(), /\/api\/v1\/payouts/, 'the create-payout operation is shown');

  // Redoc draws only the chosen tab's panel: the text of the panels shown is that tab's.
  const shown = async () => (await operation.getByRole('tabpanel').allTextContents()).join('');
  t.same(
    await operation.getByRole('tab').allTextContents(),
    ['Payload', 'curl', 'TypeScript (@sika/client)', ...Object.keys(CREATE_PAYOUT.responses)],
    'request samples: the example payload, curl and the TypeScript client; a response per status',
  );
  t.match(
    await shown(),
    new RegExp(`\\{"amount": ${EXAMPLE.request.amount},"currency": "${EXAMPLE.request.currency}","destination": \\{"type": "mobile_money",.*"msisdn": "${EXAMPLE.request.destination.msisdn}"\\}`, 's'),
    'the recorded request example',
  );
  t.match(await shown(), new RegExp(`"id": "${EXAMPLE.response.id}".*"object": "payout".*"status": "${EXAMPLE.response.status}"`, 's'), 'the recorded response example');
  await operation.getByRole('tab', { name: 'curl' }).click();
  t.match(
    await shown(),
    new RegExp(`curl -X POST "\\$SIKA_API_BASE\\/api\\/v1\\/payouts".*-H "Authorization: Bearer \\$SIKA_API_KEY".*-H "X-Environment: sandbox".*-H "Idempotency-Key: \\$\\(uuidgen\\)".*-d '\\{\\s*"amount": ${EXAMPLE.request.amount},`, 's'),
    'the curl sample, with the example as its body',
  );
  await operation.getByRole('tab', { name: 'TypeScript (@sika/client)' }).click();
  t.match(await shown(), new RegExp(`import \\{ Sika \\} from '@sika\\/client';.*await sika\\.post\\('\\/api\\/v1\\/payouts', \\{\\s*body: \\{\\s*"amount": ${EXAMPLE.request.amount},`, 's'), 'the TypeScript client sample');

  t.ok(Number(await page.evaluate(OTHER_SECTIONS_REMOVED)) > 300, "the other operations' sections are out of the page");
  t.same(await violationsSaid(page, REFERENCE_AXE_SCOPE, REDOC_AXE_EXCEPTIONS), [], 'axe-core: no violation on the sidebar, the introduction and an operation');
  t.same(problems, [], 'no CSP violation, script error or failed load');
});

t.test('a guide page renders its markdown and links back to the reference', async (t) => {
  const { page, problems } = await openPage(browser);
  closeAtEnd(t, page);
  await page.goto(`${svc.baseUrl}/docs/guides/webhooks`);
  await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
  t.ok(await page.locator('#verifying-a-request-nodejs').count(), 'headings carry the anchors the docs link to');
  t.same(await violationsSaid(page), [], 'axe-core: no violation on a guide');
  t.same(problems, [], 'no CSP violation, script error or failed load');
  // The link leads to the reference; drawing it is the test above's (a second draw cost this file
  // as long again: Redoc draws the whole document before anything shows).
  await page.getByRole('navigation', { name: 'Documentation' }).getByRole('link', { name: 'API reference' }).click();
  await page.waitForURL(`${svc.baseUrl}/docs/`);
  t.equal(await page.title(), 'Sika API reference', 'the link opens the reference');
});
