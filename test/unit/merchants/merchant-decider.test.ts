import t from '#tap';
import { merchantDecider, type MerchantCommand } from '#packages/families/merchants/merchant/decider.js';
import { spec } from '../../support/decider-spec.js';

const merchants = spec(merchantDecider);
const at = new Date('2026-01-01T00:00:00Z');
const key = (keyId: string, environment: 'sandbox' | 'live') => ({ keyId, environment, keyHash: `h-${keyId}`, last4: 'abcd', scopes: ['*'] });
const createMerchant = (keys: ReturnType<typeof key>[] = []): MerchantCommand => ({ type: 'create_merchant', merchantId: 'acct_1', name: 'Acme', email: null, keys, at });

t.test('creating a merchant records it and its keys', async (t) => {
  merchants
    .given()
    .when(createMerchant([key('key_s', 'sandbox'), key('key_l', 'live')]))
    .thenMatch(t, [{ type: 'merchant.created', data: { merchantId: 'acct_1' } }, { type: 'api_key.created' }, { type: 'api_key.created' }]);
});

t.test('a merchant is created once', async (t) => {
  merchants.given(merchants.history(createMerchant())).when(createMerchant()).thenThrows(t, 'IKW-RES-003');
});

t.test('keys: added to an existing merchant only; revoking is idempotent; unknown keys are 404', async (t) => {
  merchants
    .given()
    .when({ type: 'create_api_key', merchantId: 'acct_1', key: key('k', 'sandbox'), at })
    .thenThrows(t, 'IKW-RES-001');
  const history = merchants.history(createMerchant([key('key_s', 'sandbox')]));
  const revoked = merchants
    .given(history)
    .when({ type: 'revoke_api_key', merchantId: 'acct_1', keyId: 'key_s', at })
    .thenMatch(t, [{ type: 'api_key.revoked' }]);
  merchants.given(revoked).when({ type: 'revoke_api_key', merchantId: 'acct_1', keyId: 'key_s', at }).thenNothing(t, 'second revoke decides nothing');
  merchants.given(history).when({ type: 'revoke_api_key', merchantId: 'acct_1', keyId: 'nope', at }).thenThrows(t, 'IKW-RES-001');
});
