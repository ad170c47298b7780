import fs from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import type { Test } from 'tap';
import { ManualClock } from '#packages/core/clock.js';
import { loadServiceConfig } from '../../services/config.js';
import { createLogger } from '#packages/core/logger.js';
import { createApiKey, createMerchant, setLiveActivation, type CreatedMerchant } from '#packages/families/merchants/merchant/commands.js';
import { createMemberUser } from '#packages/families/accounts/organization/commands.js';
import type { Role } from '#packages/families/accounts/organization/events.js';
import type { RouteGroup } from '#packages/http/routes.js';
import { ABANDONED_AFTER_MS } from '#packages/http/idempotency.js';
import { buildApi } from '../../services/api/app.js';
import { listen } from '../../services/api/server.js';
import { openSystem, type System, type SystemOptions } from '../../services/system.js';
import { migratedCopy } from './db.js';
import { exampleRecorder } from './api-examples.js';
import type { StreamAppend } from '#packages/eventstore/port.js';
import type { Environment } from '#packages/core/owner.js';

export interface TestService {
  system: System;
  clock: ManualClock;
  baseUrl: string;
  /** PUBLIC_URL: where its links point (http://localhost:<port> and served there with `publicOrigin`). */
  publicUrl: string;
  /** JSON request against the running server. */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  merchant(name?: string): Promise<CreatedMerchant>;
  /** A new merchant and its sandbox key, the key most tests act with. */
  sandboxMerchant(name?: string): Promise<{ merchant: CreatedMerchant; key: string }>;
  /** A dashboard user of the merchant's organization with this role (owner by default); returns the user id. */
  member(merchant: CreatedMerchant, email: string, password: string, role?: Role): Promise<string>;
  /** A member's access token, signed in with the password (a user without a second factor); throws if the sign-in is refused. */
  signIn(email: string, password: string): Promise<string>;
  /** Another API key of the merchant, holding only these scopes. */
  apiKey(merchantId: string, scopes: string[], environment?: Environment): Promise<{ id: string; secret: string }>;
  /** The database it runs on, for a restart on the same one (`databaseUrl`). */
  databaseUrl: string;
  /** Stops the server and the system, as a process exit would (teardown does it too). */
  stop(): Promise<void>;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  /** Sent as is, instead of JSON-encoding `body`. */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  // Tests read whatever the API answered; the shape is asserted, not assumed.
  body: any;
}

/** A whole service on a fresh database, a manual clock, and a loopback HTTP server. */
export interface StartOptions {
  env?: Record<string, string>;
  families?: (s: System) => RouteGroup[];
  /** Wraps an environment's rails, e.g. to count or hold connector calls. */
  rails?: SystemOptions['rails'];
  webhookTimeoutMs?: number;
  /** Start of the manual clock (default 2026-01-01); webhook tests start at the real time, since receivers check timestamps. */
  clockStart?: number;
  /** The database of an earlier service (which has stopped): this one is that service after a restart. */
  databaseUrl?: string;
  /**
   * Serve where PUBLIC_URL says, http://localhost:<port> (`publicUrl`): what a browser must open for
   * what is bound to the service's origin, such as passkeys (an IP address cannot be a WebAuthn
   * relying party) or Google's redirect. A number is the port (one from `freePort`, when something
   * must know the address before the service starts); `true` picks one.
   */
  publicOrigin?: true | number;
}

/** The first port of the kernel's ephemeral range, where outgoing connections take their source ports. */
function ephemeralPortsFrom(): number {
  try {
    return Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768; // Linux's default
  }
}

/** Whether something could listen on `port` on every address now (tried and released at once). */
function listenable(port: number): Promise<boolean> {
  const probe = net.createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}

/**
 * A port nothing listens on now, for a process to listen on later. Drawn below the kernel's
 * ephemeral range: a port the kernel picks (listen on 0) is one an outgoing connection may take as
 * its source port before that process listens, which once failed a service's start with
 * EADDRINUSE while the suite's other files held thousands of connections.
 */
