import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';

/** What a file is for: it decides which content types it may hold (content-types.ts). */
export type AssetPurpose = 'logo' | 'onboarding_document' | 'invoice_attachment';
export const ASSET_PURPOSES: readonly AssetPurpose[] = ['logo', 'onboarding_document', 'invoice_attachment'];

/** `pending` until bytes arrive, `uploaded` until `complete` checks them, `ready` once usable. */
export type AssetStatus = 'pending' | 'uploaded' | 'ready';
export const ASSET_STATUSES: readonly AssetStatus[] = ['pending', 'uploaded', 'ready'];

/** A merchant's file as the API shows it (camelCase, like the newer families). */
export interface AssetObject {
  id: string;
  object: 'asset';
  name: string;
  purpose: AssetPurpose;
  contentType: string;
  /** Declared size in bytes; `complete` refuses bytes of another size. */
  size: number;
  /** Declared SHA-256 (hex) of the bytes; `complete` refuses bytes with another digest. */
  sha256: string;
  status: AssetStatus;
  /** Size of the bytes received so far (null until an upload). */
  uploadedSize: number | null;
  createdAt: string;
  uploadedAt: string | null;
  completedAt: string | null;
  livemode: boolean;
}

export interface AssetCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  name: string;
  purpose: AssetPurpose;
  contentType: string;
  size: number;
  sha256: string;
  createdAt: string;
}

/** Bytes stored under `key`, as counted and hashed while they streamed in; `detectedContentType` from their first bytes. */
export interface AssetUploaded {
  key: string;
  size: number;
  sha256: string;
  detectedContentType: string | null;
  at: string;
}

type WithObject<D> = D & { object: AssetObject };

export type AssetEvent =
  | DomainEvent<'asset.created', WithObject<AssetCreated>>
  | DomainEvent<'asset.uploaded', WithObject<AssetUploaded>>
  | DomainEvent<'asset.completed', WithObject<{ at: string }>>
  | DomainEvent<'asset.deleted', WithObject<{ at: string; keys: string[] }>>;

export const assetStream = (id: string) => `asset-${id}`;
