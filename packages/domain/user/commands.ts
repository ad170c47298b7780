import { createHmac, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../../core/clock.js';
import { sha256Hex } from '../../core/hashing.js';
import { ApiError } from '../../core/errors.js';
import { newUuid } from '../../core/ids.js';
import type { EventStore } from '../../eventstore/port.js';
import { handleCommand, loadState } from '../../eventstore/command-handler.js';
import { userDecider } from './decider.js';
import { userStream } from './events.js';

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>;

export const ACCESS_TOKEN_TTL_S = 15 * 60;
export const REFRESH_TOKEN_TTL_MS = 30 * 86_400_000;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${(await scrypt(password, salt, 32)).toString('base64')}`;
}

async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [, salt, hash] = stored.split('$');
  const expected = Buffer.from(hash!, 'base64');
  const actual = await scrypt(password, Buffer.from(salt!, 'base64'), expected.length);
  return timingSafeEqual(actual, expected);
}

/** The user id of an e-mail address: derived, so one address is one stream and one user. */
export function userIdFor(email: string): string {
  const h = sha256Hex(`user|${email.trim().toLowerCase()}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}


/** What a valid AppToken says: the user, the merchant they act for, and their scopes. */
export interface AppTokenClaims {
  userId: string;
  merchantId: string;
  scopes: string[];
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  user: { id: string; email: string; merchantId: string };
}

/**
 * AppTokens (docs/decisions.md, HTTP): short-lived signed JWTs (HS256, 15 min) for a dashboard
 * user acting for one merchant; refresh tokens rotate on every use and a reused one ends the
 * session. The signing key is derived from the secrets key, so no new secret needs managing.
 */
export class AppTokens {
  private readonly key: Uint8Array;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    secretsKey: Buffer,
  ) {
    this.key = createHmac('sha256', secretsKey).update('sika:app-token:v1').digest();
  }

  async createUser(merchantId: string, email: string, password: string, scopes: string[] = ['*']): Promise<string> {
    const userId = userIdFor(email);
    await handleCommand(
      this.store,
      userStream(userId),
      userDecider,
      { type: 'create', user: { userId, email: email.trim().toLowerCase(), passwordHash: await hashPassword(password), merchantId, scopes, createdAt: this.clock.now().toISOString() } },
      { merchant_id: merchantId, actor: 'cli', occurred_at: this.clock.now().toISOString() },
    );
    return userId;
  }

  private async issue(userId: string, email: string, merchantId: string, scopes: string[], sessionRefresh: string): Promise<TokenPair> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    const accessToken = await new SignJWT({ mid: merchantId, scp: scopes })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuer('sika')
      .setIssuedAt(now)
      .setExpirationTime(now + ACCESS_TOKEN_TTL_S)
      .sign(this.key);
    return { accessToken, refreshToken: sessionRefresh, tokenType: 'Bearer', expiresIn: ACCESS_TOKEN_TTL_S, user: { id: userId, email, merchantId } };
  }

  async login(email: string, password: string): Promise<TokenPair> {
    const userId = userIdFor(email);
    const { state } = await loadState(this.store, userStream(userId), userDecider);
    // The same answer, and a password check either way, whether or not the user exists.
    const ok = state.user ? await passwordMatches(password, state.user.passwordHash) : (await hashPassword(password), false);
    if (!ok || !state.user) throw new ApiError('IKW-AUT-008');
    // The user id rides along, so a refresh finds its stream without a lookup table.
    const refresh = `rt_${randomBytes(32).toString('base64url')}.${userId}`;
    const at = this.clock.now();
    await handleCommand(
      this.store,
      userStream(userId),
      userDecider,
      { type: 'start_session', sessionId: newUuid(), refreshHash: sha256Hex(refresh), expiresAt: new Date(at.getTime() + REFRESH_TOKEN_TTL_MS), at },
      { merchant_id: state.user.merchantId, actor: `user:${userId}`, occurred_at: at.toISOString() },
      { onConflict: 'internal' },
    );
    return this.issue(userId, state.user.email, state.user.merchantId, state.user.scopes, refresh);
  }

  async refresh(refreshToken: string): Promise<TokenPair> {
    // The refresh token names no user; the access token it came with does not have to be valid.
    const match = /^rt_[A-Za-z0-9_-]{43}\.(.+)$/.exec(refreshToken);
    if (!match) throw new ApiError('IKW-AUT-007', 'The refresh token is not valid', 'refreshToken');
    const userId = match[1]!;
    const { state } = await loadState(this.store, userStream(userId), userDecider);
    if (!state.user) throw new ApiError('IKW-AUT-007', 'The refresh token is not valid', 'refreshToken');
    const next = `rt_${randomBytes(32).toString('base64url')}.${userId}`;
    const at = this.clock.now();
    const result = await handleCommand(
      this.store,
      userStream(userId),
      userDecider,
      { type: 'refresh', presentedHash: sha256Hex(refreshToken), refreshHash: sha256Hex(next), expiresAt: new Date(at.getTime() + REFRESH_TOKEN_TTL_MS), at },
      { merchant_id: state.user.merchantId, actor: `user:${userId}`, occurred_at: at.toISOString() },
    );
    if (result.events.some((e) => e.type === 'user.session_revoked')) throw new ApiError('IKW-AUT-007', 'This refresh token was already used; the session has ended', 'refreshToken');
    return this.issue(userId, state.user.email, state.user.merchantId, state.user.scopes, next);
  }

  /** Checks an AppToken's signature and lifetime and returns what it says. */
  async verify(token: string): Promise<AppTokenClaims> {
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: 'sika', algorithms: ['HS256'], currentDate: this.clock.now() });
      if (typeof payload.sub !== 'string' || typeof payload.mid !== 'string' || !Array.isArray(payload.scp)) throw new Error('claims');
      return { userId: payload.sub, merchantId: payload.mid, scopes: payload.scp.filter((s): s is string => typeof s === 'string') };
    } catch {
      throw new ApiError('IKW-AUT-007');
    }
  }
}
