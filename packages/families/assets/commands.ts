import type { Fact } from '#packages/core/decider.js';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { Clock } from '#packages/core/clock.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import type { KeyedHasher } from '#packages/core/hashing.js';
import { derivedUuid, newUuid } from '#packages/core/ids.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { assertOwned } from '#packages/core/aggregate.js';
import { ALLOWED_CONTENT_TYPES, sniffContentType } from './content-types.js';
import type { AssetCommand, AssetState } from './decider.js';
import { assetAggregate, toAssetObject } from './render.js';
import { assetStream, type AssetCreated, type AssetEvent, type AssetObject, type AssetPurpose } from './events.js';
import { storageUnavailable, UploadMeter, type AssetStorage } from './storage.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

export interface CreateAssetInput {
  name: string;
  purpose: AssetPurpose;
  contentType: string;
  size: number;
  sha256: string;
}

/** A short-lived URL that needs no credential: the signature stands for it. */
export interface SignedUrl {
  url: string;
  expiresAt: string;
}

/** The bytes a deleted asset leaves in the store: what the purge job removes. */
export interface AssetBytes {
  merchantId: string;
  assetId: string;
  keys: string[];
}

export type CreatedAsset = AssetObject & { uploadUrl: string; uploadUrlExpiresAt: string };

/** How long signed URLs last: long enough to send 25 MB over a slow link, short enough to leak little. */
export const UPLOAD_URL_TTL_MS = 15 * 60_000;
export const DOWNLOAD_URL_TTL_MS = 5 * 60_000;

type SignedAction = 'upload' | 'download';

/** A merchant's files: declared, uploaded (directly or by signed URL), completed, downloaded by signed URL, deleted. */
export class Assets extends CommandService<AssetCommand, AssetState, Fact<AssetEvent>> {
  constructor(
    private readonly deps: {
      store: EventStore;
      clock: Clock;
      storage: AssetStorage;
      /** Signs the URLs (a key derived from SECRETS_KEY for this purpose alone). */
      signer: KeyedHasher;
      publicUrl: string;
      maxBytes: number;
    },
  ) {
    super(deps.store, assetStream, assetAggregate);
  }

  get maxBytes(): number {
    return this.deps.maxBytes;
  }

  async create(owner: Owner, input: CreateAssetInput, actor: Actor, requestRef?: string): Promise<CreatedAsset> {
    const contentType = input.contentType.toLowerCase();
    if (!ALLOWED_CONTENT_TYPES[input.purpose].includes(contentType)) {
      throw new Refusal('IKW-AST-001', `A ${input.purpose} may be ${ALLOWED_CONTENT_TYPES[input.purpose].join(', ')}; not ${input.contentType}`, 'contentType');
    }
    if (input.size > this.deps.maxBytes) throw new Refusal('IKW-AST-002', `Assets may have at most ${this.deps.maxBytes} bytes`, 'size');
    // A retry of a request with an Idempotency-Key lands on the asset its first attempt made.
    const id = requestRef ? derivedUuid(`asset:${owner.merchantId}:${owner.environment}:${requestRef}`) : newUuid();
    const asset: AssetCreated = {
      id,
      ...owner,
      name: input.name.trim(),
      purpose: input.purpose,
      contentType,
      size: input.size,
      sha256: input.sha256.toLowerCase(),
      createdAt: this.deps.clock.now().toISOString(),
    };
    const { state } = await this.run(id, { type: 'create', asset }, auditMetadata(this.deps.clock, owner, id, actor));
    const upload = this.signedUrl('upload', id, UPLOAD_URL_TTL_MS);
    return { ...toAssetObject(state), uploadUrl: upload.url, uploadUrlExpiresAt: upload.expiresAt };
  }

  /** Receives the bytes of an asset from its owner's credential. */
  async upload(owner: Owner, id: string, body: Readable, actor: Actor): Promise<AssetObject> {
    return this.receive(await this.owned(owner, id), body, actor);
  }

  /** Receives the bytes through a signed upload URL: the signature names the asset and its owner. */
  async uploadSigned(id: string, expires: number, signature: string, body: Readable, actor: Actor): Promise<AssetObject> {
    this.checkSignature('upload', id, expires, signature);
    const state = await this.existing(id);
    return this.receive(state, body, actor);
  }

  async complete(owner: Owner, id: string, actor: Actor): Promise<AssetObject> {
    const { state } = await this.run(id, { type: 'complete', owner, at: this.deps.clock.now() }, auditMetadata(this.deps.clock, owner, id, actor));
    return toAssetObject(state);
  }

  /** Deletes the asset; a job then removes its bytes (assetPurge), which no asset names any more. */
  async delete(owner: Owner, id: string, actor: Actor): Promise<{ id: string; object: 'asset'; deleted: true }> {
    await this.run(id, { type: 'delete', owner, at: this.deps.clock.now() }, auditMetadata(this.deps.clock, owner, id, actor));
    return { id, object: 'asset', deleted: true };
  }

  /** Removes the bytes of a deleted asset. */
  async purge(bytes: AssetBytes): Promise<void> {
    await this.deps.storage.delete(bytes.keys);
  }

