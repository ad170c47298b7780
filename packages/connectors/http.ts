/**
 * The HTTP side every connector shares: global fetch, a timeout per call, JSON answers, and the one
 * distinction money depends on. A call that fails says whether its request may have reached the
 * provider: `sent: 'no'` when it provably did not (nothing connected, or the provider refused it
 * with a 4xx before taking it), `sent: 'maybe'` when it may have (a timeout, a connection that
 * broke after the request went out, a 5xx, an answer that cannot be read).
 */
export class ProviderCallFailed extends Error {
  constructor(
    message: string,
    readonly sent: 'no' | 'maybe',
    readonly httpStatus?: number,
    /** The parsed body of a 4xx or 5xx answer, when it was JSON: the connector reads its provider's error from it. */
    readonly body?: unknown,
  ) {
    super(message);
    this.name = 'ProviderCallFailed';
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

export interface ProviderRequest {
  /** The provider's name, for messages. */
  provider: string;
  method: 'GET' | 'POST' | 'PUT';
  url: URL;
  headers: Record<string, string>;
  body?: Buffer;
  timeoutMs: number;
  /** Names the failure of a non-2xx answer (a provider's own error code), when the body says one. */
  detailOf?: (body: unknown) => string | undefined;
}

/** Sends one request; the parsed JSON of a 2xx answer, or ProviderCallFailed. */
export async function callProvider(request: ProviderRequest): Promise<unknown> {
  const { provider, method, url, headers, body, timeoutMs } = request;
  const what = `${method} ${url.pathname}`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { method, headers, ...(body ? { body } : {}), signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    text = await response.text();
  } catch (err) {
    const code = errorCode(err);
    if (code && NEVER_CONNECTED.has(code)) throw new ProviderCallFailed(`${what}: ${provider} could not be reached (${code})`, 'no');
    const why = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `the connection failed (${code ?? (err as Error).message})`;
    throw new ProviderCallFailed(`${what}: ${why}`, 'maybe');
  }
  const json = parseJson(text);
  const status = response.status;
  if (status >= 200 && status < 300) {
    if (json === undefined) throw new ProviderCallFailed(`${what}: answer ${status} is not JSON`, 'maybe', status);
    return json;
  }
  const named = json === undefined ? undefined : request.detailOf?.(json);
  const detail = `${what}: HTTP ${status}${named ? ` ${named}` : ''}`;
  // A 4xx is the provider refusing the request as it came (key, signature, validation): nothing was taken.
  throw new ProviderCallFailed(detail, status >= 400 && status < 500 ? 'no' : 'maybe', status, json);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
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
