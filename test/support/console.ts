/**
 * The operator console (apps/dashboard/console, served at /console) in a real browser: a service
 * and a Chromium per test file; operators who join as a person does, from their invitation link
 * (made as `bin/sika operator users create` makes it), choosing a password and adding an
 * authenticator app whose secret the page shows.
 */
import type { BrowserContext, Page } from 'playwright-core';
import type { Test } from 'tap';
import type { OperatorRole } from '#packages/core/owner.js';
import { closeAtEnd, openPage, startBrowser } from './browser.js';
import { OPERATOR_PASSWORD, totpCode } from './operators.js';
import { startService, type StartOptions, type TestService } from './system.js';

/** An operator signed in to the console: their page, what went wrong on it, and their app's secret for later codes. */
export interface ConsoleOperator {
  email: string;
  page: Page;
  problems: string[];
  totpSecret: string;
}

export interface Console {
  svc: TestService;
  browser: BrowserContext;
  /** Where the browser opens the service: its address, or PUBLIC_URL's with `publicOrigin` (passkeys are bound to it). */
  origin: string;
  /** A page of a browser that has never signed in, closed when `t` ends. */
  freshPage(t: Test): Promise<{ page: Page; problems: string[] }>;
  /** A new operator of `role` invited by the service's own hand, who joins from the link on a fresh page: signed in, on the console's home. */
  operator(t: Test, role: OperatorRole, email?: string): Promise<ConsoleOperator>;
}

let made = 0;

/** The signed-in console's frame: what a test waits for after a sign-in. */
export const consoleFrame = (page: Page) => page.locator('header.top.console');

/** The console's sections the page's navigation offers, by name (behind Menu on a phone: read whether in sight or not). */
export const consoleSections = async (page: Page) => (await page.locator('#main-nav a').allTextContents()).map((s) => s.trim());

/** Follows the console's navigation link `name`, opening the Menu first on a narrow screen. */
export async function openSection(page: Page, name: string): Promise<void> {
  const link = page.locator('#main-nav').getByRole('link', { name, exact: true });
  if (!(await link.isVisible())) await page.locator('header .menu-toggle').click();
  await link.click();
}

/** The link of the last invitation e-mailed to `email`, as its reader finds it. */
export async function invitationLink(svc: TestService, email: string): Promise<string> {
  const [mail] = await svc.system.outbox.kept({ channel: 'email', recipient: email, purpose: 'invitation' }, 1);
  const link = /(https?:\/\/\S+\/console\/invitation\?token=oi_\S+)/.exec(mail?.text ?? '')?.[1];
  if (!link) throw new Error(`no invitation link was e-mailed to ${email}`);
  return link;
}

/** The link of an invitation, opened where the browser opens this test's service (`origin`). */
export const onService = (origin: string, url: string) => `${origin}${new URL(url).pathname}${new URL(url).search}`;

/**
 * On an invitation link's page: the password chosen, the app's secret read from the page and its
 * code given. Returns the secret, for the codes of later sign-ins.
 */
export async function joinFromInvitation(svc: TestService, page: Page, invitationUrl: string, origin = svc.baseUrl): Promise<string> {
  await page.goto(onService(origin, invitationUrl));
  await page.getByLabel('New password').fill(OPERATOR_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  const secret = (await page.locator('code.secret').textContent())?.trim() ?? '';
  await page.getByLabel('Code from the app').fill(await totpCode(svc, secret));
  await page.getByRole('button', { name: 'Verify and sign in' }).click();
  await consoleFrame(page).waitFor();
  return secret;
}

/** The sign-in page's two steps: e-mail and password, then the app's code. */
export async function signInToConsole(svc: TestService, page: Page, email: string, totpSecret: string): Promise<void> {
  await page.getByLabel('E-mail address').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(OPERATOR_PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByLabel('Code from the app').fill(await totpCode(svc, totpSecret));
  await page.getByRole('button', { name: 'Verify and sign in' }).click();
  await consoleFrame(page).waitFor();
}

/** `options` are the service's (startService). */
export async function startConsole(t: Test, options: StartOptions = {}): Promise<Console> {
  const svc = await startService(t, options);
  const browser = await startBrowser(t);
  const origin = options.publicOrigin ? svc.publicUrl : svc.baseUrl;
  const freshPage: Console['freshPage'] = async (t) => {
    await browser.clearCookies();
    const opened = await openPage(browser);
    closeAtEnd(t, opened.page);
    // The browser asks the origin for /favicon.ico when it likes: answered here, so its 404 is not the console's.
    await opened.page.route(`${origin}/favicon.ico`, (route) => route.fulfill({ status: 204 }));
    return opened;
  };
  const operator: Console['operator'] = async (t, role, email = `${role}-${++made}@ops.example`) => {
    const invited = await svc.system.operators.invite({ email, name: `${role[0]!.toUpperCase()}${role.slice(1)} ${made}`, role }, { actor: 'test' });
    const { page, problems } = await freshPage(t);
    const totpSecret = await joinFromInvitation(svc, page, invited.invitationUrl, origin);
    return { email, page, problems, totpSecret };
  };
  return { svc, browser, origin, freshPage, operator };
}
