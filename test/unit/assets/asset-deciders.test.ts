/**
 * The asset decider (declared → uploaded → ready; complete checks size, digest and magic number;
 * deleted is "no such asset") and the magic-number sniffer.
 */
import t from '#tap';
import { sniffContentType } from '#packages/families/assets/content-types.js';
import type { AssetCommand } from '#packages/families/assets/decider.js';
import { assetAggregate } from '#packages/families/assets/render.js';
import type { AssetCreated, AssetUploaded } from '#packages/families/assets/events.js';
import { spec } from '../../support/decider-spec.js';

const owner = { merchantId: 'acct_1', environment: 'sandbox' } as const;
const stranger = { merchantId: 'acct_2', environment: 'sandbox' } as const;
const T0 = new Date('2026-01-01T00:00:00Z');
const SHA = 'a'.repeat(64);
const asset: AssetCreated = { id: 'as_1', ...owner, name: 'logo.png', purpose: 'logo', contentType: 'image/png', size: 100, sha256: SHA, createdAt: T0.toISOString() };
const upload = (over: Partial<AssetUploaded> = {}): AssetUploaded => ({ key: 'k1', size: 100, sha256: SHA, detectedContentType: 'image/png', at: T0.toISOString(), ...over });
const assets = spec(assetAggregate);
const create: AssetCommand = { type: 'create', asset };
const complete: AssetCommand = { type: 'complete', owner, at: T0 };
const record = (u: AssetUploaded): AssetCommand => ({ type: 'record_upload', owner, upload: u });

t.test('asset: declared, uploaded, completed', async (t) => {
  const declared = assets.history(create);
  t.match(declared, [{ type: 'asset.created', data: { object: { status: 'pending', size: 100, uploadedSize: null } } }]);
  const uploaded = assets
    .given(declared)
    .when(record(upload()))
    .thenMatch(t, [{ type: 'asset.uploaded', data: { object: { status: 'uploaded', uploadedSize: 100 } } }]);
  const ready = assets
    .given(uploaded)
    .when(complete)
    .thenMatch(t, [{ type: 'asset.completed', data: { object: { status: 'ready', completedAt: T0.toISOString() } } }]);
  assets.given(ready).when(complete).thenNothing(t, 'completing twice changes nothing');
  assets.given(ready).when(record(upload())).thenThrows(t, { code: 'IKW-AST-004', param: 'assetId' });
  assets.given(declared).when(create).thenThrows(t, 'IKW-RES-003');
});

t.test('asset: complete refuses what does not match the declaration', async (t) => {
  const declared = assets.history(create);
  assets.given(declared).when(complete).thenThrows(t, { code: 'IKW-AST-004', param: 'assetId' }, 'nothing uploaded');
  assets
    .given(assets.history(create, record(upload({ size: 99 }))))
    .when(complete)
    .thenThrows(t, { code: 'IKW-AST-005', param: 'size' });
  assets
    .given(assets.history(create, record(upload({ sha256: 'b'.repeat(64) }))))
    .when(complete)
    .thenThrows(t, { code: 'IKW-AST-006', param: 'sha256' });
  assets
    .given(assets.history(create, record(upload({ detectedContentType: 'application/pdf' }))))
    .when(complete)
    .thenThrows(t, { code: 'IKW-AST-007', param: 'contentType' });
  assets
    .given(assets.history(create, record(upload({ detectedContentType: null }))))
    .when(complete)
    .thenThrows(t, { code: 'IKW-AST-007', message: /no known type/ });
  // A later upload replaces the one refused: its bytes are what complete checks.
  const mended = assets.history(create, record(upload({ size: 99, key: 'k1' })), record(upload({ key: 'k2' })));
  assets
    .given(mended)
    .when(complete)
    .thenState((state) => {
      t.equal(state.status, 'ready');
      t.same(state.keys, ['k1', 'k2'], 'every key kept, for deletion');
    });
});

t.test('asset: deleted or another merchant’s is no such asset', async (t) => {
  const uploaded = assets.history(create, record(upload({ key: 'k1' })));
  const deleted = assets
    .given(uploaded)
    .when({ type: 'delete', owner, at: T0 })
    .thenMatch(t, [{ type: 'asset.deleted', data: { keys: ['k1'] } }]);
  for (const command of [complete, record(upload()), { type: 'delete', owner, at: T0 } as AssetCommand]) {
    assets.given(deleted).when(command).thenThrows(t, { code: 'IKW-RES-001', param: 'assetId' });
  }
  assets.given(uploaded).when({ type: 'complete', owner: stranger, at: T0 }).thenThrows(t, { code: 'IKW-RES-001', param: 'assetId' });
  assets
    .given(uploaded)
    .when({ type: 'complete', owner: { ...owner, environment: 'live' }, at: T0 })
    .thenThrows(t, 'IKW-RES-001');
});

t.test('magic numbers', async (t) => {
  const hex = (s: string) => Buffer.from(s.replace(/ /g, ''), 'hex');
  t.equal(sniffContentType(hex('89504e470d0a1a0a 0000')), 'image/png');
  t.equal(sniffContentType(hex('ffd8ffe0 0010')), 'image/jpeg');
  t.equal(sniffContentType(Buffer.from('GIF89a....')), 'image/gif');
  t.equal(sniffContentType(Buffer.from('RIFF\x00\x00\x00\x00WEBPVP8 ', 'latin1')), 'image/webp');
  t.equal(sniffContentType(Buffer.from('RIFF\x00\x00\x00\x00WAVEfmt ', 'latin1')), null, 'a RIFF that is not WebP');
  t.equal(sniffContentType(Buffer.from('%PDF-1.7')), 'application/pdf');
  t.equal(sniffContentType(Buffer.from('<svg xmlns=')), null);
  t.equal(sniffContentType(hex('8950')), null, 'too short to tell');
});
