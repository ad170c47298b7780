import { createHmac } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '#packages/core/clock.js';
import { isCanonicalJwt } from '#packages/core/jwt.js';

/** The issuer and audience of operator session tokens: a merchant's AppToken (issuer `sika`, another key) is never one. */
const ISSUER = 'sika-operator';
const AUDIENCE = 'sika-operator-api';

/** What an operator session token names: whose session. Its role is read at each request (a change shows at once). */
export interface OperatorTokenClaims {
  operatorId: string;
  sessionId: string;
}

/**
 * Operator session tokens (docs/operator.md, "Sessions"): JWTs (HS256) under a key derived from the
 * secrets key for operators alone, with their own issuer and audience, so neither kind of token
 * passes for the other.
 */
export class OperatorTokens {
  private readonly key: Uint8Array;

  constructor(
    private readonly clock: Clock,
    secretsKey: Buffer,
  ) {
    this.key = createHmac('sha256', secretsKey).update('sika:operator-session:v1').digest();
  }

  sign(claims: OperatorTokenClaims, expiresAt: Date): Promise<string> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return new SignJWT({ sid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.operatorId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.key);
  }

  /**
   * The claims of a token this service signed for an operator: `expired` when its lifetime is over,
   * undefined for anything else (another key, issuer or audience, a forgery, not a JWT).
   */
  async claims(token: string): Promise<OperatorTokenClaims | 'expired' | undefined> {
    if (!isCanonicalJwt(token)) return undefined;
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'], currentDate: this.clock.now() });
      if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string') return undefined;
      return { operatorId: payload.sub, sessionId: payload.sid };
    } catch (err) {
      // jose checks the signature before the lifetime: an expired token is one of ours.
      return (err as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'expired' : undefined;
    }
  }
}
