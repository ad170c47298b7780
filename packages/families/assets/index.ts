import path from 'node:path';
import { KeyedHasher } from '#packages/core/hashing.js';
import { Assets } from './commands.js';
import { assetPurge, assetPurgeConsumer } from './processes/asset-purge.js';
import { DiskAssetStorage } from './asset-storage-disk.js';
import { S3AssetStorage } from './asset-storage-s3.js';
import { defineFamily } from '#packages/families/family.js';
import { assetsReadSide } from './read/index.js';
import { assetErrors } from './errors.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    assets: Assets;
  }
}

/** Merchants' files, on the disk or in an S3-compatible bucket (docs/assets.md). */
export const assets = defineFamily({
  name: 'assets',
  readSide: assetsReadSide,
  needs: [],
  errors: assetErrors,
  processes: [assetPurge],
  build: ({ config, store, clock, secretsKey, atClose }) => {
    const storage = config.assetsS3 ? new S3AssetStorage({ ...config.assetsS3, spoolDir: path.join(config.dataDir, 'assets-spool') }) : new DiskAssetStorage(path.join(config.dataDir, 'assets'));
    if (storage instanceof S3AssetStorage) atClose(() => storage.close());
    return {
      assets: new Assets({
        store,
        clock,
        storage,
        signer: new KeyedHasher(secretsKey, 'sika:asset-urls:v1'),
        publicUrl: config.publicUrl,
        maxBytes: config.assetsMaxBytes,
      }),
    };
  },
  consumers: (_, { clock }) => [assetPurgeConsumer(clock)],
});

// What other families' routes and read models use of this family.
export type { Assets } from './commands.js';
