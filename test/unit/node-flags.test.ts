/**
 * The Node flags the service runs with (the Makefile's SERVICE_NODE_FLAGS, docs/performance.md
 * steps 18 and 35): the same wherever the service starts, and the old generation they bound.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';
import { root, serviceNodeFlags } from '../support/child-process.js';

t.test('make start, the image and the process list of infra/README.md run Node with the same flags', async (t) => {
  const flags = serviceNodeFlags();
  t.ok(flags.includes('--heap-growing-percent=20'), `make start bounds the old generation's growth (${flags.join(' ')})`);
  const cmd = /^CMD (\[.*\])$/m.exec(fs.readFileSync(path.join(root, 'infra/Dockerfile'), 'utf8'))?.[1];
  t.same(JSON.parse(cmd ?? 'null'), ['node', ...flags, 'dist/services/standalone/main.js'], "the image's command");
  t.match(fs.readFileSync(path.join(root, 'infra/README.md'), 'utf8'), `\`node ${flags.join(' ')} dist/services/<name>/main.js\``, 'the processes of infra/README.md');
});

/**
 * A process keeps a set of objects alive and makes garbage that outlives two scavenges, as the
 * requests in flight of a loaded service do; the largest its old space gets, against what
 * survives a full collection. V8's default lets the old generation grow to several times that
 * (about 6 times here) before it collects.
 */
const CHURN = `
const v8 = require('node:v8');
const old = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
const kept = Array.from({ length: 150000 }, (_, i) => ({ i, s: 'x'.repeat(40) + i, a: [i, i + 1] }));
const recent = new Array(100000);
let largest = 0;
for (let i = 0; i < 2000000; i++) {
  recent[i % recent.length] = { i, s: 'y'.repeat(20) + i, b: [i] };
  if (i % 50000 === 0) largest = Math.max(largest, old().space_size);
}
globalThis.gc();
console.log(JSON.stringify({ largest, survives: old().space_used_size, kept: kept.length }));
`;

t.test("with make start's flags the old generation grows to at most 3 times what survives a full collection", async (t) => {
  const run = spawnSync(process.execPath, [...serviceNodeFlags(), '--expose-gc', '-e', CHURN], { encoding: 'utf8' });
  t.equal(run.status, 0, run.stderr);
  const { largest, survives } = JSON.parse(run.stdout) as { largest: number; survives: number };
  const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
  t.ok(largest <= 3 * survives, `old space at most ${mb(largest)} for ${mb(survives)} that survives`);
});
