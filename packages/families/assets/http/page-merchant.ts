import type { Knex } from 'knex';
import type { Owner } from '#packages/core/owner.js';
import { isRefused } from '#packages/core/refusal.js';
import type { Assets } from '../commands.js';
import { findLogoId } from '../read/assets.js';
import { findMerchant } from '#packages/families/merchants/read/index.js';
import type { PageMerchant } from '#packages/http/pages/layout.js';

/**
 * What a payer's page shows of the merchant it pays (docs/checkout.md, "The merchant on the
 * payer's pages"): its name, and its logo, the `logo` asset it completed last, by a signed download
 * URL of this service (same origin, so the pages' `img-src 'self'` allows it; logos are PNG, JPEG,
 * GIF or WebP only, never SVG).
 */
export type PageMerchantOf = (owner: Owner) => Promise<PageMerchant | null>;

export function pageMerchantOf(knex: Knex, assets: Assets): PageMerchantOf {
  return async (owner) => {
    const [merchant, logoId] = await Promise.all([findMerchant(knex, owner.merchantId), findLogoId(knex, owner)]);
    if (!merchant) return null;
    return { name: merchant.name, logoUrl: logoId ? await logoUrlOf(owner, logoId) : null };
  };

  /** Path and query only: the page and the bytes are on the same origin whatever PUBLIC_URL says. */
  async function logoUrlOf(owner: Owner, id: string): Promise<string | null> {
    try {
      return pathOf((await assets.downloadUrl(owner, id)).url);
    } catch (err) {
      // Deleted since the read model was read: the page is shown without a logo, not refused.
      if (isRefused(err, 'IKW-RES-001', 'IKW-AST-004')) return null;
      throw err;
    }
  }
}

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};
