import { createHash, sign, timingSafeEqual, verify, constants, type KeyObject } from 'node:crypto';
import { parseDictionary, serializeDictionary, serializeInnerList, Token, type BareItem, type InnerList, type Parameters } from 'structured-headers';

/**
 * HTTP message signatures as pawaPay uses them: RFC 9421 signatures over a signature base, RFC
 * 9530 `Content-Digest` over the exact body bytes, and pawaPay's own `Signature-Date` header (an
 * ISO timestamp, covered by the signature). Sika signs its financial requests when pawaPay asks
 * for signed requests, and verifies pawaPay's signed callbacks. Structured fields (Signature-Input,
 * Signature, Content-Digest) are parsed and written with `structured-headers`.
 *
 * ECDSA signatures are raw r‖s as RFC 9421 says, but pawaPay's own samples write ASN.1 DER:
 * verification accepts both, signing writes raw unless told otherwise.
 */

export type SignatureAlgorithm = 'ecdsa-p256-sha256' | 'ecdsa-p384-sha384' | 'rsa-v1_5-sha256' | 'rsa-pss-sha512';
export type DigestAlgorithm = 'sha-256' | 'sha-512';

interface AlgorithmSpec {
  hash: string;
  /** Key types (`KeyObject.asymmetricKeyType`) and, for EC, the curve. */
  keyTypes: readonly string[];
  curve?: string;
  /** Length of a raw r‖s ECDSA signature. */
  rawLength?: number;
  /** RSA padding and PSS salt length. */
  padding?: number;
  saltLength?: number;
}

const ALGORITHMS: Record<SignatureAlgorithm, AlgorithmSpec> = {
  'ecdsa-p256-sha256': { hash: 'sha256', keyTypes: ['ec'], curve: 'prime256v1', rawLength: 64 },
  'ecdsa-p384-sha384': { hash: 'sha384', keyTypes: ['ec'], curve: 'secp384r1', rawLength: 96 },
  'rsa-v1_5-sha256': { hash: 'sha256', keyTypes: ['rsa'], padding: constants.RSA_PKCS1_PADDING },
  'rsa-pss-sha512': { hash: 'sha512', keyTypes: ['rsa', 'rsa-pss'], padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 },
};

const DIGESTS: Record<DigestAlgorithm, string> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };

/** What pawaPay's signatures cover, in its order. */
export const PAWAPAY_COMPONENTS = ['@method', '@authority', '@path', 'signature-date', 'content-digest', 'content-type'] as const;

/**
 * What a callback's signature must cover for Sika to believe it: the request itself (method,
 * host, path), when it was signed, and the body. A signature over the digest alone could be
 * replayed to another URL or with a made-up Signature-Date.
 */
export const PAWAPAY_CALLBACK_COVERAGE = ['@method', '@authority', '@path', 'signature-date', 'content-digest'] as const;

/** The label pawaPay's signatures carry in Signature-Input and Signature. */
export const PAWAPAY_LABEL = 'sig-pp';

/** An HTTP message as a signature sees it. Header names in any case; a header given several times is a list. */
export interface HttpMessage {
  method: string;
  /** host[:port] the request was addressed to (default ports omitted). */
  authority: string;
  /** The absolute path, without the query. */
  path: string;
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** A response's status code (`@status`). */
  status?: number;
}

/** `sha-512=:…:` (or sha-256) over the exact bytes of `body`. */
export function contentDigest(body: Uint8Array, algorithm: DigestAlgorithm = 'sha-512'): string {
  return serializeDictionary({ [algorithm]: createHash(DIGESTS[algorithm]).update(body).digest() });
}

/**
 * Whether a Content-Digest header matches `body`: every digest of an algorithm known here must
 * match, and there must be at least one.
 */
