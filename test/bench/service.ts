/** The service in this process, as `make start` wires it (openSystem, buildApi, listen), on loopback. */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadServiceConfig } from '../../services/config.js';
import { createLogger } from '#packages/core/logger.js';
import type { RouteGroup } from '#packages/http/routes.js';
import { buildApi } from '../../services/api/app.js';
import { listen } from '../../services/api/server.js';
import { openSystem, type System } from '../../services/system.js';
import { waitForIdlePool } from './common.js';

export interface BenchService {
  system: System;
  baseUrl: string;
  poolMax: number;
  close(): Promise<void>;
}

export interface ServiceOptions {
  poolMax: number;
  /** More configuration variables (SANDBOX_OPERATOR_DELAY_MS, WEBHOOK_ALLOW_PRIVATE_URLS …). */
  env?: Record<string, string>;
  families?: RouteGroup[];
}

/**
 * Starts the service on `databaseUrl`. The secrets key is given and DATA_DIR is a temporary
 * directory, so nothing is written into the working tree. No background work is started here.
 */
export async function startService(databaseUrl: string, options: ServiceOptions): Promise<BenchService> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-bench-service-'));
  const config = loadServiceConfig({
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    SECRETS_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'silent',
    // The benchmarks measure capacity, not the limits in front of it.
    RATE_LIMIT: 'off',
    RATE_LIMIT_ADDRESS: 'off',
    ...options.env,
  });
  const system = await openSystem(config, { log: createLogger('silent'), poolMax: options.poolMax });
  let server: http.Server;
  try {
    server = await listen(buildApi(system, options.families ?? []), 0, system.log, '127.0.0.1');
  } catch (err) {
    await system.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    system,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    poolMax: options.poolMax,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await waitForIdlePool(system.knex);
      await system.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A JSON request with fetch (set-up steps, not measured). Throws on a non-2xx answer. */
export async function callJson<T>(baseUrl: string, method: string, pathname: string, key: string, body?: unknown, environment = 'sandbox'): Promise<T> {
  const res = await fetch(baseUrl + pathname, {
    method,
    headers: { authorization: `Bearer ${key}`, 'x-environment': environment, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** Runs `task` for 0..count-1 with at most `concurrency` at a time. */
export async function inParallel(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}