  /** A new signed upload URL (the one given at creation may have expired); not once the asset is complete. */
  async uploadUrl(owner: Owner, id: string): Promise<SignedUrl> {
    const state = await this.owned(owner, id);
    if (state.status === 'ready') throw new Refusal('IKW-AST-004', 'This asset is complete; its bytes can no longer be replaced', 'assetId');
    return this.signedUrl('upload', id, UPLOAD_URL_TTL_MS);
  }

  /** A short-lived URL to download a complete asset's bytes without a credential. */
  async downloadUrl(owner: Owner, id: string): Promise<SignedUrl> {
    const state = await this.owned(owner, id);
    if (state.status !== 'ready') throw new Refusal('IKW-AST-004', 'Only a complete asset can be downloaded', 'assetId');
    return this.signedUrl('download', id, DOWNLOAD_URL_TTL_MS);
  }

  /** The bytes a signed download URL names. */
  async openDownload(id: string, expires: number, signature: string): Promise<{ body: Readable; asset: AssetObject }> {
    this.checkSignature('download', id, expires, signature);
    return this.open(await this.existing(id));
  }

  /**
   * The bytes of a complete asset of `merchantId`, whichever environment it was uploaded in: the
   * platform reading a document a merchant gave it (the review of an activation application).
   * Another merchant's asset is no asset.
   */
  async openOf(merchantId: string, id: string): Promise<{ body: Readable; asset: AssetObject }> {
    const state = await this.existing(id);
    assertOwned(state.asset, { merchantId, environment: state.asset?.environment ?? 'sandbox' }, `No such asset: '${id}'`, 'assetId');
    return this.open(state);
  }

  private async open(state: AssetState): Promise<{ body: Readable; asset: AssetObject }> {
    const id = state.asset!.id;
    if (state.status !== 'ready' || !state.upload) throw new Refusal('IKW-AST-004', 'Only a complete asset can be downloaded', 'assetId');
    const body = await this.deps.storage.get(state.upload.key).catch((err: unknown) => {
      throw storageUnavailable(err);
    });
    if (!body) throw storageUnavailable(new Error(`asset ${id}: no bytes under ${state.upload.key}`));
    return { body, asset: toAssetObject(state) };
  }

  private async receive(state: AssetState, body: Readable, actor: Actor): Promise<AssetObject> {
    const asset = state.asset!;
    if (state.status === 'ready') throw new Refusal('IKW-AST-004', 'This asset is complete; its bytes can no longer be replaced', 'assetId');
    const owner: Owner = { merchantId: asset.merchantId, environment: asset.environment };
    const key = `${asset.merchantId}/${asset.environment}/${asset.id}/${randomUUID()}`;
    const meter = new UploadMeter(asset.size);
    // The store reads what the meter lets through; a store that fails stops the request's stream too.
    const stored = this.deps.storage.put(key, meter, asset.contentType).catch((err: unknown) => {
      meter.destroy(err instanceof Error ? err : new Error(String(err)));
      throw err;
    });
    const [received, kept] = await Promise.allSettled([pipeline(body, meter), stored]);
    for (const outcome of [received, kept]) if (outcome.status === 'rejected' && isRefused(outcome.reason)) throw outcome.reason;
    for (const outcome of [received, kept]) if (outcome.status === 'rejected') throw storageUnavailable(outcome.reason);
    const upload = { key, size: meter.size, sha256: meter.digest(), detectedContentType: sniffContentType(meter.head), at: this.deps.clock.now().toISOString() };
    // Bytes no event names would never be purged: a refused record (a racing upload, a delete) removes them.
    const result = await this.run(asset.id, { type: 'record_upload', owner, upload }, auditMetadata(this.deps.clock, owner, asset.id, actor)).catch(async (err: unknown) => {
      await this.deps.storage.delete([key]).catch(() => undefined);
      throw err;
    });
    return toAssetObject(result.state);
  }

  private async existing(id: string): Promise<AssetState> {
    const { state } = await this.load(id);
    if (!state.asset || state.deleted) throw new Refusal('IKW-RES-001', `No such asset: '${id}'`, 'assetId');
    return state;
  }

  private async owned(owner: Owner, id: string): Promise<AssetState> {
    const state = await this.existing(id);
    assertOwned(state.asset, owner, `No such asset: '${id}'`, 'assetId');
    return state;
  }

  private signedUrl(action: SignedAction, id: string, ttlMs: number): SignedUrl {
    const expires = Math.floor((this.deps.clock.now().getTime() + ttlMs) / 1000);
    const signature = this.deps.signer.hash(`${action}:${id}:${expires}`);
    return { url: `${this.deps.publicUrl}/api/v1/assets/${id}/${action}?expires=${expires}&signature=${signature}`, expiresAt: new Date(expires * 1000).toISOString() };
  }

  private checkSignature(action: SignedAction, id: string, expires: number, signature: string): void {
    if (!this.deps.signer.matches(`${action}:${id}:${expires}`, signature)) throw new Refusal('IKW-AST-008', 'The signature of this URL is not valid', 'signature');
    if (this.deps.clock.now().getTime() > expires * 1000) throw new Refusal('IKW-AST-008', 'This URL has expired; ask for a new one', 'expires');
  }
}
