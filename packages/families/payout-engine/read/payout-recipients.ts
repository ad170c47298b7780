import type { Knex } from 'knex';
import { orderKeys } from '#packages/core/json.js';
import type { RecipientEvent, RecipientObject, RecipientStatus } from '../payout-recipient/events.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

/** read.payout_recipients: the payout engine's saved beneficiaries, as their latest event left them. */
export const payoutRecipientsProjection: Projection = {
  name: 'payout_recipients',
  tables: ['read.payout_recipients'],
  migrations: [
    {
      name: 'payout_recipients/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql('read.payout_recipients')};
        CREATE INDEX payout_recipients_list ON read.payout_recipients (merchant_id, environment, seq)`),
    },
  ],
  handles: ['payout_recipient.created', 'payout_recipient.updated', 'payout_recipient.archived'],
  ...rowChangeProjection({ 'read.payout_recipients': ['id'] }, (event) => {
    const e = event as unknown as RecipientEvent;
    const created = e.type === 'payout_recipient.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment } : null;
    return [snapshotChange('read.payout_recipients', event, e.data.object, created)];
  }),
};

const RECIPIENT_KEYS: readonly (keyof RecipientObject)[] = [
  'id',
  'object',
  'display_name',
  'destination_type',
  'currency',
  'country',
  'operator',
  'msisdn',
  'bank_code',
  'account_number',
  'account_name',
  'status',
  'created',
  'updated',
  'livemode',
];

const renderRecipient = (stored: RecipientObject) => orderKeys(stored, RECIPIENT_KEYS);

export function findRecipient(knex: Knex, owner: Owner, id: string): Promise<RecipientObject | undefined> {
  return findOwnedObject(knex, 'read.payout_recipients', owner, id, renderRecipient);
}

/** This owner's recipients, newest first, cursor-paged. */
export function listRecipients(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { status?: RecipientStatus }): Promise<CursorList<RecipientObject>> {
  return cursorPageOfObjects(ownedRows(knex, 'read.payout_recipients', owner, filters), cursor, url, renderRecipient);
}
