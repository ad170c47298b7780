/**
 * `sika listen`'s state file: written through a temporary file that is created, never opened, so a
 * symlink planted beside the state file (where the temporary file used to be, at a name made of the
 * process id) is not written through.
 */
import { lstatSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { saveState } from '../../bin/listen.js';

t.test('a symlink where the temporary file could be is not followed', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sika-listen-state-'));
  const victim = path.join(dir, 'victim.txt');
  writeFileSync(victim, 'untouched\n');
  const file = path.join(dir, 'listen.json');
  symlinkSync(victim, `${file}.${process.pid}.tmp`);
  await saveState(file, 'http://localhost:3000 abcd', 'evt_1');
  t.equal(readFileSync(victim, 'utf8'), 'untouched\n', 'the planted link’s target is not written');
  t.same(JSON.parse(readFileSync(file, 'utf8')), { 'http://localhost:3000 abcd': 'evt_1' });
  t.ok(lstatSync(file).isFile(), 'the state file is a file of its own');
  t.equal(lstatSync(file).mode & 0o777, 0o600);
  await saveState(file, 'http://localhost:3000 ef01', 'evt_2');
  t.same(JSON.parse(readFileSync(file, 'utf8')), { 'http://localhost:3000 abcd': 'evt_1', 'http://localhost:3000 ef01': 'evt_2' }, 'one entry per service and key');
});
