import type { Clock } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import { newUuid } from '../../core/ids.js';
import { handleCommand, step } from '../../eventstore/command-handler.js';
import type { EventMetadata, EventStore } from '../../eventstore/port.js';
import type { Actor, Owner } from '../audit.js';
import type { Account } from '../ledger/events.js';
import type { MarketplaceSellers } from '../marketplace-seller/commands.js';
import type { CreatePayoutInput, FundedPayoutLedger, PayoutRef, Payouts } from '../payout/commands.js';
import type { PayoutCreated, PayoutFunding, PayoutObject } from '../payout/events.js';
import { fundsDecider, type FundsAction, type FundsCommand } from './decider.js';
import { marketplaceFundsStream, type ClearingAccount, type FundsRef } from './events.js';

/** The metadata key naming the seller on a payout paid out of their funds (GET /api/v1/payouts shows it). */
export const SELLER_PAYOUT_METADATA_KEY = 'marketplace_seller';

/** A funds command for one balance, with its time and entry ids. */
export function fundsCommand(clock: Clock, ref: FundsRef, action: FundsAction): FundsCommand {
  return { ...action, ...ref, at: clock.now(), newEntryId: newUuid } as FundsCommand;
}

/**
 * The marketplace funds' side of payouts to sellers: the hold on the seller's available funds
 * (appended with the payout), then paid to clearing and fees, or given back to the seller.
 */
export class SellerPayoutFunds implements FundedPayoutLedger {
  constructor(private readonly deps: { store: EventStore; clock: Clock }) {}

  holdStep(owner: Owner, payout: { id: string; currency: string; amount: number; fee: number; funding: PayoutFunding }, meta: EventMetadata) {
    const seller = { sellerRef: payout.funding.sellerRef, sellerId: payout.funding.sellerId, amount: payout.amount };
    return step({
      streamId: marketplaceFundsStream(owner.merchantId, owner.environment, payout.currency),
      decider: fundsDecider,
      command: fundsCommand(this.deps.clock, { ...owner, currency: payout.currency }, { type: 'hold_seller_payout', payoutId: payout.id, seller, fee: payout.fee }),
      metadata: meta,
    });
  }

  settleStep(payout: PayoutCreated & { funding: PayoutFunding }, outcome: 'paid' | 'released', clearing: Account, meta: EventMetadata) {
    const action: FundsAction =
      outcome === 'paid' ? { type: 'complete_seller_payout', payoutId: payout.id, clearing: clearing as ClearingAccount } : { type: 'release_seller_payout', payoutId: payout.id };
    const ref = { merchantId: payout.merchantId, environment: payout.environment, currency: payout.currency };
    return step({ streamId: marketplaceFundsStream(ref.merchantId, ref.environment, ref.currency), decider: fundsDecider, command: fundsCommand(this.deps.clock, ref, action), metadata: meta });
  }

  async releaseOrphan(ref: PayoutRef & { currency: string }, meta: EventMetadata): Promise<void> {
    await this.run({ merchantId: ref.merchantId, environment: ref.environment, currency: ref.currency }, { type: 'release_seller_payout', payoutId: ref.payoutId }, meta);
  }

  private run(ref: FundsRef, action: FundsAction, meta: EventMetadata) {
    return handleCommand(this.deps.store, marketplaceFundsStream(ref.merchantId, ref.environment, ref.currency), fundsDecider, fundsCommand(this.deps.clock, ref, action), meta, {
      onConflict: 'internal',
    });
  }
}

export interface SellerPayoutInput {
  amountMinor: number;
  currency: string;
  destination?: CreatePayoutInput['destination'];
  payoutMethodId?: string;
  metadata?: Record<string, string>;
}

/** Payouts of a seller's available funds to their wallet or account: ordinary payouts (`po_…`) funded by the seller's money. */
export class SellerPayouts {
  constructor(private readonly deps: { payouts: Pick<Payouts, 'create'>; sellers: Pick<MarketplaceSellers, 'load'> }) {}

  async create(owner: Owner, sellerUuid: string, input: SellerPayoutInput, actor: Actor, requestRef?: string): Promise<PayoutObject> {
    const seller = (await this.deps.sellers.load(sellerUuid)).state.seller;
    if (!seller || seller.merchantId !== owner.merchantId || seller.environment !== owner.environment) throw new ApiError('IKW-RES-001', `No such marketplace seller: '${sellerUuid}'`, 'id');
    const payout: CreatePayoutInput = {
      amount: input.amountMinor,
      currency: input.currency,
      ...(input.destination ? { destination: input.destination } : {}),
      ...(input.payoutMethodId ? { payout_method_id: input.payoutMethodId } : {}),
      metadata: { ...input.metadata, [SELLER_PAYOUT_METADATA_KEY]: seller.sellerId },
    };
    try {
      return await this.deps.payouts.create(owner, payout, 'marketplace', actor, requestRef, { kind: 'marketplace_seller', sellerRef: seller.id, sellerId: seller.sellerId });
    } catch (err) {
      // The payouts' snake_case names, as this family's body spells them.
      if (err instanceof ApiError && (err.param === 'amount' || err.param === 'payout_method_id')) throw new ApiError(err.code, err.message, err.param === 'amount' ? 'amountMinor' : 'payoutMethodId');
      throw err;
    }
  }
}
