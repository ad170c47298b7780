/** The authenticator app's codes (RFC 6238), as every kind of user's second factor checks them. */

/** Codes of the step before and after the current one are accepted (clock drift of a phone). */
const TOTP_TOLERANCE_S = 30;
const ISSUER = 'Sika';

// Loaded by the first secret or code, not with the module: start-up that processes no second
// factor reaches (the CLI's, most tests') would pay for nothing.
let otplibLoading: Promise<typeof import('otplib')> | undefined;
const otplib = () => (otplibLoading ??= import('otplib'));

/** A new secret (base32) and the `otpauth://` URL an app scans, labelled with `label` under `issuer`. */
export async function newTotpSecret(label: string, issuer = ISSUER): Promise<{ secret: string; otpauthUrl: string }> {
  const { generateSecret, generateURI } = await otplib();
  const secret = generateSecret();
  return { secret, otpauthUrl: generateURI({ issuer, label, secret }) };
}

/** The time step a 6-digit code of this secret matches at `now` (or the steps beside it), or null. */
export async function totpStepOf(secret: string, code: string, now: Date): Promise<number | null> {
  if (!/^[0-9]{6}$/.test(code)) return null;
  const { verify: verifyTotp } = await otplib();
  const result = await verifyTotp({ secret, token: code, epoch: Math.floor(now.getTime() / 1000), epochTolerance: TOTP_TOLERANCE_S });
  return result.valid && 'timeStep' in result ? result.timeStep : null;
}
