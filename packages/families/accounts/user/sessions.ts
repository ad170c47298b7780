import { randomBytes } from 'node:crypto';
import { sha256Hex } from '#packages/core/hashing.js';
import { Refusal } from '#packages/core/refusal.js';
import { newUuid } from '#packages/core/ids.js';
import type { EventMetadata } from '#packages/eventstore/port.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { ROLE_SCOPES } from '../organization/events.js';
import type { Membership } from '#packages/families/read-ports.js';
import { userDecider, type UserCommand, type UserState } from './decider.js';
import { userStream, type UserEvent, type SessionContext, type SessionProof } from './events.js';
import { ACCESS_TOKEN_TTL_S, type AppTokenClaims } from './tokens.js';
import type { Actor } from '#packages/core/owner.js';
import { userMetadata, type AccountDeps } from './commands.js';

export const REFRESH_TOKEN_TTL_MS = 30 * 86_400_000;

/** Where a sign-in comes from, shown in the user's sessions list. */
export interface Device {
  userAgent: string | null;
  ip: string | null;
}

export interface SignedInUser {
  id: string;
  email: string;
  name: string;
  organizationId: string;
  merchantId: string;
  role: Membership['role'];
}

/** An access token for the session's current organization and merchant. */
export interface AccessToken {
  accessToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  user: SignedInUser;
}

export interface TokenPair extends AccessToken {
  refreshToken: string;
}

/** A refresh token names its user, so a refresh finds the stream without a lookup table. */
const REFRESH_SHAPE = /^rt_[A-Za-z0-9_-]{43}\.([0-9a-f-]{36})$/;
const newRefreshToken = (userId: string) => `rt_${randomBytes(32).toString('base64url')}.${userId}`;

/**
 * Dashboard users' sessions (docs/accounts.md): started by a sign-in, kept with rotating refresh
 * tokens, their access tokens verified, moved to another organization or merchant, and ended.
 */
export class UserSessions extends CommandService<UserCommand, UserState, UserEvent> {
  /** Every user command decides again on a lost race: they are the user's own, never a 409 to them. */
  constructor(private readonly deps: Pick<AccountDeps, 'store' | 'clock' | 'tokens' | 'directory'>) {
    super(deps.store, userStream, userDecider, { onConflict: 'internal' });
  }

  private metadata(userId: string, actor: Actor, context?: SessionContext): EventMetadata {
    return userMetadata(this.deps.clock, userId, actor, context);
  }

  /** Where a new session acts: the user's default organization if still a member, else their first. */
  private async chooseContext(userId: string, preferred: string | null): Promise<{ context: SessionContext; membership: Membership }> {
    const memberships = (await this.deps.directory.memberships(userId)).filter((m) => m.merchantIds.length > 0);
    const membership = memberships.find((m) => m.organizationId === preferred) ?? memberships[0];
    if (!membership) throw new Refusal('IKW-ACC-002', 'You are not a member of any organization');
    return { context: { organizationId: membership.organizationId, merchantId: membership.merchantIds[0]! }, membership };
  }

  private async accessToken(state: UserState, sessionId: string, session: SessionContext, membership: Membership): Promise<AccessToken> {
    const user = state.user!;
    // The context alone: a refresh passes the whole session, whose refresh-token hash and flags
    // must stay out of the token's readable claims and out of the answer.
    const context: SessionContext = { organizationId: session.organizationId, merchantId: session.merchantId };
    const claims: AppTokenClaims = { userId: user.userId, sessionId, ...context, role: membership.role, scopes: [...ROLE_SCOPES[membership.role]] };
    return {
      accessToken: await this.deps.tokens.sign(claims),
      tokenType: 'Bearer',
      expiresIn: ACCESS_TOKEN_TTL_S,
      user: { id: user.userId, email: user.email, name: user.name, ...context, role: membership.role },
    };
  }

  /**
   * A new session, in `organizationId` when given. Only `SignIns.admit` (sign-in.ts) calls this:
   * it has applied the factor rule to `proof`, which the session keeps.
   */
  async startSession(state: UserState, proof: SessionProof, device: Device, actor: Actor, organizationId: string | null): Promise<TokenPair> {
    const user = state.user!;
    const { context, membership } = await this.chooseContext(user.userId, organizationId ?? state.defaultOrganizationId);
    const refreshToken = newRefreshToken(user.userId);
    const sessionId = newUuid();
    const at = this.deps.clock.now();
    const { state: after } = await this.run(
      user.userId,
      { type: 'start_session', session: { sessionId, refreshHash: sha256Hex(refreshToken), ...context, userAgent: device.userAgent, ip: device.ip, proof }, expiresAt: new Date(at.getTime() + REFRESH_TOKEN_TTL_MS), at },
      this.metadata(user.userId, actor, context),
    );
    return { ...(await this.accessToken(after, sessionId, context, membership)), refreshToken };
  }

