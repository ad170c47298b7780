import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { SellerCreated, SellerEvent, SellerSettlement } from './events.js';
import type { Owner } from '#packages/core/owner.js';

export type SellerCommand = { type: 'create'; seller: SellerCreated } | { type: 'update_settlement'; owner: Owner; at: Date; settlement: Partial<SellerSettlement> };

export interface SellerState {
  seller: SellerCreated | null;
  updatedAt: string | null;
}

/** A marketplace seller: created once per sellerId, then its settlement schedule changed. */
export const sellerDecider: Decider<SellerCommand, SellerState, Fact<SellerEvent>> = {
  initialState: { seller: null, updatedAt: null },

  evolve(state, event) {
    switch (event.type) {
      case 'marketplace_seller.created':
        return { seller: event.data, updatedAt: event.data.createdAt };
      case 'marketplace_seller.settlement_updated':
        return {
          seller: { ...state.seller!, settlementMode: event.data.settlementMode, settlementDelayDays: event.data.settlementDelayDays },
          updatedAt: event.data.at,
        };
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'create':
        if (state.seller) throw new Refusal('IKW-MKT-001', `A seller with sellerId '${command.seller.sellerId}' already exists`, 'sellerId');
        return [{ type: 'marketplace_seller.created', data: command.seller }];
      case 'update_settlement': {
        assertOwned(state.seller, command.owner, 'No such marketplace seller', 'marketplaceSellerId');
        const s = state.seller;
        const settlementMode = command.settlement.settlementMode ?? s.settlementMode;
        const settlementDelayDays = command.settlement.settlementDelayDays ?? s.settlementDelayDays;
        if (settlementMode === s.settlementMode && settlementDelayDays === s.settlementDelayDays) return [];
        return [{ type: 'marketplace_seller.settlement_updated', data: { settlementMode, settlementDelayDays, at: command.at.toISOString() } }];
      }
    }
  },
};
