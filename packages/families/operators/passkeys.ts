import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Clock } from '#packages/core/clock.js';
import type { Actor } from '#packages/core/owner.js';
import { Refusal } from '#packages/core/refusal.js';
import type { SecretBox } from '#packages/core/secrets.js';
import { handleCommand, loadState } from '#packages/eventstore/command-handler.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import { totpStepOf, type RelyingParty } from '#packages/families/accounts/index.js';
import { credentialDecider, type CredentialState } from './decider.js';
import { operatorStream, PASSKEY_CEREMONY_TTL_MS, type OperatorPasskey } from './events.js';
import { operatorErrors } from './errors.js';

export interface OperatorPasskeyDeps {
  store: EventStore;
  clock: Clock;
  box: SecretBox;
  rp: RelyingParty;
  metadata(operatorId: string, actor: Actor): EventMetadata;
}

/** An operator's passkey as they see it listed. */
export interface ListedPasskey {
  id: string;
  nickname: string;
  created: string;
  lastUsed: string | null;
}

const refused = (message: string, param: string) => new Refusal('IKW-OPR-010', message, param);

// Loaded by the first ceremony, not with the module: about a second of start-up (its certificate
// parsers) that a process no passkey reaches would pay for nothing.
let webauthnLoading: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (webauthnLoading ??= import('@simplewebauthn/server'));

/** The options a sign-in's passkey answers: the operator's passkeys, a fresh challenge. */
export async function signInAssertionOptions(state: CredentialState, rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON | null> {
  if (state.passkeys.size === 0) return null;
  const { generateAuthenticationOptions } = await webauthn();
  return generateAuthenticationOptions({ rpID: rp.id, allowCredentials: [...state.passkeys.values()].map((p) => ({ id: p.credentialId, transports: p.transports as never })), userVerification: 'preferred' });
}

/**
 * Checks a passkey's answer to a sign-in's challenge: one of the operator's passkeys signed it for
 * this site. Answers the credential and its new signature counter; the decider checks the counter.
 */
export async function verifySignInAssertion(state: CredentialState, expectedChallenge: string, response: AuthenticationResponseJSON, rp: RelyingParty): Promise<{ credentialId: string; counter: number }> {
  const passkey = state.passkeys.get(response.id);
  if (!passkey) throw refused('This passkey is not one of yours', 'passkey');
  const { verifyAuthenticationResponse } = await webauthn();
  const verified = await verifyAuthenticationResponse({
    response,
    expectedChallenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    credential: { id: passkey.credentialId, publicKey: Buffer.from(passkey.publicKey, 'base64url'), counter: passkey.counter, transports: passkey.transports as never },
    requireUserVerification: false,
  }).catch((err: unknown) => {
    throw refused(err instanceof Error ? err.message : String(err), 'passkey');
  });
  if (!verified.verified) throw refused('The passkey’s answer did not verify', 'passkey');
  return { credentialId: passkey.credentialId, counter: verified.authenticationInfo.newCounter };
}

/**
 * An operator's passkeys (docs/operator.md, "Passkeys"): registered by the signed-in operator after
 * a code of their authenticator app (a session alone, a stolen cookie, must not add one), listed,
 * removed. A passkey then answers a sign-in in place of the app's code.
 */
export class OperatorPasskeys {
  constructor(private readonly deps: OperatorPasskeyDeps) {}

  private async stateOf(operatorId: string): Promise<CredentialState> {
    return (await loadState(this.deps.store, operatorStream(operatorId), credentialDecider)).state;
  }

  private command(operatorId: string, command: Parameters<typeof credentialDecider.decide>[0], actor: Actor) {
    return handleCommand(this.deps.store, operatorStream(operatorId), credentialDecider, command, this.deps.metadata(operatorId, actor), { onConflict: 'internal' });
  }

  async list(operatorId: string): Promise<ListedPasskey[]> {
    return [...(await this.stateOf(operatorId)).passkeys.values()].map((p) => ({ id: p.credentialId, nickname: p.nickname, created: p.createdAt, lastUsed: p.lastUsedAt }));
  }

  /** Begins a registration: the app's `code` proves the operator is at hand; answers what the browser passes to `navigator.credentials.create`. */
  async beginRegistration(operatorId: string, email: string, code: string, actor: Actor): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const state = await this.stateOf(operatorId);
    const at = this.deps.clock.now();
    if (!state.totp || (await totpStepOf(this.deps.box.open(state.totp.sealedSecret, 'operator-totp'), code, at)) === null) throw new Refusal('IKW-OPR-004', operatorErrors['IKW-OPR-004'].message, 'code');
    const { generateRegistrationOptions } = await webauthn();
    const options = await generateRegistrationOptions({
      rpName: this.deps.rp.name,
      rpID: this.deps.rp.id,
      userName: email,
      userID: new TextEncoder().encode(operatorId),
      attestationType: 'none',
      excludeCredentials: [...state.passkeys.values()].map((p) => ({ id: p.credentialId, transports: p.transports as never })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    });
    await this.command(operatorId, { type: 'start_passkey_registration', challenge: options.challenge, expiresAt: new Date(at.getTime() + PASSKEY_CEREMONY_TTL_MS), at }, actor);
    return options;
  }

  /** The browser's new credential for a registration begun: the passkey is the operator's. */
  async completeRegistration(operatorId: string, response: RegistrationResponseJSON, nickname: string | null, actor: Actor): Promise<ListedPasskey> {
    const state = await this.stateOf(operatorId);
    let challenge = '';
    const { verifyRegistrationResponse } = await webauthn();
    const verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: (c) => {
        challenge = c;
        return state.passkeyRegistrations.has(c);
      },
      expectedOrigin: this.deps.rp.origin,
      expectedRPID: this.deps.rp.id,
      requireUserVerification: false,
    }).catch((err: unknown) => {
      throw refused(err instanceof Error ? err.message : String(err), 'response');
    });
    if (!verified.verified) throw refused('The passkey’s attestation did not verify', 'response');
    const { credential } = verified.registrationInfo;
    const at = this.deps.clock.now();
    const passkey: OperatorPasskey = {
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports ?? [],
      nickname: nickname ?? `Passkey ${state.passkeys.size + 1}`,
      createdAt: at.toISOString(),
    };
    await this.command(operatorId, { type: 'add_passkey', passkey, challenge, at }, actor);
    return { id: passkey.credentialId, nickname: passkey.nickname, created: passkey.createdAt, lastUsed: null };
  }

  async remove(operatorId: string, credentialId: string, actor: Actor): Promise<void> {
    await this.command(operatorId, { type: 'remove_passkey', credentialId, at: this.deps.clock.now() }, actor);
  }
}
