import { createHash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { SNIFF_BYTES } from './content-types.js';
import { Refusal } from '#packages/core/refusal.js';
import { assetErrors } from './errors.js';

/**
 * Where the bytes of assets live: the port. The local disk under DATA_DIR by default, an
 * S3-compatible bucket when configured (packages/families/assets/asset-storage-*.ts). Keys are never
 * reused: each upload gets its own, so no reader sees bytes half replaced.
 */
export interface AssetStorage {
  /** Stores the whole stream under `key`, or nothing (a failed or refused stream leaves no object). */
  put(key: string, body: Readable, contentType: string): Promise<void>;
  /** The bytes under `key`; null when there are none. */
  get(key: string): Promise<Readable | null>;
  /** Removes these keys; absent ones are no error. */
  delete(keys: readonly string[]): Promise<void>;
}

/** A store that failed (unreachable, refused): a coded, retryable 503, never a 500. */
export function storageUnavailable(cause: unknown): Refusal {
  const err = new Refusal('IKW-AST-009', assetErrors['IKW-AST-009'].message);
  (err as { cause?: unknown }).cause = cause;
  return err;
}

/**
 * Counts, hashes and keeps the first bytes of a stream as it passes, and stops it with 413
 * IKW-AST-003 when it brings more than `maxBytes`: what an upload is checked against later.
 */
export class UploadMeter extends Transform {
  size = 0;
  private readonly hash = createHash('sha256');
  private headBytes = Buffer.alloc(0);

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      done(new Refusal('IKW-AST-003', `The upload is larger than the ${this.maxBytes} bytes declared for this asset`, 'size'));
      return;
    }
    if (this.headBytes.length < SNIFF_BYTES) this.headBytes = Buffer.concat([this.headBytes, chunk.subarray(0, SNIFF_BYTES - this.headBytes.length)]);
    this.hash.update(chunk);
    done(null, chunk);
  }

  get head(): Buffer {
    return this.headBytes;
  }

  /** Hex SHA-256 of everything that passed; call once the stream has ended. */
  digest(): string {
    return this.hash.digest('hex');
  }
}
