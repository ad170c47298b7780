/** The statement decider: requested once, computed once; both events carry the statement. */
import t from '#tap';
import { statementAggregate } from '#packages/families/statements/render.js';
import type { StatementRequested } from '#packages/families/statements/events.js';
import { StatementSum } from '#packages/families/statements/statement.js';
import { spec } from '../../support/decider-spec.js';

const T0 = '2026-11-01T00:00:00.000Z';
const T1 = '2026-12-01T00:00:00.000Z';

t.test('statement: requested once, computed once', async (t) => {
  const statements = spec(statementAggregate);
  const statement: StatementRequested = { id: 'stmt_1', merchantId: 'acct_1', environment: 'sandbox', currency: 'xof', periodStart: T0, periodEnd: T1, deferred: true, requestedAt: T1 };
  const requested = statements.history({ type: 'request', statement });
  t.match(requested, [{ type: 'statement.requested', data: { object: { id: 'stmt_1', object: 'statement', status: 'pending', opening: null, lines: [], ready_at: null, csv_url: '/api/v1/statements/stmt_1/csv' } } }]);
  statements.given(requested).when({ type: 'request', statement }).thenThrows(t, 'IKW-RES-003');
  const sum = new StatementSum({ available: 100, pending: 0, reserved: 0 });
  sum.add({ kind: 'payment', fee: 10, available: 0, pending: 90, reserved: 0 });
  const computed = { id: 'stmt_1', totals: sum.totals(), computedAt: T1 };
  const ready = statements.history({ type: 'request', statement }, { type: 'record_computed', computed });
  t.match(ready[1], {
    type: 'statement.ready',
    data: {
      ...computed,
      object: { status: 'ready', opening: { total: 100 }, closing: { available: 100, pending: 90, total: 190 }, lines: [{ category: 'payments', pending: 100, url: '/api/v1/statements/stmt_1/csv?category=payments' }] },
    },
  });
  statements.given(ready).when({ type: 'record_computed', computed }).thenNothing(t, 'a job run again records nothing twice');
  statements.given([]).when({ type: 'record_computed', computed }).thenNothing(t, 'no such statement: nothing to record');
});