export async function freePort(): Promise<number> {
  const below = Math.min(ephemeralPortsFrom(), 65_536);
  for (let attempt = 0; below > 20_000 && attempt < 100; attempt++) {
    const port = 10_000 + Math.floor(Math.random() * (below - 10_000));
    if (await listenable(port)) return port;
  }
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export async function startService(t: Test, options: StartOptions = {}): Promise<TestService> {
  const url = options.databaseUrl ?? (await migratedCopy(t));
  const port = typeof options.publicOrigin === 'number' ? options.publicOrigin : options.publicOrigin ? await freePort() : 0;
  const publicUrl = options.publicOrigin ? { PUBLIC_URL: `http://localhost:${port}` } : {};
  // A fixed test key, so no key file is written under the working directory.
  // Rate limits off unless a test asks: suites send hundreds of requests within one manual-clock instant.
  const config = loadServiceConfig({
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
    RATE_LIMIT: 'off',
    RATE_LIMIT_ADDRESS: 'off',
    RATE_LIMIT_PUSH_NUMBER: 'off',
    RATE_LIMIT_PUSH_SESSION: 'off',
    RATE_LIMIT_PUSH_LINK: 'off',
    ...publicUrl,
    ...options.env,
  });
  const clock = new ManualClock(options.clockStart);
  const system = await openSystem(config, {
    clock,
    log: createLogger('silent'),
    ...(options.rails ? { rails: options.rails } : {}),
    ...(options.webhookTimeoutMs ? { webhookTimeoutMs: options.webhookTimeoutMs } : {}),
  });
  // Bus consumers run; the scheduler is driven by the test (drain / runUntilIdle) on the manual clock.
  await system.startBackground({ schedulerLoop: false });
  // Every answer is checked against the schema /openapi.json declares for it. Schemas compile as
  // requests need them: the suites that build the app themselves, and the e2e processes, compile all at start.
  const recordExchange = exampleRecorder();
  const app = buildApi(system, options.families?.(system) ?? [], { checkAnswers: true, compileSchemasOnFirstUse: true, ...(recordExchange ? { recordExchange } : {}) });
  const server = await listen(app, port, system.log, '127.0.0.1');
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await system.close();
  };
  t.teardown(stop);
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const merchant = (name = 'Test merchant') => createMerchant(system.store, clock, name, 'test');
  return {
    system,
    clock,
    baseUrl,
    publicUrl: config.publicUrl,
    merchant,
    databaseUrl: url,
    stop,
    async sandboxMerchant(name) {
      const m = await merchant(name);
      return { merchant: m, key: m.api_keys.sandbox };
    },
    member: (m, email, password, role = 'owner') => createMemberUser(system.accounts, system.organizations, m, { email, password, name: email.split('@')[0]!, phone: null, role }, { actor: 'test' }),
    async signIn(this: TestService, email: string, password: string) {
      const res = await this.request('POST', '/api/v1/auth/login', { body: { email, password } });
      if (res.status !== 200 || !res.body.accessToken) throw new Error(`sign-in of ${email}: ${res.status} ${res.text}`);
      return res.body.accessToken as string;
    },
    apiKey: (merchantId, scopes, environment = 'sandbox') => createApiKey(system.store, clock, merchantId, environment, scopes, 'test'),
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      if (opts.key) headers.authorization = `Bearer ${opts.key}`;
      let body: string | Buffer | undefined;
      if (opts.rawBody !== undefined) body = opts.rawBody;
      else if (opts.body !== undefined) {
        body = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, text, body: parsed };
    },
  };
}

/** SANDBOX_OPERATOR_DELAY_MS of the suites that let the sandbox operator answer: not the default, so nothing depends on 2000 by accident. */
/**
 * Opens the merchant's live environment as the platform operator does (docs/configuration.md, "Live
 * activation"): the one way tests that move live money get there. Audited as `test`.
 */
export async function activateLive(svc: Pick<TestService, 'system' | 'clock'>, merchantId: string): Promise<void> {
  await setLiveActivation(svc.system.store, svc.clock, merchantId, true, { actor: 'test' });
}

export const OPERATOR_DELAY_MS = 7_000;

