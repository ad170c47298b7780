import { createHmac } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Clock } from '#packages/core/clock.js';
import { isCanonicalJwt } from '#packages/core/jwt.js';
import { Refusal } from '#packages/core/refusal.js';
import { ROLES, type Role } from '../organization/events.js';

export const ACCESS_TOKEN_TTL_S = 15 * 60;

/** What a valid AppToken says: the user, their session, where it acts and with which role. */
export interface AppTokenClaims {
  userId: string;
  sessionId: string;
  organizationId: string;
  merchantId: string;
  role: Role;
  scopes: string[];
}

/**
 * AppTokens (docs/accounts.md): short-lived signed JWTs (HS256, 15 min). The signing key is derived
 * from the secrets key, so no new secret needs managing.
 */
export class AppTokenSigner {
  private readonly key: Uint8Array;

  constructor(
    private readonly clock: Clock,
    secretsKey: Buffer,
  ) {
    this.key = createHmac('sha256', secretsKey).update('sika:app-token:v1').digest();
  }

  sign(claims: AppTokenClaims): Promise<string> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    return new SignJWT({ sid: claims.sessionId, org: claims.organizationId, mid: claims.merchantId, rol: claims.role, scp: claims.scopes })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.userId)
      .setIssuer('sika')
      .setIssuedAt(now)
      .setExpirationTime(now + ACCESS_TOKEN_TTL_S)
      .sign(this.key);
  }

  /** The claims of a token with a good signature and lifetime; whether its session still lives is the caller's check. */
  async claims(token: string): Promise<AppTokenClaims> {
    if (!isCanonicalJwt(token)) throw new Refusal('IKW-AUT-007');
    try {
      const { payload: p } = await jwtVerify(token, this.key, { issuer: 'sika', algorithms: ['HS256'], currentDate: this.clock.now() });
      const text = (v: unknown) => (typeof v === 'string' ? v : null);
      const [userId, sessionId, organizationId, merchantId, role] = [text(p.sub), text(p.sid), text(p.org), text(p.mid), text(p.rol)];
      if (!userId || !sessionId || !organizationId || !merchantId || !ROLES.includes(role as Role) || !Array.isArray(p.scp)) throw new Error('claims');
      return { userId, sessionId, organizationId, merchantId, role: role as Role, scopes: p.scp.filter((s): s is string => typeof s === 'string') };
    } catch {
      throw new Refusal('IKW-AUT-007');
    }
  }
}
