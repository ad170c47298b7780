/**
 * How the suites start Debian's Chromium (installed by `make test`, see the Makefile): headless,
 * with nothing that reaches the network on its own. Apart from browser.ts so that the runner
 * (run-tests.ts), which starts the run's shared Chromium, does not load tap.
 */
import fs from 'node:fs';
import { chromium, type BrowserServer, type LaunchOptions } from 'playwright-core';

/**
 * Debian's chromium-headless-shell: Chromium's engine without the desktop browser around it. The
 * suites' browser work cost 14 CPU-minutes in it against 19 in `chromium` (docs/testing.md).
 * SIKA_TEST_CHROMIUM names another build (`/usr/bin/chromium`, say, to compare).
 */
const CHROMIUM = process.env.SIKA_TEST_CHROMIUM || '/usr/bin/chromium-headless-shell';

export function chromiumLaunchOptions(): LaunchOptions {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run make test (it installs Debian's chromium-headless-shell), or apt-get install chromium-headless-shell`);
  const asRoot = process.getuid?.() === 0;
  return {
    executablePath: CHROMIUM,
    headless: true,
    // Root cannot use chromium's sandbox; anyone else keeps it.
    chromiumSandbox: !asRoot,
    args: [...(asRoot ? ['--no-sandbox'] : []), '--headless', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--lang=en-US'],
  };
}

/** The Chromium every browser file of a run opens its contexts in (SIKA_TEST_BROWSER, its WebSocket endpoint). */
export function launchSharedChromium(): Promise<BrowserServer> {
  return chromium.launchServer(chromiumLaunchOptions());
}