export function checkContentDigest(header: string | undefined, body: Uint8Array): 'match' | 'mismatch' | 'missing' | 'malformed' {
  if (header === undefined || header.trim() === '') return 'missing';
  let digests;
  try {
    digests = parseDictionary(header);
  } catch {
    return 'malformed';
  }
  let known = 0;
  for (const [name, member] of digests) {
    if (!Object.hasOwn(DIGESTS, name)) continue;
    const value = member[0];
    if (!(value instanceof ArrayBuffer)) return 'malformed';
    known++;
    const actual = createHash(DIGESTS[name as DigestAlgorithm])
      .update(body)
      .digest();
    const given = Buffer.from(value);
    if (given.length !== actual.length || !timingSafeEqual(given, actual)) return 'mismatch';
  }
  return known > 0 ? 'match' : 'malformed';
}

/** How Sika signs: its key (its public part is uploaded in pawaPay's dashboard) and the key id pawaPay knows it by. */
export interface SigningKey {
  keyId: string;
  privateKey: KeyObject;
  algorithm: SignatureAlgorithm;
  /** ECDSA only: raw r‖s (RFC 9421, the default) or ASN.1 DER (what pawaPay's samples write). */
  ecdsaEncoding?: 'raw' | 'der';
}

export interface SignOptions {
  created: Date;
  /** Seconds the signature is valid for after `created`. */
  expiresInSeconds: number;
  digest?: DigestAlgorithm;
  components?: readonly string[];
  label?: string;
}

/**
 * The headers that sign `message` with `body`: Content-Digest and Signature-Date first (both are
 * covered), then Signature-Input and Signature. `message.headers` must hold the other covered
 * headers (Content-Type).
 */
export function signMessage(message: HttpMessage, body: Uint8Array, key: SigningKey, options: SignOptions): Record<string, string> {
  const spec = ALGORITHMS[key.algorithm];
  assertKeyFits(key.privateKey, spec, key.algorithm);
  const created = Math.floor(options.created.getTime() / 1000);
  const added = { 'Content-Digest': contentDigest(body, options.digest), 'Signature-Date': options.created.toISOString() };
  const signed: HttpMessage = { ...message, headers: { ...message.headers, ...added } };
  const components = options.components ?? PAWAPAY_COMPONENTS;
  const params: Parameters = new Map<string, BareItem>([
    ['alg', key.algorithm],
    ['keyid', key.keyId],
    ['created', created],
    ['expires', created + options.expiresInSeconds],
  ]);
  const input: InnerList = [components.map((c) => [c, new Map()]), params];
  const base = signatureBase(signed, components, serializeInnerList(input));
  const signature = sign(spec.hash, Buffer.from(base), {
    key: key.privateKey,
    ...(spec.rawLength ? { dsaEncoding: key.ecdsaEncoding === 'der' ? ('der' as const) : ('ieee-p1363' as const) } : {}),
    ...(spec.padding !== undefined ? { padding: spec.padding } : {}),
    ...(spec.saltLength !== undefined ? { saltLength: spec.saltLength } : {}),
  });
  const label = options.label ?? PAWAPAY_LABEL;
  return { ...added, 'Signature-Input': serializeDictionary(new Map([[label, input]])), Signature: serializeDictionary({ [label]: signature }) };
}

export type VerificationFailure =
  /** No Signature or Signature-Input. */
  | 'unsigned'
  /** Headers that are not the structured fields they must be, components that cannot be resolved. */
  | 'malformed'
  /** The signature does not cover what must be covered (VerifyOptions.required). */
  | 'not_covered'
  /** Created (or Signature-Date) too long ago or in the future, or expired. */
  | 'expired'
  | 'digest_mismatch'
  | 'unknown_key'
  | 'bad_signature';

export type Verification = { ok: true; keyId: string } | { ok: false; failure: VerificationFailure; detail: string };

export interface VerifyOptions {
  now: Date;
  /** How old `created` may be: the window is Sika's, whatever `expires` says. */
  maxAgeSeconds: number;
  /** Tolerated clock difference with the signer, both ways. */
  clockSkewSeconds: number;
  /** Components the signature must cover. */
  required: readonly string[];
  /** Whether `expires` must be given (pawaPay always gives it; RFC 9421 makes it optional). */
  requireExpires?: boolean;
  /** The label to verify; the first signature when absent. */
  label?: string;
}

