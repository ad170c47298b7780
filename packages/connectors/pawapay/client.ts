import type { Clock } from '#packages/core/clock.js';
import { callProvider, ProviderCallFailed } from '../http.js';
import { signMessage, type DigestAlgorithm, type SigningKey } from './signatures.js';

/**
 * The HTTP side of pawaPay's Merchant API: the shared provider call (packages/connectors/http.ts)
 * with the bearer token, and the signature of financial requests when one is configured.
 */
export class PawapayCallFailed extends ProviderCallFailed {
  /** pawaPay's `failureReason.failureCode` of a 4xx or 5xx answer, when it gave one. */
  readonly failureCode?: string;

  constructor(failed: ProviderCallFailed) {
    super(failed.message, failed.sent, failed.httpStatus, failed.body);
    this.name = 'PawapayCallFailed';
    const code = failureCodeOf(failed.body);
    if (code) this.failureCode = code;
  }
}

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

  private async call(method: 'GET' | 'POST', url: URL, headers: Record<string, string>, body?: Buffer): Promise<unknown> {
    try {
      return await callProvider({ provider: 'pawaPay', method, url, headers, ...(body ? { body } : {}), timeoutMs: this.options.timeoutMs, detailOf: failureCodeOf });
    } catch (err) {
      throw err instanceof ProviderCallFailed ? new PawapayCallFailed(err) : err;
    }
  }
}

function failureCodeOf(json: unknown): string | undefined {
  const reason = typeof json === 'object' && json !== null ? (json as { failureReason?: { failureCode?: unknown } }).failureReason : undefined;
  return typeof reason?.failureCode === 'string' ? reason.failureCode : undefined;
}
