import type { Knex } from 'knex';
import type { CommissionRuleEvent, CommissionRuleObject } from '../commission-rule/events.js';
import type { CursorList, CursorQuery } from '#packages/read-models/paging.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';
import { cursorPageOfObjects, findOwnedObject, ownedRows } from '#packages/read-models/queries.js';
import { snapshotChange, snapshotTableSql } from '#packages/read-models/snapshot.js';
import type { Owner } from '#packages/core/owner.js';

const TABLE = 'read.marketplace_commission_rules';

/** read.marketplace_commission_rules: each rule as its latest event left it; status `active` or `inactive`. */
export const commissionRulesProjection: Projection = {
  name: 'marketplace_commission_rules',
  tables: [TABLE],
  migrations: [
    {
      name: 'marketplace_commission_rules/001-create',
      up: (knex) =>
        knex.raw(`${snapshotTableSql(TABLE, ['currency text NOT NULL'])};
        CREATE INDEX marketplace_commission_rules_list ON ${TABLE} (merchant_id, environment, seq)`),
    },
  ],
  handles: ['commission_rule.created', 'commission_rule.updated'],
  ...rowChangeProjection({ [TABLE]: ['id'] }, (event) => {
    const e = event as unknown as CommissionRuleEvent;
    const created = e.type === 'commission_rule.created' ? { merchant_id: e.data.merchantId, environment: e.data.environment, currency: e.data.currency } : null;
    return [snapshotChange(TABLE, event, e.data.object, created)];
  }),
};

const render = (stored: CommissionRuleObject) => stored;

export function findCommissionRule(knex: Knex, owner: Owner, id: string): Promise<CommissionRuleObject | undefined> {
  return findOwnedObject(knex, TABLE, owner, id, render);
}

/** This owner's rules, newest first, cursor-paged, by status and currency. */
export function listCommissionRules(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { status?: string; currency?: string }): Promise<CursorList<CommissionRuleObject>> {
  return cursorPageOfObjects(ownedRows(knex, TABLE, owner, filters), cursor, url, render);
}
