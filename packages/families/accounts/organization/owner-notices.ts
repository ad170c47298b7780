import type { Messenger } from '#packages/messaging/messages.js';
import type { AccountDirectory } from '#packages/families/read-ports.js';

/** What telling the owners needs: who they are and a way to write to them. */
export interface OwnerNoticeDeps {
  directory: Pick<AccountDirectory, 'merchantMembers'>;
  messenger: Messenger;
}

/**
 * Text a member chose (an organization's or a key's name) on one line: line breaks, control and
 * invisible formatting characters (bidi overrides) become one space, so it cannot lay out a message of its own.
 */
export const oneLine = (text: string) => text.replace(/[\s\p{Cc}\p{Cf}]+/gu, ' ').trim();

/**
 * A security notice to every owner of the organization holding the merchant: a sensitive change
 * of the merchant (an API key made, rolled or revoked; the payout safety delay lowered), with who
 * made it, so that an owner learns of a change they did not make even when it was made with a
 * stolen session. `write` gets the acting member's e-mail address (or their id, if they left).
 */
export async function tellOwners(deps: OwnerNoticeDeps, merchantId: string, byUserId: string, write: (who: string) => { subject: string; text: string }): Promise<void> {
  const members = await deps.directory.merchantMembers(merchantId);
  const { subject, text } = write(members.find((m) => m.userId === byUserId)?.email ?? `user ${byUserId}`);
  for (const m of members.filter((x) => x.role === 'owner')) {
    await deps.messenger.send({ channel: 'email', to: m.email, purpose: 'security_notice', template: { purpose: 'security_notice', values: { subject, text } } });
  }
}
