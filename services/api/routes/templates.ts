import type { Knex } from 'knex';
import type { Clock } from '../../../packages/core/clock.js';
import { ApiError } from '../../../packages/core/errors.js';
import { changedContent, type ContentChanges, type NewTemplate, type TemplateChanges, type Templates } from '../../../packages/families/templates/commands.js';
import { BUILT_IN_TEMPLATES } from '../../../packages/families/templates/defaults.js';
import { TEMPLATE_KINDS, type TemplateKind, type TemplateVersion } from '../../../packages/families/templates/events.js';
import { renderPdf } from '../../../packages/families/templates/pdf.js';
import { isDocument, renderVersion } from '../../../packages/families/templates/render.js';
import { route, type Family, type RouteAuth } from '../../../packages/http/routes.js';
import type { CursorQuery } from '../../../projections/paging.js';
import { findTemplate, findTemplateObject, findTemplateVersion, listTemplates, listTemplateVersions, type TemplateRow } from '../../../projections/templates/templates.js';
import { cursorListSchema, cursorQuery, found, idParams, resourceSchema } from './shared.js';
import type { Owner } from '../../../packages/core/owner.js';

const read: RouteAuth = { scope: 'templates.read', environmentHeader: 'optional' };
const write: RouteAuth = { scope: 'templates.write', environmentHeader: 'optional' };
const BASE = '/api/template-engine';

/** `en`, `fr`, `pt-BR`: a language, optionally with a region. */
const localeSchema = { type: 'string', pattern: '^[a-z]{2,3}(-[A-Z]{2})?$' };
const localesSchema = {
  type: 'object',
  minProperties: 1,
  maxProperties: 20,
  propertyNames: localeSchema,
  additionalProperties: {
    type: 'object',
    additionalProperties: false,
    properties: {
      subject: { type: 'string', minLength: 1, maxLength: 998 },
      html: { type: 'string', maxLength: 200_000 },
      text: { type: 'string', maxLength: 50_000 },
      title: { type: 'string', minLength: 1, maxLength: 500 },
    },
  },
};
/** A JSON Schema of an object; what it may say is checked when it is compiled (IKW-TPL-002). */
const variablesSchema = { type: 'object', maxProperties: 50 };
const dataSchema = { type: 'object', maxProperties: 200 };
const contentFields = { variables: variablesSchema, locales: localesSchema, defaultLocale: localeSchema, sampleData: { type: ['object', 'null'], maxProperties: 200 } };

const templateSchema = resourceSchema('template', ['kind', 'name', 'latestVersion', 'publishedVersion', 'variables', 'locales', 'defaultLocale', 'livemode', 'created'], {
  kind: { enum: [...TEMPLATE_KINDS] },
  name: { type: 'string' },
  purpose: { type: ['string', 'null'] },
  latestVersion: { type: 'integer' },
  publishedVersion: { type: ['integer', 'null'] },
  publishedAt: { type: ['string', 'null'] },
  variables: { type: 'object' },
  locales: localesSchema,
  defaultLocale: { type: 'string' },
  sampleData: { type: ['object', 'null'] },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  updated: { type: 'integer' },
});
const versionSchema = {
  type: 'object',
  required: ['object', 'template', 'version', 'published', 'variables', 'locales', 'defaultLocale', 'created'],
  properties: {
    object: { const: 'template_version' },
    template: { type: 'string' },
    version: { type: 'integer' },
    published: { type: 'boolean' },
    variables: { type: 'object' },
    locales: localesSchema,
    defaultLocale: { type: 'string' },
    sampleData: { type: ['object', 'null'] },
    created: { type: 'integer' },
  },
};
/** What render answers; a preview of unsaved content (`content`) has no version number (null). */
const renderedSchema = (version: { type: 'integer' | ['integer', 'null']; description?: string }) => ({
  type: 'object',
  required: ['object', 'template', 'version', 'locale', 'text'],
  properties: {
    object: { const: 'rendered_template' },
    template: { type: 'string' },
    version,
    kind: { enum: [...TEMPLATE_KINDS] },
    locale: { type: 'string' },
    subject: { type: 'string' },
    html: { type: 'string' },
    text: { type: 'string' },
    title: { type: 'string' },
    pdf: { type: 'string', description: 'documents only: the PDF, base64' },
  },
});
const versionParams = { type: 'object', required: ['id', 'version'], properties: { id: { type: 'string', minLength: 1, maxLength: 255 }, version: { type: 'integer', minimum: 1, maximum: 1_000_000 } } };

