import type { Clock } from '../../core/clock.js';
import { signMessage, type DigestAlgorithm, type SigningKey } from './signatures.js';

/**
 * The HTTP side of pawaPay's Merchant API: global fetch, the bearer token, a timeout per call, and
 * the signature of financial requests when one is configured. A call that fails says whether its
 * request may have reached pawaPay: `sent: 'no'` when it provably did not (nothing connected, or
 * pawaPay refused it with a 4xx before taking it), `sent: 'maybe'` when it may have (a timeout, a
 * connection that broke after the request went out, a 5xx, an answer that cannot be read).
 */
export class PawapayCallFailed extends Error {
  constructor(
    message: string,
    readonly sent: 'no' | 'maybe',
    readonly httpStatus?: number,
    /** pawaPay's `failureReason.failureCode` of a 4xx or 5xx answer, when it gave one. */
    readonly failureCode?: string,
  ) {
    super(message);
    this.name = 'PawapayCallFailed';
  }
}

/** Errors of a connection that never opened: no byte of the request left. */
const NEVER_CONNECTED = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

export interface RequestSigning {
  key: SigningKey;
  digest?: DigestAlgorithm;
  /** How long a signature is valid for; pawaPay checks it on arrival. */
  expiresInSeconds?: number;
}

export interface PawapayClientOptions {
  /** https://api.sandbox.pawapay.io or https://api.pawapay.io. */
  baseUrl: string;
  apiToken: string;
  timeoutMs: number;
  clock: Clock;
  signing?: RequestSigning;
}

export class PawapayClient {
  private readonly base: URL;

  constructor(private readonly options: PawapayClientOptions) {
    this.base = new URL(options.baseUrl);
  }

  /** Whether financial requests go out signed. */
  get signs(): boolean {
    return this.options.signing !== undefined;
  }

  /** A financial request (deposit, payout, refund): signed when signing is configured. The parsed body of a 2xx answer. */
  async post(path: string, body: unknown): Promise<unknown> {
    const bytes = Buffer.from(JSON.stringify(body));
    const url = new URL(path, this.base);
    const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json', Authorization: `Bearer ${this.options.apiToken}` };
    const signing = this.options.signing;
    if (signing) {
      Object.assign(
        headers,
        signMessage({ method: 'POST', authority: url.host, path: url.pathname, headers }, bytes, signing.key, {
          created: this.options.clock.now(),
          expiresInSeconds: signing.expiresInSeconds ?? 60,
          ...(signing.digest ? { digest: signing.digest } : {}),
        }),
      );
    }
    return this.call('POST', url, headers, bytes);
  }

  /** A read (a status check, the configuration, the keys). Its failures are never about money. */
  async get(path: string, authenticated = true): Promise<unknown> {
    const headers: Record<string, string> = { Accept: 'application/json', ...(authenticated ? { Authorization: `Bearer ${this.options.apiToken}` } : {}) };
    return this.call('GET', new URL(path, this.base), headers);
  }

  private async call(method: string, url: URL, headers: Record<string, string>, body?: Buffer): Promise<unknown> {
    const what = `${method} ${url.pathname}`;
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, { method, headers, ...(body ? { body } : {}), signal, redirect: 'manual' });
      text = await response.text();
    } catch (err) {
      const code = errorCode(err);
      if (code && NEVER_CONNECTED.has(code)) throw new PawapayCallFailed(`${what}: pawaPay could not be reached (${code})`, 'no');
      const why = (err as Error).name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs} ms` : `the connection failed (${code ?? (err as Error).message})`;
      throw new PawapayCallFailed(`${what}: ${why}`, 'maybe');
    }
    const json = parseJson(text);
    const status = response.status;
    if (status >= 200 && status < 300) {
      if (json === undefined) throw new PawapayCallFailed(`${what}: answer ${status} is not JSON`, 'maybe', status);
      return json;
    }
    const failureCode = failureCodeOf(json);
    const detail = `${what}: HTTP ${status}${failureCode ? ` ${failureCode}` : ''}`;
    // A 4xx is pawaPay refusing the request as it came (token, signature, validation): nothing was taken.
    if (status >= 400 && status < 500) throw new PawapayCallFailed(detail, 'no', status, failureCode);
    throw new PawapayCallFailed(detail, 'maybe', status, failureCode);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function failureCodeOf(json: unknown): string | undefined {
  const reason = typeof json === 'object' && json !== null ? (json as { failureReason?: { failureCode?: unknown } }).failureReason : undefined;
  return typeof reason?.failureCode === 'string' ? reason.failureCode : undefined;
}

/** The system error code under fetch's "fetch failed" (undici nests it, sometimes in an AggregateError). */
function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const nested = (e as { errors?: unknown[] }).errors;
    if (Array.isArray(nested) && nested.length > 0) {
      const codes = nested.map(errorCode);
      // Every address refused: none connected.
      return codes.every((c) => c && NEVER_CONNECTED.has(c)) ? codes[0] : codes.find((c) => c && !NEVER_CONNECTED.has(c));
    }
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
