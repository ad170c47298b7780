import type { ReadSide } from '#packages/read-models/read-side.js';
import { escrowContractsProjection } from './escrow-contracts.js';
import { escrowReleasesProjection } from './escrow-releases.js';
import { escrowDisputesProjection } from './escrow-disputes.js';

/** Escrow: contracts, releases and disputes. */
export const escrowReadSide: ReadSide = {
  family: 'escrow',
  readModels: [escrowContractsProjection, escrowReleasesProjection, escrowDisputesProjection],
};

// The queries other code reads this family by.
export { escrowContractFundedBy, findEscrowContract, listEscrowContracts } from './escrow-contracts.js';
export { contractOfRelease, findEscrowRelease, listEscrowReleases } from './escrow-releases.js';
export { contractOfDispute, findEscrowDispute, listEscrowDisputes } from './escrow-disputes.js';
