import type { FundingSource } from '#packages/families/payouts/index.js';
import { holdOnSeller } from '../marketplace-order/postings.js';

/** A marketplace seller's payout (docs/marketplace.md): held out of the seller's available funds; IKW-MKT-007 when short. */
export const sellerPayoutFunding: FundingSource = {
  kind: 'seller',
  funds: (p) => p.funding?.kind === 'marketplace_seller',
  hold: (p) => holdOnSeller({ source: p.id, amount: p.amount, fee: p.fee, seller: { sellerRef: p.funding!.sellerRef, sellerId: p.funding!.sellerId } }),
};
