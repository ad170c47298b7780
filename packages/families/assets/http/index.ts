/** The assets family's edge as other families' routes use it: its route schemas and helpers. */
export { pageMerchantOf, type PageMerchantOf } from './page-merchant.js';
export { contentDisposition } from './assets.js';
