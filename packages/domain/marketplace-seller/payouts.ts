import { ApiError } from '../../core/errors.js';
import { assertOwned } from '../aggregate.js';
import type { CreatePayoutInput, Payouts } from '../payout/commands.js';
import type { PayoutObject } from '../payout/events.js';
import type { MarketplaceSellers } from './commands.js';
import type { Actor, Owner, Requester } from '../../core/owner.js';

/** The metadata key naming the seller on a payout paid out of their funds (GET /api/v1/payouts shows it). */
export const SELLER_PAYOUT_METADATA_KEY = 'marketplace_seller';

export interface SellerPayoutInput {
  amountMinor: number;
  currency: string;
  destination?: CreatePayoutInput['destination'];
  payoutMethodId?: string;
  metadata?: Record<string, string>;
}

/** The payouts' snake_case names, as this family's body spells them (a challenge's own refusals: the route's `fields`). */
const CAMEL_CASE: Readonly<Record<string, string>> = { amount: 'amountMinor', payout_method_id: 'payoutMethodId', challenge_id: 'challengeId' };

/** Payouts of a seller's available funds to their wallet or account: ordinary payouts (`po_…`) funded by the seller's money. */
export class SellerPayouts {
  constructor(private readonly deps: { payouts: Pick<Payouts, 'create'>; sellers: Pick<MarketplaceSellers, 'load'> }) {}

  async create(owner: Owner, sellerUuid: string, input: SellerPayoutInput, by: Requester, actor: Actor, requestRef?: string): Promise<PayoutObject> {
    const seller = (await this.deps.sellers.load(sellerUuid)).state.seller;
    assertOwned(seller, owner, `No such marketplace seller: '${sellerUuid}'`, 'id');
    const payout: CreatePayoutInput = {
      amount: input.amountMinor,
      currency: input.currency,
      ...(input.destination ? { destination: input.destination } : {}),
      ...(input.payoutMethodId ? { payout_method_id: input.payoutMethodId } : {}),
      metadata: { ...input.metadata, [SELLER_PAYOUT_METADATA_KEY]: seller.sellerId },
    };
    try {
      return await this.deps.payouts.create(owner, payout, by, 'marketplace', actor, requestRef, { kind: 'marketplace_seller', sellerRef: seller.id, sellerId: seller.sellerId });
    } catch (err) {
      if (err instanceof ApiError && err.param !== undefined && Object.hasOwn(CAMEL_CASE, err.param)) throw new ApiError(err.code, err.message, CAMEL_CASE[err.param]);
      throw err;
    }
  }
}
