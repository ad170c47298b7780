import type { Knex } from 'knex';
import { ApiError } from '../../../packages/core/errors.js';
import { route, type Family } from '../../../packages/http/routes.js';

const READY_TIMEOUT_MS = 2000;

/**
 * Liveness and readiness probes. With the Postgres store projections run inside the append
 * transaction and never lag; with EventStoreDB the projector applies them and writes wait for it.
 */
export function healthFamily(knex: Knex, projections: 'inline' | 'projector'): Family {
  return {
    name: 'health',
    description: 'Liveness and readiness probes for load balancers and orchestrators: no credential, no data.',
    routes: [
      route({
        method: 'get',
        path: '/healthz',
        summary: 'The process is up',
        auth: 'public',
        response: { type: 'object', properties: { status: { const: 'ok' } } },
        handler: async () => ({ status: 'ok' }),
      }),
      route({
        method: 'get',
        path: '/readyz',
        summary: 'The database is reachable and read models are current',
        auth: 'public',
        response: {
          type: 'object',
          required: ['status', 'checks'],
          properties: {
            status: { const: 'ready' },
            checks: {
              type: 'object',
              required: ['database', 'projections'],
              properties: { database: { const: 'ok' }, projections: { enum: ['inline', 'projector'], description: 'Where read models are kept: with each command, or by the projector process' } },
            },
          },
        },
        handler: async () => {
          const probe = knex.raw('SELECT 1').timeout(READY_TIMEOUT_MS, { cancel: true });
          try {
            await probe;
          } catch {
            throw new ApiError('IKW-SVC-001', 'The database is not reachable');
          }
          return { status: 'ready', checks: { database: 'ok', projections } };
        },
      }),
    ],
  };
}
