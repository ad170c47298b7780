import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { ApiError, KERNEL_ERROR_CODES, specOf } from '#packages/core/errors.js';
import { newId } from '#packages/core/ids.js';
import type { Logger } from '#packages/core/logger.js';

/** How long a connection may take to send a request, or stay idle between requests (docs/decisions.md). */
export interface HttpTimeouts {
  /** From the first byte of a request (or the connection's opening) to the end of its headers. */
  headersMs: number;
  /** From the first byte of a request to the end of its body; at least `headersMs`. */
  requestMs: number;
  /** An idle keep-alive connection is closed after this long without a new request. */
  keepAliveMs: number;
  /** How often the two request deadlines are checked: a late request is closed up to this much later. */
  checkIntervalMs: number;
}

export const HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 15_000,
  requestMs: 30_000,
  // Longer than the 60 s idle timeout of common load balancers, so they, not we, close idle connections.
  keepAliveMs: 65_000,
  checkIntervalMs: 1_000,
};

function clientErrorCode(err: NodeJS.ErrnoException): ApiError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ApiError('IKW-REQ-004');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError('IKW-REQ-008');
    default:
      return new ApiError('IKW-REQ-005');
  }
}

/** A coded error written straight on the socket (for requests express never sees, so of the kernel's codes), then the connection closed. */
function answerOnSocket(socket: Socket, apiError: ApiError): string {
  // Like every error answer: a request id in the body and in the Request-Id header.
  const requestId = newId('req');
  const body = JSON.stringify(apiError.toBody(KERNEL_ERROR_CODES, requestId));
  const extra = Object.entries(apiError.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const { status } = specOf(KERNEL_ERROR_CODES, apiError.code);
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` + `Request-Id: ${requestId}\r\n${extra}` + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  return requestId;
}

/**
 * Listens with Node's HTTP server. Requests the parser refuses (headers over 16 KiB, garbage), that
 * are not received in time (slow or silent clients), that expect what we do not do, or that ask
 * for a tunnel (CONNECT) get a coded JSON answer here, since they never reach express; then the
 * connection is closed.
 */
export function listen(app: Express, port: number, log: Logger, host = '0.0.0.0', timeouts: Partial<HttpTimeouts> = {}): Promise<http.Server> {
  const t = { ...HTTP_TIMEOUTS, ...timeouts };
  const server = http.createServer({ connectionsCheckingInterval: t.checkIntervalMs, headersTimeout: t.headersMs, requestTimeout: t.requestMs }, app);
  server.keepAliveTimeout = t.keepAliveMs;
  // A client may half-close (send FIN) once its request is out, as `nc` and many scripts do. Node's
  // default then closes the connection at once, dropping every answer not yet written (one that
  // waits for the database, or one queued behind such an answer): the client gets nothing. With
  // half-open connections allowed, the answers in progress are written and the connection is
  // closed after the last one. (Node's own switch for this, long-standing but not in its types.)
  (server as http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  // Node would answer an Expect other than 100-continue with a bare 417; this one is coded like any other.
  server.on('checkExpectation', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    const requestId = newId('req');
    const body = JSON.stringify(new ApiError('IKW-REQ-009').toBody(KERNEL_ERROR_CODES, requestId));
    res.writeHead(417, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body), 'Request-Id': requestId, Connection: 'close' }).end(body);
  });
  // Without a listener Node drops a CONNECT without a word.
  server.on('connect', (_req: http.IncomingMessage, socket: Socket) => {
    answerOnSocket(socket, new ApiError('IKW-RTE-002', 'CONNECT is not served here', undefined, { Allow: 'GET, POST, PATCH, DELETE' }));
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const requestId = answerOnSocket(socket, clientErrorCode(err));
    log.debug({ code: err.code, request_id: requestId }, 'client error');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
