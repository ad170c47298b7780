/**
 * `make test-schema` and `make fuzz-schema`: Schemathesis (an independent property-based tester,
 * from PyPI) against the OpenAPI document a running service serves at /openapi.json.
 *
 * Starts a throwaway embedded PostgreSQL and the service (`make start`'s process) on a free
 * loopback port, makes a merchant and an owner through the CLI, then runs Schemathesis in three
 * passes, each over the operations its credentials reach:
 *   1. every operation, with the sandbox API key;
 *   2. the signed-in user's operations (auth, team, organizations, onboarding, configuration),
 *      with the owner's access token, except those that end the session;
 *   3. those that end the session (logout, revoke all or others), with a token of their own.
 * Checks, stateless: not_a_server_error, status_code_conformance, content_type_conformance,
 * response_schema_conformance. An operation fails if any pass finds a failure in it. Ends with
 * "N passed, N failed" (operations).
 *
 *   SCHEMA_EXAMPLES  test cases per operation and phase (make test-schema: 5; make fuzz-schema: 100)
 *   SCHEMA_SEED      the seed (default 20261124): the same seed and count generate the same cases
 *   SCHEMATHESIS     the `st` executable (the Makefile's virtual environment)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startEmbeddedPostgres } from '#packages/core/embedded-postgres.js';
import { root, startProcess } from '../support/child-process.js';

const CHECKS = ['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_schema_conformance'];
const USER_PATHS = '^/api/v1/(auth|merchant/team|organizations|onboarding|configuration)';
const SESSION_ENDING = '/api/v1/auth/(logout|sessions/revoke-all|sessions/revoke-others)$';
const PASSWORD = 'Schema-pass-2026';
const KEPT_REPORTS = path.join(root, '.cache/schemathesis-reports');

const examples = positive(process.env.SCHEMA_EXAMPLES, 5);
const seed = positive(process.env.SCHEMA_SEED, 20261124);
const st = path.resolve(root, process.env.SCHEMATHESIS ?? '.cache/venv-schemathesis/bin/st');

function positive(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : fallback;
}

/** Resolves once /healthz answers (the service logs only errors here); rejects if the service exits first. */
async function ready(api: string, service: ReturnType<typeof startProcess>): Promise<void> {
  let exited = false;
  void service.exit.then(() => (exited = true));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`the service exited while starting:\n${service.output()}`);
    const ok = await fetch(`${api}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`the service did not answer within 60 s:\n${service.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function cli(databaseUrl: string, args: string[]): Promise<Record<string, unknown>> {
  const p = startProcess('bin/cli.js', { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, [...args, '--json']);
  if ((await p.exit) !== 0) throw new Error(`sika ${args.join(' ')} failed:\n${p.output()}`);
  return JSON.parse(p.output().trim().split('\n').pop()!) as Record<string, unknown>;
}

async function login(api: string, email: string): Promise<string> {
  const res = await fetch(`${api}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
  const body = (await res.json()) as { accessToken?: string };
  if (!body.accessToken) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(body)}`);
  return body.accessToken;
}

/** One Schemathesis pass; resolves with its JUnit report's failed operations and every operation it tested. */
async function pass(name: string, api: string, token: string, reportDir: string, filters: string[]): Promise<{ tested: Set<string>; failed: Set<string>; code: number }> {
  const junit = path.join(reportDir, `${name}.xml`);
  const args = [
    'run',
    `${api}/openapi.json`,
    '-H',
    `Authorization: Bearer ${token}`,
    '-H',
    'X-Environment: sandbox',
    '--checks',
    CHECKS.join(','),
    '--phases',
    'examples,coverage,fuzzing',
    '--max-examples',
    String(examples),
    '--seed',
    String(seed),
    // One worker: with two threads, Python 3.11's AST compiler (which Hypothesis uses while generating)
    // intermittently crashes with "SystemError: AST constructor recursion depth mismatch", a
    // Schemathesis "Runtime Error" on a random operation that is no finding about the API.
    '--workers',
    '1',
    '--request-timeout',
    '30',
    '--report',
    'junit',
    '--report-junit-path',
    junit,
    ...filters,
  ];
  process.stdout.write(`\n# schemathesis pass "${name}": st ${args.map((a) => (a.startsWith('Authorization') ? "'Authorization: Bearer …'" : a)).join(' ')}\n`);
  // Schemathesis keeps a cache of what it found in its working directory: under .cache, ignored.
  const child = spawn(st, args, { cwd: path.join(root, '.cache'), stdio: ['ignore', 'inherit', 'inherit'] });
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c) => resolve(c ?? 1));
  });
  const xml = fs.existsSync(junit) ? fs.readFileSync(junit, 'utf8') : '';
  const tested = new Set<string>();
  const failed = new Set<string>();
  for (const m of xml.matchAll(/<testcase name="([^"]+)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const operation = m[1]!.replace(/&amp;/g, '&');
    tested.add(operation);
    if (/<(failure|error)\b/.test(m[3] ?? '')) failed.add(operation);
  }
  if (code !== 0 && failed.size === 0) failed.add(`(pass ${name}: schemathesis exited ${code})`);
  return { tested, failed, code };
}