/** What render and preview answer: the rendered fields, and for documents the PDF (base64); `number` null for unsaved content. */
async function rendered(row: TemplateRow, version: TemplateVersion, number: number | null, data: Record<string, unknown>, locale: string | undefined, at: Date) {
  const out = await renderVersion(version, data, locale);
  return {
    object: 'rendered_template',
    template: row.id,
    version: number,
    kind: row.kind,
    ...out,
    ...(isDocument(row.kind) ? { pdf: (await renderPdf(out, at)).toString('base64') } : {}),
  };
}

/** /api/template-engine: templates for e-mail, SMS and documents, their versions, preview and render. */
export function templateEngineFamily(knex: Knex, clock: Clock, templates: Templates): Family {
  const load = (owner: Owner, id: string) => found('template', id, findTemplate(knex, owner, id));
  const object = async (owner: Owner, id: string) => found('template', id, findTemplateObject(knex, owner, id));
  const versionOf = async (row: TemplateRow, version: number) => found(`version of template ${row.id}`, String(version), findTemplateVersion(knex, row.id, version));
  return {
    name: 'template-engine',
    description: 'Templates of the documents and messages Sika writes for the merchant (invoices, receipts, e-mails), versioned and published.',
    routes: [
      route<NewTemplate>({
        method: 'post',
        path: `${BASE}/templates`,
        summary: 'Create a template (version 1; published at once with publish: true)',
        auth: write,
        body: {
          type: 'object',
          required: ['kind', 'name', 'variables', 'locales'],
          additionalProperties: false,
          properties: { kind: { enum: [...TEMPLATE_KINDS] }, name: { type: 'string', minLength: 1, maxLength: 200 }, purpose: { type: ['string', 'null'], maxLength: 64 }, ...contentFields, publish: { type: 'boolean' } },
        },
        response: templateSchema,
        handler: async (ctx) => {
          const state = await templates.create(ctx.owner, ctx.body, ctx.actor, ctx.requestRef);
          return object(ctx.owner, state.template!.id);
        },
      }),
      route<unknown, CursorQuery & { kind?: TemplateKind; purpose?: string }>({
        method: 'get',
        path: `${BASE}/templates`,
        summary: 'List templates, newest first',
        auth: read,
        query: cursorQuery({ kind: { enum: [...TEMPLATE_KINDS] }, purpose: { type: 'string', maxLength: 64 } }),
        response: cursorListSchema(templateSchema),
        handler: (ctx) => listTemplates(knex, ctx.owner, ctx.query, `${BASE}/templates`),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: `${BASE}/templates/:id`,
        summary: 'Retrieve a template with the content of its latest version',
        auth: read,
        params: idParams,
        response: templateSchema,
        handler: (ctx) => object(ctx.owner, ctx.params.id),
      }),
      route<TemplateChanges, unknown, { id: string }>({
        method: 'patch',
        path: `${BASE}/templates/:id`,
        fields: { templateId: 'id' },
        summary: 'Update a template: a change of content adds a version (published at once with publish: true)',
        auth: write,
        params: idParams,
        body: { type: 'object', additionalProperties: false, properties: { name: { type: 'string', minLength: 1, maxLength: 200 }, ...contentFields, publish: { type: 'boolean' } } },
        response: templateSchema,
        handler: async (ctx) => {
          const row = await load(ctx.owner, ctx.params.id);
          await templates.update(ctx.owner, row.id, ctx.body, ctx.actor);
          return object(ctx.owner, row.id);
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: `${BASE}/templates/:id`,
        fields: { templateId: 'id' },
        summary: 'Delete a template (the service falls back to its built-in template for its purpose)',
        auth: write,
        params: idParams,
        response: { type: 'object', required: ['id', 'object', 'deleted'], properties: { id: { type: 'string' }, object: { const: 'template' }, deleted: { const: true } } },
        handler: async (ctx) => {
          await templates.delete(ctx.owner, ctx.params.id, ctx.actor);
          return { id: ctx.params.id, object: 'template', deleted: true };
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: `${BASE}/templates/:id/versions`,
        summary: "List a template's versions, newest first",
        auth: read,
        params: idParams,
        response: cursorListSchema(versionSchema),
        handler: async (ctx) => listTemplateVersions(knex, await load(ctx.owner, ctx.params.id)),
      }),
      route<unknown, unknown, { id: string; version: number }>({
        method: 'post',
        path: `${BASE}/templates/:id/versions/:version/publish`,
        fields: { templateId: 'id' },
        summary: 'Publish a version: renders and the service’s messages use it from now on',
        auth: write,
        params: versionParams,
        response: templateSchema,
        handler: async (ctx) => {
          await templates.publish(ctx.owner, ctx.params.id, ctx.params.version, ctx.actor);
          return object(ctx.owner, ctx.params.id);
        },
      }),
      route<{ version?: number; locale?: string; data?: Record<string, unknown>; content?: ContentChanges }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/templates/:id/preview`,
        fields: { templateId: 'id' },
        summary: 'Render any version (the latest by default), or unsaved content over it, with the given data or the sample data',
        auth: read,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            version: { type: 'integer', minimum: 1, maximum: 1_000_000 },
            locale: localeSchema,
            data: dataSchema,
            content: {
              type: 'object',
              additionalProperties: false,
              description: "Unsaved content, as PATCH takes it: each field given replaces the version's, checked as PATCH checks it; nothing is stored",
              properties: contentFields,
            },
          },
        },
        response: renderedSchema({ type: ['integer', 'null'], description: 'the version rendered; null when content was given (unsaved)' }),
        handler: async (ctx) => {
          const row = await load(ctx.owner, ctx.params.id);
          const stored = await versionOf(row, ctx.body.version ?? row.latest_version);
          const { content } = ctx.body;
          const version = content === undefined ? stored : { ...stored, ...changedContent(row.kind, stored, content) };
          return rendered(row, version, content === undefined ? version.version : null, ctx.body.data ?? version.sampleData ?? {}, ctx.body.locale, clock.now());
        },
      }),
      route<{ locale?: string; data: Record<string, unknown> }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/templates/:id/render`,
        fields: { templateId: 'id' },
        summary: 'Render the published version with data (documents also as a PDF)',
        auth: read,
        params: idParams,
        body: { type: 'object', required: ['data'], additionalProperties: false, properties: { locale: localeSchema, data: dataSchema } },
        response: renderedSchema({ type: 'integer' }),
        handler: async (ctx) => {
          const row = await load(ctx.owner, ctx.params.id);
          if (row.published_version === null) throw new ApiError('IKW-TPL-005', `Template ${row.id} has no published version; publish one or preview a version`, 'id');
          return rendered(row, await versionOf(row, row.published_version), row.published_version, ctx.body.data, ctx.body.locale, clock.now());
        },
      }),
      route({
        method: 'get',
        path: `${BASE}/defaults`,
        summary: "The service's own messages a template can restyle (purpose), with their built-in templates",
        auth: read,
        response: {
          type: 'object',
          required: ['object', 'data'],
          properties: {
            object: { const: 'list' },
            data: {
              type: 'array',
              items: {
                type: 'object',
                required: ['object', 'purpose', 'kind', 'overridable', 'description', 'variables', 'locales', 'defaultLocale'],
                properties: {
                  object: { const: 'built_in_template' },
                  purpose: { type: 'string' },
                  kind: { enum: [...TEMPLATE_KINDS] },
                  overridable: { type: 'boolean' },
                  description: { type: 'string' },
                  variables: { type: 'object' },
                  locales: localesSchema,
                  defaultLocale: { type: 'string' },
                  sampleData: { type: ['object', 'null'] },
                },
              },
            },
            has_more: { type: 'boolean' },
            url: { type: 'string' },
          },
        },
        handler: async () => ({
          object: 'list',
          data: BUILT_IN_TEMPLATES.map((b) => ({ object: 'built_in_template', purpose: b.purpose, kind: b.kind, overridable: b.overridable, description: b.description, variables: b.version.variables, locales: b.version.locales, defaultLocale: b.version.defaultLocale, sampleData: b.version.sampleData })),
          has_more: false,
          url: `${BASE}/defaults`,
        }),
      }),
    ],
  };
}
