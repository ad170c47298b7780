/**
 * An atomic change waits for the work this process has in flight on its other streams before it
 * decides (command-handler.ts, docs/performance.md step 33): a payout's answer (its balance and
 * the payout, in one commit) coming while the payout's submission commits decided on a payout
 * one event old, conflicted, and read both streams again.
 */
import t from '#tap';
import type { Decider } from '#packages/core/decider.js';
import { handleCommand, handleCommandsAtomically, step } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { postgresStore } from '../support/db.js';

type Counted = { type: 'counted'; data: { n: number } };
/** A stream that counts its commands. */
const counter: Decider<{ type: 'count' }, number, Counted> = {
  initialState: 0,
  evolve: (n) => n + 1,
  decide: (_, n) => [{ type: 'counted', data: { n: n + 1 } }],
};

t.test('an atomic change waits for this process’s command in flight on its second stream, and decides on what it leaves', async (t) => {
  const { store } = await postgresStore(t);
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let gated = false;
  const reads: string[] = [];
  let atomicCommits = 0;
  // The store as the commands see it: the second stream's next append waits at the gate; reads of streams are counted.
  const observed = new Proxy(store, {
    get(target, prop) {
      if (prop === 'append') {
        return async (...args: Parameters<EventStore['append']>) => {
          if (gated && args[0] === 'second-1') await gate;
          return target.append(...args);
        };
      }
      if (prop === 'appendAtomically') {
        return (...args: Parameters<NonNullable<EventStore['appendAtomically']>>) => {
          atomicCommits++;
          return target.appendAtomically(...args);
        };
      }
      if (prop === 'readStream') {
        return (...args: Parameters<EventStore['readStream']>) => {
          reads.push(args[0]);
          return target.readStream(...args);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as EventStore;
  const meta = {};
  await handleCommand(observed, 'second-1', counter, { type: 'count' }, meta);
  gated = true;
  const inFlight = handleCommand(observed, 'second-1', counter, { type: 'count' }, meta); // waits at the gate
  const change = handleCommandsAtomically(observed, [
    step({ streamId: 'first-1', decider: counter, command: { type: 'count' } as const, metadata: meta }),
    step({ streamId: 'second-1', decider: counter, command: { type: 'count' } as const, metadata: meta }),
  ])!;
  release();
  const [single, [first, second]] = await Promise.all([inFlight, change]);
  t.equal(single.state, 2, 'the command in flight committed its event');
  t.equal(first!.state, 1);
  t.equal(second!.state, 3, 'the change decided on what the command in flight left');
  t.equal(atomicCommits, 1, 'one commit of the change: no conflict');
  t.same(reads, [], 'no stream read again');
  t.same(
    (await store.readStream('second-1')).map((e) => e.data),
    [{ n: 1 }, { n: 2 }, { n: 3 }],
    'the second stream in order',
  );
});
