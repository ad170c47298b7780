/**
 * Slow and idle connections are closed (services/api/server.ts, docs/decisions.md): a client that
 * trickles its headers (slowloris), sends nothing, trickles its body, or keeps a connection idle
 * after its answer. The real API on a second listener with small timeouts; each case waits for the
 * socket's 'close' with a deadline, never a fixed sleep.
 */
import type http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import t, { type Test } from '#tap';
import { ERROR_CODES } from '#packages/families/index.js';
import { buildApi } from '../../services/api/app.js';
import { HTTP_TIMEOUTS, listen, type HttpTimeouts } from '../../services/api/server.js';
import { startService } from '../support/system.js';

const svc = await startService(t);

const small: HttpTimeouts = { headersMs: 400, requestMs: 800, keepAliveMs: 400, checkIntervalMs: 50 };
/** How much later than its timeout a connection may close: the check interval, Node's keep-alive grace (1 s) and a busy machine. */
const SLACK_MS = 2_500;

const server = await listen(buildApi(svc.system), 0, svc.system.log, '127.0.0.1', small);
t.teardown(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
const port = (server.address() as AddressInfo).port;

interface Closed {
  /** Milliseconds from connect to close. */
  afterMs: number;
  /** Date.now() at the close. */
  closedAt: number;
  /** Everything the server sent. */
  received: string;
}

/**
 * Opens a connection, lets `drive` write to it, and resolves when the server closes it; rejects if
 * it is still open after `deadlineMs`.
 */
function untilClosed(drive: (socket: net.Socket) => void, deadlineMs: number): Promise<Closed> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const started = Date.now();
    let received = '';
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after ${deadlineMs} ms; received ${JSON.stringify(received)}`));
    }, deadlineMs);
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    // A write racing the server's close may fail; the close that follows is what we wait for.
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(deadline);
      resolve({ afterMs: Date.now() - started, closedAt: Date.now(), received });
    });
    socket.on('connect', () => drive(socket));
  });
}

/** Writes `text` one byte every `everyMs` until the socket closes. */
function trickle(socket: net.Socket, text: string, everyMs = 50): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || !socket.writable) return clearInterval(timer);
    socket.write(text[i++ % text.length]!);
  }, everyMs);
  socket.on('close', () => clearInterval(timer));
}

function openConnections(s: http.Server): Promise<number> {
  return new Promise((resolve, reject) => s.getConnections((err, n) => (err ? reject(err) : resolve(n))));
}

/** The server closed the connection with a coded 408 JSON answer. */
function assertTimedOut(t: Test, closed: Closed, timeoutMs: number): void {
  t.ok(closed.afterMs >= timeoutMs - 50, `not closed before the timeout (${closed.afterMs} ms)`);
  t.ok(closed.afterMs <= timeoutMs + SLACK_MS, `closed within the timeout (${closed.afterMs} ms)`);
  const [head = '', body = ''] = closed.received.split('\r\n\r\n');
  t.match(head, /^HTTP\/1\.1 408 /, '408');
  t.match(head, /\r\nConnection: close(\r\n|$)/i, 'Connection: close');
  const parsed = JSON.parse(body) as { code: string; retryable: boolean; request_id: string };
  t.equal(parsed.code, 'IKW-REQ-008');
  t.equal(parsed.retryable, ERROR_CODES['IKW-REQ-008'].retryable);
  t.equal(/\r\nRequest-Id: (\S+)/i.exec(head)?.[1], parsed.request_id, 'Request-Id header equals the body request_id');
}

t.test('the defaults', async (t) => {
  const defaults = await listen(buildApi(svc.system), 0, svc.system.log, '127.0.0.1');
  t.teardown(() => new Promise((r) => defaults.close(r)));
  t.same(
    { headersMs: defaults.headersTimeout, requestMs: defaults.requestTimeout, keepAliveMs: defaults.keepAliveTimeout },
    { headersMs: HTTP_TIMEOUTS.headersMs, requestMs: HTTP_TIMEOUTS.requestMs, keepAliveMs: HTTP_TIMEOUTS.keepAliveMs },
  );
  t.ok(HTTP_TIMEOUTS.headersMs <= HTTP_TIMEOUTS.requestMs, 'headers come within the request deadline');
});

t.test('a prompt request is answered on the server with small timeouts', async (t) => {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`);
  t.equal(res.status, 200);
  t.same(await res.json(), { status: 'ok' });
});

t.test('headers trickled byte by byte (slowloris) are cut off after the headers timeout', async (t) => {
  const closed = await untilClosed((s) => {
    s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    trickle(s, 'X-Slow: abcdefghij\r\n');
  }, small.headersMs + SLACK_MS);
  assertTimedOut(t, closed, small.headersMs);
});

t.test('a connection that sends nothing is closed after the headers timeout', async (t) => {
  assertTimedOut(t, await untilClosed(() => {}, small.headersMs + SLACK_MS), small.headersMs);
});

t.test('a body trickled byte by byte is cut off after the request timeout', async (t) => {
  const closed = await untilClosed((s) => {
    s.write(`POST /api/v1/merchant/products HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name": "`);
    trickle(s, 'a');
  }, small.requestMs + SLACK_MS);
  assertTimedOut(t, closed, small.requestMs);
});

t.test('an idle keep-alive connection is closed after the keep-alive timeout, without another answer', async (t) => {
  let answeredAt = 0;
  const closed = await untilClosed(
    (s) => {
      s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      s.once('data', () => (answeredAt = Date.now()));
    },
    small.keepAliveMs + SLACK_MS * 2,
  );
  t.match(closed.received, /^HTTP\/1\.1 200 /, 'the request was answered');
  t.equal(closed.received.match(/HTTP\/1\.1 /g)?.length, 1, 'one answer only');
  t.ok(answeredAt > 0, 'answered');
  const idleMs = closed.closedAt - answeredAt;
  t.ok(idleMs >= small.keepAliveMs - 50 && idleMs <= small.keepAliveMs + SLACK_MS, `closed ${idleMs} ms after the answer`);
});

t.test('200 slowloris connections at once are all closed', async (t) => {
  const all = await Promise.all(
    Array.from({ length: 200 }, () =>
      untilClosed(
        (s) => {
          s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
          trickle(s, 'X-Slow: a\r\n', 100);
        },
        small.headersMs + SLACK_MS * 2,
      ),
    ),
  );
  t.equal(all.filter((c) => /^HTTP\/1\.1 408 /.test(c.received)).length, 200, 'each got a 408 and was closed');
  // The server's side of each socket closes when the client's FIN arrives, a moment after the client's 'close'.
  const deadline = Date.now() + SLACK_MS;
  let open = await openConnections(server);
  while (open > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    open = await openConnections(server);
  }
  t.equal(open, 0, 'no connection left open on the server');
});
