import type { S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AssetStorage } from './storage.js';

// The SDK is loaded by the first request, not with the module: about half a second of start-up
// that every process of a service keeping its assets on the disk would pay for nothing.
let sdkLoading: Promise<typeof import('@aws-sdk/client-s3')> | undefined;
const s3Sdk = () => (sdkLoading ??= import('@aws-sdk/client-s3'));

export interface S3StorageOptions {
  /** Any S3-compatible server (MinIO, R2, …); null: AWS itself. */
  endpoint: string | null;
  region: string;
  bucket: string;
  /** Null: the SDK's own credential chain (instance roles, AWS_* variables). */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  /** `host/bucket/key` addressing, which most S3-compatible servers need. */
  forcePathStyle: boolean;
  /** Where uploads are spooled before they are sent (a PUT needs its length up front). */
  spoolDir: string;
}

/**
 * Assets in an S3-compatible bucket. An upload is spooled to a local file first, then sent with
 * its length in one PUT: the object appears whole or not at all, and an upload refused half-way
 * (too large, aborted) never reaches the bucket.
 */
export class S3AssetStorage implements AssetStorage {
  /** Made with the SDK, by the first request. */
  private client: S3Client | null = null;

  constructor(private readonly options: S3StorageOptions) {}

  private async connection() {
    const sdk = await s3Sdk();
    const { options } = this;
    this.client ??= new sdk.S3Client({
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.accessKeyId && options.secretAccessKey ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } } : {}),
      maxAttempts: 2,
      // Checksums only where S3 requires them: the default (a streamed aws-chunked body with a
      // trailing checksum) is not understood by many S3-compatible servers, which would store the framing.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    return { sdk, client: this.client };
  }

  async put(key: string, body: Readable, contentType: string): Promise<void> {
    await mkdir(this.options.spoolDir, { recursive: true });
    const spool = path.join(this.options.spoolDir, `upload-${randomUUID()}`);
    try {
      await pipeline(body, createWriteStream(spool, { flags: 'wx' }));
      const { size } = await stat(spool);
      const { sdk, client } = await this.connection();
      await client.send(new sdk.PutObjectCommand({ Bucket: this.options.bucket, Key: key, Body: createReadStream(spool), ContentLength: size, ContentType: contentType }));
    } finally {
      await rm(spool, { force: true });
    }
  }

  async get(key: string): Promise<Readable | null> {
    const { sdk, client } = await this.connection();
    try {
      const object = await client.send(new sdk.GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return (object.Body as Readable | undefined) ?? null;
    } catch (err) {
      if (err instanceof sdk.NoSuchKey) return null;
      throw err;
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    const { sdk, client } = await this.connection();
    for (const key of keys) await client.send(new sdk.DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
  }

  close(): void {
    this.client?.destroy();
  }
}
