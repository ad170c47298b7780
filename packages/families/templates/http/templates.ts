import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import { ApiError } from '#packages/core/errors.js';
import { changedContent, type ContentChanges, type NewTemplate, type TemplateChanges, type Templates } from '../commands.js';
import { BUILT_IN_TEMPLATES } from '../defaults.js';
import { TEMPLATE_KINDS, type TemplateKind, type TemplateVersion } from '../events.js';
import { renderPdf } from '../pdf.js';
import { isDocument, renderVersion } from '../render.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { findTemplate, findTemplateObject, findTemplateVersion, listTemplates, listTemplateVersions, type TemplateRow } from '../read/templates.js';
import { cursorListSchema, cursorQuery, found, idParams, resourceSchema } from '#packages/http/route-kit.js';
import type { Owner } from '#packages/core/owner.js';

const read: RouteAuth = { scope: 'templates.read', environmentHeader: 'optional' };
const write: RouteAuth = { scope: 'templates.write', environmentHeader: 'optional' };
const BASE = '/api/template-engine';

/** `en`, `fr`, `pt-BR`: a language, optionally with a region. */
const localeSchema = { type: 'string', pattern: '^[a-z]{2,3}(-[A-Z]{2})?$' };
const locale = (description: string) => ({ ...localeSchema, description });
const KIND_WORDS: Record<TemplateKind, string> = {
  email: 'An e-mail: each locale holds `subject`, `text` and optionally `html`',
  sms: 'An SMS: each locale holds `text`',
  receipt: 'A receipt, a document rendered to PDF: each locale holds `title` and `text`',
  invoice: 'An invoice, a document rendered to PDF: each locale holds `title` and `text`',
};
const kind = (description: string) => ({ enum: [...TEMPLATE_KINDS], description, 'x-enumDescriptions': KIND_WORDS });
const localesSchema = {
  type: 'object',
  minProperties: 1,
  maxProperties: 20,
  propertyNames: localeSchema,
  description: 'The Liquid texts in each language, by locale (`{"en": {…}, "fr": {…}}`, 1 to 20 locales named `xx` or `xx-YY`); each holds exactly the fields of its kind',
  additionalProperties: {
    type: 'object',
    additionalProperties: false,
    properties: {
      subject: { type: 'string', minLength: 1, maxLength: 998, description: 'E-mail: the subject line (Liquid)' },
      html: { type: 'string', maxLength: 200_000, description: 'E-mail, optional: the HTML body (Liquid; every output is HTML-escaped)' },
      text: { type: 'string', maxLength: 50_000, description: 'Every kind: the plain-text body, the SMS, or the lines of a document (Liquid)' },
      title: { type: 'string', minLength: 1, maxLength: 500, description: 'Documents: the title, in bold at the top of the PDF (Liquid)' },
    },
  },
};
/** A JSON Schema of an object; what it may say is checked when it is compiled (IKW-TPL-002). */
const variablesSchema = {
  type: 'object',
  maxProperties: 50,
  description: 'A JSON Schema with `type: "object"` of the data a render takes: every variable a text uses is declared in its `properties`',
};
const dataSchema = { type: 'object', maxProperties: 200, description: 'The values the texts render with, checked against `variables` (`IKW-TPL-003`)' };
const sampleDataSchema = { type: ['object', 'null'], maxProperties: 200, description: 'The data a preview renders with when given none; null for none' };
const contentFields = {
  variables: variablesSchema,
  locales: localesSchema,
  defaultLocale: locale('The locale rendered when none is asked for (the first of `locales` when left out); it must be one of `locales`'),
  sampleData: sampleDataSchema,
};

