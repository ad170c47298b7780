/**
 * Assets through the real server, once with the disk store (a fresh DATA_DIR) and once with an
 * S3-compatible bucket (s3rver on loopback): declare, upload (signed URL and credential), complete
 * (size, SHA-256 and magic-number checks), download through a signed URL, URL expiry on the
 * manual clock, delete (bytes gone), tenant isolation, Idempotency-Key replay, and every refusal.
 */
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import t, { type Test } from '#tap';
import { DiskAssetStorage } from '#packages/families/assets/asset-storage-disk.js';
import { S3AssetStorage } from '#packages/families/assets/asset-storage-s3.js';
import type { AssetStorage } from '#packages/families/assets/storage.js';
import { assertError, assertOk } from '../../support/assertions.js';
import { startS3, S3_BUCKET, tempDataDir } from '../../support/s3.js';
import { startService, type TestService } from '../../support/system.js';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(200)]);
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(2 * 1024 * 1024)]);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const declare = (bytes: Buffer, extra: Record<string, unknown> = {}) => ({ name: 'logo.png', purpose: 'logo', contentType: 'image/png', size: bytes.length, sha256: sha256(bytes), ...extra });
/** The path and query of a signed URL (PUBLIC_URL is not the test server's address). */
const local = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

async function keysOf(svc: TestService, id: string): Promise<string[]> {
  const events = await svc.system.store.readStream(`asset-${id}`);
  return events.filter((e) => e.type === 'asset.uploaded').map((e) => (e.data as { key: string }).key);
}