/** The public key of a key id; undefined when the signer has no such key. */
export type KeyLookup = (keyId: string) => Promise<KeyObject | undefined>;

/**
 * Verifies the signature of `message` with `body`, by fixed steps: the headers parse, the
 * required components are covered, `created` (and a covered Signature-Date) is within the window
 * and `expires` not passed, the Content-Digest matches the body, the key id is known, the
 * signature verifies over the signature base.
 */
export async function verifyMessage(message: HttpMessage, body: Uint8Array, keys: KeyLookup, options: VerifyOptions): Promise<Verification> {
  const fail = (failure: VerificationFailure, detail: string): Verification => ({ ok: false, failure, detail });
  const headers = lowerCased(message.headers);
  const inputHeader = headers.get('signature-input');
  const signatureHeader = headers.get('signature');
  if (!inputHeader || !signatureHeader) return fail('unsigned', 'no Signature or Signature-Input header');
  let inputs, signatures;
  try {
    inputs = parseDictionary(inputHeader.join(', '));
    signatures = parseDictionary(signatureHeader.join(', '));
  } catch (err) {
    return fail('malformed', `Signature or Signature-Input is not a structured dictionary: ${(err as Error).message}`);
  }
  const label = options.label !== undefined && inputs.has(options.label) ? options.label : [...inputs.keys()][0];
  const input = label === undefined ? undefined : inputs.get(label);
  const signatureItem = label === undefined ? undefined : signatures.get(label);
  if (!input || !Array.isArray(input[0])) return fail('malformed', `Signature-Input has no signature ${label ?? ''}`.trim());
  if (!signatureItem || !(signatureItem[0] instanceof ArrayBuffer)) return fail('malformed', `Signature has no byte sequence for ${label}`);
  const components: string[] = [];
  for (const [name, params] of input[0] as InnerList[0]) {
    if (typeof name !== 'string' || params.size > 0) return fail('malformed', 'covered components must be plain names');
    components.push(name);
  }
  const missing = options.required.filter((c) => !components.includes(c));
  if (missing.length > 0) return fail('not_covered', `the signature does not cover ${missing.join(', ')}`);

  const params = input[1];
  const created = params.get('created');
  const expires = params.get('expires');
  const keyId = params.get('keyid');
  const alg = params.get('alg');
  if (typeof created !== 'number' || !Number.isInteger(created)) return fail('malformed', 'the signature has no created time');
  if (expires === undefined ? options.requireExpires : typeof expires !== 'number' || !Number.isInteger(expires) || expires < created) return fail('malformed', 'the signature has no expires time after its created time');
  if (typeof keyId !== 'string' && !(keyId instanceof Token)) return fail('malformed', 'the signature has no keyid');
  if (alg !== undefined && !(typeof alg === 'string' && Object.hasOwn(ALGORITHMS, alg))) return fail('malformed', `unsupported algorithm ${String(alg)}`);
  const now = options.now.getTime() / 1000;
  const outOfWindow = (at: number, what: string): Verification | undefined => {
    if (at > now + options.clockSkewSeconds) return fail('expired', `${what} is in the future`);
    if (now - at > options.maxAgeSeconds) return fail('expired', `${what} is ${Math.round(now - at)} s ago`);
    return undefined;
  };
  const early = outOfWindow(created, 'the signature’s created time');
  if (early) return early;
  // `expires` may only shorten the window (pawaPay's Java sample writes it in milliseconds).
  if (expires !== undefined && expires + options.clockSkewSeconds < now) return fail('expired', 'the signature has expired');
  if (components.includes('signature-date')) {
    // pawaPay's own timestamp, covered by the signature: it must be a time, and in the same window.
    const dated = Date.parse(headers.get('signature-date')?.join(', ') ?? '');
    if (Number.isNaN(dated)) return fail('malformed', 'Signature-Date is not a timestamp');
    const stale = outOfWindow(dated / 1000, 'Signature-Date');
    if (stale) return stale;
  }

  const digest = checkContentDigest(headers.get('content-digest')?.join(', '), body);
  if (digest !== 'match') return fail('digest_mismatch', `Content-Digest ${digest === 'mismatch' ? 'does not match the body' : `is ${digest}`}`);

  const key = await keys(keyId.toString());
  if (!key) return fail('unknown_key', `no public key ${keyId.toString()}`);
  const algorithm = (alg as SignatureAlgorithm | undefined) ?? algorithmOfKey(key);
  if (!algorithm) return fail('bad_signature', `cannot tell the algorithm of key ${keyId.toString()}`);
  const spec = ALGORITHMS[algorithm];
  try {
    assertKeyFits(key, spec, algorithm);
  } catch (err) {
    return fail('bad_signature', (err as Error).message);
  }
  let base;
  try {
    base = Buffer.from(signatureBase(message, components, serializeInnerList(input as InnerList)));
  } catch (err) {
    return fail('malformed', (err as Error).message);
  }
  const signature = Buffer.from(signatureItem[0]);
  const verifies = (dsaEncoding?: 'der' | 'ieee-p1363') => {
    try {
      return verify(spec.hash, base, { key, ...(dsaEncoding ? { dsaEncoding } : {}), ...(spec.padding !== undefined ? { padding: spec.padding } : {}), ...(spec.saltLength !== undefined ? { saltLength: spec.saltLength } : {}) }, signature);
    } catch {
      return false;
    }
  };
  const valid = spec.rawLength ? (signature.length === spec.rawLength && verifies('ieee-p1363')) || verifies('der') : verifies();
  return valid ? { ok: true, keyId: keyId.toString() } : fail('bad_signature', 'the signature does not verify');
}

