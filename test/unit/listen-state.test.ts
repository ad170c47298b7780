/**
 * `sika listen`'s state file: written through a temporary file that is created, never opened, so a
 * symlink planted beside the state file (where the temporary file used to be, at a name made of the
 * process id) is not written through. One entry per service and key: its signing secret and position.
 */
import { lstatSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from '#tap';
import { saveSession } from '../../bin/listen.js';

t.test('a symlink where the temporary file could be is not followed', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sika-listen-state-'));
  const victim = path.join(dir, 'victim.txt');
  writeFileSync(victim, 'untouched\n');
  const file = path.join(dir, 'listen.json');
  symlinkSync(victim, `${file}.${process.pid}.tmp`);
  const first = { signing_secret: 'whsec_a', last_event_id: 'evt_1' };
  await saveSession(file, 'http://localhost:3000 abcd', first);
  t.equal(readFileSync(victim, 'utf8'), 'untouched\n', 'the planted link’s target is not written');
  t.same(JSON.parse(readFileSync(file, 'utf8')), { 'http://localhost:3000 abcd': first });
  t.ok(lstatSync(file).isFile(), 'the state file is a file of its own');
  t.equal(lstatSync(file).mode & 0o777, 0o600);
  const second = { signing_secret: 'whsec_b', last_event_id: null };
  await saveSession(file, 'http://localhost:3000 ef01', second);
  t.same(JSON.parse(readFileSync(file, 'utf8')), { 'http://localhost:3000 abcd': first, 'http://localhost:3000 ef01': second }, 'one entry per service and key');
});
