/** The authenticator app's codes (RFC 6238), as every kind of user's second factor checks them. */
import { generateSecret, generateURI, verify as verifyTotp } from 'otplib';

/** Codes of the step before and after the current one are accepted (clock drift of a phone). */
const TOTP_TOLERANCE_S = 30;
const ISSUER = 'Sika';

/** A new secret (base32) and the `otpauth://` URL an app scans, labelled with `label` under `issuer`. */
export function newTotpSecret(label: string, issuer = ISSUER): { secret: string; otpauthUrl: string } {
  const secret = generateSecret();
  return { secret, otpauthUrl: generateURI({ issuer, label, secret }) };
}

/** The time step a 6-digit code of this secret matches at `now` (or the steps beside it), or null. */
export async function totpStepOf(secret: string, code: string, now: Date): Promise<number | null> {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const result = await verifyTotp({ secret, token: code, epoch: Math.floor(now.getTime() / 1000), epochTolerance: TOTP_TOLERANCE_S });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}
