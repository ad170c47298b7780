import { accounts, relyingPartyOf } from '#packages/families/accounts/index.js';
import { defineFamily } from '#packages/families/family.js';
import { operatorsReadSide } from './read/index.js';
import { operatorErrors } from './errors.js';
import { Operators } from './operators.js';
import { OperatorPasskeys } from './passkeys.js';
import { OperatorTokens } from './tokens.js';

/** The platform's operators: their team and roles, invitations, sign-in with a mandatory authenticator app, sessions (docs/operator.md). */
export const operators = defineFamily({
  name: 'operators',
  readSide: operatorsReadSide,
  // Its passwords and authenticator codes are checked as dashboard users' are (accounts' public face).
  needs: [accounts],
  errors: operatorErrors,
  build: ({ config, store, clock, outbox: messenger, rateLimiter, secretsKey, secretBox }) => {
    const operatorTokens = new OperatorTokens(clock, secretsKey);
    const rule = config.secondFactorLimit;
    const rp = relyingPartyOf(config.publicUrl);
    const operators = new Operators({
      store,
      clock,
      box: secretBox,
      tokens: operatorTokens,
      messenger,
      publicUrl: config.publicUrl,
      rp,
      attempts: (operatorId) => (rule ? rateLimiter.attempt({ key: `operator-factor:${operatorId}`, rule }) : Promise.resolve({ succeeded: async () => undefined })),
    });
    return {
      /** Operator session tokens: signed at sign-in, checked at the HTTP edge (packages/families/operators/read). */
      operatorTokens,
      operators,
      operatorPasskeys: new OperatorPasskeys({ store, clock, box: secretBox, rp, metadata: (operatorId, actor) => operators.metadata(operatorId, actor) }),
    };
  },
});

// What other code uses of this family (its public face).
export type { OperatorSession, SignInStarted, NewOperator } from './operators.js';
export type { OperatorTokens } from './tokens.js';
export type { OperatorStatus } from './events.js';
export { SESSION_TTL_MS } from './events.js';
export type { Operators } from './operators.js';
export type { OperatorPasskeys, ListedPasskey } from './passkeys.js';
