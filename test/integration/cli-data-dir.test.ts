/**
 * Where `bin/sika` and the service keep their data: DATA_DIR's default is `.data` in the project,
 * whatever the working directory. A CLI command that finds no database there refuses, rather than
 * make an empty one whose keys the service would never see; the service makes its database at its
 * first start. The processes run from a project of their own: a temporary directory whose `dist`
 * and `node_modules` are links to this checkout's (Node keeps the linked paths with
 * --preserve-symlinks), so the project's `.data` is the test's, never this checkout's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from '#tap';
import { loadConfig } from '#packages/core/config.js';
import { freePort, hasCluster } from '#packages/core/embedded-postgres.js';
import { systemClock } from '#packages/core/clock.js';
import { serviceConfigurationFile } from '#packages/core/service-configuration.js';
import { root, startProcess, type ProcessPlace } from '../support/child-process.js';
import { PawapayStandin } from '../support/pawapay-standin.js';
import { cleanUpDataDir } from '../support/data-dir.js';

/** A first start runs initdb: slow on a busy machine. */
const START_TIMEOUT_MS = 180_000;
const LINKED = ['--preserve-symlinks', '--preserve-symlinks-main'];

function temporaryDir(t: Test, prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A project made of this checkout's build: its `.data` (and cluster) deleted at the end. */
function linkedProject(t: Test): string {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-project-'));
  // package.json too: it declares the #packages/* imports the compiled code resolves.
  for (const part of ['dist', 'node_modules', 'package.json']) fs.symlinkSync(path.join(root, part), path.join(project, part));
  cleanUpDataDir(t, path.join(project, '.data'), project);
  return project;
}

function sika(place: ProcessPlace, env: Record<string, string>, ...args: string[]) {
  return startProcess('bin/cli.js', { LOG_LEVEL: 'silent', ...env }, args, LINKED, place);
}

t.test("DATA_DIR's default is the project's .data, not the working directory's; a DATA_DIR given stays relative to it", async (t) => {
  const elsewhere = temporaryDir(t, 'sika-cwd-');
  const before = process.cwd();
  process.chdir(elsewhere);
  t.teardown(() => process.chdir(before));
  t.equal(loadConfig({}).dataDir, path.join(root, '.data'));
  t.equal(loadConfig({ DATA_DIR: 'mine' }).dataDir, path.join(fs.realpathSync(elsewhere), 'mine'));
});

t.test('run from another directory: the CLI refuses a missing database and makes none; the service makes it at its first start, and the CLI then writes to it', async (t) => {
  const project = linkedProject(t);
  const dataDir = path.join(project, '.data');
  const elsewhere = temporaryDir(t, 'sika-cwd-');

  const early = sika({ project, cwd: elsewhere }, {}, 'merchants', 'create', '--name', 'Too early', '--json');
  t.equal(await early.exit, 1, 'refused');
  t.equal(early.output(), `sika: no database in ${dataDir}: the service makes it when it first starts (make start). Start the service once, or set DATA_DIR (or DATABASE_URL) to where the service keeps its data.\n`);
  t.notOk(fs.existsSync(dataDir), "nothing made in the project's DATA_DIR");
  t.same(fs.readdirSync(elsewhere), [], 'nor in the working directory');

  const empty = temporaryDir(t, 'sika-empty-');
  const given = sika({ project, cwd: elsewhere }, { DATA_DIR: empty }, 'keys', 'create', '--merchant', 'acct_x', '--environment', 'sandbox');
  t.equal(await given.exit, 1, 'a DATA_DIR holding no database: refused alike');
  t.match(given.output(), `sika: no database in ${empty}: the service makes it when it first starts`);
  t.same(fs.readdirSync(empty), [], 'and left empty');

  // Live pawaPay is configured in the service's environment only: the CLI's shells below lack it.
  const token = 'service-only-pawapay-token';
  const pawapay = await PawapayStandin.start({ token, clock: systemClock });
  t.teardown(() => pawapay.close());
  const port = await freePort();
  const service = startProcess('services/standalone/main.js', { PORT: String(port), PAWAPAY_API_TOKEN: token, PAWAPAY_API_URL: pawapay.url }, [], LINKED, { project, cwd: elsewhere });
  t.teardown(() => void service.child.kill('SIGKILL'));
  await service.waitFor(/sika is serving/, START_TIMEOUT_MS);
  t.ok(hasCluster(dataDir), "the service made its database in the project's DATA_DIR");

  const created = sika({ project, cwd: temporaryDir(t, 'sika-cwd-') }, {}, 'merchants', 'create', '--name', 'From elsewhere', '--json');
  t.equal(await created.exit, 0, 'the CLI writes to the database the service made', { output: created.output() });
  const { api_keys } = JSON.parse(created.output()) as { api_keys: { sandbox: string } };
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/balance`, { headers: { authorization: `Bearer ${api_keys.sandbox}` } });
  t.equal(res.status, 200, 'the service knows the key the CLI handed out');
  await res.arrayBuffer();

  const recorded = serviceConfigurationFile(dataDir);
  t.equal(fs.statSync(recorded).mode & 0o777, 0o600, "the service recorded its configuration, for its owner's eyes only");

  const reconciled = sika({ project, cwd: elsewhere }, {}, 'reconcile', 'pawapay', '--json');
  // The stand-in's wallets hold money no ledger entry explains: differences, so exit 1, with a report.
  t.equal(await reconciled.exit, 1, "`reconcile pawapay` from a shell without pawaPay's variables acts with the service's", { output: reconciled.output() });
  t.match(JSON.parse(reconciled.output()), { rail: 'pawapay', environment: 'live', attempts: [], checked: 0 }, "pawaPay's wallets were read with the service's token");

  const otherToken = sika({ project, cwd: elsewhere }, { PAWAPAY_API_TOKEN: 'a-token-of-this-shell' }, 'reconcile', 'pawapay');
  t.equal(await otherToken.exit, 1, "a shell's own token is not used: pawaPay's stand-in refuses any but the service's");
  t.match(otherToken.output(), "this shell's PAWAPAY_API_TOKEN is not used");
  t.match(otherToken.output(), 'pawapay (live): 0 attempts checked');

  const sandbox = sika({ project, cwd: elsewhere }, {}, 'reconcile', 'pawapay', '--environment', 'sandbox');
  t.equal(await sandbox.exit, 2, 'a rail the service does not have either');
  t.match(sandbox.output(), `no connector pawapay is configured for sandbox in the service's configuration (${recorded}`);

  service.child.kill('SIGTERM');
  t.equal(await service.exit, 0);
  t.same(fs.readdirSync(elsewhere), [], 'nothing was made in the working directory');
});
