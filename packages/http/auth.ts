import { ApiError } from '#packages/core/errors.js';
import { hashApiKey } from '#packages/core/hashing.js';
import type { Environment, OperatorRole } from '#packages/core/owner.js';
import { hasScope } from '#packages/core/scopes.js';
import type { OperatorClaims, Principal, SessionClaims } from './context.js';
import type { RouteAuth } from './routes.js';

const KEY_SHAPE = /^sk_(test|live)_[0-9A-Za-z]{32,128}$/;

function parseEnvironmentHeader(value: string | undefined): Environment | undefined {
  if (value === undefined) return undefined;
  if (value === 'sandbox' || value === 'live') return value;
  throw new ApiError('IKW-AUT-005', undefined, 'X-Environment');
}

/** Verifies dashboard AppTokens (packages/families/accounts/user/sessions.ts): who signed in, for which merchant, with which scopes. */
export interface AppTokenVerifier {
  verify(token: string): Promise<SessionClaims>;
}

/** An API key as the merchant family keeps it: whose, for which environment, with which scopes. */
export interface PresentedKey {
  id: string;
  merchant_id: string;
  environment: Environment;
  scopes: string[];
}

/** The platform operator's credentials (packages/families/platform/platform-admin), filled by the composition root. */
export interface AdminKeys {
  /** Whether a credential has the shape of an operator key (`sk_admin_…`), known or not. */
  looksLike(credential: string): boolean;
  /** The actor an operator key acts as, by the SHA-256 of the key; undefined for no such key. */
  actorOf(keyHash: string): Promise<string | undefined>;
}

/**
 * Verifies operator session tokens (the operators family, docs/operator.md), filled by the
 * composition root: the claims of a live session; `ended` for a token the service issued whose
 * session has ended, expired or whose operator was deactivated; undefined for anything else.
 */
export interface OperatorSessionVerifier {
  verify(token: string): Promise<OperatorClaims | 'ended' | undefined>;
}

/** The console's cookie holding the operator session token (HttpOnly, SameSite=Strict, Path=/api/v1/operator). */
export const OPERATOR_SESSION_COOKIE = 'sika_operator_session';
/** The header a request sends for its operator cookie to count: a page of another site cannot send it (no CORS is offered). */
export const OPERATOR_COOKIE_HEADER = 'sika-operator-cookie';

/**
 * Thrown for an operator route called with anything but an operator session: the app answers it
 * exactly as a path that does not exist (IKW-RTE-001), so merchants never learn the route is there.
 */
export class HiddenRoute extends Error {
  constructor() {
    super('hidden operator route');
  }
}

