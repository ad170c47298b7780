import type { DomainEvent } from '#packages/core/decider.js';
import { derivedUuid } from '#packages/core/ids.js';
import type { Environment } from '#packages/core/owner.js';

/**
 * When a seller's share of a paid order becomes theirs to pay out (docs/marketplace.md):
 * `rolling`: `settlementDelayDays` after the payment; `weekly`: on the first Monday (00:00 UTC)
 * on or after that; `manual`: never by itself, the funds stay pending until the mode changes.
 */
export type SettlementMode = 'rolling' | 'weekly' | 'manual';
export const SETTLEMENT_MODES: readonly SettlementMode[] = ['rolling', 'weekly', 'manual'];
export const DEFAULT_SETTLEMENT = { settlementMode: 'rolling' as SettlementMode, settlementDelayDays: 7 };

export interface SellerSettlement {
  settlementMode: SettlementMode;
  settlementDelayDays: number;
}

export interface SellerObject extends SellerSettlement {
  id: string;
  object: 'marketplace_seller';
  /** The platform's own identifier of the seller, unique per merchant and environment. */
  sellerId: string;
  displayName: string;
  status: 'active';
  livemode: boolean;
  created: number;
  updated: number;
}

export interface SellerCreated extends SellerSettlement {
  id: string;
  merchantId: string;
  environment: Environment;
  sellerId: string;
  displayName: string;
  createdAt: string;
}

type WithObject<D> = D & { object: SellerObject };

export type SellerEvent = DomainEvent<'marketplace_seller.created', WithObject<SellerCreated>> | DomainEvent<'marketplace_seller.settlement_updated', WithObject<SellerSettlement & { at: string }>>;

export const sellerStream = (id: string) => `marketplace_seller-${id}`;

/**
 * The id of the seller a platform names `sellerId`: derived, so one sellerId is one stream (a
 * second create is refused by the stream itself) and order lines find their seller without a query.
 */
export const sellerUuid = (merchantId: string, environment: Environment, sellerId: string) => derivedUuid(`marketplace_seller|${merchantId}|${environment}|${sellerId}`);
