/**
 * The simulator's small budget as a suite (docs/reliability.md): one seed, 10 s of faults and one
 * SIGKILL of the service group, against the real service and its PostgreSQL, then the model.
 * `make test-long` runs it before two longer regression seeds (make test leaves it out: it only
 * repeats what they check, at length); `make sim` runs more. SIM_TEST_SEED picks this one.
 */
import t from '#tap';
import { report } from './report.js';
import { runSeed } from './world.js';

const seed = Number(process.env.SIM_TEST_SEED ?? 20261126);
const seconds = 10;
const kills = 1;

t.test(`simulator seed ${seed}: ${seconds} s of rail faults and ${kills} kill, then the model holds`, async (t) => {
  const result = await runSeed({ seed, seconds, kills, clients: 2 });
  t.ok(result.stats.requests !== undefined && result.stats.requests > 0, `the clients sent requests (${result.stats.requests ?? 0})`);
  const killed = Object.entries(result.stats)
    .filter(([k]) => k.startsWith('kill '))
    .reduce((n, [, v]) => n + v, 0);
  t.equal(killed, kills, 'the service group was killed and restarted');
  // A failure's timeline is long: it goes to the output as a comment, the assertion lists what failed.
  if (!result.ok) t.comment(report(result, seconds, kills, 2));
  t.same(result.failures, [], `seed ${seed} holds the model (replay: make sim SIM_SEED=${seed} SIM_SECONDS=${seconds} SIM_KILLS=${kills} SIM_CLIENTS=2)`);
  t.comment(`seed ${seed}: ${(result.wallMs / 1000).toFixed(0)} s of wall time`);
});
