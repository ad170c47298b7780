import type { Knex } from 'knex';
import { unixSeconds } from '#packages/core/clock.js';
import type { TemplateEvent, TemplateKind, TemplateVersion } from '../events.js';
import { cursorPage, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import { ownedRows } from '#packages/read-models/queries.js';
import type { Environment, Owner } from '#packages/core/owner.js';

/** read.templates and read.template_versions: the template engine's templates and every version of their content. */
export const templatesProjection: Projection = {
  name: 'templates',
  tables: ['read.templates', 'read.template_versions'],
  migrations: [
    {
      name: 'templates/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.templates (
          id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          kind text NOT NULL,
          name text NOT NULL,
          purpose text,
          latest_version integer NOT NULL,
          published_version integer,
          published_at timestamptz,
          deleted boolean NOT NULL DEFAULT false,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL
        );
        CREATE INDEX templates_list ON read.templates (merchant_id, environment, seq);
        CREATE INDEX templates_purpose ON read.templates (merchant_id, environment, purpose) WHERE purpose IS NOT NULL;
        CREATE TABLE read.template_versions (
          template_id text NOT NULL,
          version integer NOT NULL,
          content jsonb NOT NULL,
          created_at timestamptz NOT NULL,
          PRIMARY KEY (template_id, version)
        )`),
    },
  ],
  handles: ['template.created', 'template.renamed', 'template.version_added', 'template.version_published', 'template.deleted'],
  async apply(trx, event) {
    const e = event as unknown as TemplateEvent;
    const templates = () => trx('read.templates');
    const addVersion = (id: string, v: TemplateVersion) =>
      trx('read.template_versions')
        .insert({ template_id: id, version: v.version, content: JSON.stringify(v), created_at: v.createdAt })
        .onConflict(['template_id', 'version'])
        .ignore();
    switch (e.type) {
      case 'template.created':
        await templates()
          .insert({
            id: e.data.id,
            seq: event.position,
            merchant_id: e.data.merchantId,
            environment: e.data.environment,
            kind: e.data.kind,
            name: e.data.name,
            purpose: e.data.purpose,
            latest_version: 1,
            created_at: e.data.createdAt,
            updated_at: e.data.createdAt,
          })
          .onConflict('id')
          .ignore();
        await addVersion(e.data.id, e.data.version);
        return;
      case 'template.renamed':
        await templates().where({ id: e.data.id }).update({ name: e.data.name, updated_at: e.data.at });
        return;
      case 'template.version_added':
        await addVersion(e.data.id, e.data.version);
        await templates().where({ id: e.data.id }).update({ latest_version: e.data.version.version, updated_at: e.data.version.createdAt });
        return;
      case 'template.version_published':
        await templates().where({ id: e.data.id }).update({ published_version: e.data.version, published_at: e.data.at, updated_at: e.data.at });
        return;
      case 'template.deleted':
        await templates().where({ id: e.data.id }).update({ deleted: true, updated_at: e.data.at });
        return;
    }
  },
};

export interface TemplateRow {
  id: string;
  seq: string;
  merchant_id: string;
  environment: Environment;
  kind: TemplateKind;
  name: string;
  purpose: string | null;
  latest_version: number;
  published_version: number | null;
  published_at: Date | null;
  deleted: boolean;
  created_at: Date;
  updated_at: Date;
}

/** The template as the API shows it, with the content of its latest version. */
export function templateObject(row: TemplateRow, latest: TemplateVersion) {
  return {
    id: row.id,
    object: 'template',
    kind: row.kind,
    name: row.name,
    purpose: row.purpose,
    latestVersion: row.latest_version,
    publishedVersion: row.published_version,
    publishedAt: row.published_at?.toISOString() ?? null,
    variables: latest.variables,
    locales: latest.locales,
    defaultLocale: latest.defaultLocale,
    sampleData: latest.sampleData,
    livemode: row.environment === 'live',
    created: unixSeconds(row.created_at),
    updated: unixSeconds(row.updated_at),
  };
}

export function templateVersionObject(templateId: string, v: TemplateVersion, published: number | null) {
  return {
    object: 'template_version',
    template: templateId,
    version: v.version,
    published: v.version === published,
    variables: v.variables,
    locales: v.locales,
    defaultLocale: v.defaultLocale,
    sampleData: v.sampleData,
    created: unixSeconds(new Date(v.createdAt)),
  };
}

const live = (knex: Knex, owner: Owner) => ownedRows(knex, 'read.templates', owner).where({ deleted: false });

export function findTemplate(knex: Knex | Knex.Transaction, owner: Owner, id: string): Promise<TemplateRow | undefined> {
  return knex('read.templates').where({ id, merchant_id: owner.merchantId, environment: owner.environment, deleted: false }).first<TemplateRow | undefined>();
}

export async function findTemplateVersion(knex: Knex | Knex.Transaction, templateId: string, version: number): Promise<TemplateVersion | undefined> {
  const row = await knex('read.template_versions').where({ template_id: templateId, version }).first<{ content: TemplateVersion } | undefined>();
  return row?.content;
}

/** A template with its latest version's content, as the API shows it. */
export async function findTemplateObject(knex: Knex, owner: Owner, id: string) {
  const row = await findTemplate(knex, owner, id);
  if (!row) return undefined;
  return templateObject(row, (await findTemplateVersion(knex, id, row.latest_version))!);
}

export async function listTemplates(knex: Knex, owner: Owner, cursor: CursorQuery & { kind?: TemplateKind; purpose?: string }, url: string): Promise<CursorList<ReturnType<typeof templateObject>>> {
  const base = live(knex, owner).select('*');
  if (cursor.kind) base.where({ kind: cursor.kind });
  if (cursor.purpose) base.where({ purpose: cursor.purpose });
  const page = await cursorPage<TemplateRow, TemplateRow>(base, cursor, url, 'id', (row) => row);
  const versions =
    page.data.length === 0
      ? []
      : await knex('read.template_versions').whereIn(
          ['template_id', 'version'],
          page.data.map((r) => [r.id, r.latest_version]),
        );
  const byId = new Map((versions as { template_id: string; content: TemplateVersion }[]).map((v) => [v.template_id, v.content]));
  return { ...page, data: page.data.map((row) => templateObject(row, byId.get(row.id)!)) };
}

export async function listTemplateVersions(knex: Knex, row: TemplateRow) {
  const rows = (await knex('read.template_versions').where({ template_id: row.id }).orderBy('version', 'desc')) as { content: TemplateVersion }[];
  return { object: 'list', data: rows.map((r) => templateVersionObject(row.id, r.content, row.published_version)), has_more: false, url: `/api/template-engine/templates/${row.id}/versions` };
}

/** The merchant's newest template that restyles one of the service's messages and has a published version. */
export async function publishedTemplateFor(knex: Knex | Knex.Transaction, owner: Owner, purpose: string): Promise<{ row: TemplateRow; version: TemplateVersion } | undefined> {
  const row = await knex('read.templates').where({ merchant_id: owner.merchantId, environment: owner.environment, purpose, deleted: false }).whereNotNull('published_version').orderBy('seq', 'desc').first<TemplateRow | undefined>();
  if (!row) return undefined;
  return { row, version: (await findTemplateVersion(knex, row.id, row.published_version!))! };
}