function cookieNamed(header: string | undefined, name: string): string | undefined {
  for (const pair of (header ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

/** An operator route's caller: an operator session of one of `roles` (an admin's always), else hidden or 403. */
async function authenticateOperator(sessions: OperatorSessionVerifier | undefined, roles: readonly OperatorRole[], header: (name: string) => string | undefined): Promise<Principal> {
  const bearer = /^Bearer +(\S+)\s*$/i.exec(header('authorization') ?? '')?.[1];
  const token = bearer ?? (header(OPERATOR_COOKIE_HEADER) === '1' ? cookieNamed(header('cookie'), OPERATOR_SESSION_COOKIE) : undefined);
  if (!sessions || token === undefined || !JWT_SHAPE.test(token)) throw new HiddenRoute();
  const claims = await sessions.verify(token);
  if (claims === undefined) throw new HiddenRoute();
  if (claims === 'ended') throw new ApiError('IKW-OPR-002');
  if (claims.role !== 'admin' && !roles.includes(claims.role)) throw new ApiError('IKW-OPR-001', `This operation is for the roles ${['admin', ...roles.filter((r) => r !== 'admin')].join(', ')}; you are ${claims.role}`);
  const requested = parseEnvironmentHeader(header('x-environment')) ?? 'sandbox';
  return { merchantId: '', environment: requested, livemode: requested === 'live', actor: `operator:${claims.operatorId}`, scopes: ['operator'], operator: claims };
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Finds an API key by the SHA-256 of the presented key, if it may authenticate now: neither revoked nor past a roll's grace period. */
export type ApiKeyLookup = (keyHash: string) => Promise<PresentedKey | undefined>;

/** The credentials a request may present, each learned through a port its family fills. */
export interface Credentials {
  apiKeys: ApiKeyLookup;
  adminKeys: AdminKeys;
  /** Dashboard AppTokens; without it only API keys authenticate. */
  appTokens?: AppTokenVerifier;
  /** Operator sessions; without it every operator route is hidden. */
  operatorSessions?: OperatorSessionVerifier;
}

/**
 * Resolves the credential of a request to a Principal, or throws 400/401/403 (docs/errors.md, IKW-AUT-*).
 * A key that is malformed, unknown, revoked or expired gets the same answer: nothing leaks about which.
 */
export async function authenticate({ apiKeys, adminKeys, appTokens, operatorSessions }: Credentials, auth: RouteAuth, header: (name: string) => string | undefined): Promise<Principal> {
  if (auth.operator) return authenticateOperator(operatorSessions, auth.operator, header);
  const authorization = header('authorization');
  if (!authorization) throw new ApiError('IKW-AUT-001');
  const match = /^Bearer +(\S+)\s*$/i.exec(authorization);
  if (!match) throw new ApiError('IKW-AUT-001', 'The Authorization header must be "Bearer <API key>"');
  const credential = match[1]!;
  const requested = parseEnvironmentHeader(header('x-environment'));
  if (auth.platform && adminKeys.looksLike(credential)) {
    const actor = await adminKeys.actorOf(hashApiKey(credential));
    if (!actor) throw new ApiError('IKW-AUT-002');
    const environment = requested ?? 'sandbox';
    return { merchantId: '', environment, livemode: environment === 'live', actor, scopes: ['*'], platform: true };
  }
  if (auth.platform === 'only') throw new ApiError('IKW-AUT-009');
  if (appTokens && JWT_SHAPE.test(credential)) {
    if (requested === undefined && auth.environmentHeader === 'required') throw new ApiError('IKW-AUT-006', undefined, 'X-Environment');
    const claims = await appTokens.verify(credential);
    if (!auth.appTokenOnly && !hasScope(claims.scopes, auth.scope)) throw new ApiError('IKW-AUT-004', `This token lacks the scope ${auth.scope}`);
    // A dashboard user acts in either environment; X-Environment picks one (default sandbox).
    const environment = requested ?? 'sandbox';
    return { merchantId: claims.merchantId, environment, livemode: environment === 'live', actor: `user:${claims.userId}`, scopes: claims.scopes, user: claims };
  }
  // An API key on an account route is the wrong credential (403); anything else is no credential
  // at all (401, as a bad signature is), so a dashboard signs in again.
  if (auth.appTokenOnly) throw KEY_SHAPE.test(credential) || adminKeys.looksLike(credential) ? new ApiError('IKW-ACC-003') : new ApiError('IKW-AUT-007');
  if (!KEY_SHAPE.test(credential)) throw new ApiError('IKW-AUT-002');
  const key = await apiKeys(hashApiKey(credential));
  if (!key) throw new ApiError('IKW-AUT-002');
  if (requested !== undefined && requested !== key.environment) throw new ApiError('IKW-AUT-003', undefined, 'X-Environment');
  if (requested === undefined && auth.environmentHeader === 'required') throw new ApiError('IKW-AUT-006', undefined, 'X-Environment');
  if (!hasScope(key.scopes, auth.scope)) {
    throw new ApiError('IKW-AUT-004', `This API key lacks the scope ${auth.scope}`);
  }
  return {
    merchantId: key.merchant_id,
    environment: key.environment,
    livemode: key.environment === 'live',
    actor: key.id,
    scopes: key.scopes,
  };
}
