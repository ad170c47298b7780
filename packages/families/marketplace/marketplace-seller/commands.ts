import type { Fact } from '#packages/core/decider.js';
import type { Clock } from '#packages/core/clock.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import type { SellerCommand, SellerState } from './decider.js';
import { sellerAggregate, toSellerObject } from './render.js';
import { DEFAULT_SETTLEMENT, sellerStream, sellerUuid, type SellerCreated, type SellerEvent, type SellerObject, type SellerSettlement } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

export interface CreateSellerInput extends Partial<SellerSettlement> {
  sellerId: string;
  displayName: string;
}

/** The sellers of a marketplace and their settlement schedules. */
export class MarketplaceSellers extends CommandService<SellerCommand, SellerState, Fact<SellerEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock }) {
    super(deps.store, sellerStream, sellerAggregate);
  }

  async create(owner: Owner, input: CreateSellerInput, actor: Actor): Promise<SellerObject> {
    const id = sellerUuid(owner.merchantId, owner.environment, input.sellerId);
    const result = await this.run(
      id,
      {
        type: 'create',
        seller: {
          id,
          ...owner,
          sellerId: input.sellerId,
          displayName: input.displayName.trim(),
          settlementMode: input.settlementMode ?? DEFAULT_SETTLEMENT.settlementMode,
          settlementDelayDays: input.settlementDelayDays ?? DEFAULT_SETTLEMENT.settlementDelayDays,
          createdAt: this.deps.clock.now().toISOString(),
        },
      },
      auditMetadata(this.deps.clock, owner, id, actor),
    );
    return toSellerObject(result.state);
  }

  async updateSettlement(owner: Owner, id: string, settlement: Partial<SellerSettlement>, actor: Actor): Promise<SellerObject> {
    const result = await this.run(id, { type: 'update_settlement', owner, at: this.deps.clock.now(), settlement }, auditMetadata(this.deps.clock, owner, id, actor));
    return toSellerObject(result.state);
  }

  /** The owner's seller whose platform id is `sellerId` (null when there is none). */
  async bySellerId(owner: Owner, sellerId: string): Promise<SellerCreated | null> {
    const { state } = await this.load(sellerUuid(owner.merchantId, owner.environment, sellerId));
    return state.seller;
  }
}