/** RFC 9421's signature base: one line per covered component, then `@signature-params`. */
export function signatureBase(message: HttpMessage, components: readonly string[], signatureParams: string): string {
  const headers = lowerCased(message.headers);
  const lines = components.map((name) => `"${name}": ${componentValue(name, message, headers)}`);
  lines.push(`"@signature-params": ${signatureParams}`);
  return lines.join('\n');
}

function componentValue(name: string, message: HttpMessage, headers: Map<string, string[]>): string {
  switch (name) {
    case '@method':
      return message.method.toUpperCase();
    case '@authority':
      return message.authority.toLowerCase();
    case '@path':
      return message.path || '/';
    case '@status':
      if (message.status === undefined) throw new Error('@status is covered but the message is not a response');
      return String(message.status);
  }
  if (name.startsWith('@')) throw new Error(`derived component ${name} is not supported`);
  const values = headers.get(name);
  if (!values) throw new Error(`covered header ${name} is missing`);
  return values.join(', ');
}

/** Header values by lower-case name, each trimmed (RFC 9421 §2.1). */
function lowerCased(headers: HttpMessage['headers']): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const list = (typeof value === 'string' ? [value] : [...value]).map((v) => v.trim().replace(/\s*\r?\n\s*/g, ' '));
    out.set(name.toLowerCase(), [...(out.get(name.toLowerCase()) ?? []), ...list]);
  }
  return out;
}

function algorithmOfKey(key: KeyObject): SignatureAlgorithm | undefined {
  if (key.asymmetricKeyType === 'ec') return key.asymmetricKeyDetails?.namedCurve === 'secp384r1' ? 'ecdsa-p384-sha384' : 'ecdsa-p256-sha256';
  if (key.asymmetricKeyType === 'rsa-pss') return 'rsa-pss-sha512';
  return undefined;
}

function assertKeyFits(key: KeyObject, spec: AlgorithmSpec, algorithm: SignatureAlgorithm): void {
  if (!spec.keyTypes.includes(key.asymmetricKeyType ?? '') || (spec.curve && key.asymmetricKeyDetails?.namedCurve !== spec.curve)) {
    throw new Error(`a ${key.asymmetricKeyType ?? 'symmetric'} key cannot make ${algorithm} signatures`);
  }
}
