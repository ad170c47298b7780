/**
 * A real browser for the hosted pages: Debian's chromium (installed by `make test`, see the
 * Makefile) driven by playwright-core, headless, with a fresh profile and nothing that reaches the
 * network on its own. One browser per test file; each test opens its own pages.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import type { Test } from 'tap';

export const CHROMIUM = '/usr/bin/chromium';

export async function startBrowser(t: Test): Promise<BrowserContext> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run make test (it installs Debian's chromium), or apt-get install chromium`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-chromium-'));
  const asRoot = process.getuid?.() === 0;
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    // Root cannot use chromium's sandbox; anyone else keeps it.
    chromiumSandbox: !asRoot,
    args: [...(asRoot ? ['--no-sandbox'] : []), '--headless', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--lang=en-US'],
    viewport: { width: 360, height: 740 },
    isMobile: true,
    hasTouch: true,
  });
  t.teardown(async () => {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  });
  return context;
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
