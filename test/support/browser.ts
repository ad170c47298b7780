/**
 * A real browser for the hosted pages: Debian's chromium (chromium.ts) driven by playwright-core.
 * A fresh browser context per test file (its own cookies and storage, like a fresh profile); each
 * test opens its own pages. Under `make test` the contexts are opened in the one Chromium the
 * runner started for the whole run (SIKA_TEST_BROWSER, test/support/run-tests.ts), which saves each
 * browser file a Chromium's start; a file run on its own launches a Chromium of its own.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Download, type Page } from 'playwright-core';
import tap, { type Test } from '#tap';
import { chromiumLaunchOptions } from './chromium.js';

let browser: Promise<Browser> | undefined;

/** The run's shared Chromium when the runner gave one, else one of this file's own; closed when the file's tests end. */
function fileBrowser(): Promise<Browser> {
  browser ??= (async () => {
    const shared = process.env.SIKA_TEST_BROWSER;
    const opened = shared ? await chromium.connect(shared) : await chromium.launch(chromiumLaunchOptions());
    // For a shared browser, close() only disconnects this file. The file's teardown runs after
    // every subtest's, so after the contexts' (a context may be opened in a subtest). Under a file
    // worker (file-worker.ts) `tap` is the file's own subtest and the next file connects anew.
    tap.teardown(() => {
      browser = undefined;
      return opened.close();
    });
    return opened;
  })();
  return browser;
}

/**
 * A browser context of this file's own, closed when `t` ends. No `locale`: playwright's would
 * override the Accept-Language a test sets; Chromium's --lang=en-US is the default.
 */
export async function startBrowser(t: Test): Promise<BrowserContext> {
  const context = await (await fileBrowser()).newContext({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
  t.teardown(() => context.close());
  return context;
}

/**
 * The bytes of a finished download, read through playwright's stream (a browser that the file
 * connected to, the run's shared one, gives no local path).
 */
export async function downloaded(download: Download): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A page that records every Content-Security-Policy violation and page error it meets. */
export async function openPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(msg.location().url ? `${msg.text()} (${msg.location().url})` : msg.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  return { page, problems };
}

/** How long a page's close may take at a test's end before it is left to its context's close. */
const PAGE_CLOSE_MS = 10_000;

/**
 * Closes `page` when `t` ends. Chromium can acknowledge the close of a page in the middle of a
 * navigation's commit and never close it, and then Playwright's close never settles
 * (microsoft/playwright#42366): a test hung in its teardown until its file's time limit (twice,
 * `dashboard-payment-links` under `make test`'s load). After PAGE_CLOSE_MS the page is left to the
 * context's close at the file's end, which disposes of all its pages, and stderr says so.
 */
export function closeAtEnd(t: Test, page: Pick<Page, 'close'>, boundMs = PAGE_CLOSE_MS): void {
  t.teardown(async () => {
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<'gave up'>((resolve) => (timer = setTimeout(() => resolve('gave up'), boundMs)));
    const outcome = await Promise.race([page.close(), gaveUp]).finally(() => clearTimeout(timer));
    if (outcome === 'gave up') console.error(`${t.fullname}: a page's close did not settle in ${boundMs / 1000} s; the context's close will take it`);
  });
}

/** The merchant's site the customer returns to: answers every path with a small page. */
export async function startMerchantSite(t: Test): Promise<string> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Shop</title><p>Back at the shop</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Chromium's virtual authenticator on the page (WebAuthn over the DevTools protocol): resident
 * keys, user verification (as a fingerprint reader), presence given at once. `away` takes its
 * credentials out, so that the browser answers NotAllowedError at once, as it does for a prompt
 * closed or a device without the passkey (a prompt left unanswered says the same after the
 * ceremony's 60 s); `back` puts them back.
 */
export async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  let kept: Awaited<ReturnType<typeof cdp.send<'WebAuthn.getCredentials'>>>['credentials'] = [];
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials.length,
    away: async () => {
      kept = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
      await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
    },
    back: async () => {
      for (const credential of kept) await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
    },
  };
}
