/**
 * The merchant on the payer's pages (docs/checkout.md, "The merchant on the payer's pages"): a
 * logo uploaded as a merchant does it (declare, upload, complete through the assets API), and what
 * a page must show of it in a real browser: the name in its header and title, the logo loaded
 * under the page's policy, and no serious accessibility problem.
 */
import { createHash } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { Test } from 'tap';
import { accessibilityProblems } from './dashboard.js';
import type { TestService } from './system.js';

/** A real 1×1 PNG, so the browser decodes it. */
export const LOGO_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** Uploads `bytes` as the merchant's logo (purpose `logo`) and completes it; returns the asset id. */
export async function uploadLogo(svc: TestService, key: string, bytes: Buffer = LOGO_PNG): Promise<string> {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const created = await svc.request('POST', '/api/v1/assets', { key, body: { name: 'logo.png', purpose: 'logo', contentType: 'image/png', size: bytes.length, sha256 } });
  if (created.status !== 201) throw new Error(`logo declaration refused: ${JSON.stringify(created.body)}`);
  const id = created.body.id as string;
  const uploaded = await svc.request('PUT', `/api/v1/assets/${id}/content`, { key, rawBody: bytes, headers: { 'content-type': 'application/octet-stream' } });
  if (uploaded.status !== 200) throw new Error(`logo upload refused: ${JSON.stringify(uploaded.body)}`);
  const completed = await svc.request('POST', `/api/v1/assets/${id}/complete`, { key });
  if (completed.status !== 200) throw new Error(`logo completion refused: ${JSON.stringify(completed.body)}`);
  return id;
}

/** The page names the merchant in its header and title; shows its logo (decoded) when `logo`; axe-core finds no serious problem. */
export async function assertMerchantShown(t: Test, page: Page, name: string, options: { logo: boolean }): Promise<void> {
  t.equal(await page.locator('#merchant-name').textContent(), name, 'the header names the merchant');
  t.match(await page.locator('header.merchant').textContent(), /via Sika/, 'paid via Sika');
  t.match(await page.title(), name, 'the title names the merchant');
  if (options.logo) {
    const logo = page.locator('#merchant-logo');
    await logo.waitFor();
    await page.waitForFunction('document.querySelector("#merchant-logo").complete');
    t.equal(await page.evaluate('document.querySelector("#merchant-logo").naturalWidth'), 1, 'the logo loads under the page policy');
  } else {
    t.equal(await page.locator('#merchant-logo').count(), 0, 'no logo when none was uploaded');
  }
  t.same(await accessibilityProblems(page), [], 'axe-core: no serious or critical problem');
}
