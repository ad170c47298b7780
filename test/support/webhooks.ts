/**
 * Helpers of the webhook suites: real receivers (node http servers on loopback) whose behaviour
 * each test chooses, a real SMTP server on loopback (smtp-server), verification of deliveries
 * with the official `standardwebhooks` library, and shortcuts to register endpoints and make
 * events happen.
 *
 * Timestamps: `standardwebhooks` checks `webhook-timestamp` against `Date.now()` (5 minutes of
 * tolerance). The service signs with its (manual) clock, which the suites start at the real time
 * and then move forward by hours to reach retries; a receiver whose clock agrees with the sender's
 * is simulated by reading `Date.now()` as the service clock at the moment the request arrived.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { Webhook } from 'standardwebhooks';
import type { Test } from 'tap';
import { readCheckpoint } from '#packages/bus/consumer.js';
import { encodePosition } from '#packages/eventstore/postgres/store.js';
import { DISPATCH_CONSUMER } from '#packages/families/webhooks/consumer.js';
import { startService, type StartOptions, type TestResponse, type TestService } from './system.js';

/** What a receiver does with a request (after reading its body). */
export type Behaviour =
  | { kind: 'answer'; status: number; headers?: Record<string, string>; body?: string }
  /** Destroys the socket without answering. */
  | { kind: 'close' }
  /**
   * Answers 200 on a new connection, but destroys a kept-alive one as its next request arrives: a
   * server whose idle timeout ends just as the request goes out.
   */
  | { kind: 'close_kept_alive' }
  /** Never answers. */
  | { kind: 'hang' }
  /** Answers `status` after `afterMs` (longer than the delivery deadline in the suites). */
  | { kind: 'late'; afterMs: number; status: number }
  /** Sends the status line and headers at once, the rest of the body only after `afterMs`. */
  | { kind: 'slow_body'; afterMs: number; status: number };

export const OK: Behaviour = { kind: 'answer', status: 200, body: 'ok' };

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The service clock when the request arrived. */
  clockMs: number;
  /** The real time when the request arrived. */
  realMs: number;
}

