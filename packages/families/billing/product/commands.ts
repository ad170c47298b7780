import type { Fact } from '#packages/core/decider.js';
import { getCurrency } from '#packages/catalog/index.js';
import { unixSeconds, type Clock } from '#packages/core/clock.js';
import { newId } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import { isOwned } from '#packages/core/aggregate.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { ProductCommand, ProductState } from './decider.js';
import { productAggregate, toProductObject } from './render.js';
import { productStream, type Interval, type Price, type ProductEvent, type ProductObject, type UsageType } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import { Refusal } from '#packages/core/refusal.js';

export interface PriceInput {
  currency: string;
  unit_amount: number;
  recurring?: { interval: Interval; interval_count?: number; usage_type?: UsageType } | null;
}

export interface CreateProductInput {
  name: string;
  description?: string | null;
  active?: boolean;
  metadata?: Record<string, string>;
  prices?: PriceInput[];
}

export interface UpdateProductInput {
  name?: string;
  description?: string | null;
  metadata?: Record<string, string>;
  /** New prices; existing prices never change, since subscriptions and invoices refer to them. */
  add_prices?: PriceInput[];
}

/** Longest period a price may recur on: three years, whatever the unit. */
export const MAX_INTERVAL_COUNT: Record<Interval, number> = { day: 1095, week: 156, month: 36, year: 3 };

/** Products and prices: the catalogue subscriptions and invoices are built from. */
export class Products extends CommandService<ProductCommand, ProductState, Fact<ProductEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock }) {
    super(deps.store, productStream, productAggregate);
  }

  private prices(productId: string, inputs: PriceInput[], list: 'prices' | 'addPrices', at: Date): Price[] {
    return inputs.map((input, i) => {
      const currency = getCurrency(input.currency);
      if (!currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${input.currency}'`, `${list}.${i}.currency`);
      const r = input.recurring ?? null;
      const count = r?.interval_count ?? 1;
      if (r && count > MAX_INTERVAL_COUNT[r.interval]) {
        throw new Refusal('IKW-VAL-001', `A price recurs at most every ${MAX_INTERVAL_COUNT[r.interval]} ${r.interval}s`, `${list}.${i}.recurring.intervalCount`);
      }
      return {
        id: newId('price'),
        object: 'price',
        product: productId,
        currency: currency.code.toLowerCase(),
        unit_amount: input.unit_amount,
        recurring: r ? { interval: r.interval, interval_count: count, usage_type: r.usage_type ?? 'licensed' } : null,
        created: unixSeconds(at),
      };
    });
  }

  async create(who: Owner, input: CreateProductInput, actor: Actor): Promise<ProductObject> {
    const id = newId('prod');
    const at = this.deps.clock.now();
    const result = await this.run(
      id,
      {
        type: 'create',
        product: {
          id,
          merchantId: who.merchantId,
          environment: who.environment,
          name: input.name,
          description: input.description ?? null,
          active: input.active ?? true,
          prices: this.prices(id, input.prices ?? [], 'prices', at),
          metadata: withoutEmpty(input.metadata ?? {}),
          createdAt: at.toISOString(),
        },
      },
      auditMetadata(this.deps.clock, who, id, actor),
    );
    return toProductObject(result.state);
  }

  async update(who: Owner, id: string, input: UpdateProductInput, actor: Actor): Promise<ProductObject> {
    const at = this.deps.clock.now();
    const result = await this.run(
      id,
      {
        type: 'update',
        owner: who,
        at,
        changes: {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
          ...(input.add_prices !== undefined ? { addedPrices: this.prices(id, input.add_prices, 'addPrices', at) } : {}),
        },
      },
      auditMetadata(this.deps.clock, who, id, actor),
    );
    return toProductObject(result.state);
  }

  async setActive(who: Owner, id: string, active: boolean, actor: Actor): Promise<ProductObject> {
    const result = await this.run(id, { type: 'update', owner: who, at: this.deps.clock.now(), changes: { active } }, auditMetadata(this.deps.clock, who, id, actor));
    return toProductObject(result.state);
  }

  /**
   * Archives the product, unless a subscription uses it. Attachments left behind by a crash (a
   * subscription that was never created, or canceled without its detach) are mended first.
   */
  async delete(who: Owner, id: string, actor: Actor, isStale: (subscriptionId: string, attachedAt: string) => Promise<boolean>): Promise<ProductObject> {
    const meta = auditMetadata(this.deps.clock, who, id, actor);
    const { state } = await this.load(id);
    if (isOwned(state.product, who)) {
      for (const [subscriptionId, attachedAt] of state.subscriptions) {
        if (await isStale(subscriptionId, attachedAt)) await this.detach(who, id, subscriptionId, meta);
      }
    }
    const result = await this.run(id, { type: 'delete', owner: who, at: this.deps.clock.now() }, meta);
    return toProductObject(result.state);
  }

  /** Records that a subscription uses these prices of the product; refuses inactive products and unknown prices. */
  async attach(who: Owner, productId: string, subscriptionId: string, prices: { id: string; field: string }[], meta: EventMetadata): Promise<ProductState> {
    const result = await this.run(productId, { type: 'attach', owner: who, at: this.deps.clock.now(), subscriptionId, prices }, meta, 'internal');
    return result.state;
  }

  async detach(who: Owner, productId: string, subscriptionId: string, meta: EventMetadata): Promise<void> {
    await this.run(productId, { type: 'detach', owner: who, at: this.deps.clock.now(), subscriptionId }, meta, 'internal');
  }
}

function withoutEmpty(metadata: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(metadata).filter(([, v]) => v !== ''));
}
