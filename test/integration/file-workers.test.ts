/**
 * The test runner's file workers (test/support/run-tests.ts, file-worker.ts): four files run one
 * after another in one slot's worker. Each file's `t` is its own (its counts, its teardown before
 * the next file starts); a failure counts for its file only; a file that ends its worker fails, and
 * the next file runs in a new worker.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from '#tap';
import { root } from '../support/child-process.js';
import { run } from '../support/client-readmes.js';

const NAMES = ['first', 'failing', 'exits', 'last'];
/** Named so that, with no times kept for them, the runner starts them in this order. */
const fileOf = (name: string) => `dist/test/fixtures/file-workers/${'abcd'[NAMES.indexOf(name)]}-${name}.js`;

t.test('four files in one slot: each its own t and counts; a file that ends its worker fails alone', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sika-file-workers-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  // One slot, so one worker runs them in order: with no times kept (a times file of the test's own), by name.
  const runner = run(process.execPath, ['dist/test/support/run-tests.js', ...NAMES.map(fileOf)], root, {
    SIKA_TEST_JOBS: '1',
    SIKA_TEST_WORKER_KINDS: 'fixtures',
    SIKA_TEST_TIMES: path.join(dir, 'times.json'),
    FILE_WORKERS_MARK: path.join(dir, 'mark'),
  });
  t.equal(await runner.exit, 1, 'the run fails');
  const output = runner.output();
  const pid = (name: string) => new RegExp(`ok \\d+ - ${name}'s pid (\\d+)`).exec(output)?.[1];
  t.ok(pid('first'), "first's assertion at its top level");
  t.equal(pid('failing'), pid('first'), 'failing ran in the worker first ran in');
  t.not(pid('last'), pid('first'), 'last ran in a new worker');
  t.match(output, /ok \d+ - first's teardown ran before this file/, "first's teardown ran before failing started");
  t.same(
    NAMES.map((name) => new RegExp(`^(not ok|ok) \\d+ - ${fileOf(name).replace(/[.]/g, '\\.')} # time=`, 'm').exec(output)?.[1]),
    ['ok', 'not ok', 'not ok', 'ok'],
    'each file ok or not by its own assertions',
  );
  t.match(output, /not ok 1 - dist\/test\/fixtures\/file-workers\/c-exits\.js its worker exited with \d+/, 'the file that ended its worker is named');
  t.match(output, /Failed:\n(.*\n)*.*b-failing\.js > failing: one of two > this one fails/, 'the failure is listed under its file');
  t.match(output, /\n6 passed, 2 failed\n/, "the run's counts: first 2; failing 3 and 1; exits the 1 its end adds; last 1");
});
