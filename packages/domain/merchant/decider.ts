import { Refusal } from '../../core/refusal.js';
import type { Decider } from '../../core/decider.js';
import type { ApiKeyRecord, MerchantEvent } from './events.js';

export type MerchantCommand =
  | { type: 'create_merchant'; merchantId: string; name: string; email: string | null; keys: ApiKeyRecord[]; at: Date }
  | { type: 'create_api_key'; merchantId: string; key: ApiKeyRecord; at: Date }
  | { type: 'revoke_api_key'; merchantId: string; keyId: string; at: Date };

export interface MerchantState {
  exists: boolean;
  name: string;
  keys: Map<string, { revoked: boolean }>;
}

export const merchantDecider: Decider<MerchantCommand, MerchantState, MerchantEvent> = {
  initialState: { exists: false, name: '', keys: new Map() },

  evolve(state, event) {
    switch (event.type) {
      case 'merchant.created':
        return { ...state, exists: true, name: event.data.name };
      case 'api_key.created': {
        const keys = new Map(state.keys);
        keys.set(event.data.keyId, { revoked: false });
        return { ...state, keys };
      }
      case 'api_key.revoked': {
        const keys = new Map(state.keys);
        keys.set(event.data.keyId, { revoked: true });
        return { ...state, keys };
      }
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
      case 'revoke_api_key': {
        const key = state.keys.get(command.keyId);
        if (!key) throw new Refusal('IKW-RES-001', `No such API key: '${command.keyId}'`);
        if (key.revoked) return [];
        return [{ type: 'api_key.revoked', data: { merchantId: command.merchantId, keyId: command.keyId, revokedAt: at } }];
      }
    }
  },
};
