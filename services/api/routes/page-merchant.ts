import type { Knex } from 'knex';
import type { Owner } from '../../../packages/core/owner.js';
import type { Assets } from '../../../packages/domain/asset/commands.js';
import { findLogoId } from '../../../projections/assets.js';
import { findMerchant } from '../../../projections/merchants/index.js';
import type { PageMerchant } from '../pages/layout.js';

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
    // Path and query only: the page and the bytes are on the same origin whatever PUBLIC_URL says.
    const logoUrl = logoId ? pathOf((await assets.downloadUrl(owner, logoId)).url) : null;
    return { name: merchant.name, logoUrl };
  };
}

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};
