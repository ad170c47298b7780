import type { ReadSide } from '#packages/read-models/read-side.js';
import { disputesProjection } from './disputes.js';

/** Card disputes. */
export const disputesReadSide: ReadSide = {
  family: 'disputes',
  readModels: [disputesProjection],
};

export { findDispute, listDisputes } from './disputes.js';
