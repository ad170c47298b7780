/**
 * The fuzz sweep's HTTP client. node:http rather than fetch: it sends paths with raw bytes
 * (0x21–0xFF) and any header value Node's own parser would take, and never rewrites a URL. A raw
 * socket sends what no client library will (NUL and bare CR in the request line, broken framing).
 */
import http from 'node:http';
import net from 'node:net';
import type { ErrorCode } from '#packages/core/errors.js';
import { ERROR_CODES } from '#packages/families/index.js';
import { STACK_FRAME } from '../support/assertions.js';

export interface FuzzRequest {
  method: string;
  /** Path and query, already encoded as they go on the wire. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface FuzzResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** Each answer within this time, or the request counts as hung. */
const ANSWER_WITHIN_MS = 15_000;

export class FuzzClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  send(req: FuzzRequest): Promise<FuzzResponse> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { ...req.headers };
      if (req.body !== undefined) headers['content-length'] = String(req.body.length);
      const out = http.request({ host: this.host, port: this.port, method: req.method, path: req.path, headers, agent: this.agent, timeout: ANSWER_WITHIN_MS }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const flat: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({ status: res.statusCode ?? 0, headers: flat, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      out.on('timeout', () => out.destroy(new Error(`no answer within ${ANSWER_WITHIN_MS} ms`)));
      out.on('error', reject);
      out.end(req.body);
    });
  }

  /**
   * Writes `bytes` on a fresh connection and reads until the server closes it. Never half-closes,
   * so that a request that is incomplete meets the server's request timeout (a FIN would end it at
   * once); clients that half-close are tested in test/integration/hostile-input.test.ts.
   */
  sendRaw(bytes: Buffer): Promise<FuzzResponse> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(this.port, this.host);
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => socket.destroy(new Error(`connection still open after ${ANSWER_WITHIN_MS} ms`)), ANSWER_WITHIN_MS);
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', (err: NodeJS.ErrnoException) => {
        // The server may answer and close before it has read all we wrote: keep what it answered.
        if (chunks.length === 0 || (err.code !== 'ECONNRESET' && err.code !== 'EPIPE')) {
          clearTimeout(timer);
          reject(err);
        }
      });
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(parseRaw(Buffer.concat(chunks).toString('utf8')));
      });
      socket.write(bytes);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The final answer in what a raw connection received: interim 1xx answers skipped (bodies carry Content-Length). */
function parseRaw(received: string): FuzzResponse {
  const all = received.replace(/^(HTTP\/1\.[01] 1\d\d [^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/, '');
  const split = all.indexOf('\r\n\r\n');
  const head = (split < 0 ? all : all.slice(0, split)).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '')?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  const rest = split < 0 ? '' : all.slice(split + 4);
  const length = Number(headers['content-length'] ?? rest.length);
  return { status, headers, text: Buffer.from(rest, 'utf8').subarray(0, length).toString('utf8') };
}

/**
 * What is wrong with an answer, or null: no 5xx, no stack trace, and every 4xx a coded JSON error
 * whose status and retryability are the catalogue's, with its request id in the body and header.
 */
export function problemWith(res: FuzzResponse): string | null {
  if (res.status === 0) return 'no HTTP answer';
  if (res.status >= 500) return `a ${res.status}`;
  if (STACK_FRAME.test(res.text)) return 'a stack trace in the body';
  if (res.status < 400) return null;
  if (!/^application\/json/.test(res.headers['content-type'] ?? '')) return `a ${res.status} that is not JSON (${res.headers['content-type']})`;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(res.text) as Record<string, unknown>;
  } catch {
    return `a ${res.status} whose body does not parse`;
  }
  const code = body.code as ErrorCode;
  if (typeof code !== 'string' || !(code in ERROR_CODES)) return `a ${res.status} without a catalogue code (${String(code)})`;
  const spec = ERROR_CODES[code];
  if (spec.status !== res.status) return `${code} answered with ${res.status}, the catalogue says ${spec.status}`;
  if (body.retryable !== spec.retryable) return `${code} with retryable ${String(body.retryable)}`;
  if (typeof body.message !== 'string' || body.message === '') return `${code} without a message`;
  if (typeof body.request_id !== 'string' || !/^req_/.test(body.request_id)) return `${code} without a request_id`;
  if (res.headers['request-id'] !== body.request_id) return `${code}: Request-Id header ${res.headers['request-id']} is not the body's ${body.request_id}`;
  return null;
}
