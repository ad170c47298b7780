/**
 * The simulator's small budget inside `make test` (docs/reliability.md): one seed, 15 s of faults
 * and one SIGKILL of the service group, against the real service and its PostgreSQL, then the
 * model. `make sim` and `make test-long` run more and longer seeds; SIM_TEST_SEED picks this one.
 */
import t from 'tap';
import { report } from './report.js';
import { runSeed } from './world.js';

const seed = Number(process.env.SIM_TEST_SEED ?? 20261126);
const seconds = 15;
const kills = 1;

t.test(`simulator seed ${seed}: ${seconds} s of rail faults and ${kills} kill, then the model holds`, async (t) => {
  const result = await runSeed({ seed, seconds, kills, clients: 2 });
  t.ok(result.stats.requests !== undefined && result.stats.requests > 0, `the clients sent requests (${result.stats.requests ?? 0})`);
  t.ok((result.stats['kill random'] ?? 0) + (result.stats['kill held'] ?? 0) + (result.stats['kill callback'] ?? 0) === kills, 'the service group was killed and restarted');
  t.same(result.failures, [], result.ok ? `seed ${seed} holds the model` : report(result, seconds, kills));
  t.comment(`seed ${seed}: ${(result.wallMs / 1000).toFixed(0)} s of wall time`);
});
