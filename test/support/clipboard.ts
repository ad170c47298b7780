/**
 * The clipboard of the browser files. `make test` runs them in one shared Chromium (SIKA_TEST_BROWSER),
 * whose clipboard is one for all its pages: two files copying at once could read each other's
 * text (a run of four files at a time once read a payout's id where an invoice's had been
 * copied). A copy and its read therefore hold a lock of that browser's, across the run's processes.
 */
import path from 'node:path';
import type { Page } from 'playwright-core';
import { lock } from './lock-dir.js';

/** What `copy` (a click on a copy button, and what it waits for) put on the clipboard, read in `page`. */
export async function copiedBy(page: Page, copy: () => Promise<unknown>): Promise<string> {
  const release = await lockClipboard();
  try {
    await copy();
    return (await page.evaluate('navigator.clipboard.readText()')) as string;
  } finally {
    release();
  }
}

/**
 * The shared browser's clipboard lock, in the run's lock directory (SIKA_TEST_LOCKS, removed when
 * the run ends); a browser of the file's own has a clipboard of its own.
 */
function lockClipboard(): Promise<() => void> {
  const locks = process.env.SIKA_TEST_LOCKS;
  if (!process.env.SIKA_TEST_BROWSER || !locks) return Promise.resolve(() => {});
  return lock(path.join(locks, 'clipboard'));
}