/** A service whose sandbox operator answers OPERATOR_DELAY_MS after each call, on the manual clock (see `advance`). */
export function startPaymentsService(t: Test, options: StartOptions = {}): Promise<TestService> {
  return startService(t, { ...options, env: { SANDBOX_OPERATOR_DELAY_MS: String(OPERATOR_DELAY_MS), ...options.env } });
}

/** Moves the clock by `ms` and runs the jobs then due: the sandbox operator's answers, by default. */
export async function advance(svc: TestService, ms = OPERATOR_DELAY_MS): Promise<void> {
  svc.clock.advance(ms);
  await svc.system.scheduler.runUntilIdle();
}

/**
 * What a crash between a request's commit and its answer leaves of its Idempotency-Key: the claim
 * running, unanswered, held by no live process and older than ABANDONED_AFTER_MS. The client's retry
 * with the same key and body then takes the claim over and runs the request again, as after a
 * SIGKILL; whatever the first attempt committed (and sent) stays.
 */
export async function loseAnswerInCrash(svc: Pick<TestService, 'system' | 'clock'>, idempotencyKey: string): Promise<void> {
  const abandoned = new Date(svc.clock.now().getTime() - ABANDONED_AFTER_MS - 1_000);
  const rows = await svc.system.knex('idempotency_keys').where({ key: idempotencyKey }).update({ state: 'running', status: null, body: null, body_sealed: false, locked_at: abandoned, locked_by: null });
  if (rows !== 1) throw new Error(`loseAnswerInCrash: ${rows} claims of the key ${idempotencyKey}, not one`);
}

type Append = System['store']['append'];

/** Puts `intercept` in the place of the store's append until the test ends; it is given the real one. */
function interceptAppend(t: Test, svc: Pick<TestService, 'system'>, intercept: (append: Append, args: Parameters<Append>) => ReturnType<Append>): void {
  const store = svc.system.store;
  const append = store.append;
  t.teardown(() => {
    store.append = append;
  });
  store.append = (...args: Parameters<Append>) => intercept((...a) => append.apply(store, a), args);
}

/**
 * Makes the store's next append that `matches` fail once, as a transient database error would (a
 * lost connection): nothing of it commits. How many it failed, read after.
 */
export function failAppendOnce(t: Test, svc: Pick<TestService, 'system'>, matches: (events: readonly { type: string }[]) => boolean): { readonly failed: number } {
  const counter = { failed: 0 };
  interceptAppend(t, svc, async (append, args) => {
    if (counter.failed === 0 && matches(args[1])) {
      counter.failed++;
      throw new Error('connection lost');
    }
    return append(...args);
  });
  return counter;
}

/**
 * A process that dies right after the store's next append that `matches` commits: the append
 * commits, then never returns, so nothing the request would do after it happens (until the test
 * ends). Resolves `committed` once it has.
 */
export function dieAfterCommit(t: Test, svc: Pick<TestService, 'system'>, matches: (events: readonly { type: string }[]) => boolean): { committed: Promise<void> } {
  let died: () => void = () => undefined;
  const committed = new Promise<void>((resolve) => (died = resolve));
  let armed = true;
  interceptAppend(t, svc, async (append, args) => {
    const appended = await append(...args);
    if (armed && matches(args[1])) {
      armed = false;
      died();
      return new Promise<never>(() => undefined);
    }
    return appended;
  });
  return { committed };
}

/**
 * Makes the store's next atomic commit that `matches` fail once, as a crash at that commit would
 * (until the test ends): how many commits it failed, read after the request.
 */
export function failCommitOnce(t: Test, svc: Pick<TestService, 'system'>, matches: (writes: StreamAppend[]) => boolean): { readonly failed: number } {
  const store = svc.system.store;
  const appendAtomically = store.appendAtomically!;
  t.teardown(() => {
    store.appendAtomically = appendAtomically;
  });
  const counter = { failed: 0 };
  store.appendAtomically = async (writes) => {
    if (counter.failed === 0 && matches(writes)) {
      counter.failed++;
      throw new Error('connection lost');
    }
    return appendAtomically.call(store, writes);
  };
  return counter;
}