  async refresh(refreshToken: string, actor: Actor): Promise<TokenPair> {
    // The refresh token names the user; the access token it came with does not have to be valid.
    const userId = REFRESH_SHAPE.exec(refreshToken)?.[1];
    const state = userId ? (await this.load(userId)).state : null;
    if (!userId || !state?.user) throw new Refusal('IKW-AUT-007', 'The refresh token is not valid', 'refreshToken');
    const next = newRefreshToken(userId);
    const at = this.deps.clock.now();
    const result = await this.run(userId, { type: 'refresh', presentedHash: sha256Hex(refreshToken), refreshHash: sha256Hex(next), expiresAt: new Date(at.getTime() + REFRESH_TOKEN_TTL_MS), at }, this.metadata(userId, actor));
    const event = result.events[0]!;
    if (event.type === 'user.session_revoked') {
      throw new Refusal(
        'IKW-AUT-007',
        event.data.reason === 'second_factor_added' ? 'This session began without the second factor your account now has; sign in again' : 'This refresh token was already used; the session has ended',
        'refreshToken',
      );
    }
    const sessionId = (event.data as { sessionId: string }).sessionId;
    const session = result.state.sessions.get(sessionId)!;
    // The role is read again: a changed role shows from the next refresh on.
    const membership = (await this.deps.directory.memberships(userId)).find((m) => m.organizationId === session.organizationId && m.merchantIds.includes(session.merchantId));
    if (!membership) {
      const chosen = await this.chooseContext(userId, result.state.defaultOrganizationId);
      await this.run(userId, { type: 'switch_session', sessionId, context: chosen.context, at }, this.metadata(userId, actor, chosen.context));
      return { ...(await this.accessToken(result.state, sessionId, chosen.context, chosen.membership)), refreshToken: next };
    }
    return { ...(await this.accessToken(result.state, sessionId, session, membership)), refreshToken: next };
  }

  /**
   * An access token's claims, if its signature and lifetime hold, its session was not ended and
   * its user still belongs to its organization; the role (and so the scopes) is the one held now.
   */
  async verify(token: string): Promise<AppTokenClaims> {
    const claims = await this.deps.tokens.claims(token);
    const role = await this.deps.directory.sessionRole(claims.sessionId, claims.organizationId, this.deps.clock.now());
    if (role === null) throw new Refusal('IKW-AUT-007', 'This session has ended or no longer belongs to this organization; sign in again');
    return { ...claims, role, scopes: [...ROLE_SCOPES[role]] };
  }

  /** Ends the user's sessions acting in an organization they were removed from. */
  async endSessionsIn(userId: string, organizationId: string, actor: Actor): Promise<void> {
    await this.run(userId, { type: 'end_sessions_in', organizationId, at: this.deps.clock.now() }, this.metadata(userId, actor));
  }

  /** Ends the caller's session: its refresh token and access tokens stop working. */
  async logout(claims: AppTokenClaims, actor: Actor): Promise<void> {
    await this.run(claims.userId, { type: 'end_session', sessionId: claims.sessionId, reason: 'signed_out', at: this.deps.clock.now() }, this.metadata(claims.userId, actor, claims));
  }

  /** Ends one of the caller's sessions (another user's session is "no such session"). */
  async revokeSession(claims: AppTokenClaims, sessionId: string, actor: Actor): Promise<void> {
    await this.run(claims.userId, { type: 'end_session', sessionId, reason: 'revoked', at: this.deps.clock.now() }, this.metadata(claims.userId, actor, claims));
  }

  /** Ends every session of the caller, the one making the request too; returns how many ended. */
  async revokeAllSessions(claims: AppTokenClaims, actor: Actor): Promise<number> {
    const result = await this.run(claims.userId, { type: 'end_all_sessions', at: this.deps.clock.now() }, this.metadata(claims.userId, actor, claims));
    return result.events.length;
  }

  /** Ends every session of the caller but the one making the request; returns how many ended. */
  async revokeOtherSessions(claims: AppTokenClaims, actor: Actor): Promise<number> {
    const result = await this.run(claims.userId, { type: 'end_other_sessions', keep: claims.sessionId, at: this.deps.clock.now() }, this.metadata(claims.userId, actor, claims));
    return result.events.length;
  }

  /** Moves the session to another merchant of one of the user's organizations; a new access token says so. */
  async switchMerchant(claims: AppTokenClaims, merchantId: string, actor: Actor): Promise<AccessToken> {
    const membership = (await this.deps.directory.memberships(claims.userId)).find((m) => m.merchantIds.includes(merchantId));
    if (!membership) throw new Refusal('IKW-RES-001', 'No such merchant', 'merchantId');
    return this.switchTo(claims, { organizationId: membership.organizationId, merchantId }, membership, actor);
  }

  /** Moves the session to another of the user's organizations (its first merchant); `persist` makes it where sign-ins start. */
  async switchOrganization(claims: AppTokenClaims, organizationId: string, persist: boolean, actor: Actor): Promise<AccessToken> {
    const membership = (await this.deps.directory.memberships(claims.userId)).find((m) => m.organizationId === organizationId && m.merchantIds.length > 0);
    if (!membership) throw new Refusal('IKW-RES-001', 'No such organization', 'organizationId');
    const token = await this.switchTo(claims, { organizationId, merchantId: membership.merchantIds[0]! }, membership, actor);
    if (persist) await this.run(claims.userId, { type: 'set_default_organization', organizationId, at: this.deps.clock.now() }, this.metadata(claims.userId, actor, claims));
    return token;
  }

  private async switchTo(claims: AppTokenClaims, context: SessionContext, membership: Membership, actor: Actor): Promise<AccessToken> {
    const { state } = await this.run(claims.userId, { type: 'switch_session', sessionId: claims.sessionId, context, at: this.deps.clock.now() }, this.metadata(claims.userId, actor, context));
    return this.accessToken(state, claims.sessionId, context, membership);
  }
}
