import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import { route, type RouteGroup } from '#packages/http/routes.js';

const READY_TIMEOUT_MS = 2000;

/**
 * Liveness and readiness probes. With the Postgres store projections run inside the append
 * transaction and never lag; with EventStoreDB the projector applies them and writes wait for it.
 */
export function healthRoutes(knex: Knex, projections: 'inline' | 'projector'): RouteGroup {
  return {
    name: 'health',
    description: 'Liveness and readiness probes for load balancers and orchestrators: no credential, no data.',
    routes: [
      route({
        method: 'get',
        path: '/healthz',
        summary: 'The process is up',
        description:
          'Liveness: answers `{"status":"ok"}` as long as the process serves HTTP, without touching the database. Point a liveness probe at it (restart the process when it fails); use `/readyz` to decide whether to send it traffic.',
        auth: 'public',
        response: { type: 'object', properties: { status: { const: 'ok', description: 'Always `ok`' } } },
        handler: async () => ({ status: 'ok' }),
      }),
      route({
        method: 'get',
        path: '/readyz',
        summary: 'The database is reachable and read models are current',
        description:
          "Readiness: answers `ready` when the database answers within 2 seconds, else `503 IKW-SVC-001` (retryable). Point a load balancer's or orchestrator's readiness probe at it, so that an instance that lost its database takes no requests. `checks.projections` says where the read models are kept.",
        refusals: ['IKW-SVC-001'],
        auth: 'public',
        response: {
          type: 'object',
          required: ['status', 'checks'],
          properties: {
            status: { const: 'ready', description: 'Always `ready` in a success' },
            checks: {
              type: 'object',
              required: ['database', 'projections'],
              description: 'What was checked',
              properties: {
                database: { const: 'ok', description: 'The database answered' },
                projections: {
                  enum: ['inline', 'projector'],
                  description: 'Where read models are kept: with each command, or by the projector process',
                  'x-enumDescriptions': {
                    inline: 'With each command, in its transaction (PostgreSQL store): reads never lag',
                    projector: 'By the projector process (EventStoreDB store); writes wait for it',
                  },
                },
              },
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
