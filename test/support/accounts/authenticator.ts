/**
 * A software passkey for tests: a P-256 key pair that answers WebAuthn ceremonies as a platform
 * authenticator would, with real `none` attestations and ECDSA-signed assertions over the
 * authenticator data and the client data, and a signature counter the test can move.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const UP = 0x01; // user present
const UV = 0x04; // user verified
const AT = 0x40; // attested credential data included

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');

export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(16);
  private readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  /** The signature counter the next assertion carries (incremented before each). */
  counter = 0;
  private userHandle = '';

  constructor(
    private readonly origin: string,
    private readonly rpId: string,
  ) {}

  get id(): string {
    return b64url(this.credentialId);
  }

  private cosePublicKey(): Uint8Array {
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    // COSE_Key: kty EC2, alg ES256, crv P-256, x, y.
    return isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
  }

  private authenticatorData(flags: number, attested?: Uint8Array): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.counter);
    return Buffer.concat([createHash('sha256').update(this.rpId).digest(), Buffer.from([flags]), counter, ...(attested ? [attested] : [])]);
  }

  /** Answers `navigator.credentials.create` with these options. */
  register(options: { challenge: string; user: { id: string } }, origin = this.origin) {
    this.userHandle = options.user.id;
    const clientDataJSON = JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin, crossOrigin: false });
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const attested = Buffer.concat([Buffer.alloc(16), idLength, this.credentialId, this.cosePublicKey()]);
    const attStmt = new Map<string, string>();
    const attestationObject = isoCBOR.encode(
      new Map<string, string | Uint8Array | Map<string, string>>([
        ['fmt', 'none'],
        ['attStmt', attStmt],
        ['authData', this.authenticatorData(UP | UV | AT, attested)],
      ]),
    );
    return { id: this.id, rawId: this.id, type: 'public-key', response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] }, clientExtensionResults: {} };
  }

  /**
   * Answers `navigator.credentials.get` for this challenge; `counter` replaces the next counter
   * value; `userVerified: false` answers as a security key touched without its PIN.
   */
  assert(challenge: string, opts: { origin?: string; counter?: number; userVerified?: boolean } = {}) {
    this.counter = opts.counter ?? this.counter + 1;
    const clientDataJSON = JSON.stringify({ type: 'webauthn.get', challenge, origin: opts.origin ?? this.origin, crossOrigin: false });
    const authenticatorData = this.authenticatorData(opts.userVerified === false ? UP : UP | UV);
    const signature = sign('sha256', Buffer.concat([authenticatorData, createHash('sha256').update(clientDataJSON).digest()]), this.keys.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), authenticatorData: b64url(authenticatorData), signature: b64url(signature), userHandle: this.userHandle },
      clientExtensionResults: {},
    };
  }
}
