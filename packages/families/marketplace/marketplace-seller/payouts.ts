import { assertOwned } from '#packages/core/aggregate.js';
import type { CreatePayoutInput, PayoutCreation } from '#packages/families/payouts/index.js';
import type { PayoutObject } from '#packages/families/payouts/index.js';
import type { MarketplaceSellers } from './commands.js';
import type { Actor, Owner, Requester } from '#packages/core/owner.js';

/** The metadata key naming the seller on a payout paid out of their funds (GET /api/v1/payouts shows it). */
export const SELLER_PAYOUT_METADATA_KEY = 'marketplace_seller';

export interface SellerPayoutInput {
  amountMinor: number;
  currency: string;
  destination?: CreatePayoutInput['destination'];
  payoutMethodId?: string;
  metadata?: Record<string, string>;
}

/** Payouts of a seller's available funds to their wallet or account: ordinary payouts (`po_…`) funded by the seller's money. */
export class SellerPayouts {
  constructor(private readonly deps: { payouts: Pick<PayoutCreation, 'create'>; sellers: Pick<MarketplaceSellers, 'load'> }) {}

  async create(owner: Owner, sellerUuid: string, input: SellerPayoutInput, by: Requester, actor: Actor, requestRef?: string): Promise<PayoutObject> {
    const seller = (await this.deps.sellers.load(sellerUuid)).state.seller;
    assertOwned(seller, owner, `No such marketplace seller: '${sellerUuid}'`, 'marketplaceSellerId');
    const payout: CreatePayoutInput = {
      amount: input.amountMinor,
      currency: input.currency,
      ...(input.destination ? { destination: input.destination } : {}),
      ...(input.payoutMethodId ? { payout_method_id: input.payoutMethodId } : {}),
      metadata: { ...input.metadata, [SELLER_PAYOUT_METADATA_KEY]: seller.sellerId },
    };
    // The payouts' refusals name their domain fields; the route spells them as its body does.
    return this.deps.payouts.create(owner, payout, by, 'marketplace', actor, requestRef, { kind: 'marketplace_seller', sellerRef: seller.id, sellerId: seller.sellerId });
  }
}
