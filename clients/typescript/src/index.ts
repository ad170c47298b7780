import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { Webhook } from 'standardwebhooks';
import type { components, paths as documented } from './schema.js';

/**
 * The API's operations, with the headers this client sends itself (X-Environment, Idempotency-Key)
 * optional wherever the document requires them.
 */
type Relaxed<Operation> = Operation extends { parameters: infer Params extends { header?: unknown } }
  ? Omit<Operation, 'parameters'> & { parameters: Omit<Params, 'header'> & { header?: Partial<NonNullable<Params['header']>> } }
  : Operation;
export type paths = { [Path in keyof documented]: { [Method in keyof documented[Path]]: Relaxed<documented[Path][Method]> } };
export type { components };

/** Every error code of the API (docs/errors.md), as its OpenAPI document lists them. */
export type ErrorCode = components['schemas']['Error']['code'];
export type Environment = 'sandbox' | 'live';
/** One problem of a request that reports them all: its code, its words, the field at fault (`param`) and, for an item of a list the request carried, its `index`. */
export type ItemError = NonNullable<components['schemas']['Error']['errors']>[number];

/** An error answer of the API, or a request that got no answer (`status` 0, no `code`). */
export class SikaError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode | undefined,
    message: string,
    readonly param: string | undefined,
    readonly requestId: string | undefined,
    readonly retryable: boolean,
    /** Every problem of a request that reports them all (a payout batch's instructions by index, an automation's definition by param); the first is also `code`, `message`, `param`. */
    readonly errors: ItemError[] = [],
  ) {
    super(message);
    this.name = 'SikaError';
  }
}

/** An event as webhooks and the events API carry it. */
export interface SikaEvent {
  id: string;
  object: 'event';
  type: string;
  created: number;
  livemode: boolean;
  data: Record<string, unknown>;
}

export interface SikaOptions {
  /** An API key (`sk_test_…`, `sk_live_…`) or a signed-in user's access token; a function is asked at each request (a token that is refreshed). */
  apiKey: string | (() => string);
  /** Sent as X-Environment on every request: the key's own by default (sandbox for an access token); a function is asked at each request. */
  environment?: Environment | (() => Environment);
  /** Default http://localhost:3000. */
  baseUrl?: string;
  /** Retries of a request that failed without an answer, with 429, or with a `retryable` error (default 2). */
  maxRetries?: number;
  /** The first retry's delay when the answer names none (Retry-After); doubled each time, at most 8 s (default 500 ms). */
  retryDelayMs?: number;
  fetch?: (request: Request) => Promise<Response>;
  /** How the client waits between attempts (tests give their own). */
  sleep?: (ms: number) => Promise<void>;
}

type Media = `${string}/${string}`;
type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
type InitParam<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
type Data<M extends Method, P extends PathsWithMethod<paths, M>, I> = NonNullable<FetchResponse<paths[P][M] & Record<string | number, unknown>, I, Media>['data']>;
/** What an operation answers, as this client's methods return it: `Answer<'get', '/api/v1/payouts/{id}'>`. */
export type Answer<M extends Method, P extends PathsWithMethod<paths, M>> = Data<M, P, Record<string, never>>;
// A list that can also export CSV (`Accept: text/csv`) is typed `string | list`: `list` never asks for it.
type ItemOf<D> = [Exclude<D, string>] extends [{ data?: (infer T)[] }] ? T : Record<string, unknown>;
/** What the thin layer hands to openapi-fetch: its own types are checked at the public methods. */
type AnyInit = { params?: { query?: Record<string, unknown>; path?: Record<string, unknown> }; body?: unknown; headers?: unknown } | undefined;
type AnyCall = (path: string, init?: AnyInit) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

const MAX_DELAY_MS = 8_000;
const MAX_RETRY_AFTER_MS = 60_000;

/** The delay an answer asks for (Retry-After: seconds or an HTTP date), if any. */
function retryAfterMs(response: Response): number | null {
  const value = response.headers.get('retry-after');
  if (value === null) return null;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : null;
}

/** Whether trying again may succeed: 429, or an error the API marks `retryable` (else a 5xx without a body of ours). */
async function isRetryable(response: Response): Promise<boolean> {
  if (response.status === 429) return true;
  if (response.status < 400) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { retryable?: unknown } | null;
  if (body && typeof body.retryable === 'boolean') return body.retryable;
  return response.status >= 500;
}

function errorOf(response: Response, error: unknown): SikaError {
  const body = (typeof error === 'object' && error !== null ? error : {}) as { code?: ErrorCode; message?: string; param?: string; request_id?: string; retryable?: boolean; errors?: ItemError[] };
  return new SikaError(
    response.status,
    body.code,
    body.message ?? `HTTP ${response.status}`,
    body.param,
    body.request_id ?? response.headers.get('request-id') ?? undefined,
    body.retryable ?? (response.status === 429 || response.status >= 500),
    body.errors ?? [],
  );
}

/**
 * The Sika API with its types (generated from docs/openapi.json): `get`, `post`, `patch`, `put`,
 * `delete` answer the object or throw a SikaError; `list` iterates every item of a list, page
 * after page; `api` is the openapi-fetch client underneath, for the whole answer. Every POST
 * carries an Idempotency-Key (a new UUID unless one is given), so its retries are safe.
 */
