import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import { ALLOWED_CONTENT_TYPES } from '../content-types.js';
import type { Assets, CreateAssetInput } from '../commands.js';
import { ASSET_PURPOSES, ASSET_STATUSES, type AssetPurpose, type AssetStatus } from '../events.js';
import { Reply } from '#packages/http/context.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import { findAsset, listAssets } from '../read/assets.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { cursorListSchema, cursorQuery, idParamsOf, resourceSchema, unixTimeQuery } from '#packages/http/route-kit.js';

const BASE = '/api/v1/assets';
const assetsRead: RouteAuth = { scope: 'assets.read', environmentHeader: 'optional' };
const assetsWrite: RouteAuth = { scope: 'assets.write', environmentHeader: 'optional' };
const assetParams = { ...idParamsOf('assetId'), properties: { assetId: { type: 'string', minLength: 1, maxLength: 255, description: "The asset's id" } } };
const CONTENT_TYPES = [...new Set(Object.values(ALLOWED_CONTENT_TYPES).flat())];

const PURPOSE_WORDS: Record<AssetPurpose, string> = {
  logo: `The merchant's logo, shown on the payer's pages (the last one completed): ${ALLOWED_CONTENT_TYPES.logo.join(', ')}`,
  onboarding_document: `A document of the business or its people for the platform (statutes, an identity document): ${ALLOWED_CONTENT_TYPES.onboarding_document.join(', ')}`,
  invoice_attachment: `A file attached to invoices: ${ALLOWED_CONTENT_TYPES.invoice_attachment.join(', ')}`,
};
const STATUS_WORDS: Record<AssetStatus, string> = {
  pending: 'Declared; its bytes are not uploaded yet',
  uploaded: 'Bytes uploaded, not yet checked: complete it',
  ready: 'Checked against its declaration and usable; its bytes can no longer change',
};
const purposeField = { enum: [...ASSET_PURPOSES], description: 'What the file is for, which sets the content types it may have', 'x-enumDescriptions': PURPOSE_WORDS };
const nullableString = { type: ['string', 'null'] };
const assetFields = {
  name: { type: 'string', description: 'The file name, given when downloading it' },
  purpose: purposeField,
  contentType: { type: 'string', description: 'The declared media type (`application/pdf`); completing checks the bytes really are one' },
  size: { type: 'integer', description: 'The declared size, in bytes' },
  sha256: { type: 'string', description: 'The declared SHA-256 of the bytes, in hex' },
  status: { enum: [...ASSET_STATUSES], description: 'Where the file stands', 'x-enumDescriptions': STATUS_WORDS },
  uploadedSize: { type: ['integer', 'null'], description: 'How many bytes the last upload brought; null before any' },
  createdAt: { type: 'string', format: 'date-time', description: 'When it was declared' },
  uploadedAt: { ...nullableString, description: 'When its bytes were last uploaded (ISO 8601); null before any' },
  completedAt: { ...nullableString, description: 'When it was completed (ISO 8601); null until then' },
  livemode: { type: 'boolean', description: '`true` for an asset of the live environment' },
};
const assetRequired = ['name', 'purpose', 'contentType', 'size', 'sha256', 'status', 'createdAt', 'livemode'];
const assetSchema = resourceSchema('asset', assetRequired, assetFields);
const createdAssetSchema = resourceSchema('asset', [...assetRequired, 'uploadUrl', 'uploadUrlExpiresAt'], {
  ...assetFields,
  uploadUrl: { type: 'string', description: 'PUT the bytes here, without a credential, before uploadUrlExpiresAt' },
  uploadUrlExpiresAt: { type: 'string', format: 'date-time', description: 'When `uploadUrl` stops working (15 minutes); ask for a new one after' },
});
const signedUrlSchema = {
  type: 'object',
  required: ['url', 'expiresAt'],
  properties: {
    url: { type: 'string', description: 'The signed URL: it needs no credential, so give it only to whoever should use it' },
    expiresAt: { type: 'string', format: 'date-time', description: 'When it stops working' },
  },
};
const deletedSchema = {
  type: 'object',
  required: ['id', 'object', 'deleted'],
  properties: {
    id: { type: 'string', description: 'The id of the deleted asset' },
    object: { const: 'asset', description: 'The kind of object: always `asset`' },
    deleted: { const: true, description: 'Always `true`: the asset and its bytes are gone' },
  },
};

