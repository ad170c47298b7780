/** The accounts family's edge as other families' routes use it: its route schemas and helpers. */
export { userOf, email, password } from './auth.js';
export { credentialResponse } from './auth-passkeys.js';
