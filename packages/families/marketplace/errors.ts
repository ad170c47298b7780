import { declareErrorCodes } from '#packages/core/errors.js';

/** The marketplace family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `MKT`: the marketplace (docs/marketplace.md). */
export const marketplaceErrors = declareErrorCodes({
  'IKW-MKT-001': { status: 409, retryable: false, message: 'A marketplace seller with this sellerId already exists' },
  'IKW-MKT-002': { status: 400, retryable: false, message: 'An order line names a seller that is not one of your marketplace sellers' },
  'IKW-MKT-003': { status: 400, retryable: false, message: 'The commission rule cannot be used: unknown, inactive or in another currency' },
  'IKW-MKT-004': { status: 409, retryable: false, message: 'The order is not in a state that allows this: refunds need a paid order, cancel an unpaid one' },
  'IKW-MKT-005': { status: 400, retryable: false, message: 'The refund amount is above what remains refundable on the order' },
  'IKW-MKT-006': { status: 409, retryable: false, message: "A seller's funds no longer cover their share of the refund" },
  'IKW-MKT-007': { status: 400, retryable: false, message: "The seller's available funds do not cover the payout amount plus its fee" },
  'IKW-MKT-008': { status: 409, retryable: false, message: 'This payment pays a marketplace order: refund it with POST /api/v1/marketplace/refunds' },
});

type MarketplaceErrors = typeof marketplaceErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends MarketplaceErrors {}
}
