import type { Environment } from '#packages/core/owner.js';
import { callProvider, ProviderCallFailed } from '../http.js';

/**
 * The HTTP side of Hub2's API: the shared provider call (packages/connectors/http.ts) with Hub2's
 * three headers on every call (`ApiKey`, `MerchantId`, `Environment`), JSON both ways. A refused
 * request carries Hub2's standardised error `{status, code, message, request_id}`.
 */
export class Hub2CallFailed extends ProviderCallFailed {
  /** Hub2's `code` of a 4xx or 5xx answer, when it gave one. */
  readonly hub2Code?: string;
  /** Hub2's `message`, when it gave one. */
  readonly hub2Message?: string;
  /** Hub2's `request_id`, which its support asks for. */
  readonly requestId?: string;

  constructor(failed: ProviderCallFailed) {
    super(failed.message, failed.sent, failed.httpStatus, failed.body);
    this.name = 'Hub2CallFailed';
    const body = typeof failed.body === 'object' && failed.body !== null ? (failed.body as Record<string, unknown>) : {};
    if (typeof body.code === 'string') this.hub2Code = body.code;
    if (typeof body.message === 'string') this.hub2Message = body.message;
    if (typeof body.request_id === 'string') this.requestId = body.request_id;
  }
}

export interface Hub2ClientOptions {
  /** HUB2_API_URL, https://api.hub2.io by default: one host for both environments. */
  baseUrl: string;
  apiKey: string;
  merchantId: string;
  environment: Environment;
  timeoutMs: number;
}

export class Hub2Client {
  private readonly base: URL;

  constructor(private readonly options: Hub2ClientOptions) {
    this.base = new URL(options.baseUrl);
  }

  /** A request that creates something (an intent, a payment, a transfer). The parsed body of a 2xx answer. */
  async post(path: string, body: unknown): Promise<unknown> {
    return this.call('POST', this.url(path), Buffer.from(JSON.stringify(body)));
  }

  /** A read. */
  async get(path: string, query: Record<string, string> = {}): Promise<unknown> {
    const url = this.url(path);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return this.call('GET', url);
  }

  /** `path` under the base URL, keeping a base path if it has one. */
  private url(path: string): URL {
    const base = this.base.href.endsWith('/') ? this.base.href : `${this.base.href}/`;
    return new URL(path.replace(/^\//, ''), base);
  }

  private async call(method: 'GET' | 'POST', url: URL, body?: Buffer): Promise<unknown> {
    const headers: Record<string, string> = {
      Accept: 'application/json',
      ApiKey: this.options.apiKey,
      MerchantId: this.options.merchantId,
      Environment: this.options.environment,
      ...(body ? { 'Content-Type': 'application/json' } : {}),
    };
    try {
      return await callProvider({ provider: 'Hub2', method, url, headers, ...(body ? { body } : {}), timeoutMs: this.options.timeoutMs, detailOf: detailOf });
    } catch (err) {
      throw err instanceof ProviderCallFailed ? new Hub2CallFailed(err) : err;
    }
  }
}

function detailOf(json: unknown): string | undefined {
  const body = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
  const parts = [body.code, body.message, typeof body.request_id === 'string' ? `request ${body.request_id}` : undefined].filter((p): p is string => typeof p === 'string' && p !== '');
  return parts.length > 0 ? parts.join(': ') : undefined;
}
