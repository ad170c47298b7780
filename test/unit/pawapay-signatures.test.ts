/**
 * RFC 9421/9530 signatures as pawaPay uses them (packages/connectors/pawapay/signatures.ts):
 * sign then verify, ECDSA in raw r‖s and in DER, a tampered body, an expired or future signature,
 * an unknown key, a signature that does not cover the digest; and RFC 9421's own ECDSA example.
 */
import { generateKeyPairSync, createPublicKey, type KeyObject } from 'node:crypto';
import t from '#tap';
import { checkContentDigest, contentDigest, signMessage, verifyMessage, PAWAPAY_COMPONENTS, type HttpMessage, type SignatureAlgorithm } from '#packages/connectors/pawapay/signatures.js';

const NOW = new Date('2026-03-01T10:00:00Z');
const body = Buffer.from(JSON.stringify({ depositId: 'f4b6c1de-2a35-4c8e-9a6b-0f1e2d3c4b5a', status: 'COMPLETED', amount: '1000', currency: 'XOF' }));
const request: HttpMessage = { method: 'POST', authority: 'sika.example', path: '/connectors/pawapay/deposits', headers: { 'Content-Type': 'application/json' } };
const window = { now: NOW, maxAgeSeconds: 300, clockSkewSeconds: 30, required: ['content-digest'] };

