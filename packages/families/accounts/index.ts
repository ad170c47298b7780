import { KeyedHasher } from '#packages/core/hashing.js';
import { GoogleSignIn } from './google-sign-in/service.js';
import { Organizations } from './organization/commands.js';
import type { MerchantOpening } from './organization/merchant-opening.js';
import { Accounts } from './user/commands.js';
import { UserSessions } from './user/sessions.js';
import { ContactChanges } from './user/contact-changes.js';
import type { FactorAttempts } from './user/factors.js';
import { Passkeys, relyingPartyOf } from './user/passkeys.js';
import { SecondFactors } from './user/second-factors.js';
import { SignIns } from './user/sign-in.js';
import { SignUp } from './user/signup.js';
import { AppTokenSigner } from './user/tokens.js';
import { Verifications } from './verification/commands.js';
import { OpenIdClientProvider } from './google-sign-in/openid.js';
import { defineFamily, RegisteredOnce } from '#packages/families/family.js';
import { accountsReadSide } from './read/index.js';
import { accountErrors } from './errors.js';

declare module '../family.js' {
  interface Registrations {
    /** How an organization opens its merchant (the merchants family). */
    merchantOpening?: MerchantOpening;
  }
}

/** Dashboard users: accounts, organizations, sign-up, sign-in, second factors, passkeys, Google (docs/accounts.md). */
export const accounts = defineFamily({
  name: 'accounts',
  readSide: accountsReadSide,
  needs: [],
  errors: accountErrors,
  build: ({ config, store, clock, log, reads, outbox: messenger, rateLimiter, secretsKey, secretBox }) => {
    const accounts = new Accounts({ store, clock, directory: reads, messenger, publicUrl: config.publicUrl });
    const userSessions = new UserSessions({ store, clock, tokens: new AppTokenSigner(clock, secretsKey), directory: reads });
    // Filled once every family is built (collect, below): merchants are built after accounts.
    const merchantOpening = new RegisteredOnce<MerchantOpening>("the opening of an organization's merchant (merchants)");
    const merchants: MerchantOpening = {
      create: (name, actor) => merchantOpening.get().create(name, actor),
      creation: (name, actor, email) => merchantOpening.get().creation(name, actor, email),
    };
    const organizations = new Organizations({
      store,
      clock,
      directory: reads,
      merchants,
      sessions: userSessions,
      accounts,
      messenger,
      publicUrl: config.publicUrl,
      countInvitation: async (organizationId, inviterId) => {
        const { perOrganization, perInviter } = config.invitationLimits;
        await rateLimiter.take([...(perOrganization ? [{ key: `invitation:organization:${organizationId}`, rule: perOrganization }] : []), ...(perInviter ? [{ key: `invitation:inviter:${inviterId}`, rule: perInviter }] : [])]);
      },
      organizationsPerUser: config.organizationsPerUser,
    });
    const verifications = new Verifications({
      store,
      clock,
      codes: new KeyedHasher(secretsKey, 'sika:verification-codes:v1'),
      messenger,
      accountExists: async (email) => (await accounts.userIdOf(email)) !== null,
    });
    const secondFactorRule = config.secondFactorLimit;
    const factorAttempts: FactorAttempts = {
      count: (userId) => (secondFactorRule ? rateLimiter.attempt({ key: `second-factor:${userId}`, rule: secondFactorRule }) : Promise.resolve({ succeeded: async () => undefined })),
    };
    const passkeys = new Passkeys({ clock, accounts, verifications, messenger, rp: relyingPartyOf(config.publicUrl), attempts: factorAttempts });
    const secondFactors = new SecondFactors({ clock, accounts, verifications, box: secretBox, recoveryCodes: new KeyedHasher(secretsKey, 'sika:recovery-codes:v1'), passkeys, messenger, attempts: factorAttempts });
    const signIns = new SignIns({ accounts, sessions: userSessions, secondFactors, passkeys, verifications });
    return {
      accounts,
      /** Sessions: started by sign-ins, refreshed, verified, switched, ended. */
      userSessions,
      organizations,
      /** Filled by the merchants family: how an organization opens its merchant. */
      registeredMerchantOpening: merchantOpening,
      /** Pre-signup codes by e-mail and SMS. */
      verifications,
      /** Sign-up and joining by invitation. */
      signUp: new SignUp({ store, accounts, organizations, merchants, verifications, signIns }),
      /** Second-factor challenges, the authenticator app, sign-in with a second factor. */
      secondFactors,
      signIns,
      /** WebAuthn credentials: registration, assertions, passwordless sign-in. */
      passkeys,
      /** E-mail, phone and password changes behind a second factor. */
      contactChanges: new ContactChanges({ clock, accounts, verifications, messenger, publicUrl: config.publicUrl }),
      /** Sign-in with Google, and connecting a Google account (GOOGLE_*; unconfigured: IKW-FED-001). */
      google: new GoogleSignIn({
        store,
        clock,
        accounts,
        signIns,
        verifications,
        messenger,
        box: secretBox,
        provider: config.google ? new OpenIdClientProvider(config.google, log) : null,
        publicUrl: config.publicUrl,
        returnOrigins: config.google?.returnOrigins ?? [],
      }),
    };
  },
  collect: ({ registeredMerchantOpening }, registrations) => registeredMerchantOpening.register(...registrations.flatMap((r) => (r.merchantOpening ? [r.merchantOpening] : []))),
});

// What other families use of this one (its public face): they import it from here, never from its files.
export { canReadEventType, readScopeOfEventType } from './organization/event-scopes.js';
export { MANAGING_ROLES, ROLE_SCOPES } from './organization/events.js';
export type { Role } from './organization/events.js';
export { oneLine, tellOwners } from './organization/owner-notices.js';
export type { OwnerNoticeDeps } from './organization/owner-notices.js';
export { hasSecondFactor } from './user/decider.js';
export { hashPassword } from './user/commands.js';
export { newTotpSecret, totpStepOf } from './user/totp.js';
export { relyingPartyOf, type RelyingParty } from './user/passkeys.js';
export type { UserState } from './user/decider.js';
export type { MerchantOpening } from './organization/merchant-opening.js';
export type { Verifications } from './verification/commands.js';
export type { MfaPurpose } from './verification/events.js';
