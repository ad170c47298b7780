import { createApp } from '../../packages/http/app.js';
import type { Family } from '../../packages/http/routes.js';
import type { System } from '../system.js';
import { buildOpenApi, openApiFamily } from './openapi.js';
import { healthFamily } from './routes/health.js';

/** The families of the interface this service serves, one router each. */
export function apiFamilies(system: System): Family[] {
  return [healthFamily(system.knex)];
}

export function buildApi(system: System, extra: Family[] = []) {
  const families = [...apiFamilies(system), ...extra];
  let document: Record<string, unknown> | null = null;
  const all: Family[] = [...families, openApiFamily(() => (document ??= buildOpenApi(all)))];
  return createApp({ knex: system.knex, log: system.log, idempotency: system.idempotency, families: all });
}