export class Sika {
  readonly api: Client<paths, Media>;
  readonly webhooks = {
    /** The event, if `payload` was signed with `secret` (Standard Webhooks, within 5 minutes); throws otherwise. */
    verify(payload: string | Uint8Array, headers: Headers | Record<string, string | string[] | undefined>, secret: string): SikaEvent {
      const flat: Record<string, string> = {};
      const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
      for (const [name, value] of entries) if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      return new Webhook(secret).verify(typeof payload === 'string' ? payload : new TextDecoder().decode(payload), flat) as SikaEvent;
    },
  };

  constructor(options: SikaOptions) {
    const apiKey = typeof options.apiKey === 'function' ? options.apiKey : () => options.apiKey as string;
    const given = options.environment;
    const environment = typeof given === 'function' ? given : () => given ?? (apiKey().startsWith('sk_live_') ? 'live' : 'sandbox');
    const maxRetries = options.maxRetries ?? 2;
    const firstDelay = options.retryDelayMs ?? 500;
    const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    const backoff = (attempt: number) => Math.min(firstDelay * 2 ** attempt, MAX_DELAY_MS) * (0.5 + Math.random() / 2);

    const withRetries = async (request: Request): Promise<Response> => {
      for (let attempt = 0; ; attempt++) {
        let response: Response;
        try {
          response = await send(request.clone());
        } catch (err) {
          if (attempt >= maxRetries || request.signal.aborted)
            throw new SikaError(0, undefined, `No answer from ${request.url}: ${err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err)}`, undefined, undefined, true);
          await sleep(backoff(attempt));
          continue;
        }
        if (attempt >= maxRetries || !(await isRetryable(response))) return response;
        await response.body?.cancel();
        await sleep(retryAfterMs(response) ?? backoff(attempt));
      }
    };

    this.api = createClient<paths, Media>({
      baseUrl: (options.baseUrl ?? 'http://localhost:3000').replace(/\/+$/, ''),
      fetch: withRetries,
    });
    this.api.use({
      onRequest({ request }) {
        request.headers.set('authorization', `Bearer ${apiKey()}`);
        if (!request.headers.has('x-environment')) request.headers.set('x-environment', environment());
        if (request.method === 'POST' && !request.headers.has('idempotency-key')) request.headers.set('idempotency-key', globalThis.crypto.randomUUID());
        return request;
      },
    });
  }

  get<P extends PathsWithMethod<paths, 'get'>, I extends MaybeOptionalInit<paths[P], 'get'>>(path: P, ...init: InitParam<I>): Promise<Data<'get', P, I>> {
    return this.call(this.api.GET as unknown as AnyCall, path, init[0] as AnyInit) as Promise<Data<'get', P, I>>;
  }

  post<P extends PathsWithMethod<paths, 'post'>, I extends MaybeOptionalInit<paths[P], 'post'>>(path: P, ...init: InitParam<I>): Promise<Data<'post', P, I>> {
    return this.call(this.api.POST as unknown as AnyCall, path, init[0] as AnyInit) as Promise<Data<'post', P, I>>;
  }

  patch<P extends PathsWithMethod<paths, 'patch'>, I extends MaybeOptionalInit<paths[P], 'patch'>>(path: P, ...init: InitParam<I>): Promise<Data<'patch', P, I>> {
    return this.call(this.api.PATCH as unknown as AnyCall, path, init[0] as AnyInit) as Promise<Data<'patch', P, I>>;
  }

  put<P extends PathsWithMethod<paths, 'put'>, I extends MaybeOptionalInit<paths[P], 'put'>>(path: P, ...init: InitParam<I>): Promise<Data<'put', P, I>> {
    return this.call(this.api.PUT as unknown as AnyCall, path, init[0] as AnyInit) as Promise<Data<'put', P, I>>;
  }

  delete<P extends PathsWithMethod<paths, 'delete'>, I extends MaybeOptionalInit<paths[P], 'delete'>>(path: P, ...init: InitParam<I>): Promise<Data<'delete', P, I>> {
    return this.call(this.api.DELETE as unknown as AnyCall, path, init[0] as AnyInit) as Promise<Data<'delete', P, I>>;
  }

  /**
   * Every item of a list, fetching the next page as the loop reaches it: cursor lists
   * (`starting_after` the last item) and page lists (`page` + 1) alike, until `has_more` is false.
   */
  async *list<P extends PathsWithMethod<paths, 'get'>, I extends MaybeOptionalInit<paths[P], 'get'>>(path: P, ...init: InitParam<I>): AsyncGenerator<ItemOf<Data<'get', P, I>>> {
    const first = (init[0] ?? {}) as NonNullable<AnyInit>;
    let query: Record<string, unknown> = { ...first.params?.query };
    for (;;) {
      const page = (await this.call(this.api.GET as unknown as AnyCall, path, { ...first, params: { ...first.params, query } })) as { data: { id?: string }[]; has_more: boolean; page?: number };
      for (const item of page.data) yield item as ItemOf<Data<'get', P, I>>;
      const last = page.data.at(-1);
      if (!page.has_more || !last) return;
      query = typeof page.page === 'number' ? { ...query, page: page.page + 1 } : { ...query, starting_after: last.id };
    }
  }

  private async call(method: AnyCall, path: string, init: AnyInit): Promise<unknown> {
    const { data, error, response } = await method(path, init);
    if (error !== undefined || !response.ok) throw errorOf(response, error);
    return data;
  }
}
