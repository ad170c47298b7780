import type { Readable } from 'node:stream';
import type { ApiError, ErrorCode } from '#packages/core/errors.js';
import type { Logger } from '#packages/core/logger.js';
import type { Refusal } from '#packages/core/refusal.js';
import type { PagePolicy } from './page-policy.js';
import type { Actor, Environment, OperatorRole, Owner } from '#packages/core/owner.js';

/** A signed-in user's access token, as the accounts family issues and verifies it (AppTokenVerifier). */
export interface SessionClaims {
  userId: string;
  sessionId: string;
  organizationId: string;
  merchantId: string;
  role: string;
  scopes: string[];
}

/** A signed-in operator's session, as the operators family verifies it (OperatorSessionVerifier): who, which session, which role now. */
export interface OperatorClaims {
  operatorId: string;
  sessionId: string;
  role: OperatorRole;
}

/** Who is calling: resolved from the credential by packages/http/auth.ts. */
export interface Principal {
  merchantId: string;
  environment: Environment;
  livemode: boolean;
  /** API key id (or user id for AppTokens): recorded as the `actor` of events. */
  actor: string;
  scopes: readonly string[];
  /** Set when a signed-in user calls with an access token: who, in which session, organization and role. */
  user?: SessionClaims;
  /** Set for the platform operator credential: it acts for no merchant of its own (`merchantId` is empty). */
  platform?: true;
  /** Set for an operator session (operator routes only): it acts for no merchant (`merchantId` is empty); `actor` is `operator:<id>`. */
  operator?: OperatorClaims;
}

/** What a route handler gets: validated input, the caller, and request-scoped helpers. */
export interface HandlerContext<Body = unknown, Query = unknown, Params = unknown> {
  body: Body;
  query: Query;
  params: Params;
  principal: Principal;
  /** Whose objects this request may see and change: what commands and queries take. */
  owner: Owner;
  /** Who is acting, for the audit metadata of the events this request appends. */
  actor: Actor;
  requestId: string;
  /**
   * Set when the request carries an Idempotency-Key: the key with the body's fingerprint. A command
   * that creates something names it from this, so a retry after a crash finds the first attempt's object.
   */
  requestRef?: string;
  log: Logger;
  header(name: string): string | undefined;
  /** The unparsed request body, on the routes that declare `rawBody`. */
  bodyStream?: Readable;
  /** Absolute URL of this request's path (for list objects' `url`). */
  path: string;
  /** Aborted when the client closes the connection, or its sending side, before the answer is sent. */
  signal: AbortSignal;
  /** Counts this many requests more against the request's rate limits, refusing nothing (time a long poll spent waiting). */
  countRequests(requests: number): Promise<void>;
  /** Whether the client reached the service over HTTPS: on this connection, or by the X-Forwarded-Proto of a trusted proxy (TRUST_PROXY). */
  secure: boolean;
  /** What a refusal answers with at this edge (a page that shows the refusal itself renders it with its status and headers). */
  refusal(err: Refusal | ApiError): RefusalAnswer;
}

/** A refusal as the edge answers it: its code, the request parameter at fault, its status (from the catalogue the edge is handed) and headers (Retry-After). */
export interface RefusalAnswer {
  code: ErrorCode;
  param: string | undefined;
  status: number;
  headers: Record<string, string>;
}

/** What a route's `headers` (routes.ts) may look at: the request, before anything of it is checked. */
export type RequestFacts = Pick<HandlerContext, 'header' | 'secure'>;

/** Answer headers; a list for a header sent more than once (Set-Cookie). */
export type AnswerHeaders = Record<string, string | readonly string[]>;

/**
 * A handler's answer when the default (JSON of the returned value, the route's status) is not
 * enough: another status, extra headers, or a non-JSON body such as a hosted HTML page.
 */
export class Reply {
  constructor(
    readonly body: unknown,
    /** `page`: what an HTML answer's policy allows besides itself (page-policy.ts); every HTML answer gets the policy. */
    readonly options: { status?: number; headers?: AnswerHeaders; contentType?: string; page?: PagePolicy } = {},
  ) {}

  /** This answer with more headers (a refusal's Retry-After on a page shown again). */
  withHeaders(headers: AnswerHeaders): Reply {
    return new Reply(this.body, { ...this.options, headers: { ...this.options.headers, ...headers } });
  }

  static html(html: string, status = 200, page: PagePolicy = {}): Reply {
    return new Reply(html, { status, contentType: 'text/html; charset=utf-8', page });
  }

  /** A body sent as it is produced (exports of any size); a failure after the first byte ends the connection. */
  static stream(body: Readable, contentType: string, headers: Record<string, string> = {}): Reply {
    return new Reply(body, { contentType, headers });
  }

  static redirect(location: string): Reply {
    return new Reply('', { status: 303, headers: { Location: location }, contentType: 'text/plain; charset=utf-8' });
  }
}
