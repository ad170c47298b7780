import type { AddressInfo } from 'node:net';
import type { Test } from 'tap';
import { ManualClock } from '../../packages/core/clock.js';
import { loadConfig } from '../../packages/core/config.js';
import { createLogger } from '../../packages/core/logger.js';
import { createMerchant, type CreatedMerchant } from '../../packages/domain/merchant/commands.js';
import type { Family } from '../../packages/http/routes.js';
import { buildApi } from '../../services/api/app.js';
import { listen } from '../../services/api/server.js';
import { openSystem, type System, type SystemOptions } from '../../services/system.js';
import { freshDatabase } from './db.js';

export interface TestService {
  system: System;
  clock: ManualClock;
  baseUrl: string;
  /** JSON request against the running server. */
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  merchant(name?: string): Promise<CreatedMerchant>;
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
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A whole service on a fresh database, a manual clock, and a loopback HTTP server. */
export interface StartOptions {
  env?: Record<string, string>;
  families?: (s: System) => Family[];
  /** Replaces a connector, e.g. to count or hold provider calls. */
  provider?: SystemOptions['provider'];
  webhookTimeoutMs?: number;
  /** Start of the manual clock (default 2026-01-01); webhook tests start at the real time, since receivers check timestamps. */
  clockStart?: number;
}

export async function startService(t: Test, options: StartOptions = {}): Promise<TestService> {
  const url = await freshDatabase(t);
  // A fixed test key, so no key file is written under the working directory.
  // Rate limits off unless a test asks: suites send hundreds of requests within one manual-clock instant.
  const config = loadConfig({
    DATABASE_URL: url,
    LOG_LEVEL: 'silent',
    SECRETS_KEY: Buffer.alloc(32, 1).toString('base64'),
    RATE_LIMIT: 'off',
    RATE_LIMIT_ADDRESS: 'off',
    ...options.env,
  });
  const clock = new ManualClock(options.clockStart);
  const system = await openSystem(config, {
    clock,
    log: createLogger('silent'),
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.webhookTimeoutMs ? { webhookTimeoutMs: options.webhookTimeoutMs } : {}),
  });
  // Bus consumers run; the scheduler is driven by the test (drain / runUntilIdle) on the manual clock.
  await system.startBackground({ schedulerLoop: false });
  const app = buildApi(system, options.families?.(system) ?? []);
  const server = await listen(app, 0, system.log, '127.0.0.1');
  t.teardown(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await system.close();
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    system,
    clock,
    baseUrl,
    merchant: (name = 'Test merchant') => createMerchant(system.store, clock, name, 'test'),
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
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, text, body: parsed };
    },
  };
}
