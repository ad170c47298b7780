import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { Test } from 'tap';

export const S3_BUCKET = 'sika-assets';

/** A real S3-compatible server (s3rver) on loopback with one bucket, and the ASSETS_S3_* settings that point at it. */
export async function startS3(t: Test): Promise<{ env: Record<string, string>; endpoint: string }> {
  const directory = await mkdtemp(path.join(tmpdir(), 'sika-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: [{ name: S3_BUCKET }] });
  const { port } = await server.run();
  t.teardown(async () => {
    await server.close();
    await rm(directory, { recursive: true, force: true });
  });
  const endpoint = `http://127.0.0.1:${port}`;
  // s3rver takes any key pair and checks the signature made with its own.
  return { endpoint, env: { ASSETS_S3_BUCKET: S3_BUCKET, ASSETS_S3_ENDPOINT: endpoint, ASSETS_S3_ACCESS_KEY_ID: 'S3RVER', ASSETS_S3_SECRET_ACCESS_KEY: 'S3RVER' } };
}

/** A fresh DATA_DIR for a service whose assets go to the disk. */
export async function tempDataDir(t: Test): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sika-data-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
