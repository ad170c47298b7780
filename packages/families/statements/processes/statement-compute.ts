import type { Knex } from 'knex';
import type { ConsumerSpec } from '#packages/bus/consumer.js';
import type { Clock } from '#packages/core/clock.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { defineProcess, lanes } from '#packages/processes/process.js';
import { enqueue } from '#packages/scheduler/scheduler.js';
import type { StatementRef } from '../commands.js';
import type { StatementEvent } from '../events.js';

/** Computes a long statement in the background; `statement.ready` follows. */
export const statementCompute = defineProcess<StatementRef>({
  job: { name: 'statement.compute', key: (p) => `statement:${p.statementId}`, lane: lanes.merchant },
  handler:
    ({ statements }) =>
    async (p) =>
      void (await statements.compute(p)),
});

export const STATEMENTS_CONSUMER = 'statements';

/** Each deferred statement becomes a job, in the consumer's transaction: none is lost or doubled. */
export function statementsConsumer(clock: Clock): ConsumerSpec {
  return {
    name: STATEMENTS_CONSUMER,
    checkpointTable: 'bus_checkpoints',
    handles: ['statement.requested'],
    handle: async (trx: Knex.Transaction, events: readonly RecordedEvent[]) => {
      for (const event of events) {
        if (event.type !== 'statement.requested') continue;
        const statement = (event as unknown as Extract<StatementEvent, { type: 'statement.requested' }>).data;
        if (statement.deferred) await enqueue(trx, statementCompute.job, { merchantId: statement.merchantId, statementId: statement.id }, clock.now());
      }
    },
  };
}
