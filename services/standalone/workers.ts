import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '#packages/core/logger.js';

export interface Workers {
  /** The port the workers share. */
  port: number;
  /** Asks every worker to finish its requests and stop; resolves when all have exited. */
  stop(): Promise<void>;
}

/**
 * Forks `count` API workers and resolves once each listens. A worker that dies while the service
 * runs is replaced (logged); the primary accepts connections and hands them out in turn.
 */
export async function startWorkers(count: number, log: Logger): Promise<Workers> {
  let stopping = false;
  const fork = (): Promise<{ worker: Worker; port: number }> =>
    new Promise((resolve, reject) => {
      const worker = cluster.fork();
      const onExit = (code: number | null) => reject(new Error(`an API worker exited with code ${code} before listening`));
      worker.once('exit', onExit);
      worker.once('message', (message: { listening?: number }) => {
        if (typeof message.listening !== 'number') return;
        worker.off('exit', onExit);
        worker.once('exit', (code, signal) => {
          if (stopping) return;
          log.error({ worker: worker.id, code, signal }, 'API worker died; starting another');
          fork().catch((err: unknown) => log.error({ err }, 'could not replace an API worker'));
        });
        resolve({ worker, port: message.listening });
      });
    });
  const started = await Promise.all(Array.from({ length: count }, fork));
  return {
    port: started[0]!.port,
    stop: async () => {
      stopping = true;
      const alive = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
      await Promise.all(
        alive.map(
          (w) =>
            new Promise<void>((resolve) => {
              w.once('exit', () => resolve());
              w.process.kill('SIGTERM');
            }),
        ),
      );
    },
  };
}
