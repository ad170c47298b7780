/**
 * The merchant dashboard (apps/dashboard, served at /dashboard) in a real browser: a service and a
 * Chromium per test file, a fresh signed-out page per test, axe-core's verdict on a page, and the
 * screenshots of docs/dashboard.md (DASHBOARD_SCREENSHOTS=DIR saves each page at 320 and 1280 px).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { Test } from 'tap';
import { closeAtEnd, openPage, startBrowser } from './browser.js';
import type { CreatedMerchant } from '#packages/families/merchants/merchant/commands.js';
import { startService, type StartOptions, type TestService } from './system.js';

export const PASSWORD = 'correct horse battery';
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** One of axe-core's violations: its rule, impact, help text and the nodes it found (their selectors). */
export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's violations on the page as it is, whatever their impact, within `include` (CSS
 * selectors) when given, less `disable`d rules. Injected through DevTools, so the page's CSP does
 * not apply to it, and once per document (an application's pages share one): compiling axe's
 * 650 kB took as long as a run. Only violations are collected (resultTypes), not every node that passed.
 */
export async function axeViolations(page: Page, include?: string[], disable: string[] = []): Promise<AxeViolation[]> {
  if (!(await page.evaluate("typeof axe === 'object'"))) await page.evaluate(AXE);
  const context = include ? JSON.stringify({ include: include.map((selector) => [selector]) }) : 'document';
  const options = JSON.stringify({ resultTypes: ['violations'], rules: Object.fromEntries(disable.map((id) => [id, { enabled: false }])) });
  return (await page.evaluate(`axe.run(${context}, ${options}).then((r) => r.violations)`)) as AxeViolation[];
}

/** axe-core's serious and critical violations on the page as it is. */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.length})`);
}

/** Saves the page at 320 and 1280 px as DIR/<name>-<width>.png when DASHBOARD_SCREENSHOTS=DIR. */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.DASHBOARD_SCREENSHOTS;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  for (const width of [320, 1280]) {
    await page.setViewportSize({ width, height: width === 320 ? 640 : 800 });
    await page.screenshot({ path: path.join(dir, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 360, height: 740 });
}

/**
 * The page's refused requests (`status method path`), to compare with the refusals a test asks for;
 * the console's "Failed to load resource" lines are then left out of `problems` (one may be the
 * favicon of the page opened before the dashboard, which no network event reports).
 */
export function refusals(page: Page): string[] {
  const seen: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) seen.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  return seen;
}
export const scriptProblems = (problems: string[]) => problems.filter((p) => !p.startsWith('Failed to load resource'));

export async function signInWithPassword(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/**
 * Signs up on the dashboard at `origin` as a newcomer does: the address proved by the code the
 * service e-mailed (read from its outbox), then the name, business and password.
 */
export async function signUp(svc: TestService, page: Page, origin: string, person: { email: string; name: string; business: string; password: string }): Promise<void> {
  await page.goto(`${origin}/dashboard/`);
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('Your e-mail address').fill(person.email);
  await page.getByRole('button', { name: 'Send me a code' }).click();
  await page.getByLabel('Code from the e-mail').waitFor();
  const [mail] = await svc.system.outbox.kept({ channel: 'email', recipient: person.email, purpose: 'signup_code' }, 1);
  await page.getByLabel('Code from the e-mail').fill(/code is (\d{6})/.exec(mail?.text ?? '')?.[1] ?? '');
  await page.getByRole('button', { name: 'Check the code' }).click();
  await page.getByLabel('Your name').fill(person.name);
  await page.getByLabel('Name of your business').fill(person.business);
  await page.getByLabel('Password (8 characters or more)').fill(person.password);
  await page.getByRole('button', { name: 'Create the account' }).click();
}

/**
 * Answers the dashboard's confirmation of a sensitive change with the code the service e-mailed to
 * `email` (a user without a second factor; read from the outbox, as no SMTP_URL is set).
 */
export async function confirmWithEmailedCode(svc: TestService, page: Page, email: string): Promise<void> {
  const form = page.getByRole('form', { name: 'Confirm with your second factor' });
  await form.waitFor();
  const [mail] = await svc.system.outbox.kept({ channel: 'email', recipient: email, purpose: 'mfa_code' }, 1);
  await form.getByLabel('Security code').fill(/security code is (\d{6})/.exec(mail?.text ?? '')?.[1] ?? '');
  await form.getByRole('button', { name: 'Verify' }).click();
}

export interface Dashboard {
  svc: TestService;
  browser: BrowserContext;
  /** Where the browser opens the service: its address, or PUBLIC_URL's with `publicOrigin`. */
  origin: string;
  /**
   * A new merchant with an owner (`owner@<name>.example`, PASSWORD) and a page of a browser that
   * has never signed in, closed when `t` ends. `problems` collects CSP violations, script errors
   * and failed loads from here on.
   */
  owner(t: Test, name: string): Promise<{ merchant: CreatedMerchant; email: string; page: Page; problems: string[] }>;
  /** `owner`, signed in, on `path` (under /dashboard). */
  signedIn(t: Test, name: string, path?: string): Promise<{ merchant: CreatedMerchant; email: string; page: Page; problems: string[] }>;
}

/** `options` are the service's (startService): `clockStart: Date.now()` for a test that shows dated figures, `env: { SMTP_URL }` to read the e-mails it sends. */
export async function startDashboard(t: Test, options: StartOptions = {}): Promise<Dashboard> {
  const svc = await startService(t, options);
  const browser = await startBrowser(t);
  // With `publicOrigin` the browser opens the service where PUBLIC_URL says (passkeys are bound to it).
  const origin = options.publicOrigin ? svc.publicUrl : svc.baseUrl;
  const owner: Dashboard['owner'] = async (t, name) => {
    const merchant = await svc.merchant(name);
    const email = `owner@${name.toLowerCase().replace(/\W+/g, '-')}.example`;
    await svc.member(merchant, email, PASSWORD, 'owner');
    // A browser that has never signed in (the context, and so its cookies and storage, is the file's).
    await browser.clearCookies();
    const { page, problems } = await openPage(browser);
    closeAtEnd(t, page);
    // A page of the same origin that is not the application, so no earlier session is resumed
    // first. The browser asks for that page's /favicon.ico whenever it likes (the dashboard names
    // its own icon): the test answers it, so its 404 is never counted as the dashboard's.
    await page.route(`${origin}/favicon.ico`, (route) => route.fulfill({ status: 204 }));
    await page.goto(`${origin}/healthz`);
    await page.evaluate('localStorage.clear()');
    return { merchant, email, page, problems };
  };
  const signedIn: Dashboard['signedIn'] = async (t, name, path = '/') => {
    const opened = await owner(t, name);
    await opened.page.goto(`${origin}/dashboard${path}`);
    await signInWithPassword(opened.page, opened.email);
    await signedInFrame(opened.page).waitFor();
    return opened;
  };
  return { svc, browser, origin, owner, signedIn };
}

/**
 * At `width` px wide, whether the page scrolls sideways: [] when it does not, else the elements
 * that reach past the edge (outside the tables' own scrolling regions), to say which.
 */
export async function overflowAt(page: Page, width = 320): Promise<string[]> {
  await page.setViewportSize({ width, height: 640 });
  // Let resize observers (the charts) redraw at the new width first.
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
  const culprits = (await page.evaluate(`document.documentElement.scrollWidth <= ${width} ? [] : [...document.querySelectorAll('body *')]
    .filter((e) => e.getBoundingClientRect().right > ${width} + 1 && !e.closest('.scroll'))
    .map((e) => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '') + ' ' + (e.textContent || '').slice(0, 30))
    .slice(0, 5)`)) as string[];
  await page.setViewportSize({ width: 360, height: 740 });
  return culprits;
}

/**
 * At `width` px wide, how the page's lists (their tables) show: `cards` whether every row is a
 * card (a block, not a table row), `unlabelled` the body cells that do not show their column's
 * header as their label; `cut` the lists whose columns reach past their region (scrolled out of sight).
 */
export async function listsAt(page: Page, width: number): Promise<{ tables: number; cards: boolean; unlabelled: string[]; cut: string[] }> {
  await page.setViewportSize({ width, height: 800 });
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
  const seen = (await page.evaluate(`(() => {
    const tables = [...document.querySelectorAll('main .scroll table')];
    const rows = tables.flatMap((t) => [...t.tBodies].flatMap((b) => [...b.rows]));
    const unlabelled = [];
    for (const table of tables) {
      const names = [...table.tHead.rows[0].cells].map((c) => c.textContent.trim());
      for (const row of [...table.tBodies].flatMap((b) => [...b.rows])) [...row.cells].forEach((cell, i) => {
        const shown = getComputedStyle(cell, '::before').content;
        // A two-line card (Scrollable twoLine) shows no labels: who or what, amount; status, date.
        if (table.closest('.two-line')) return;
        if (names[i] && (cell.dataset.label !== names[i] || !shown.startsWith(JSON.stringify(names[i])))) unlabelled.push(names[i] + ': ' + cell.textContent.slice(0, 30));
      });
    }
    const cut = [...document.querySelectorAll('main .scroll')].filter((r) => r.scrollWidth > r.clientWidth + 1).map((r) => r.getAttribute('aria-labelledby'));
    return { tables: tables.length, cards: rows.length > 0 && rows.every((r) => ['block', 'grid'].includes(getComputedStyle(r).display)), unlabelled, cut };
  })()`)) as { tables: number; cards: boolean; unlabelled: string[]; cut: string[] };
  await page.setViewportSize({ width: 360, height: 740 });
  return seen;
}

/** The signed-in user's frame (its header), in sight at every width: what a test waits for after a sign-in. */
export const signedInFrame = (page: Page) => page.locator('header.top');

/**
 * `page`, with its header's controls (the environment, the language, the account and Sign out) in
 * sight: on a narrow screen they are behind the Menu button (Frame.tsx), which this opens. A page
 * with no such header (a signed-out one) is left as it is.
 */
export async function withHeader(page: Page): Promise<Page> {
  const controls = page.locator('#header-controls');
  if ((await controls.count()) > 0 && !(await controls.isVisible())) await page.locator('header .menu-toggle').click();
  return page;
}

/** A list's filters (the search form named `name`), unfolded first on a narrow screen where they are behind a Filters button. */
export async function listFilters(page: Page, name: string) {
  const form = page.getByRole('search', { name, includeHidden: true });
  await form.waitFor({ state: 'attached' });
  if (!(await form.isVisible())) await page.locator('.fold-toggle[aria-expanded="false"]').click();
  return page.getByRole('search', { name });
}

/** Follows the main navigation's link `name`, opening the Menu first on a narrow screen (where it is hidden). */
export async function navigate(page: Page, name: string): Promise<void> {
  const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
  if (!(await link.isVisible())) await page.getByRole('button', { name: 'Menu' }).click();
  await link.click();
}

/**
 * The Home page's balance of `currency` as the page shows it (after following the navigation
 * there): each figure as a number of minor units, to compare with what a family moved.
 */
export async function homeBalance(page: Page, currency: string): Promise<{ available: number; pending: number; reserved: number; held: number }> {
  // The page may first show the balance it had cached, then the one it asks for again: read that one.
  const asked = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/balance');
  await navigate(page, 'Home');
  await asked;
  await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
  const row = page.getByRole('region', { name: 'Balances' }).getByRole('row', { name: new RegExp(`^${currency.toUpperCase()}`) });
  await row.waitFor();
  const cells = await row.getByRole('cell').allTextContents();
  const [available, pending, reserved, held] = cells.map((c) => Number(c.replace(/[^\d-]/g, '')));
  return { available: available!, pending: pending!, reserved: reserved!, held: held! };
}
