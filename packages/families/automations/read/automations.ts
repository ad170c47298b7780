import type { Knex } from 'knex';
import { unixSeconds } from '#packages/core/clock.js';
import type { Definition } from '../definition.js';
import type { AutomationEvent, AutomationVersion, DisabledReason } from '../events.js';
import { redactSteps } from '../headers.js';
import { cursorPage, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import { ownedRows } from '#packages/read-models/queries.js';
import type { Credential, Environment, Owner } from '#packages/core/owner.js';

/** read.automations and read.automation_versions: automations, their current definition, and every version. */
export const automationsProjection: Projection = {
  name: 'automations',
  tables: ['read.automations', 'read.automation_versions'],
  migrations: [
    {
      name: 'automations/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.automations (
          id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          version integer NOT NULL,
          definition jsonb NOT NULL,
          trigger_event text,
          enabled boolean NOT NULL,
          disabled_reason text,
          secret_sealed text NOT NULL,
          secret_last4 text NOT NULL,
          deleted boolean NOT NULL DEFAULT false,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL
        );
        CREATE INDEX automations_list ON read.automations (merchant_id, environment, seq);
        CREATE INDEX automations_trigger ON read.automations (merchant_id, environment, trigger_event) WHERE enabled AND NOT deleted;
        CREATE TABLE read.automation_versions (
          automation_id text NOT NULL,
          version integer NOT NULL,
          definition jsonb NOT NULL,
          created_at timestamptz NOT NULL,
          PRIMARY KEY (automation_id, version)
        )`),
    },
    {
      // Who saved each version (null before versions recorded it): its runs act with that credential.
      name: 'automations/002-version-credential',
      up: (knex) => knex.raw('ALTER TABLE read.automation_versions ADD COLUMN credential jsonb'),
    },
  ],
  handles: ['automation.created', 'automation.updated', 'automation.enabled', 'automation.disabled', 'automation.deleted'],
  async apply(trx, event) {
    const e = event as unknown as AutomationEvent;
    const rows = () => trx('read.automations');
    const addVersion = (id: string, v: AutomationVersion) =>
      trx('read.automation_versions')
        .insert({ automation_id: id, version: v.version, definition: JSON.stringify(v.definition), created_at: v.createdAt, credential: v.credential === undefined ? null : JSON.stringify(v.credential) })
        .onConflict(['automation_id', 'version'])
        .ignore();
    const triggerEvent = (d: Definition) => (d.trigger.type === 'event' ? d.trigger.eventType : null);
    switch (e.type) {
      case 'automation.created': {
        const a = e.data;
        await rows()
          .insert({
            id: a.id,
            seq: event.position,
            merchant_id: a.merchantId,
            environment: a.environment,
            version: a.version.version,
            definition: JSON.stringify(a.version.definition),
            trigger_event: triggerEvent(a.version.definition),
            enabled: a.enabled,
            disabled_reason: a.enabled ? null : 'merchant',
            secret_sealed: a.secret.sealed,
            secret_last4: a.secret.last4,
            created_at: a.createdAt,
            updated_at: a.createdAt,
          })
          .onConflict('id')
          .ignore();
        await addVersion(a.id, a.version);
        return;
      }
      case 'automation.updated':
        await addVersion(e.data.id, e.data.version);
        await rows()
          .where({ id: e.data.id })
          .update({ version: e.data.version.version, definition: JSON.stringify(e.data.version.definition), trigger_event: triggerEvent(e.data.version.definition), updated_at: e.data.version.createdAt });
        return;
      case 'automation.enabled':
        await rows().where({ id: e.data.id }).update({ enabled: true, disabled_reason: null, updated_at: e.data.at });
        return;
      case 'automation.disabled':
        await rows().where({ id: e.data.id }).update({ enabled: false, disabled_reason: e.data.reason, updated_at: e.data.at });
        return;
      case 'automation.deleted':
        await rows().where({ id: e.data.id }).update({ enabled: false, deleted: true, updated_at: e.data.at });
        return;
    }
  },
};

export interface AutomationRow {
  id: string;
  seq: string;
  merchant_id: string;
  environment: Environment;
  version: number;
  definition: Definition;
  trigger_event: string | null;
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  secret_sealed: string;
  secret_last4: string;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
}

export function automationObject(row: AutomationRow) {
  const d = row.definition;
  return {
    id: row.id,
    object: 'automation',
    name: d.name,
    description: d.description,
    status: row.enabled ? 'enabled' : 'disabled',
    disabledReason: row.disabled_reason,
    version: row.version,
    trigger: d.trigger,
    steps: redactSteps(d.steps),
    secretLast4: row.secret_last4,
    livemode: row.environment === 'live',
    created: unixSeconds(row.created_at),
    updated: unixSeconds(row.updated_at),
  };
}

export function findAutomation(knex: Knex | Knex.Transaction, owner: Owner, id: string): Promise<AutomationRow | undefined> {
  return knex('read.automations').where({ id, merchant_id: owner.merchantId, environment: owner.environment, deleted: false }).first<AutomationRow | undefined>();
}

export function findAutomationById(db: Knex | Knex.Transaction, id: string): Promise<AutomationRow | undefined> {
  return db('read.automations').where({ id }).first<AutomationRow | undefined>();
}

export function listAutomations(knex: Knex, owner: Owner, cursor: CursorQuery & { status?: 'enabled' | 'disabled' }, url: string): Promise<CursorList<ReturnType<typeof automationObject>>> {
  const base = ownedRows(knex, 'read.automations', owner).where({ deleted: false }).select('*');
  if (cursor.status) base.where({ enabled: cursor.status === 'enabled' });
  return cursorPage<AutomationRow, ReturnType<typeof automationObject>>(base, cursor, url, 'id', automationObject);
}

export async function listAutomationVersions(knex: Knex, row: AutomationRow) {
  const versions = (await knex('read.automation_versions').where({ automation_id: row.id }).orderBy('version', 'desc')) as { version: number; definition: Definition; created_at: Date }[];
  return {
    object: 'list',
    data: versions.map((v) => ({ object: 'automation_version', automation: row.id, version: v.version, current: v.version === row.version, ...v.definition, steps: redactSteps(v.definition.steps), created: unixSeconds(v.created_at) })),
    has_more: false,
    url: `/api/v1/automations/${row.id}/versions`,
  };
}

/** The credential that saved a version of an automation; null for a version saved before credentials were recorded. */
export async function versionCredential(db: Knex | Knex.Transaction, automationId: string, version: number): Promise<Credential | null> {
  const row = await db('read.automation_versions').where({ automation_id: automationId, version }).first<{ credential: Credential | null } | undefined>('credential');
  return row?.credential ?? null;
}

/** What an event can trigger: automations of its merchant and environment waiting for its type. */
export interface TriggerKey {
  merchantId: string;
  environment: Environment;
  eventType: string;
}

/**
 * The enabled automations waiting for any of these (merchant, environment, event type) keys, in
 * creation order: one query for a whole batch of events (the automations consumer).
 */
export function automationsTriggeredByAny(db: Knex | Knex.Transaction, keys: readonly TriggerKey[]): Promise<AutomationRow[]> {
  return db('read.automations')
    .where({ enabled: true, deleted: false })
    .whereIn(
      ['merchant_id', 'environment', 'trigger_event'],
      keys.map((k) => [k.merchantId, k.environment, k.eventType]),
    )
    .orderBy('seq');
}