export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  behaviour: Behaviour = OK;
  /** TCP connections the service opened to this receiver. */
  connections = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Connections that carried an answer. */
  private readonly answered = new WeakSet<object>();
  private readonly arrivals = new Set<() => void>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  /** A receiver on 127.0.0.1 that records each request with the time of the service's clock. */
  static async start(t: Test, svc: { clock: { now(): Date } }, path = '/hooks'): Promise<Receiver> {
    const now = () => svc.clock.now().getTime();
    let self: Receiver | null = null;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => self?.handle(req, res, Buffer.concat(chunks).toString('utf8'), now()));
    });
    server.on('connection', () => {
      if (self) self.connections++;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const receiver = new Receiver(server, `http://127.0.0.1:${port}${path}`);
    self = receiver;
    t.teardown(() => receiver.close());
    return receiver;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: string, clockMs: number): void {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
    this.requests.push({ method: req.method ?? '', path: req.url ?? '', headers, body, clockMs, realMs: Date.now() });
    for (const arrived of this.arrivals) arrived();
    const b = this.behaviour;
    switch (b.kind) {
      case 'answer':
        res.writeHead(b.status, { 'content-type': 'text/plain', ...b.headers }).end(b.body ?? '');
        return;
      case 'close':
        req.socket.destroy();
        return;
      case 'close_kept_alive':
        if (this.answered.has(req.socket)) {
          req.socket.destroy();
          return;
        }
        this.answered.add(req.socket);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return;
      case 'hang':
        return;
      case 'late':
        this.later(b.afterMs, () => {
          if (!res.destroyed) res.writeHead(b.status).end('late');
        });
        return;
      case 'slow_body':
        res.writeHead(b.status, { 'content-type': 'text/plain', 'content-length': '4' });
        res.write('ok');
        this.later(b.afterMs, () => {
          if (!res.destroyed) res.end('..');
        });
        return;
    }
  }

  private later(ms: number, f: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      f();
    }, ms);
    this.timers.add(timer);
  }

  /**
   * How long the receiver keeps an idle connection: its `Keep-Alive: timeout` hint (whole seconds);
   * Node's server closes one second after it.
   */
  keepAlive(ms: number): void {
    this.server.keepAliveTimeout = ms;
  }

  get count(): number {
    return this.requests.length;
  }

  /** Resolves once `n` requests have arrived; rejects after `timeoutMs` with what did. */
  received(n: number, timeoutMs = 20_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.requests.length < n) return;
        this.arrivals.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.arrivals.delete(check);
        reject(new Error(`${this.requests.length} of ${n} requests arrived: ${this.types().join(', ')}`));
      }, timeoutMs);
      this.arrivals.add(check);
      check();
    });
  }

  /** The requests' parsed payloads. */
  payloads(): WebhookPayload[] {
    return this.requests.map((r) => JSON.parse(r.body) as WebhookPayload);
  }

  types(): string[] {
    return this.payloads().map((p) => p.type);
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export interface WebhookPayload {
  id: string;
  object: string;
  type: string;
  created: number;
  livemode: boolean;
  data: { id: string; object: string; [key: string]: unknown };
}

/** Runs `f` while `Date.now()` reads `nowMs` (synchronous only: nothing else runs meanwhile). */
export function atTime<T>(nowMs: number, f: () => T): T {
  const real = Date.now;
  Date.now = () => nowMs;
  try {
    return f();
  } finally {
    Date.now = real;
  }
}

/**
 * `new Webhook(secret).verify` over the request as received, by a receiver whose clock is the
 * service's (see the top of this file); returns the verified payload or throws.
 */
export function verify(secret: string, req: ReceivedRequest): WebhookPayload {
  return atTime(req.clockMs, () => new Webhook(secret).verify(req.body, req.headers)) as WebhookPayload;
}

export function verifies(secret: string, req: ReceivedRequest): boolean {
  try {
    verify(secret, req);
    return true;
  } catch {
    return false;
  }
}

export interface Mail {
  from: string | null;
  to: string[];
  raw: string;
}

/** The texts of the mails to `to`, oldest first, quoted-printable soft breaks and `=3D` undone. */
export function mailsTo(mails: readonly Mail[], to: string): string[] {
  return mails.filter((m) => m.to.includes(to)).map((m) => m.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='));
}

/** The text of the last mail to `to`; throws when none came. */
export function lastMail(mails: readonly Mail[], to: string): string {
  const mail = mailsTo(mails, to).at(-1);
  if (mail === undefined) throw new Error(`no mail to ${to}`);
  return mail;
}

/** The security code of the last mail to `to` ('' when it holds none). */
export function mailedCode(mails: readonly Mail[], to: string): string {
  return /security code is (\d{6})/.exec(mailsTo(mails, to).at(-1) ?? '')?.[1] ?? '';
}

/** A real SMTP server on loopback: no TLS, no authentication; what it accepts lands in `mails`. */
export async function startSmtp(t: Test): Promise<{ url: string; mails: Mail[] }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 100,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        mails.push({ from: from ? from.address : null, to: session.envelope.rcptTo.map((a) => a.address), raw: Buffer.concat(chunks).toString('utf8') });
        callback();
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.on('error', reject);
    const net = server.listen(0, '127.0.0.1', () => resolve((net.address() as AddressInfo).port));
  });
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `smtp://127.0.0.1:${port}`, mails };
}

/** The delivery deadline of the webhook suites: short, so that receivers can be too slow for it quickly. */
export const WEBHOOK_TIMEOUT_MS = 300;

/**
 * A service that delivers to receivers on loopback (WEBHOOK_ALLOW_PRIVATE_URLS), with the suites'
 * delivery deadline, its clock starting at the real time (receivers check timestamps).
 */
export function startWebhookService(t: Test, options: StartOptions = {}): Promise<TestService> {
  return startService(t, { webhookTimeoutMs: WEBHOOK_TIMEOUT_MS, clockStart: Date.now(), ...options, env: { WEBHOOK_ALLOW_PRIVATE_URLS: '127.0.0.0/8,::1', ...options.env } });
}

export async function createEndpoint(svc: TestService, key: string, url: string, enabledEvents: string[] = ['*']): Promise<EndpointCreated> {
  const res = await svc.request('POST', '/api/v1/webhook-endpoints', { key, body: { url, enabled_events: enabledEvents } });
  if (res.status !== 200) throw new Error(`endpoint create failed: ${res.status} ${res.text}`);
  return res.body as EndpointCreated;
}