const templateSchema = resourceSchema('template', ['kind', 'name', 'latestVersion', 'publishedVersion', 'variables', 'locales', 'defaultLocale', 'livemode', 'created'], {
  kind: kind('What it writes; fixed when made'),
  name: { type: 'string', description: 'What your team calls it' },
  purpose: { type: ['string', 'null'], description: 'The service message it restyles for you, once published (GET /api/template-engine/defaults), or null for a template of your own (automations)' },
  latestVersion: { type: 'integer', description: 'The number of its newest version, from 1: the content shown here' },
  publishedVersion: { type: ['integer', 'null'], description: 'The version renders and the service use; null before one is published' },
  publishedAt: { type: ['string', 'null'], description: 'When that version was published, as an ISO 8601 time; null before' },
  variables: { type: 'object', description: "The latest version's JSON Schema of the data it takes" },
  locales: localesSchema,
  defaultLocale: { type: 'string', description: "The latest version's default locale" },
  sampleData: { type: ['object', 'null'], description: "The latest version's sample data, or null" },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  updated: { type: 'integer' },
});
const versionSchema = {
  type: 'object',
  required: ['object', 'template', 'version', 'published', 'variables', 'locales', 'defaultLocale', 'created'],
  properties: {
    object: { const: 'template_version', description: 'The kind of object: always `template_version`' },
    template: { type: 'string', description: 'The template (`tpl_…`)' },
    version: { type: 'integer', description: 'Its number, from 1; a version never changes once made' },
    published: { type: 'boolean', description: 'Whether it is the version in use' },
    variables: { type: 'object', description: 'Its JSON Schema of the data it takes' },
    locales: localesSchema,
    defaultLocale: { type: 'string', description: 'Its default locale' },
    sampleData: { type: ['object', 'null'], description: 'Its sample data, or null' },
    created: { type: 'integer', description: 'When it was made, in Unix seconds' },
  },
};
/** What render answers; a preview of unsaved content (`content`) has no version number (null). */
const renderedSchema = (version: { type: 'integer' | ['integer', 'null']; description?: string }) => ({
  type: 'object',
  required: ['object', 'template', 'version', 'locale', 'text'],
  properties: {
    object: { const: 'rendered_template', description: 'The kind of object: always `rendered_template`' },
    template: { type: 'string', description: 'The template (`tpl_…`)' },
    version,
    kind: kind('The kind of the template'),
    locale: { type: 'string', description: 'The locale rendered: the one asked for, else the default one' },
    subject: { type: 'string', description: 'E-mail: the rendered subject' },
    html: { type: 'string', description: 'E-mail with an HTML part: the rendered HTML' },
    text: { type: 'string', description: 'The rendered text' },
    title: { type: 'string', description: 'Documents: the rendered title' },
    pdf: { type: 'string', description: 'Documents only: the PDF (A4, at most 50 pages), base64' },
  },
});
const versionParams = {
  type: 'object',
  required: ['id', 'version'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 255, description: 'The template (`tpl_…`)' }, version: { type: 'integer', minimum: 1, maximum: 1_000_000, description: 'The number of the version' } },
};
/** The refusals of content checked as it is stored (docs/templates.md, "Checked when stored"). */
const CONTENT_REFUSALS = ['IKW-TPL-001', 'IKW-TPL-002', 'IKW-TPL-004'] as const;
/** The refusals of a render (docs/templates.md, "Checked at every render"). */
const RENDER_REFUSALS = ['IKW-TPL-003', 'IKW-TPL-004', 'IKW-TPL-006'] as const;

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
export function templateEngineRoutes(knex: Knex, clock: Clock, templates: Templates): RouteGroup {
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
        description:
          "Makes a template of `kind` with its texts in one or more locales and the JSON Schema of the data they take, as version 1. Each text must parse as Liquid (`IKW-TPL-001`) and use only variables the schema declares (`IKW-TPL-002`); nothing is stored on a refusal. Give `purpose` to restyle one of the service's own messages (GET /api/template-engine/defaults): it must be overridable and of the same kind (`IKW-VAL-001`), and is used once published. A template for an automation's `send_email` or `send_sms` step needs no purpose.",
        refusals: [...CONTENT_REFUSALS],
        auth: write,
        body: {
          type: 'object',
          required: ['kind', 'name', 'variables', 'locales'],
          additionalProperties: false,
          properties: {
            kind: kind('What it writes'),
            name: { type: 'string', minLength: 1, maxLength: 200, description: 'What your team calls it (`Payment failed SMS`)' },
            purpose: { type: ['string', 'null'], maxLength: 64, description: 'The service message it restyles (an overridable `purpose` of GET /api/template-engine/defaults, of the same kind), or null' },
            ...contentFields,
            publish: { type: 'boolean', description: 'Publish version 1 at once; `false` (the default) leaves it unpublished' },
          },
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
        description:
          'Your templates in the environment the request acts in, newest first, each with the content of its latest version. `kind` and `purpose` narrow it (every e-mail template; the one restyling `invoice_sent`). Cursor-paged (docs/pagination.md).',
        refusals: [],
        auth: read,
        query: cursorQuery({ kind: kind('Only templates of this kind'), purpose: { type: 'string', maxLength: 64, description: 'Only the templates restyling this service message' } }),
        response: cursorListSchema(templateSchema),
        handler: (ctx) => listTemplates(knex, ctx.owner, ctx.query, `${BASE}/templates`),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: `${BASE}/templates/:id`,
        summary: 'Retrieve a template with the content of its latest version',
        description: "The template with its latest version's content, and which version is published. Another merchant's template, one of the other environment or a deleted one is `404 IKW-RES-001`.",
        refusals: [],
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
        description:
          '`name` renames it. Any of `variables`, `locales`, `defaultLocale` and `sampleData` makes a new version from the latest one (fields left out are kept), checked as create checks it; the published version stays in use until you publish the new one (`publish: true`, or POST …/versions/{version}/publish). A version added meanwhile by another request is `409 IKW-RES-003`: read it again and retry.',
        refusals: [...CONTENT_REFUSALS, 'IKW-RES-003'],
        auth: write,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: { type: 'string', minLength: 1, maxLength: 200, description: 'A new name' },
            ...contentFields,
            publish: { type: 'boolean', description: 'Publish the version this update makes (the latest, when it changes no content)' },
          },
        },
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
        description:
          "Deletes the template for good: it is `404 IKW-RES-001` from now on. A template with a `purpose` gives the service's message back its built-in look; an automation step that names it fails when it runs, until you point it at another template.",
        refusals: [],
        auth: write,
        params: idParams,
        response: {
          type: 'object',
          required: ['id', 'object', 'deleted'],
          properties: {
            id: { type: 'string', description: 'The id of the deleted template' },
            object: { const: 'template', description: 'The kind of object: always `template`' },
            deleted: { const: true, description: 'Always `true`: it is deleted' },
          },
        },
        handler: async (ctx) => {
          await templates.delete(ctx.owner, ctx.params.id, ctx.actor);
          return { id: ctx.params.id, object: 'template', deleted: true };
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: `${BASE}/templates/:id/versions`,
        summary: "List a template's versions, newest first",
        description: 'Every version of the template, newest first, `published: true` on the one in use: to compare them, or to find the one to publish again (a rollback). The whole list, in one page.',
        refusals: [],
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
        description:
          "Makes this version the one in use: renders, automation steps and (for a template with a `purpose`) the service's messages use it from now on. Any version may be published, an older one too, to roll back. A version that does not exist is `404 IKW-RES-001`; publishing the published version changes nothing.",
        refusals: ['IKW-RES-003'],
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
        description:
          "Shows what a version looks like, published or not, for an editor: rendered with `data`, else the template's `sampleData`, in `locale` or the default one; documents come with their PDF. With `content`, it renders unsaved content over the version instead, checked exactly as PATCH would store it, and answers `version: null`. Nothing is stored, so `templates.read` is enough.",
        refusals: [...CONTENT_REFUSALS, 'IKW-TPL-003', 'IKW-TPL-006'],
        auth: read,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            version: { type: 'integer', minimum: 1, maximum: 1_000_000, description: 'The version to render; the latest when left out' },
            locale: locale('The locale to render; the default one when left out (`IKW-TPL-004` for one the template lacks)'),
            data: { ...dataSchema, description: "The values to render with; the content's or the version's `sampleData` when left out" },
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
        description:
          "Renders the version in use with your `data`, as the service would send it: for your own e-mails, SMS and documents. The data is checked against the template's `variables` (`422 IKW-TPL-003` naming the missing or wrong value); a render writes at most 1,000,000 bytes and a PDF 50 pages (`422 IKW-TPL-006`). A template with no published version is `409 IKW-TPL-005`: publish one, or preview.",
        refusals: [...RENDER_REFUSALS, 'IKW-TPL-005'],
        auth: read,
        params: idParams,
        body: {
          type: 'object',
          required: ['data'],
          additionalProperties: false,
          properties: { locale: locale('The locale to render; the default one when left out (`IKW-TPL-004` for one the template lacks)'), data: dataSchema },
        },
        response: renderedSchema({ type: 'integer', description: 'The version rendered: the published one' }),
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
        description:
          "Every message and document the service writes from a built-in template, by `purpose`: receipts, invoices and their e-mails, notices to the merchant, account messages. Those with `overridable: true` can be restyled: create a template of the same kind with that `purpose` and publish it, starting from the built-in one's texts and variables shown here. Account messages cannot be.",
        refusals: [],
        auth: read,
        response: {
          type: 'object',
          required: ['object', 'data'],
          properties: {
            object: { const: 'list', description: 'The kind of object: always `list`' },
            data: {
              type: 'array',
              description: 'Every built-in template',
              items: {
                type: 'object',
                required: ['object', 'purpose', 'kind', 'overridable', 'description', 'variables', 'locales', 'defaultLocale'],
                properties: {
                  object: { const: 'built_in_template', description: 'The kind of object: always `built_in_template`' },
                  purpose: { type: 'string', description: "The message it writes (`invoice_sent`), as a template's `purpose` names it" },
                  kind: kind('What it writes'),
                  overridable: { type: 'boolean', description: "Whether a merchant's template may restyle it (account messages may not)" },
                  description: { type: 'string', description: 'When the service sends or makes it' },
                  variables: { type: 'object', description: 'The JSON Schema of the values the service gives it: what a template restyling it may use' },
                  locales: localesSchema,
                  defaultLocale: { type: 'string', description: 'Its default locale' },
                  sampleData: { type: ['object', 'null'], description: 'Values to preview it with, or null' },
                },
              },
            },
            has_more: { type: 'boolean', description: 'Always `false`: the whole list is one page' },
            url: { type: 'string', description: 'The path of this list' },
          },
        },
        handler: async () => ({
          object: 'list',
          data: BUILT_IN_TEMPLATES.map((b) => ({
            object: 'built_in_template',
            purpose: b.purpose,
            kind: b.kind,
            overridable: b.overridable,
            description: b.description,
            variables: b.version.variables,
            locales: b.version.locales,
            defaultLocale: b.version.defaultLocale,
            sampleData: b.version.sampleData,
          })),
          has_more: false,
          url: `${BASE}/defaults`,
        }),
      }),
    ],
  };
}