const createBody = {
  type: 'object',
  required: ['name', 'purpose', 'contentType', 'size', 'sha256'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S', description: 'The file name, as a download will give it' },
    purpose: purposeField,
    contentType: {
      type: 'string',
      minLength: 3,
      maxLength: 100,
      pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$',
      examples: CONTENT_TYPES,
      description: "The file's media type; the purpose sets which are accepted",
    },
    size: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "The size in bytes, within the service's limit (`ASSETS_MAX_BYTES`, 25 MiB by default)" },
    sha256: { type: 'string', pattern: '^[0-9A-Fa-f]{64}$', description: 'The SHA-256 of the bytes, in hex: the upload must match it' },
  },
};

/** The query of a signed URL: when it expires (Unix seconds) and its signature. */
const signedQuery = {
  type: 'object',
  required: ['expires', 'signature'],
  additionalProperties: false,
  properties: {
    expires: { ...unixTimeQuery, description: 'When the URL stops working (Unix seconds), as the signed URL gives it' },
    signature: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'The signature, as the signed URL gives it' },
  },
};
type SignedQuery = { expires: number; signature: string };

/** Content-Disposition with a quoted file name: an ASCII fallback and the exact UTF-8 name (RFC 6266). */
export function contentDisposition(name: string, kind: 'attachment' | 'inline' = 'attachment'): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * /api/v1/assets: merchants' files (docs/assets.md). Ten operations: create, list, get, delete,
 * upload (credential), complete, new upload URL, download URL, and the two signed URLs' targets
 * (upload, download), which take no credential.
 */
