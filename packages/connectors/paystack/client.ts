import { callProvider, ProviderCallFailed } from '../http.js';

/**
 * The HTTP side of Paystack's API: the shared provider call (packages/connectors/http.ts) with the
 * secret key as bearer, JSON both ways. Paystack wraps every answer in `{status, message, data}`;
 * a 4xx carries `{status: false, message, meta: {nextStep}, type, code}`.
 */
export class PaystackCallFailed extends ProviderCallFailed {
  /** Paystack's `message` of a refused request, when it gave one (its error catalogue is by message). */
  readonly paystackMessage?: string;

  constructor(failed: ProviderCallFailed) {
    super(failed.message, failed.sent, failed.httpStatus, failed.body);
    this.name = 'PaystackCallFailed';
    const message = messageOf(failed.body);
    if (message) this.paystackMessage = message;
  }
}

/** An answer Paystack sent with `status: true`: its message and data. */
export interface PaystackAnswer {
  message: string;
  data: unknown;
}

export interface PaystackClientOptions {
  /** https://api.paystack.co for both modes: the key decides. */
  baseUrl: string;
  secretKey: string;
  timeoutMs: number;
}

export class PaystackClient {
  private readonly base: URL;

  constructor(private readonly options: PaystackClientOptions) {
    this.base = new URL(options.baseUrl);
  }

  /** A request that may move money or create something (a transfer, a recipient, a charge). */
  async post(path: string, body: unknown): Promise<PaystackAnswer> {
    return this.call('POST', new URL(path, this.base), Buffer.from(JSON.stringify(body)));
  }

  /** A change of something Paystack keeps (a dispute's resolution). */
  async put(path: string, body: unknown): Promise<PaystackAnswer> {
    return this.call('PUT', new URL(path, this.base), Buffer.from(JSON.stringify(body)));
  }

  /** A read (a verification, the bank list, a name check). */
  async get(path: string, query: Record<string, string> = {}): Promise<PaystackAnswer> {
    const url = new URL(path, this.base);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    return this.call('GET', url);
  }

  /**
   * The bytes of a file PUT to a signed URL Paystack gave (a storage bucket's): the signature is
   * in the URL, so no key goes with them, and the answer is the bucket's, not Paystack's JSON.
   */
  async upload(signedUrl: string, bytes: Buffer, contentType: string): Promise<void> {
    const url = new URL(signedUrl);
    let response: Response;
    try {
      response = await fetch(url, { method: 'PUT', headers: { 'Content-Type': contentType }, body: bytes, signal: AbortSignal.timeout(this.options.timeoutMs), redirect: 'manual' });
      await response.arrayBuffer();
    } catch (err) {
      throw new PaystackCallFailed(new ProviderCallFailed(`PUT ${url.pathname}: the upload failed (${(err as Error).message})`, 'maybe'));
    }
    if (response.status < 200 || response.status >= 300) throw new PaystackCallFailed(new ProviderCallFailed(`PUT ${url.pathname}: the upload was refused (HTTP ${response.status})`, 'no', response.status));
  }

  private async call(method: 'GET' | 'POST' | 'PUT', url: URL, body?: Buffer): Promise<PaystackAnswer> {
    const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Bearer ${this.options.secretKey}`, ...(body ? { 'Content-Type': 'application/json' } : {}) };
    let json: unknown;
    try {
      json = await callProvider({ provider: 'Paystack', method, url, headers, ...(body ? { body } : {}), timeoutMs: this.options.timeoutMs, detailOf: messageOf });
    } catch (err) {
      throw err instanceof ProviderCallFailed ? new PaystackCallFailed(err) : err;
    }
    const answer = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
    // A 2xx without `status: true` says nothing certain: whoever sent it, the caller treats it as no answer.
    if (answer.status !== true) throw new PaystackCallFailed(new ProviderCallFailed(`${method} ${url.pathname}: an answer without status true (${messageOf(json) ?? 'no message'})`, 'maybe', 200, json));
    return { message: typeof answer.message === 'string' ? answer.message : '', data: answer.data };
  }
}

function messageOf(json: unknown): string | undefined {
  const message = typeof json === 'object' && json !== null ? (json as { message?: unknown }).message : undefined;
  return typeof message === 'string' && message.trim() ? message.trim() : undefined;
}
