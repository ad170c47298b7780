import type { RouteGroup } from '#packages/http/routes.js';
import type { System } from '../../system.js';
import { connectorsRoutes } from './connectors.js';
import { feesRoutes } from './fees.js';
import { geographyRoutes } from './geography.js';
import { healthRoutes } from './health.js';
import { operatorRailsRoutes } from './operator-rails.js';

/**
 * The service's own routers, no family's: probes, the operator and fee catalogue
 * (packages/catalog), the rails' callbacks and the operators' view of the rails. The families'
 * routers come with them in the family list (packages/families/index.ts); the server
 * (services/api/app.ts) mounts both in its own fixed order.
 */
export const SERVICE_ROUTERS: readonly ((system: System) => RouteGroup)[] = [
  (system) => healthRoutes(system.knex, system.config.eventStore === 'esdb' ? 'projector' : 'inline'),
  () => geographyRoutes(),
  () => feesRoutes(),
  // The rails' callbacks (docs/connectors.md).
  (system) => connectorsRoutes(system.railInbound),
  // The rails as the platform's operators watch them (docs/operator.md).
  (system) => operatorRailsRoutes(system.knex, system.store, system.clock, system.connectors, system.railHealth, system.railFloat),
];
