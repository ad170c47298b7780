import type { Knex } from 'knex';
import { sha256Hex } from '#packages/core/hashing.js';
import { findPortalSession, type PortalSession } from '../read/customer-portal-sessions.js';
import { ApiError } from '#packages/core/errors.js';
import { customerPortalErrors } from '../errors.js';

const PORTAL_TOKEN = /^cps_[0-9A-Za-z]{32}$/;

/** The live portal session of a token (from the Authorization header, or the hosted pages' cookie), if any. */
export async function portalSessionOf(knex: Knex, now: Date, token: string | undefined): Promise<PortalSession | undefined> {
  return token && PORTAL_TOKEN.test(token) ? findPortalSession(knex, sha256Hex(token), now) : undefined;
}

/** The customer portal's caller: the live portal session of its `Authorization: Bearer cps_…` token, or 401 IKW-CPT-002. */
export async function portalCaller(knex: Knex, now: Date, authorization: string | undefined): Promise<PortalSession> {
  const session = await portalSessionOf(knex, now, /^Bearer (\S+)$/.exec(authorization ?? '')?.[1]);
  if (!session) throw new ApiError('IKW-CPT-002', customerPortalErrors['IKW-CPT-002'].message, 'Authorization');
  return session;
}
