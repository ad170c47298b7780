import type { Knex } from 'knex';
import { ApiError } from '../../../packages/core/errors.js';
import { ALLOWED_CONTENT_TYPES } from '../../../packages/families/assets/content-types.js';
import type { Assets, CreateAssetInput } from '../../../packages/families/assets/commands.js';
import { ASSET_PURPOSES, ASSET_STATUSES, type AssetPurpose, type AssetStatus } from '../../../packages/families/assets/events.js';
import { Reply } from '../../../packages/http/context.js';
import { route, type Family, type RouteAuth } from '../../../packages/http/routes.js';
import { findAsset, listAssets } from '../../../projections/assets/assets.js';
import type { CursorQuery } from '../../../projections/paging.js';
import { cursorListSchema, cursorQuery, idParamsOf, resourceSchema, unixTimeQuery } from './shared.js';

const BASE = '/api/v1/assets';
const assetsRead: RouteAuth = { scope: 'assets.read', environmentHeader: 'optional' };
const assetsWrite: RouteAuth = { scope: 'assets.write', environmentHeader: 'optional' };
const assetParams = idParamsOf('assetId');
const CONTENT_TYPES = [...new Set(Object.values(ALLOWED_CONTENT_TYPES).flat())];

const nullableString = { type: ['string', 'null'] };
const assetFields = {
  name: { type: 'string' },
  purpose: { enum: [...ASSET_PURPOSES] },
  contentType: { type: 'string' },
  size: { type: 'integer' },
  sha256: { type: 'string' },
  status: { enum: [...ASSET_STATUSES] },
  uploadedSize: { type: ['integer', 'null'] },
  createdAt: { type: 'string', format: 'date-time' },
  uploadedAt: nullableString,
  completedAt: nullableString,
  livemode: { type: 'boolean' },
};
const assetRequired = ['name', 'purpose', 'contentType', 'size', 'sha256', 'status', 'createdAt', 'livemode'];
const assetSchema = resourceSchema('asset', assetRequired, assetFields);
const createdAssetSchema = resourceSchema('asset', [...assetRequired, 'uploadUrl', 'uploadUrlExpiresAt'], {
  ...assetFields,
  uploadUrl: { type: 'string', description: 'PUT the bytes here, without a credential, before uploadUrlExpiresAt' },
  uploadUrlExpiresAt: { type: 'string', format: 'date-time' },
});
const signedUrlSchema = { type: 'object', required: ['url', 'expiresAt'], properties: { url: { type: 'string' }, expiresAt: { type: 'string', format: 'date-time' } } };
const deletedSchema = { type: 'object', required: ['id', 'object', 'deleted'], properties: { id: { type: 'string' }, object: { const: 'asset' }, deleted: { const: true } } };

const createBody = {
  type: 'object',
  required: ['name', 'purpose', 'contentType', 'size', 'sha256'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' },
    purpose: { enum: [...ASSET_PURPOSES] },
    contentType: { type: 'string', minLength: 3, maxLength: 100, pattern: '^[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+$', examples: CONTENT_TYPES },
    size: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    sha256: { type: 'string', pattern: '^[0-9A-Fa-f]{64}$' },
  },
};

/** The query of a signed URL: when it expires (Unix seconds) and its signature. */
const signedQuery = {
  type: 'object',
  required: ['expires', 'signature'],
  additionalProperties: false,
  properties: { expires: unixTimeQuery, signature: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
};
type SignedQuery = { expires: number; signature: string };

/** Quotes a file name for Content-Disposition: an ASCII fallback and the exact UTF-8 name (RFC 6266). */
function attachment(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * /api/v1/assets: merchants' files (docs/assets.md). Ten operations: create, list, get, delete,
 * upload (credential), complete, new upload URL, download URL, and the two signed URLs' targets
 * (upload, download), which take no credential.
 */
export function assetsFamily(knex: Knex, assets: Assets): Family {
  return {
    name: 'assets',
    description: 'Files the merchant uploads (logos, documents, evidence): declared first, uploaded to a signed URL, checked, then referred to by id.',
    routes: [
      route<CreateAssetInput>({
        method: 'post',
        path: BASE,
        summary: 'Declare an asset (name, purpose, content type, size, SHA-256); the answer holds a signed URL to PUT its bytes to',
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
        auth: assetsRead,
        query: cursorQuery({ status: { enum: [...ASSET_STATUSES] }, purpose: { enum: [...ASSET_PURPOSES] } }),
        response: cursorListSchema(assetSchema),
        handler: (ctx) => listAssets(knex, ctx.owner, ctx.query, BASE, { status: ctx.query.status, purpose: ctx.query.purpose }),
      }),
      route<unknown, unknown, { assetId: string }>({
        method: 'get',
        path: `${BASE}/:assetId`,
        summary: 'Retrieve an asset',
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
        auth: assetsWrite,
        params: assetParams,
        response: deletedSchema,
        handler: (ctx) => assets.delete(ctx.owner, ctx.params.assetId, ctx.actor),
      }),
      route<unknown, unknown, { assetId: string }>({
        method: 'put',
        path: `${BASE}/:assetId/content`,
        summary: "Upload an asset's bytes with a credential (the raw body, any media type); replaces an earlier upload until the asset is complete",
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
        auth: assetsWrite,
        params: assetParams,
        response: assetSchema,
        handler: (ctx) => assets.complete(ctx.owner, ctx.params.assetId, ctx.actor),
      }),
      route<unknown, unknown, { assetId: string }>({
        method: 'post',
        path: `${BASE}/:assetId/upload-url`,
        summary: 'A new signed upload URL (15 minutes) for an asset not complete yet',
        auth: assetsWrite,
        params: assetParams,
        response: signedUrlSchema,
        handler: (ctx) => assets.uploadUrl(ctx.owner, ctx.params.assetId),
      }),
      route<unknown, unknown, { assetId: string }>({
        method: 'post',
        path: `${BASE}/:assetId/download-url`,
        summary: 'A signed download URL (5 minutes) for a complete asset',
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
        auth: 'public',
        params: assetParams,
        query: signedQuery,
        answers: { file: 'application/octet-stream' },
        handler: async (ctx) => {
          const { body, asset } = await assets.openDownload(ctx.params.assetId, ctx.query.expires, ctx.query.signature);
          return Reply.stream(body, asset.contentType, {
            'Content-Length': String(asset.size),
            'Content-Disposition': attachment(asset.name),
            'X-Content-Type-Options': 'nosniff',
            'Cache-Control': 'private, no-store',
          });
        },
      }),
    ],
  };
}
