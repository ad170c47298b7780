import { loadConfig, type Config } from '#packages/core/config.js';
import type { Env } from '#packages/core/config-parsing.js';
import { loadRailsConfig, type RailsConfig } from '#packages/connectors/rails.js';

/**
 * The service's configuration: the kernel's settings (packages/core/config.ts) and the rails' and
 * the router's (packages/connectors/rails.ts), parsed once at start from environment variables,
 * in that order (the first bad one stops the start, naming its variable).
 */
export type ServiceConfig = Config & RailsConfig;

export function loadServiceConfig(env: Env = process.env): ServiceConfig {
  return { ...loadConfig(env), ...loadRailsConfig(env) };
}
