import type { Logger } from '../core/logger.js';
import type { Environment } from '../domain/merchant/events.js';

/** Who is calling: resolved from the credential by packages/http/auth.ts. */
export interface Principal {
  merchantId: string;
  environment: Environment;
  livemode: boolean;
  /** API key id (or user id for AppTokens): recorded as the `actor` of events. */
  actor: string;
  scopes: readonly string[];
}

/** What a route handler gets: validated input, the caller, and request-scoped helpers. */
export interface HandlerContext<Body = unknown, Query = unknown, Params = unknown> {
  body: Body;
  query: Query;
  params: Params;
  principal: Principal;
  requestId: string;
  log: Logger;
  header(name: string): string | undefined;
  /** Absolute URL of this request's path (for list objects' `url`). */
  path: string;
}

export interface HandlerResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
}
