import type { Knex } from 'knex';
import { orderKeys } from '#packages/core/json.js';
import type { InvoiceEvent, InvoiceLine, InvoiceObject, InvoiceStatus } from '../invoice/events.js';
import { dueDate } from '../invoice/decider.js';
import type { CursorList, CursorQuery, PageList, PageQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows, pageOfObjects } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Environment, Owner } from '#packages/core/owner.js';

/** read.invoices: the Invoice record as its latest event left it (rendered snake_case or camelCase by the routes). */
export const invoicesProjection: Projection = {
  name: 'invoices',
  tables: ['read.invoices'],
  migrations: [
    {
      name: 'invoices/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.invoices', ['customer text NOT NULL', 'subscription text'])};
        CREATE INDEX invoices_list ON read.invoices (merchant_id, environment, status, seq);
        CREATE INDEX invoices_subscription ON read.invoices (subscription)`),
    },
  ],
  handles: ['invoice.created', 'invoice.finalized', 'invoice.updated', 'invoice.paid', 'invoice.voided', 'invoice.marked_uncollectible', 'invoice.payment_intent_attached'],
  ...rowChangeProjection({ 'read.invoices': ['id'] }, (event) => {
    const e = event as unknown as InvoiceEvent;
    const object = e.data.object;
    const created = e.type === 'invoice.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment, customer: object.customer, subscription: object.subscription } : null;
    return [snapshotChange('read.invoices', event, object, created)];
  }),
};

const INVOICE_KEYS: readonly (keyof InvoiceObject)[] = [
  'id',
  'object',
  'customer',
  'subscription',
  'status',
  'currency',
  'amount_due',
  'amount_paid',
  'amount_remaining',
  'due_date',
  'hosted_invoice_url',
  'description',
  'lines',
  'period_start',
  'period_end',
  'payment_intent',
  'status_transitions',
  'metadata',
  'created',
  'livemode',
];
const LINE_KEYS: readonly (keyof InvoiceLine)[] = ['description', 'price', 'quantity', 'unit_amount', 'amount', 'meter_key'];

export function renderInvoice(stored: InvoiceObject): InvoiceObject {
  return orderKeys(
    {
      ...stored,
      // Snapshots stored before due_date became a date carry the instant.
      due_date: dueDate(stored.due_date),
      lines: stored.lines.map((l) => orderKeys(l, LINE_KEYS)),
      status_transitions: orderKeys(stored.status_transitions, ['finalized_at', 'paid_at', 'voided_at', 'marked_uncollectible_at']),
    },
    INVOICE_KEYS,
  );
}

export function findInvoice(knex: Knex, owner: Owner, id: string): Promise<InvoiceObject | undefined> {
  return findOwnedObject(knex, 'read.invoices', owner, id, renderInvoice);
}

export type InvoiceFilters = { status?: InvoiceStatus; customer?: string; subscription?: string };

/** A page of this owner's invoices, newest first. */
export function listInvoices(knex: Knex, owner: Owner, page: PageQuery, filters: InvoiceFilters): Promise<PageList<InvoiceObject>> {
  return pageOfObjects(ownedRows(knex, 'read.invoices', owner, filters), page, renderInvoice);
}

/** This owner's invoices, newest first, cursor-paged (the billing family's list). */
export function listInvoicesByCursor(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: InvoiceFilters): Promise<CursorList<InvoiceObject>> {
  return cursorPageOfObjects(ownedRows(knex, 'read.invoices', owner, filters), cursor, url, renderInvoice);
}

/**
 * This owner's issued invoices (not drafts), newest first, cursor-paged: the customer portal's, as a
 * draft is the merchant's work in progress, which the customer never sees (the hosted page neither).
 */
export function listIssuedInvoicesByCursor(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: InvoiceFilters): Promise<CursorList<InvoiceObject>> {
  return cursorPageOfObjects(ownedRows(knex, 'read.invoices', owner, filters).whereNot({ status: 'draft' }), cursor, url, renderInvoice);
}

/**
 * An invoice that is not a draft, whoever's it is: for the hosted invoice page, where knowing the
 * id (143 random bits) is what entitles one to see the invoice, as with Stripe's hosted pages.
 */
export async function findIssuedInvoice(knex: Knex, id: string): Promise<{ owner: Owner; invoice: InvoiceObject } | undefined> {
  const row = await knex('read.invoices').select('merchant_id', 'environment', 'object').where({ id }).whereNot({ status: 'draft' }).first<{ merchant_id: string; environment: Environment; object: InvoiceObject } | undefined>();
  return row && { owner: { merchantId: row.merchant_id, environment: row.environment }, invoice: renderInvoice(row.object) };
}
