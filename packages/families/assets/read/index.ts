import type { ReadSide } from '#packages/read-models/read-side.js';
import { assetsProjection } from './assets.js';

/** Merchants' files. */
export const assetsReadSide: ReadSide = {
  family: 'assets',
  readModels: [assetsProjection],
};

// The queries other code reads this family by.
export { findAsset, findMerchantAsset, listAssets } from './assets.js';