async function stored(storage: AssetStorage, key: string): Promise<Buffer | null> {
  const body = await storage.get(key);
  if (!body) return null;
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

async function suite(t: Test, svc: TestService, storage: AssetStorage): Promise<void> {
  const { key } = await svc.sandboxMerchant();
  const other = await svc.sandboxMerchant('Other');
  const create = (body: unknown, headers: Record<string, string> = {}) => svc.request('POST', '/api/v1/assets', { key, body, headers });
  const put = (url: string, bytes: Buffer, withKey?: string) => svc.request('PUT', url, { ...(withKey ? { key: withKey } : {}), rawBody: bytes, headers: { 'content-type': 'application/octet-stream' } });

  t.test('declare, upload by signed URL, complete, download by signed URL', async (t) => {
    const created = await create(declare(PNG));
    assertOk(t, created, 201);
    t.match(created.body, { object: 'asset', name: 'logo.png', purpose: 'logo', contentType: 'image/png', size: PNG.length, sha256: sha256(PNG), status: 'pending', uploadedSize: null, livemode: false });
    t.match(created.body.id, /^[0-9a-f-]{36}$/);
    t.equal(created.body.uploadUrlExpiresAt, new Date(svc.clock.now().getTime() + 15 * 60_000).toISOString(), 'upload URL lasts 15 minutes');
    const id = created.body.id as string;

    const uploaded = await put(local(created.body.uploadUrl), PNG);
    assertOk(t, uploaded);
    t.match(uploaded.body, { id, status: 'uploaded', uploadedSize: PNG.length });
    const completed = await svc.request('POST', `/api/v1/assets/${id}/complete`, { key });
    assertOk(t, completed);
    t.match(completed.body, { id, status: 'ready', completedAt: svc.clock.now().toISOString() });
    t.equal((await svc.request('POST', `/api/v1/assets/${id}/complete`, { key })).body.status, 'ready', 'completing again answers the complete asset');

    const got = await svc.request('GET', `/api/v1/assets/${id}`, { key });
    assertOk(t, got);
    t.same(got.body, completed.body);
    const list = await svc.request('GET', '/api/v1/assets?purpose=logo&status=ready', { key });
    assertOk(t, list);
    t.ok(list.body.data.some((a: { id: string }) => a.id === id));

    const link = await svc.request('POST', `/api/v1/assets/${id}/download-url`, { key });
    assertOk(t, link);
    t.equal(link.body.expiresAt, new Date(svc.clock.now().getTime() + 5 * 60_000).toISOString(), 'download URL lasts 5 minutes');
    const res = await fetch(`${svc.baseUrl}${local(link.body.url)}`);
    t.equal(res.status, 200);
    t.equal(res.headers.get('content-type'), 'image/png');
    t.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="logo.png"/);
    t.ok(Buffer.from(await res.arrayBuffer()).equals(PNG), 'the bytes uploaded come back');
  });

  t.test('direct upload with a credential; a file over 1 MiB streams', async (t) => {
    const created = await create(declare(PDF, { name: 'statuts.pdf', purpose: 'onboarding_document', contentType: 'application/pdf' }));
    assertOk(t, created, 201);
    const id = created.body.id as string;
    assertOk(t, await put(`/api/v1/assets/${id}/content`, PDF, key));
    assertOk(t, await svc.request('POST', `/api/v1/assets/${id}/complete`, { key }));
    const [stored0] = await keysOf(svc, id);
    t.ok((await stored(storage, stored0!))?.equals(PDF), 'the store holds the bytes');
    assertError(t, await put(`/api/v1/assets/${id}/content`, PDF), 'IKW-AUT-001');
    const other = await create(declare(PNG));
    const gzipped = await svc.request('PUT', `/api/v1/assets/${other.body.id}/content`, { key, rawBody: PNG, headers: { 'content-encoding': 'gzip' } });
    assertError(t, gzipped, 'IKW-REQ-006');
    t.same(await keysOf(svc, other.body.id), [], 'an encoded upload is refused: the digest is of the file itself');
  });

  t.test('signed URLs expire on the clock and refuse a forged signature', async (t) => {
    const created = await create(declare(PNG));
    const url = local(created.body.uploadUrl);
    assertError(t, await put(url.replace(/signature=[0-9a-f]{4}/, 'signature=0000'), PNG), 'IKW-AST-008', 'signature');
    const expires = Number(new URL(created.body.uploadUrl).searchParams.get('expires'));
    assertError(t, await put(url.replace(`expires=${expires}`, `expires=${expires + 3600}`), PNG), 'IKW-AST-008', 'signature');
    svc.clock.advance(15 * 60_000 + 1000);
    assertError(t, await put(url, PNG), 'IKW-AST-008', 'expires');
    const fresh = await svc.request('POST', `/api/v1/assets/${created.body.id}/upload-url`, { key });
    assertOk(t, fresh);
    assertOk(t, await put(local(fresh.body.url), PNG));
    assertOk(t, await svc.request('POST', `/api/v1/assets/${created.body.id}/complete`, { key }));

    const link = await svc.request('POST', `/api/v1/assets/${created.body.id}/download-url`, { key });
    svc.clock.advance(5 * 60_000);
    t.equal((await fetch(`${svc.baseUrl}${local(link.body.url)}`)).status, 200, 'valid until its last second');
    svc.clock.advance(1000);
    assertError(t, await svc.request('GET', local(link.body.url)), 'IKW-AST-008', 'expires');
  });

  t.test('complete refuses bytes of another size, digest or type; a new upload mends it', async (t) => {
    const short = await create(declare(PNG));
    assertError(t, await svc.request('POST', `/api/v1/assets/${short.body.id}/complete`, { key }), 'IKW-AST-004', 'assetId');
    assertOk(t, await put(local(short.body.uploadUrl), PNG.subarray(0, 100)));
    assertError(t, await svc.request('POST', `/api/v1/assets/${short.body.id}/complete`, { key }), 'IKW-AST-005', 'size');
    t.equal((await svc.request('GET', `/api/v1/assets/${short.body.id}`, { key })).body.status, 'uploaded', 'still not usable');
    assertOk(t, await put(local(short.body.uploadUrl), PNG));
    assertOk(t, await svc.request('POST', `/api/v1/assets/${short.body.id}/complete`, { key }));
    assertError(t, await put(local(short.body.uploadUrl), PNG), 'IKW-AST-004', 'assetId');

    const tampered = Buffer.from(PNG);
    tampered[100] = tampered[100]! ^ 0xff;
    const wrongDigest = await create(declare(PNG));
    assertOk(t, await put(local(wrongDigest.body.uploadUrl), tampered));
    assertError(t, await svc.request('POST', `/api/v1/assets/${wrongDigest.body.id}/complete`, { key }), 'IKW-AST-006', 'sha256');

    // A PNG declared as a JPEG, with the size and digest of those very bytes: the magic number gives it away.
    const disguised = await create(declare(PNG, { contentType: 'image/jpeg', name: 'photo.jpg' }));
    assertOk(t, await put(local(disguised.body.uploadUrl), PNG));
    assertError(t, await svc.request('POST', `/api/v1/assets/${disguised.body.id}/complete`, { key }), 'IKW-AST-007', 'contentType');

    const oversized = await create(declare(PNG));
    assertError(t, await put(local(oversized.body.uploadUrl), Buffer.concat([PNG, Buffer.alloc(10)])), 'IKW-AST-003', 'size');
    t.same(await keysOf(svc, oversized.body.id), [], 'nothing recorded');
    assertError(t, await svc.request('POST', `/api/v1/assets/${disguised.body.id}/download-url`, { key }), 'IKW-AST-004', 'assetId');
  });

  t.test('parallel completes: one completion, every answer ready or a retryable conflict', async (t) => {
    const created = await create(declare(PNG));
    assertOk(t, await put(local(created.body.uploadUrl), PNG));
    const answers = await Promise.all(Array.from({ length: 10 }, () => svc.request('POST', `/api/v1/assets/${created.body.id}/complete`, { key })));
    for (const res of answers) {
      if (res.status === 200) t.equal(res.body.status, 'ready');
      else assertError(t, res, 'IKW-RES-003');
    }
    const events = await svc.system.store.readStream(`asset-${created.body.id}`);
    t.equal(events.filter((e) => e.type === 'asset.completed').length, 1, 'completed once');
  });

  t.test('declaration refusals', async (t) => {
    assertError(t, await create(declare(PNG, { contentType: 'image/svg+xml' })), 'IKW-AST-001', 'contentType');
    assertError(t, await create(declare(PNG, { purpose: 'invoice_attachment', contentType: 'image/gif' })), 'IKW-AST-001', 'contentType');
    assertError(t, await create(declare(PNG, { size: 25 * 1024 * 1024 + 1 })), 'IKW-AST-002', 'size');
    assertError(t, await create(declare(PNG, { sha256: 'abc' })), 'IKW-VAL-001', 'sha256');
    assertError(t, await create(declare(PNG, { size: 0 })), 'IKW-VAL-001', 'size');
    assertError(t, await create(declare(PNG, { purpose: 'avatar' })), 'IKW-VAL-001', 'purpose');
    assertError(t, await create({ ...declare(PNG), extra: 1 }), 'IKW-VAL-002', 'extra');
  });

  t.test("another merchant's asset is no such asset", async (t) => {
    const created = await create(declare(PNG));
    const id = created.body.id as string;
    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/complete'],
      ['POST', '/upload-url'],
      ['POST', '/download-url'],
    ] as const) {
      assertError(t, await svc.request(method, `/api/v1/assets/${id}${suffix}`, { key: other.key }), 'IKW-RES-001', 'assetId');
    }
    assertError(t, await put(`/api/v1/assets/${id}/content`, PNG, other.key), 'IKW-RES-001', 'assetId');
    const theirs = await svc.request('GET', '/api/v1/assets', { key: other.key });
    t.notOk(
      theirs.body.data.some((a: { id: string }) => a.id === id),
      'not in their list',
    );
    assertError(t, await svc.request('GET', `/api/v1/assets/${id}`, { key: other.merchant.api_keys.live }), 'IKW-RES-001', 'assetId');
  });

  t.test('an Idempotency-Key declares one asset', async (t) => {
    const headers = { 'Idempotency-Key': `asset-${randomBytes(4).toString('hex')}` };
    const first = await create(declare(PNG, { name: 'once.png' }), headers);
    const again = await create(declare(PNG, { name: 'once.png' }), headers);
    assertOk(t, again, 201);
    t.equal(again.headers.get('idempotent-replayed'), 'true');
    t.equal(again.text, first.text, 'replayed byte for byte');
    assertError(t, await create(declare(PNG, { name: 'other.png' }), headers), 'IKW-IDM-002');
    const list = await svc.request('GET', '/api/v1/assets?limit=100', { key });
    t.equal(list.body.data.filter((a: { name: string }) => a.name === 'once.png').length, 1);
  });

  t.test('delete removes the asset, its bytes and its URLs', async (t) => {
    const created = await create(declare(PNG));
    const id = created.body.id as string;
    assertOk(t, await put(local(created.body.uploadUrl), PNG));
    assertOk(t, await svc.request('POST', `/api/v1/assets/${id}/complete`, { key }));
    const link = await svc.request('POST', `/api/v1/assets/${id}/download-url`, { key });
    const [storedKey] = await keysOf(svc, id);
    const deleted = await svc.request('DELETE', `/api/v1/assets/${id}`, { key });
    assertOk(t, deleted);
    t.same(deleted.body, { id, object: 'asset', deleted: true });
    assertError(t, await svc.request('GET', `/api/v1/assets/${id}`, { key }), 'IKW-RES-001', 'assetId');
    assertError(t, await svc.request('DELETE', `/api/v1/assets/${id}`, { key }), 'IKW-RES-001', 'assetId');
    assertError(t, await svc.request('GET', local(link.body.url)), 'IKW-RES-001', 'assetId');
    t.ok(await stored(storage, storedKey!), 'the bytes stay until the purge job runs');
    await svc.system.drain();
    t.equal(await stored(storage, storedKey!), null, 'the bytes are gone');
  });

  t.test('a rebuild from the log gives the rows the live run gave', async (t) => {
    t.same(await svc.system.verifyProjections(['assets']), []);
  });
}

