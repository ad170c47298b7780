import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AssetStorage } from './storage.js';

/**
 * Assets on the local disk (the default: DATA_DIR/assets). Bytes are written to a part file and
 * renamed into place, so a key holds a whole file or none, even across a crash.
 */
export class DiskAssetStorage implements AssetStorage {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    const full = path.resolve(this.root, key);
    // Keys are built by the service; this keeps a bad one from ever leaving the root.
    if (!full.startsWith(path.resolve(this.root) + path.sep)) throw new Error(`Asset key outside the store: ${key}`);
    return full;
  }

  async put(key: string, body: Readable): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const part = `${target}.part-${randomUUID()}`;
    try {
      await pipeline(body, createWriteStream(part, { flags: 'wx' }));
      await rename(part, target);
    } catch (err) {
      await rm(part, { force: true });
      throw err;
    }
  }

  async get(key: string): Promise<Readable | null> {
    const file = this.pathOf(key);
    const found = await stat(file).catch(() => null);
    return found?.isFile() ? createReadStream(file) : null;
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) await rm(this.pathOf(key), { force: true });
  }
}
