/** The accounts family's edge as other families' routes use it: its route schemas and helpers. */
export { userOf } from './auth.js';
export { email } from './auth.js';
export { password } from './auth.js';
export { credentialResponse } from './auth-passkeys.js';
