import type { Decider } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import type { AdminKeyCreated, PlatformAdminEvent } from './events.js';

export type PlatformAdminCommand = { type: 'create_key'; key: AdminKeyCreated } | { type: 'revoke_key'; keyId: string; at: Date };

export interface PlatformAdminState {
  /** Key id → revoked or not. */
  keys: ReadonlyMap<string, { revoked: boolean }>;
}

/** The platform operator credentials: created, and revoked once (a second revoke changes nothing). */
export const platformAdminDecider: Decider<PlatformAdminCommand, PlatformAdminState, PlatformAdminEvent> = {
  initialState: { keys: new Map() },
  evolve(state, event) {
    const keys = new Map(state.keys);
    if (event.type === 'admin_key.created') keys.set(event.data.keyId, { revoked: false });
    else keys.set(event.data.keyId, { revoked: true });
    return { keys };
  },
  decide(command, state) {
    if (command.type === 'create_key') return [{ type: 'admin_key.created', data: command.key }];
    const key = state.keys.get(command.keyId);
    if (!key) throw new Refusal('IKW-RES-001', `No such admin key: '${command.keyId}'`, 'keyId');
    return key.revoked ? [] : [{ type: 'admin_key.revoked', data: { keyId: command.keyId, revokedAt: command.at.toISOString() } }];
  },
};
