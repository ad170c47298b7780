import { Refusal } from '#packages/core/refusal.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import type { Owner } from '#packages/core/owner.js';
import type { Price, ProductChanges, ProductCreated, ProductEvent, ProductStatus } from './events.js';

export type ProductCommand =
  | { type: 'create'; product: ProductCreated }
  | ({ owner: Owner; at: Date } & (
      | { type: 'update'; changes: ProductChanges }
      | { type: 'delete' }
      /** A subscription starts using prices of this product; each price is checked with the request field it came from. */
      | { type: 'attach'; subscriptionId: string; prices: { id: string; field: string }[] }
      | { type: 'detach'; subscriptionId: string }
    ));

export interface ProductState {
  product: ProductCreated | null;
  name: string;
  description: string | null;
  metadata: Record<string, string>;
  active: boolean;
  archived: boolean;
  prices: Price[];
  updatedAt: string | null;
  /** Subscriptions using the product, with when they started to. */
  subscriptions: ReadonlyMap<string, string>;
}

export const initialProductState: ProductState = {
  product: null,
  name: '',
  description: null,
  metadata: {},
  active: false,
  archived: false,
  prices: [],
  updatedAt: null,
  subscriptions: new Map(),
};

export function productStatus(state: Pick<ProductState, 'active' | 'archived'>): ProductStatus {
  return state.archived ? 'archived' : state.active ? 'active' : 'inactive';
}

function mergeMetadata(current: Record<string, string>, changes: Record<string, string>): Record<string, string> {
  const out = { ...current };
  for (const [k, v] of Object.entries(changes)) {
    if (v === '') delete out[k];
    else out[k] = v;
  }
  return out;
}

/**
 * Products and their prices. A product a subscription uses cannot be deleted: the subscriptions
 * using it are recorded on this stream, so that the check and the delete are one decision.
 * Deleting archives: the product stays readable and in history.
 */
export const productDecider: Decider<ProductCommand, ProductState, Fact<ProductEvent>> = {
  initialState: initialProductState,

  evolve(state, event) {
    switch (event.type) {
      case 'product.created': {
        const p = event.data;
        return { ...state, product: p, name: p.name, description: p.description, metadata: p.metadata, active: p.active, prices: p.prices, updatedAt: p.createdAt };
      }
      case 'product.updated': {
        const d = event.data;
        return {
          ...state,
          ...(d.name !== undefined ? { name: d.name } : {}),
          ...(d.description !== undefined ? { description: d.description } : {}),
          ...(d.metadata ? { metadata: mergeMetadata(state.metadata, d.metadata) } : {}),
          ...(d.active !== undefined ? { active: d.active } : {}),
          ...(d.addedPrices ? { prices: [...state.prices, ...d.addedPrices] } : {}),
          updatedAt: d.at,
        };
      }
      case 'product.deleted':
        return { ...state, archived: true, active: false, updatedAt: event.data.at };
      case 'product.subscription_attached':
        return { ...state, subscriptions: new Map(state.subscriptions).set(event.data.subscriptionId, event.data.at) };
      case 'product.subscription_detached': {
        const subscriptions = new Map(state.subscriptions);
        subscriptions.delete(event.data.subscriptionId);
        return { ...state, subscriptions };
      }
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      if (state.product) throw new Refusal('IKW-RES-003', `Product ${command.product.id} already exists`);
      return [{ type: 'product.created', data: command.product }];
    }
    const p = state.product;
    assertOwned(p, command.owner, 'No such product', 'productId');
    const at = command.at.toISOString();
    switch (command.type) {
      case 'update': {
        if (state.archived) throw new Refusal('IKW-RES-002', `Product ${p.id} is archived and cannot be changed`, 'productId');
        const c = command.changes;
        const changes: ProductChanges = {};
        if (c.name !== undefined && c.name !== state.name) changes.name = c.name;
        if (c.description !== undefined && c.description !== state.description) changes.description = c.description;
        if (c.metadata !== undefined && Object.keys(c.metadata).length > 0) changes.metadata = c.metadata;
        if (c.active !== undefined && c.active !== state.active) changes.active = c.active;
        if (c.addedPrices !== undefined && c.addedPrices.length > 0) changes.addedPrices = c.addedPrices;
        if (Object.keys(changes).length === 0) return [];
        return [{ type: 'product.updated', data: { ...changes, at } }];
      }
      case 'delete': {
        if (state.archived) return [];
        if (state.subscriptions.size > 0) {
          throw new Refusal('IKW-BIL-002', `Product ${p.id} is used by ${state.subscriptions.size} subscription(s) (${[...state.subscriptions.keys()].join(', ')}); cancel them first`, 'productId');
        }
        return [{ type: 'product.deleted', data: { at } }];
      }
      case 'attach': {
        if (state.subscriptions.has(command.subscriptionId)) return [];
        for (const price of command.prices) {
          if (!state.prices.some((x) => x.id === price.id)) throw new Refusal('IKW-BIL-007', `No such price: '${price.id}'`, price.field);
          if (state.archived || !state.active) {
            throw new Refusal('IKW-BIL-008', `Price ${price.id} belongs to product ${p.id}, which is ${productStatus(state)}`, price.field);
          }
        }
        return [{ type: 'product.subscription_attached', data: { subscriptionId: command.subscriptionId, at } }];
      }
      case 'detach':
        if (!state.subscriptions.has(command.subscriptionId)) return [];
        return [{ type: 'product.subscription_detached', data: { subscriptionId: command.subscriptionId, at } }];
    }
  },
};