export function assetsRoutes(knex: Knex, assets: Assets): RouteGroup {
  return {
    name: 'assets',
    description: 'Files the merchant uploads (logos, documents, evidence): declared first, uploaded to a signed URL, checked, then referred to by id.',
    routes: [
      route<CreateAssetInput>({
        method: 'post',
        path: BASE,
        summary: 'Declare an asset (name, purpose, content type, size, SHA-256); the answer holds a signed URL to PUT its bytes to',
        description:
          'The first of three steps of every upload: declare the file, upload its bytes (to `uploadUrl`, which takes no credential, or with `PUT …/content`), then complete it. Declaring what the file is before any byte arrives lets the service refuse a wrong type or size at once and check the bytes against the declaration. A browser can upload straight to `uploadUrl`, so your server never handles the file.',
        refusals: ['IKW-AST-001', 'IKW-AST-002'],
        auth: assetsWrite,
        body: createBody,
        response: createdAssetSchema,
        status: 201,
        handler: (ctx) => assets.create(ctx.owner, ctx.body, ctx.actor, ctx.requestRef),
      }),
      route<unknown, CursorQuery & { status?: AssetStatus; purpose?: AssetPurpose }>({
        method: 'get',
        path: BASE,
        summary: 'List assets, newest first (cursor-paged), by status and purpose',
        description: "The merchant's files of this environment, deleted ones left out. Filter by `purpose` to find the logos or the onboarding documents, by `status` to find uploads never completed.",
        auth: assetsRead,
        query: cursorQuery({
          status: { enum: [...ASSET_STATUSES], description: 'Only the assets in this state', 'x-enumDescriptions': STATUS_WORDS },
          purpose: { ...purposeField, description: 'Only the assets of this purpose' },
        }),
        response: cursorListSchema(assetSchema),
        handler: (ctx) => listAssets(knex, ctx.owner, ctx.query, BASE, { status: ctx.query.status, purpose: ctx.query.purpose }),
      }),
      route<unknown, unknown, { assetId: string }>({
        method: 'get',
        path: `${BASE}/:assetId`,
        summary: 'Retrieve an asset',
        description: 'One asset with where it stands. Its bytes are fetched through a signed download URL (`POST …/download-url`), never in this answer.',
        auth: assetsRead,
        params: assetParams,
        response: assetSchema,
        handler: async (ctx) => {
          const asset = await findAsset(knex, ctx.owner, ctx.params.assetId);
          if (!asset) throw new ApiError('IKW-RES-001', `No such asset: '${ctx.params.assetId}'`, 'assetId');
          return asset;
        },
      }),
      route<unknown, unknown, { assetId: string }>({
        method: 'delete',
        path: `${BASE}/:assetId`,
        summary: 'Delete an asset and its bytes; its signed URLs stop working',
        description: 'Removes the file for good: its bytes are deleted from the store, and its signed URLs and id answer 404 from now on.',
        refusals: ['IKW-AST-009'],
        auth: assetsWrite,
        params: assetParams,
        response: deletedSchema,
        handler: (ctx) => assets.delete(ctx.owner, ctx.params.assetId, ctx.actor),
      }),
      route<unknown, unknown, { assetId: string }>({
        method: 'put',
        path: `${BASE}/:assetId/content`,
        summary: "Upload an asset's bytes with a credential (the raw body, any media type); replaces an earlier upload until the asset is complete",
        description: 'For a server that holds the file: send its bytes as the request body, whatever its `Content-Type`. More bytes than declared are refused as they arrive. Uploading again replaces the bytes until the asset is complete.',
        refusals: ['IKW-AST-003', 'IKW-AST-004', 'IKW-AST-009'],
        auth: assetsWrite,
        params: assetParams,
        rawBody: true,
        response: assetSchema,
        handler: (ctx) => assets.upload(ctx.owner, ctx.params.assetId, ctx.bodyStream!, ctx.actor),
      }),
      route<unknown, unknown, { assetId: string }>({
        method: 'post',
        path: `${BASE}/:assetId/complete`,
        summary: 'Complete an asset: checks the uploaded size, SHA-256 and content type (from the magic number) against the declaration, then makes it usable',
        description:
          "The last step of an upload: the service checks the bytes against the declaration (size, SHA-256, and the content type read from the file's first bytes, not from what the uploader said) and the asset becomes `ready`. A mismatch is refused and the asset stays as it was: upload the right bytes and complete again.",
        refusals: ['IKW-AST-001', 'IKW-AST-004', 'IKW-AST-005', 'IKW-AST-006', 'IKW-AST-007'],
        auth: assetsWrite,
        params: assetParams,
        response: assetSchema,
        handler: (ctx) => assets.complete(ctx.owner, ctx.params.assetId, ctx.actor),
      }),
      route<unknown, unknown, { assetId: string }>({
        method: 'post',
        path: `${BASE}/:assetId/upload-url`,
        summary: 'A new signed upload URL (15 minutes) for an asset not complete yet',
        description: "For an upload that did not happen within the first URL's 15 minutes, or to upload again before completing.",
        refusals: ['IKW-AST-004'],
        auth: assetsWrite,
        params: assetParams,
        response: signedUrlSchema,
        handler: (ctx) => assets.uploadUrl(ctx.owner, ctx.params.assetId),
      }),
      route<unknown, unknown, { assetId: string }>({
        method: 'post',
        path: `${BASE}/:assetId/download-url`,
        summary: 'A signed download URL (5 minutes) for a complete asset',
        description: 'A link a browser or another service can fetch the file from without a credential, for 5 minutes: ask for a new one each time it is needed rather than storing it.',
        refusals: ['IKW-AST-004'],
        auth: assetsRead,
        params: assetParams,
        response: signedUrlSchema,
        handler: (ctx) => assets.downloadUrl(ctx.owner, ctx.params.assetId),
      }),
      route<unknown, SignedQuery, { assetId: string }>({
        method: 'put',
        path: `${BASE}/:assetId/upload`,
        operationId: 'uploadAssetBySignedUrl',
        summary: "The target of a signed upload URL: PUT the asset's bytes without a credential",
        description: "Where `uploadUrl` points: the signature in its query stands in for a credential. Send the file's bytes as the body.",
        refusals: ['IKW-AST-003', 'IKW-AST-004', 'IKW-AST-008', 'IKW-AST-009'],
        auth: 'public',
        params: assetParams,
        query: signedQuery,
        rawBody: true,
        response: assetSchema,
        handler: (ctx) => assets.uploadSigned(ctx.params.assetId, ctx.query.expires, ctx.query.signature, ctx.bodyStream!, ctx.actor),
      }),
      route<unknown, SignedQuery, { assetId: string }>({
        method: 'get',
        path: `${BASE}/:assetId/download`,
        operationId: 'downloadAssetBySignedUrl',
        summary: "The target of a signed download URL: the asset's bytes, without a credential",
        description: "Where a download URL points: the file's bytes with its declared `Content-Type`, as an attachment under its name.",
        refusals: ['IKW-AST-004', 'IKW-AST-008', 'IKW-AST-009'],
        auth: 'public',
        params: assetParams,
        query: signedQuery,
        answers: { file: 'application/octet-stream' },
        handler: async (ctx) => {
          const { body, asset } = await assets.openDownload(ctx.params.assetId, ctx.query.expires, ctx.query.signature);
          return Reply.stream(body, asset.contentType, {
            'Content-Length': String(asset.size),
            'Content-Disposition': contentDisposition(asset.name),
            'X-Content-Type-Options': 'nosniff',
            'Cache-Control': 'private, no-store',
          });
        },
      }),
    ],
  };
}
