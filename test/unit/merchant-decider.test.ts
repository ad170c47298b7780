import t from 'tap';
import { ApiError } from '../../packages/core/errors.js';
import { fold } from '../../packages/core/decider.js';
import { merchantDecider } from '../../packages/domain/merchant/decider.js';
import type { MerchantEvent } from '../../packages/domain/merchant/events.js';

const at = new Date('2026-01-01T00:00:00Z');
const key = (keyId: string, environment: 'sandbox' | 'live') => ({ keyId, environment, keyHash: `h-${keyId}`, last4: 'abcd', scopes: ['*'] });

function run(history: MerchantEvent[], command: Parameters<typeof merchantDecider.decide>[0]): MerchantEvent[] {
  return merchantDecider.decide(command, fold(merchantDecider, history));
}

t.test('creating a merchant records it and its keys', async (t) => {
  const events = run([], { type: 'create_merchant', merchantId: 'acct_1', name: 'Acme', email: null, keys: [key('key_s', 'sandbox'), key('key_l', 'live')], at });
  t.same(events.map((e) => e.type), ['merchant.created', 'api_key.created', 'api_key.created']);
  t.equal(events[0]!.data.merchantId, 'acct_1');
});

t.test('a merchant is created once', async (t) => {
  const history = run([], { type: 'create_merchant', merchantId: 'acct_1', name: 'Acme', email: null, keys: [], at });
  t.throws(() => run(history, { type: 'create_merchant', merchantId: 'acct_1', name: 'Acme', email: null, keys: [], at }), ApiError);
});

t.test('keys: added to an existing merchant only; revoking is idempotent; unknown keys are 404', async (t) => {
  t.throws(() => run([], { type: 'create_api_key', merchantId: 'acct_1', key: key('k', 'sandbox'), at }), { code: 'IKW-RES-001' });
  const history = [
    ...run([], { type: 'create_merchant', merchantId: 'acct_1', name: 'Acme', email: null, keys: [key('key_s', 'sandbox')], at }),
  ];
  const revoked = run(history, { type: 'revoke_api_key', merchantId: 'acct_1', keyId: 'key_s', at });
  t.same(revoked.map((e) => e.type), ['api_key.revoked']);
  t.same(run([...history, ...revoked], { type: 'revoke_api_key', merchantId: 'acct_1', keyId: 'key_s', at }), [], 'second revoke decides nothing');
  t.throws(() => run(history, { type: 'revoke_api_key', merchantId: 'acct_1', keyId: 'nope', at }), { code: 'IKW-RES-001' });
});
