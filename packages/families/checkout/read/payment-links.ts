import type { Knex } from 'knex';
import type { PaymentLinkEvent, PaymentLinkObject } from '../payment-link/events.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Environment, Owner } from '#packages/core/owner.js';

/** read.payment_links: each link as its latest public event left it, found by id or by its URL's slug. */
export const paymentLinksProjection: Projection = {
  name: 'payment_links',
  tables: ['read.payment_links'],
  migrations: [
    {
      name: 'payment_links/001-create',
      up: (knex) => knex.raw(`${snapshotTableSql('read.payment_links', ['slug text NOT NULL UNIQUE'])}`),
    },
  ],
  handles: ['payment_link.created', 'payment_link.deactivated'],
  ...rowChangeProjection({ 'read.payment_links': ['id'] }, (event) => {
    const e = event as unknown as PaymentLinkEvent;
    if (e.type === 'payment_link.claimed') return [];
    const object = e.data.object;
    const status = object.active ? 'active' : 'inactive';
    const created = e.type === 'payment_link.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment, slug: e.data.slug } : null;
    return [snapshotChange('read.payment_links', event, { ...object, status }, created)];
  }),
};

/** Stored objects carry the snapshot's status column; the public object has `active` instead. */
function render(stored: PaymentLinkObject & { status?: string }): PaymentLinkObject {
  const { status: _status, ...object } = stored;
  return object;
}

export function findPaymentLink(knex: Knex, owner: Owner, id: string): Promise<PaymentLinkObject | undefined> {
  return findOwnedObject(knex, 'read.payment_links', owner, id, render);
}

/** The owner's links, newest first; `active` narrows to links that take payments (true) or were deactivated (false). */
export function listPaymentLinks(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { active?: boolean }): Promise<CursorList<PaymentLinkObject>> {
  const status = filters.active === undefined ? undefined : filters.active ? 'active' : 'inactive';
  return cursorPageOfObjects(ownedRows(knex, 'read.payment_links', owner, { status }), cursor, url, render);
}

/** The link of a public URL `/pay/{slug}`, with its owner: whoever opens it. */
export async function findPaymentLinkBySlug(knex: Knex, slug: string): Promise<{ owner: Owner; link: PaymentLinkObject } | undefined> {
  const row = await knex('read.payment_links').where({ slug }).select('merchant_id', 'environment', 'object').first<{ merchant_id: string; environment: Environment; object: PaymentLinkObject } | undefined>();
  return row && { owner: { merchantId: row.merchant_id, environment: row.environment }, link: render(row.object) };
}
