/** Requests per second of cheap GET routes, with autocannon. */
import autocannon from 'autocannon';
import { createMerchant } from '#packages/families/merchants/merchant/commands.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import { fixed, HTTP_CONNECTIONS, HTTP_WORKERS, MEASURE_SECONDS, progress, round, table, WARMUP_SECONDS } from './common.js';
import { startService } from './service.js';

/** The pool the service gets in `make start` (createKnex's default). */
export const HTTP_POOL_MAX = 20;
const ONBOARDING_PATH = '/api/v1/onboarding/steps';
const BENCH_AUTH_PATH = '/bench/authenticated';

interface HttpTarget {
  name: string;
  path: string;
  headers: Record<string, string>;
  note?: string;
}

export interface HttpResult {
  name: string;
  note?: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  total: number;
}

/**
 * Bench-only route with the same authentication as every merchant route (SHA-256 of the key, one
 * read.api_keys lookup), used when the onboarding route does not exist yet: /readyz is public, so a
 * key sent to it is never checked.
 */
function benchAuthFamily(): RouteGroup {
  return {
    name: 'bench',
    routes: [
      route({
        method: 'get',
        path: BENCH_AUTH_PATH,
        summary: 'Benchmark probe: authenticates the API key and answers',
        auth: { scope: '*' },
        response: { type: 'object' },
        handler: async (ctx) => ({ merchant_id: ctx.principal.merchantId }),
      }),
    ],
  };
}

/** The authenticated targets: the onboarding route if it exists, else /readyz with a key plus the bench probe. */
async function authenticatedTargets(baseUrl: string, key: string): Promise<HttpTarget[]> {
  const headers = { authorization: `Bearer ${key}` };
  const probe = await fetch(baseUrl + ONBOARDING_PATH, { headers });
  const body = (await probe.json().catch(() => ({}))) as { code?: unknown };
  if (probe.status === 404 && body.code === 'IKW-RTE-001') {
    const why = `${ONBOARDING_PATH} answers 404 IKW-RTE-001 (not built yet)`;
    return [
      { name: 'GET /readyz (with API key)', path: '/readyz', headers, note: `fallback: ${why}; /readyz is public, so the key is not checked` },
      { name: `GET ${BENCH_AUTH_PATH}`, path: BENCH_AUTH_PATH, headers, note: 'bench-only route that does check the API key (same auth as merchant routes)' },
    ];
  }
  const note = probe.ok ? undefined : `probe answered ${probe.status} ${String(body.code ?? '')}: these requests count as non-2xx`;
  return [{ name: `GET ${ONBOARDING_PATH}`, path: ONBOARDING_PATH, headers, ...(note ? { note } : {}) }];
}

async function loadHttp(baseUrl: string, target: HttpTarget): Promise<HttpResult> {
  const result = await autocannon({
    url: baseUrl + target.path,
    method: 'GET',
    headers: target.headers,
    connections: HTTP_CONNECTIONS,
    duration: MEASURE_SECONDS,
    // In worker threads the load generator does not share the server's event loop.
    ...(HTTP_WORKERS > 0 ? { workers: HTTP_WORKERS } : {}),
  });
  return {
    name: target.name,
    ...(target.note ? { note: target.note } : {}),
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    total: result.requests.total,
  };
}

/** Warm-up: connections opened, code paths compiled, the key's row cached by Postgres. */
async function warmHttp(baseUrl: string, target: HttpTarget): Promise<void> {
  if (WARMUP_SECONDS <= 0) return;
  await autocannon({ url: baseUrl + target.path, headers: target.headers, connections: HTTP_CONNECTIONS, duration: WARMUP_SECONDS });
}

export async function benchHttp(databaseUrl: string): Promise<HttpResult[]> {
  const service = await startService(databaseUrl, { poolMax: HTTP_POOL_MAX, families: [benchAuthFamily()] });
  try {
    const merchant = await createMerchant(service.system.store, service.system.clock, 'Bench merchant', 'bench');
    const targets: HttpTarget[] = [{ name: 'GET /healthz', path: '/healthz', headers: {} }, ...(await authenticatedTargets(service.baseUrl, merchant.api_keys.sandbox))];
    const results: HttpResult[] = [];
    for (const target of targets) {
      progress(`  ${target.name}…`);
      await warmHttp(service.baseUrl, target);
      results.push(await loadHttp(service.baseUrl, target));
    }
    return results;
  } finally {
    // autocannon stops with requests in flight: close() waits for the pool to go idle first.
    await service.close();
  }
}

export function httpTable(results: HttpResult[]): string {
  return table(
    ['route', 'req/s (avg)', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'requests'],
    results.map((r) => [r.name, fixed(r.requestsPerSecond, 0), fixed(r.p50Ms, 2), fixed(r.p99Ms, 2), String(r.non2xx), String(r.errors), String(r.total)]),
  );
}

export function httpJson(results: HttpResult[]) {
  return {
    connections: HTTP_CONNECTIONS,
    workers: HTTP_WORKERS,
    pool_max: HTTP_POOL_MAX,
    routes: results.map((r) => ({
      route: r.name,
      req_per_s: round(r.requestsPerSecond, 1),
      p50_ms: r.p50Ms,
      p99_ms: r.p99Ms,
      non_2xx: r.non2xx,
      errors: r.errors,
      timeouts: r.timeouts,
      requests: r.total,
      ...(r.note ? { note: r.note } : {}),
    })),
  };
}