async function main(): Promise<number> {
  if (!fs.existsSync(st)) throw new Error(`${st} is missing: run through make test-schema, which installs Schemathesis`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-schema-'));
  const reportDir = path.join(dataDir, 'reports');
  fs.mkdirSync(reportDir);
  const pg = await startEmbeddedPostgres(path.join(dataDir, 'pg'), { persistent: false, fast: true });
  const databaseUrl = pg.url('postgres');
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const service = startProcess('services/standalone/main.js', { DATABASE_URL: databaseUrl, PORT: String(port), API_WORKERS: '1', RATE_LIMIT: 'off', RATE_LIMIT_ADDRESS: 'off', LOG_LEVEL: 'error' });
  try {
    await ready(api, service);
    const merchant = (await cli(databaseUrl, ['merchants', 'create', '--name', 'Schemathesis'])) as { id: string; api_keys: { sandbox: string } };
    const email = 'owner@schemathesis.example';
    await cli(databaseUrl, ['users', 'create', '--merchant', merchant.id, '--email', email, '--password', PASSWORD, '--role', 'owner']);

    const results = [
      await pass('api-key', api, merchant.api_keys.sandbox, reportDir, []),
      await pass('user', api, await login(api, email), reportDir, ['--include-path-regex', USER_PATHS, '--exclude-path-regex', SESSION_ENDING]),
      await pass('session-ending', api, await login(api, email), reportDir, ['--include-path-regex', SESSION_ENDING]),
    ];
    const tested = new Set(results.flatMap((r) => [...r.tested]));
    const failed = new Set(results.flatMap((r) => [...r.failed]));
    if (failed.size > 0) {
      // The JUnit reports name each failing case and how to reproduce it; they outlive the run.
      fs.cpSync(reportDir, KEPT_REPORTS, { recursive: true });
      process.stdout.write(`\nfailed operations:\n${[...failed].map((f) => `  ${f}`).join('\n')}\n(JUnit reports in ${KEPT_REPORTS})\n`);
    }
    process.stdout.write(`\n${[...tested].filter((op) => !failed.has(op)).length} passed, ${failed.size} failed\n`);
    return failed.size === 0 && results.every((r) => r.code === 0) ? 0 : 1;
  } finally {
    // A service that went away on its own says why in its output (a crash is a finding too).
    if (service.child.exitCode !== null || service.child.signalCode !== null) process.stderr.write(`\nthe service exited (${service.child.exitCode ?? service.child.signalCode}) during the run:\n${service.output()}\n`);
    service.child.kill('SIGTERM');
    await service.exit;
    await pg.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`schema test failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
