import type { Knex } from 'knex';
import { ROLE_SCOPES } from '#packages/families/accounts/index.js';
import { findApiKey } from '#packages/families/merchants/read/index.js';
import { findMembership, organizationOfMerchant } from '#packages/families/accounts/read/index.js';
import type { Credential, Owner } from '#packages/core/owner.js';

/**
 * What the credential behind an automation's version may do now: its scopes and who holds them, or
 * who it was and why it may do nothing ("API key key_…, which is revoked").
 */
export type Authority = { scopes: readonly string[]; holder: string } | { lost: string };

/** Rolls of one key followed at most: a chain longer than this is not a rotation anyone makes. */
const MAX_ROLLS = 20;

/**
 * The authority of `credential` over `owner`'s objects at `now` (docs/automations.md, "Scopes"). An
 * API key acts while it authenticates; a rolled key through its successor (a roll changes the
 * secret, not the authority: same scopes); a revoked one no more. A user acts with the role they
 * hold now in the merchant's organization, none once they left it.
 */
export async function authorityOf(knex: Knex, owner: Owner, credential: Credential, now: Date): Promise<Authority> {
  if (credential.type === 'user') {
    const organizationId = await organizationOfMerchant(knex, owner.merchantId);
    const membership = organizationId === undefined ? undefined : await findMembership(knex, credential.id, organizationId);
    if (!membership) return { lost: `user ${credential.id}, who is no longer a member of the merchant's organization` };
    return { scopes: ROLE_SCOPES[membership.role], holder: `user ${credential.id} (role ${membership.role})` };
  }
  let id: string | null = credential.id;
  for (let rolls = 0; id !== null && rolls <= MAX_ROLLS; rolls++) {
    const key = await findApiKey(knex, owner, id, now);
    if (!key) break;
    if (key.status === 'revoked') return { lost: `API key ${credential.id}, ${id === credential.id ? 'which' : `rolled to ${id}, which`} is revoked` };
    if (key.status === 'active' || key.status === 'expiring') return { scopes: key.scopes, holder: `API key ${id}` };
    id = key.rolled_to;
  }
  return { lost: `API key ${credential.id}, which no longer authenticates (expired without a usable successor)` };
}