function keyPair(algorithm: SignatureAlgorithm): { privateKey: KeyObject; publicKey: KeyObject } {
  if (algorithm === 'ecdsa-p256-sha256') return generateKeyPairSync('ec', { namedCurve: 'P-256' });
  if (algorithm === 'ecdsa-p384-sha384') return generateKeyPairSync('ec', { namedCurve: 'P-384' });
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

function signed(algorithm: SignatureAlgorithm, keyId: string, privateKey: KeyObject, options: { ecdsaEncoding?: 'raw' | 'der'; created?: Date; digest?: 'sha-256' | 'sha-512' } = {}) {
  const added = signMessage(
    request,
    body,
    { keyId, privateKey, algorithm, ...(options.ecdsaEncoding ? { ecdsaEncoding: options.ecdsaEncoding } : {}) },
    {
      created: options.created ?? NOW,
      expiresInSeconds: 60,
      ...(options.digest ? { digest: options.digest } : {}),
    },
  );
  return { ...request, headers: { ...request.headers, ...added } };
}

const lookup = (keys: Record<string, KeyObject>) => async (id: string) => keys[id];

t.test('sign then verify, for each algorithm pawaPay accepts; ECDSA raw and DER', async (t) => {
  for (const algorithm of ['ecdsa-p256-sha256', 'ecdsa-p384-sha384', 'rsa-v1_5-sha256', 'rsa-pss-sha512'] as const) {
    const { privateKey, publicKey } = keyPair(algorithm);
    for (const ecdsaEncoding of algorithm.startsWith('ecdsa') ? (['raw', 'der'] as const) : ([undefined] as const)) {
      const message = signed(algorithm, 'HTTP_KEY:1', privateKey, ecdsaEncoding ? { ecdsaEncoding } : {});
      t.same(await verifyMessage(message, body, lookup({ 'HTTP_KEY:1': publicKey }), window), { ok: true, keyId: 'HTTP_KEY:1' }, `${algorithm} ${ecdsaEncoding ?? ''}`);
    }
  }
});

t.test('what a signed request carries: pawaPay components, sig-pp, raw ECDSA by default', async (t) => {
  const { privateKey } = keyPair('ecdsa-p256-sha256');
  const message = signed('ecdsa-p256-sha256', 'CUSTOMER_KEY', privateKey);
  const h = message.headers as Record<string, string>;
  t.match(h['Content-Digest'], /^sha-512=:[A-Za-z0-9+/]+=*:$/);
  t.equal(h['Signature-Date'], '2026-03-01T10:00:00.000Z');
  t.equal(h['Signature-Input'], `sig-pp=(${PAWAPAY_COMPONENTS.map((c) => `"${c}"`).join(' ')});alg="ecdsa-p256-sha256";keyid="CUSTOMER_KEY";created=${NOW.getTime() / 1000};expires=${NOW.getTime() / 1000 + 60}`);
  const raw = Buffer.from(/^sig-pp=:(.*):$/.exec(h.Signature!)![1]!, 'base64');
  t.equal(raw.length, 64, 'r‖s, 64 bytes for P-256');
  t.equal(checkContentDigest(contentDigest(body, 'sha-256'), body), 'match');
});

t.test('refused: a tampered body, another key, an unknown key id, expired, future, digest not covered, unsigned', async (t) => {
  const { privateKey, publicKey } = keyPair('ecdsa-p256-sha256');
  const other = keyPair('ecdsa-p256-sha256');
  const keys = lookup({ K1: publicKey });
  const good = signed('ecdsa-p256-sha256', 'K1', privateKey, { ecdsaEncoding: 'der' });
  t.match(await verifyMessage(good, Buffer.from(body.toString().replace('1000', '9000')), keys, window), { ok: false, failure: 'digest_mismatch' });
  // The body and its digest both changed: the signature over the digest no longer verifies.
  const tampered = Buffer.from(body.toString().replace('1000', '9000'));
  t.match(await verifyMessage({ ...good, headers: { ...good.headers, 'Content-Digest': contentDigest(tampered) } }, tampered, keys, window), { ok: false, failure: 'bad_signature' });
  t.match(await verifyMessage(signed('ecdsa-p256-sha256', 'K1', other.privateKey), body, keys, window), { ok: false, failure: 'bad_signature' }, 'forged with another key');
  t.match(await verifyMessage(signed('ecdsa-p256-sha256', 'K2', privateKey), body, keys, window), { ok: false, failure: 'unknown_key' });
  t.match(await verifyMessage(signed('ecdsa-p256-sha256', 'K1', privateKey, { created: new Date(NOW.getTime() - 301_000) }), body, keys, window), { ok: false, failure: 'expired' });
  t.match(await verifyMessage(signed('ecdsa-p256-sha256', 'K1', privateKey, { created: new Date(NOW.getTime() + 31_000) }), body, keys, window), { ok: false, failure: 'expired' });
  t.match(await verifyMessage(good, body, keys, { ...window, now: new Date(NOW.getTime() + 91_000) }), { ok: false, failure: 'expired' }, 'past its own expires');
  t.match(await verifyMessage({ ...good, path: '/connectors/pawapay/payouts' }, body, keys, window), { ok: false, failure: 'bad_signature' }, 'replayed to another path');
  t.match(await verifyMessage(request, body, keys, window), { ok: false, failure: 'unsigned' });
  t.match(await verifyMessage({ ...good, headers: { ...good.headers, Signature: 'garbage(' } }, body, keys, window), { ok: false, failure: 'malformed' });
  const narrow = signMessage(request, body, { keyId: 'K1', privateKey, algorithm: 'ecdsa-p256-sha256' }, { created: NOW, expiresInSeconds: 60, components: ['@method', '@path'] });
  t.match(await verifyMessage({ ...request, headers: { ...request.headers, ...narrow } }, body, keys, window), { ok: false, failure: 'not_covered' });
  t.match(await verifyMessage(signed('ecdsa-p256-sha256', 'K1', privateKey, { digest: 'sha-256' }), body, keys, window), { ok: true }, 'sha-256 digests too');
  // pawaPay's callbacks: the request, its date and its body covered; expires given; Signature-Date in the window.
  const callback = { ...window, required: ['@method', '@authority', '@path', 'signature-date', 'content-digest'], requireExpires: true };
  t.match(await verifyMessage(good, body, keys, callback), { ok: true }, 'pawaPay’s components, with expires');
  t.match(await verifyMessage({ ...request, headers: { ...request.headers, ...narrow } }, body, keys, callback), { ok: false, failure: 'not_covered', detail: 'the signature does not cover @authority, signature-date, content-digest' });
  const input = (good.headers as Record<string, string>)['Signature-Input']!;
  const noExpires = { ...good, headers: { ...good.headers, 'Signature-Input': input.replace(/;expires=\d+/, '') } };
  t.match(await verifyMessage(noExpires, body, keys, callback), { ok: false, failure: 'malformed', detail: /no expires/ }, 'no expires where it is required');
  t.match(await verifyMessage(noExpires, body, keys, window), { ok: false, failure: 'bad_signature' }, 'where it is not, the window alone (then the signature, which covered it, fails)');
  const backwards = { ...good, headers: { ...good.headers, 'Signature-Input': input.replace(/;expires=\d+/, `;expires=${NOW.getTime() / 1000 - 1}`) } };
  t.match(await verifyMessage(backwards, body, keys, window), { ok: false, failure: 'malformed', detail: /no expires time after its created time/ }, 'expires before created');
  const dated = (value: string) => ({ ...good, headers: { ...good.headers, 'Signature-Date': value } });
  t.match(await verifyMessage(dated('yesterday'), body, keys, window), { ok: false, failure: 'malformed', detail: /Signature-Date is not a timestamp/ });
  t.match(await verifyMessage(dated(new Date(NOW.getTime() - 301_000).toISOString()), body, keys, window), { ok: false, failure: 'expired', detail: /Signature-Date is 301 s ago/ });
  t.match(await verifyMessage(dated(new Date(NOW.getTime() + 31_000).toISOString()), body, keys, window), { ok: false, failure: 'expired', detail: /Signature-Date is in the future/ });
  t.equal(checkContentDigest('md5=:AAAA:', body), 'malformed', 'no known algorithm');
  t.equal(checkContentDigest(undefined, body), 'missing');
});

t.test("RFC 9421 B.2.4: the RFC's own ecdsa-p256-sha256 example verifies (a DER-free, raw r‖s signature)", async (t) => {
  // test-key-ecc-p256 (RFC 9421 B.1.3), public part, and the signed response of B.2.4.
  const publicKey = createPublicKey(['-----BEGIN PUBLIC KEY-----', 'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEqIVYZVLCrPZHGHjP17CTW0/+D9Lf', 'w0EkjqF7xB4FivAxzic30tMM4GF+hR6Dxh71Z50VGGdldkkDXZCnTNnoXQ==', '-----END PUBLIC KEY-----'].join('\n'));
  const response: HttpMessage = {
    method: 'POST',
    authority: 'example.com',
    path: '/foo',
    status: 200,
    headers: {
      'Content-Type': 'application/json',
      'Content-Digest': 'sha-512=:mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==:',
      'Content-Length': '23',
      'Signature-Input': 'sig-b24=("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"',
      Signature: 'sig-b24=:wNmSUAhwb5LxtOtOpNa6W5xj067m5hFrj0XQ4fvpaCLx0NKocgPquLgyahnzDnDAUy5eCdlYUEkLIj+32oiasw==:',
    },
  };
  const rfcBody = Buffer.from('{"message": "good dog"}');
  const at = { ...window, now: new Date(1618884473_000) };
  t.same(await verifyMessage(response, rfcBody, lookup({ 'test-key-ecc-p256': publicKey }), at), { ok: true, keyId: 'test-key-ecc-p256' });
  t.match(await verifyMessage({ ...response, status: 201 }, rfcBody, lookup({ 'test-key-ecc-p256': publicKey }), at), { ok: false, failure: 'bad_signature' });
});
