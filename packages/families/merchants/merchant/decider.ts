import { Refusal } from '#packages/core/refusal.js';
import type { Decider } from '#packages/core/decider.js';
import { assertOwned } from '#packages/core/aggregate.js';
import { LIVE_NEVER_ACTIVATED, type ApiKeyRecord, type LiveActivation, type MerchantEvent } from './events.js';
import type { Environment } from '#packages/core/owner.js';

export type MerchantCommand =
  | { type: 'create_merchant'; merchantId: string; name: string; email: string | null; keys: ApiKeyRecord[]; at: Date }
  | { type: 'create_api_key'; merchantId: string; key: ApiKeyRecord; at: Date }
  /** `successor` (a new secret) takes the key's place with its name and scopes; the key works until `expiresAt` (at or before `at`: not at all). */
  | { type: 'roll_api_key'; merchantId: string; keyId: string; environment: Environment; successor: NewSecret; expiresAt: Date; at: Date }
  /** `environment`: the key must be of it (a request acts in one); the command line revokes any. */
  | { type: 'revoke_api_key'; merchantId: string; keyId: string; environment?: Environment; at: Date }
  /**
   * The platform's switch of the merchant's live environment (an activation application's approval,
   * suspension or reinstatement); setting it as it is changes nothing. `suspended`: closed by a
   * suspension, whose refusals say so (IKW-ACT-006).
   */
  | { type: 'activate_live'; merchantId: string; at: Date }
  | { type: 'deactivate_live'; merchantId: string; at: Date; suspended?: boolean };

export type NewSecret = Pick<ApiKeyRecord, 'keyId' | 'keyHash' | 'last4'>;

export interface ApiKeyState {
  merchantId: string;
  environment: Environment;
  name: string | null;
  scopes: string[];
  revoked: boolean;
  /** Set by a roll: the key that replaced this one. */
  successorId: string | null;
}

export interface MerchantState {
  exists: boolean;
  name: string;
  keys: Map<string, ApiKeyState>;
  live: LiveActivation;
}

function withKey(state: MerchantState, keyId: string, change: (key: ApiKeyState) => ApiKeyState): MerchantState {
  const key = state.keys.get(keyId);
  if (!key) return state;
  const keys = new Map(state.keys);
  keys.set(keyId, change(key));
  return { ...state, keys };
}

/** The key, if it is this merchant's and of the environment asked for (any, when none is); otherwise it does not exist for the caller. */
function keyOf(state: MerchantState, c: { merchantId: string; keyId: string; environment?: Environment }): ApiKeyState {
  const key = state.keys.get(c.keyId);
  assertOwned(key, { merchantId: c.merchantId, environment: c.environment ?? key?.environment ?? 'sandbox' }, `No such API key: '${c.keyId}'`, 'keyId');
  return key;
}

export const merchantDecider: Decider<MerchantCommand, MerchantState, MerchantEvent> = {
  initialState: { exists: false, name: '', keys: new Map(), live: LIVE_NEVER_ACTIVATED },

  evolve(state, event) {
    switch (event.type) {
      case 'merchant.created':
        return { ...state, exists: true, name: event.data.name };
      case 'api_key.created': {
        const keys = new Map(state.keys);
        keys.set(event.data.keyId, { merchantId: event.data.merchantId, environment: event.data.environment, name: event.data.name ?? null, scopes: event.data.scopes, revoked: false, successorId: null });
        return { ...state, keys };
      }
      case 'api_key.rolled':
        return withKey(state, event.data.keyId, (key) => ({ ...key, successorId: event.data.successorId }));
      case 'api_key.revoked':
        return withKey(state, event.data.keyId, (key) => ({ ...key, revoked: true }));
      case 'merchant.live_activated':
        return { ...state, live: { ...state.live, status: 'active', activatedAt: event.data.activatedAt, suspended: false } };
      case 'merchant.live_deactivated':
        return { ...state, live: { ...state.live, status: 'deactivated', deactivatedAt: event.data.deactivatedAt, suspended: event.data.suspended === true } };
    }
  },

  decide(command, state) {
    const at = command.at.toISOString();
    switch (command.type) {
      case 'create_merchant': {
        if (state.exists) throw new Refusal('IKW-RES-003', `Merchant ${command.merchantId} already exists`);
        return [
          { type: 'merchant.created', data: { merchantId: command.merchantId, name: command.name, email: command.email, createdAt: at } },
          ...command.keys.map((key): MerchantEvent => ({
            type: 'api_key.created',
            data: { ...key, merchantId: command.merchantId, createdAt: at },
          })),
        ];
      }
      case 'create_api_key':
        if (!state.exists) throw new Refusal('IKW-RES-001', `No such merchant: '${command.merchantId}'`);
        return [{ type: 'api_key.created', data: { ...command.key, merchantId: command.merchantId, createdAt: at } }];
      case 'roll_api_key': {
        const key = keyOf(state, command);
        if (key.revoked) throw new Refusal('IKW-RES-002', `API key ${command.keyId} is revoked`, 'keyId');
        if (key.successorId !== null) throw new Refusal('IKW-RES-002', `API key ${command.keyId} was already rolled; roll its successor ${key.successorId}`, 'keyId');
        const expiresAt = new Date(Math.max(command.expiresAt.getTime(), command.at.getTime())).toISOString();
        return [
          {
            type: 'api_key.created',
            data: { ...command.successor, environment: key.environment, scopes: key.scopes, ...(key.name !== null ? { name: key.name } : {}), rolledFrom: command.keyId, merchantId: command.merchantId, createdAt: at },
          },
          { type: 'api_key.rolled', data: { merchantId: command.merchantId, keyId: command.keyId, successorId: command.successor.keyId, expiresAt, rolledAt: at } },
        ];
      }
      case 'revoke_api_key': {
        const key = keyOf(state, command);
        if (key.revoked) return [];
        return [{ type: 'api_key.revoked', data: { merchantId: command.merchantId, keyId: command.keyId, revokedAt: at } }];
      }
      case 'activate_live':
        if (!state.exists) throw new Refusal('IKW-RES-001', `No such merchant: '${command.merchantId}'`, 'merchantId');
        if (state.live.status === 'active') return [];
        return [{ type: 'merchant.live_activated', data: { merchantId: command.merchantId, activatedAt: at } }];
      case 'deactivate_live':
        if (!state.exists) throw new Refusal('IKW-RES-001', `No such merchant: '${command.merchantId}'`, 'merchantId');
        if (state.live.status !== 'active') return [];
        return [{ type: 'merchant.live_deactivated', data: { merchantId: command.merchantId, deactivatedAt: at, ...(command.suspended ? { suspended: true } : {}) } }];
    }
  },
};
