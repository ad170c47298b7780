import http from 'node:http';
import type { Socket } from 'node:net';
import type { Express } from 'express';
import { ApiError } from '../../packages/core/errors.js';
import { newId } from '../../packages/core/ids.js';
import type { Logger } from '../../packages/core/logger.js';

/**
 * Listens with Node's HTTP server. Requests the parser refuses (headers over 16 KiB, garbage) get a
 * coded JSON answer here, since they never reach express.
 */
export function listen(app: Express, port: number, log: Logger, host = '0.0.0.0'): Promise<http.Server> {
  const server = http.createServer(app);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const apiError = err.code === 'HPE_HEADER_OVERFLOW' ? new ApiError('IKW-REQ-004') : new ApiError('IKW-REQ-005');
    // Like every error answer: a request id in the body and in the Request-Id header.
    const requestId = newId('req');
    const body = JSON.stringify(apiError.toBody(requestId));
    socket.end(
      `HTTP/1.1 ${apiError.status} ${http.STATUS_CODES[apiError.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Request-Id: ${requestId}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    log.debug({ code: err.code, request_id: requestId }, 'client error');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