t.test('disk store', async (t) => {
  const dataDir = await tempDataDir(t);
  const svc = await startService(t, { env: { DATA_DIR: dataDir } });
  await suite(t, svc, new DiskAssetStorage(path.join(dataDir, 'assets')));
});

t.test('S3-compatible store (s3rver)', async (t) => {
  const s3 = await startS3(t);
  const dataDir = await tempDataDir(t);
  const svc = await startService(t, { env: { DATA_DIR: dataDir, ...s3.env } });
  const storage = new S3AssetStorage({ endpoint: s3.endpoint, region: 'us-east-1', bucket: S3_BUCKET, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true, spoolDir: dataDir });
  t.teardown(() => storage.close());
  await suite(t, svc, storage);
});

t.test('an unreachable bucket is a retryable 503, and nothing is recorded', async (t) => {
  const dataDir = await tempDataDir(t);
  const svc = await startService(t, { env: { DATA_DIR: dataDir, ASSETS_S3_BUCKET: S3_BUCKET, ASSETS_S3_ENDPOINT: 'http://127.0.0.1:9', ASSETS_S3_ACCESS_KEY_ID: 'k', ASSETS_S3_SECRET_ACCESS_KEY: 's' } });
  const { key } = await svc.sandboxMerchant();
  const created = await svc.request('POST', '/api/v1/assets', { key, body: declare(PNG) });
  assertError(t, await svc.request('PUT', `/api/v1/assets/${created.body.id}/content`, { key, rawBody: PNG }), 'IKW-AST-009');
  t.same(await keysOf(svc, created.body.id), []);
});