/** A receiver started for the test and an endpoint of the merchant (`key`) that points at it. */
export async function listeningEndpoint(t: Test, svc: TestService, key: string, enabledEvents: string[] = ['*']): Promise<{ receiver: Receiver; endpoint: EndpointCreated }> {
  const receiver = await Receiver.start(t, svc);
  return { receiver, endpoint: await createEndpoint(svc, key, receiver.url, enabledEvents) };
}

export interface EndpointCreated {
  id: string;
  url: string;
  enabled_events: string[];
  secret: string;
  secret_last4: string;
}

export async function getEndpoint(svc: TestService, key: string, id: string): Promise<TestResponse> {
  return svc.request('GET', `/api/v1/webhook-endpoints/${id}`, { key });
}

export async function updateEndpoint(svc: TestService, key: string, id: string, body: Record<string, unknown>): Promise<TestResponse> {
  return svc.request('POST', `/api/v1/webhook-endpoints/${id}`, { key, body });
}

export async function rotate(svc: TestService, key: string, id: string): Promise<TestResponse> {
  return svc.request('POST', `/api/v1/webhook-endpoints/${id}/rotate_secret`, { key });
}

/** Makes one public event happen: a payment intent is created (`payment_intent.created`). */
export async function createIntentEvent(svc: TestService, key: string, amount = 10_000): Promise<{ id: string }> {
  const res = await svc.request('POST', '/api/v1/payment-intents', { key, body: { amount, currency: 'xof', transaction_country: 'SN' } });
  if (res.status !== 200) throw new Error(`payment intent create failed: ${res.status} ${res.text}`);
  return res.body as { id: string };
}

export interface DeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  status: string;
  attempts: number;
  replay_of: string | null;
  next_attempt_at: Date | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: Date;
  duration_ms: number;
  response_status: number | null;
  error: string | null;
}

export function deliveriesOf(svc: TestService, endpointId: string): Promise<DeliveryRow[]> {
  return svc.system.knex('webhook_deliveries').where({ endpoint_id: endpointId }).orderBy('created_at').orderBy('id');
}

/** The job of a delivery's first attempt (one job holds the first attempts of the deliveries one transaction queued), or undefined once done. */
export function firstAttemptJobOf(svc: TestService, deliveryId: string): Promise<{ key: string; last_error: string | null; payload: { deliveryIds: string[] } } | undefined> {
  return svc.system.knex('scheduled_jobs').where({ kind: 'webhook.first_attempts' }).whereRaw(`jsonb_exists(payload->'deliveryIds', ?)`, [deliveryId]).first();
}

export function attemptsOf(svc: TestService, deliveryId: string): Promise<AttemptRow[]> {
  return svc.system.knex('webhook_attempts').where({ delivery_id: deliveryId }).orderBy('attempt');
}

/**
 * `system.drain()` until the dispatcher's checkpoint has passed every committed event and no job
 * is due. drain() alone can return early: the bus reads only below the oldest transaction still
 * open anywhere in the PostgreSQL cluster (the late-commit fence), and its caught-up target is
 * taken below that fence too, so an unrelated open transaction (another suite's, or the
 * consumer's own) can hide an event that had committed before drain() was called.
 */
export async function settle(svc: TestService): Promise<void> {
  const { knex } = svc.system;
  const deadline = Date.now() + 20_000;
  for (;;) {
    await svc.system.drain();
    const head = await knex.raw<{ rows: { tx: string; pos: string }[] }>('SELECT transaction_id::text AS tx, global_position::text AS pos FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1');
    const last = head.rows[0];
    const checkpoint = await readCheckpoint(knex, 'bus_checkpoints', DISPATCH_CONSUMER);
    const caughtUp = !last || (checkpoint !== null && checkpoint >= encodePosition(last.tx, last.pos));
    const now = svc.clock.now();
    const due = await knex('scheduled_jobs')
      .where('run_at', '<=', now)
      .andWhere((q) => {
        q.whereNull('locked_until').orWhere('locked_until', '<', now);
      })
      .first('id');
    if (caughtUp && !due) return;
    if (Date.now() > deadline) throw new Error('the webhook dispatcher did not catch up within 20 s');
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
