/**
 * The scripts that are not tests (make test-schema's run.ts, the simulator, the bench) import test
 * support modules for their helpers. Importing `tap` makes a process a tap test, which tap ends
 * after 30 s ("timeout!"): it killed make test-schema once. The modules those scripts import are
 * loaded here in one process with tap's limit at 1 s (TAP_TIMEOUT), which must live 1.5 s and
 * print nothing but its own line.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';
import { root } from '../support/child-process.js';

/** The support modules the scripts' own files import (what those import is loaded with them). */
const MODULES = new Set(
  ['schema', 'sim', 'bench'].flatMap((dir) =>
    fs
      .readdirSync(path.join(root, 'test', dir))
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) => [...fs.readFileSync(path.join(root, 'test', dir, file), 'utf8').matchAll(/from '\.\.\/support\/([\w-]+\.js)'/g)].map((m) => m[1]!)),
  ),
);

t.test('the support modules of the schema run, the simulator and the bench import no tap', async (t) => {
  t.ok(MODULES.has('child-process.js'), `the modules found: ${[...MODULES].join(', ')}`);
  const imports = [...MODULES].map((name) => `await import(${JSON.stringify(new URL(`file://${path.join(root, 'dist/test/support', name)}`).href)});`).join(' ');
  // Loaded, then the script works past tap's limit: a tap root would say "not ok 1 - timeout!".
  const program = `${imports} setTimeout(() => { console.log('done'); process.exit(0); }, 1500);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', program], { cwd: root, env: { ...process.env, TAP: '', TAP_CHILD_ID: '', TAP_TIMEOUT: '1' } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  t.equal(code, 0, 'the script ends as it says');
  t.equal(output.trim(), 'done', 'and prints no TAP');
});
