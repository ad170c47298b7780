import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned, unreachable } from '#packages/core/aggregate.js';
import { ALLOWED_CONTENT_TYPES } from './content-types.js';
import type { AssetCreated, AssetEvent, AssetStatus, AssetUploaded } from './events.js';
import type { Owner } from '#packages/core/owner.js';

export type AssetCommand = { type: 'create'; asset: AssetCreated } | ({ owner: Owner } & ({ type: 'record_upload'; upload: AssetUploaded } | { type: 'complete'; at: Date } | { type: 'delete'; at: Date }));

export interface AssetState {
  asset: AssetCreated | null;
  status: AssetStatus;
  /** The latest upload: what `complete` checks and downloads read. */
  upload: AssetUploaded | null;
  /** Every key bytes were stored under (earlier uploads too): what deletion removes. */
  keys: string[];
  completedAt: string | null;
  deleted: boolean;
}

/** Bytes are usable once they are the size and digest declared at creation and their magic number is the declared type. */
function checkUpload(asset: AssetCreated, upload: AssetUploaded): void {
  if (upload.size !== asset.size) throw new Refusal('IKW-AST-005', `The uploaded file has ${upload.size} bytes; ${asset.size} were declared`, 'size');
  if (upload.sha256 !== asset.sha256) throw new Refusal('IKW-AST-006', `The uploaded file's SHA-256 is ${upload.sha256}; ${asset.sha256} was declared`, 'sha256');
  if (upload.detectedContentType !== asset.contentType) {
    const seen = upload.detectedContentType ?? 'no known type';
    throw new Refusal('IKW-AST-007', `The uploaded file is ${seen}, not the declared ${asset.contentType}`, 'contentType');
  }
  if (!ALLOWED_CONTENT_TYPES[asset.purpose].includes(upload.detectedContentType)) {
    throw new Refusal('IKW-AST-001', `A ${asset.purpose} cannot be ${upload.detectedContentType}`, 'contentType');
  }
}

/**
 * An asset: declared (name, type, size, digest), then uploaded (any number of times until it is
 * complete), then completed once its bytes check out. A deleted asset is "no such asset".
 */
export const assetDecider: Decider<AssetCommand, AssetState, Fact<AssetEvent>> = {
  initialState: { asset: null, status: 'pending', upload: null, keys: [], completedAt: null, deleted: false },

  evolve(state, event) {
    switch (event.type) {
      case 'asset.created':
        return { ...state, asset: event.data, status: 'pending' };
      case 'asset.uploaded':
        return { ...state, status: 'uploaded', upload: event.data, keys: [...state.keys, event.data.key] };
      case 'asset.completed':
        return { ...state, status: 'ready', completedAt: event.data.at };
      case 'asset.deleted':
        return { ...state, deleted: true };
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      if (state.asset) throw new Refusal('IKW-RES-003', `Asset ${command.asset.id} already exists`);
      return [{ type: 'asset.created', data: command.asset }];
    }
    const asset = state.deleted ? null : state.asset;
    assertOwned(asset, command.owner, 'No such asset', 'assetId');
    let draft: Fact<AssetEvent>;
    switch (command.type) {
      case 'record_upload':
        if (state.status === 'ready') throw new Refusal('IKW-AST-004', 'This asset is complete; its bytes can no longer be replaced', 'assetId');
        draft = { type: 'asset.uploaded', data: command.upload };
        break;
      case 'complete':
        // Completing twice answers the complete asset again.
        if (state.status === 'ready') return [];
        if (!state.upload) throw new Refusal('IKW-AST-004', 'No bytes have been uploaded for this asset yet', 'assetId');
        checkUpload(asset, state.upload);
        draft = { type: 'asset.completed', data: { at: command.at.toISOString() } };
        break;
      case 'delete':
        draft = { type: 'asset.deleted', data: { at: command.at.toISOString(), keys: state.keys } };
        break;
      default:
        return unreachable(command);
    }
    return [draft];
  },
};
