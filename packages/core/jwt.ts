/**
 * Whether every part of a compact JWT is base64url as its signer wrote it. Decoders ignore the
 * unused low bits of a part's last character, so without this check a token with its last
 * character changed (`…A` to `…B`) would still verify: a second spelling of one credential.
 */
export function isCanonicalJwt(token: string): boolean {
  const parts = token.split('.');
  return parts.length === 3 && parts.every((part) => /^[A-Za-z0-9_-]*$/.test(part) && Buffer.from(part, 'base64url').toString('base64url') === part);
}
