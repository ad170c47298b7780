/**
 * Payment capabilities and configuration as pure deciders: a capability's transition table
 * walked (suspend only when active, resume only when suspended, gone once deleted, created again
 * after), activations (one per country and currency, replaced, deleted) and the check they make of
 * a direction and an amount, feature flags set and deleted, admin keys revoked once.
 */
import t from '#tap';
import { Refusal } from '#packages/core/refusal.js';
import { activationCheck } from '#packages/families/platform/country-activation/commands.js';
import { countryActivationAggregate } from '#packages/families/platform/country-activation/render.js';
import { featureFlagAggregate } from '#packages/families/platform/feature-flag/render.js';
import { PAYMENT_CAPABILITY_TRANSITIONS, type PaymentCapabilityCommand } from '#packages/families/platform/payment-capability/decider.js';
import { paymentCapabilityAggregate } from '#packages/families/platform/payment-capability/render.js';
import { platformAdminDecider } from '#packages/families/platform/platform-admin/decider.js';
import { spec } from '../../support/decider-spec.js';

const owner = { merchantId: 'acct_1', environment: 'sandbox' } as const;
const stranger = { merchantId: 'acct_2', environment: 'sandbox' } as const;
const T0 = new Date('2026-01-01T00:00:00Z');

t.test('capabilities: the transition table, delete and create again', async (t) => {
  const caps = spec(paymentCapabilityAggregate);
  const create: PaymentCapabilityCommand = {
    type: 'create',
    capability: { id: 'cap_1', ...owner, country: 'SN', currency: 'xof', paymentMethodType: 'mobile_money', operator: 'wave', isEnabled: true, createdAt: T0.toISOString() },
  };
  const commands: Record<keyof typeof PAYMENT_CAPABILITY_TRANSITIONS, PaymentCapabilityCommand> = {
    update: { type: 'update', owner, at: T0, isEnabled: false },
    suspend: { type: 'suspend', owner, at: T0, reason: 'review' },
    resume: { type: 'resume', owner, at: T0 },
    delete: { type: 'delete', owner, at: T0 },
  };
  const histories = { active: caps.history(create), suspended: caps.history(create, commands.suspend) };
  for (const [status, history] of Object.entries(histories)) {
    for (const [name, command] of Object.entries(commands) as [keyof typeof PAYMENT_CAPABILITY_TRANSITIONS, PaymentCapabilityCommand][]) {
      const allowed = PAYMENT_CAPABILITY_TRANSITIONS[name].includes(status as 'active' | 'suspended');
      if (allowed)
        caps
          .given(history)
          .when(command)
          .thenState((s) => t.not(s.capability, null, `${name} in ${status}`));
      else caps.given(history).when(command).thenThrows(t, { code: 'IKW-RES-002', param: 'capabilityId' }, `${name} refused in ${status}`);
    }
  }
  caps.given(histories.active).when(create).thenThrows(t, 'IKW-CAP-003');
  caps.given(histories.active).when({ type: 'update', owner: stranger, at: T0, isEnabled: false }).thenThrows(t, 'IKW-RES-001');
  const deleted = caps.given(histories.active).history(commands.delete);
  caps.given(deleted).when(commands.update).thenThrows(t, 'IKW-RES-001', 'a deleted capability is gone');
  caps
    .given(deleted)
    .when(create)
    .thenMatch(t, [{ type: 'payment_capability.created', data: { object: { status: 'active', is_enabled: true } } }]);
  caps
    .given(histories.suspended)
    .when(commands.resume)
    .thenMatch(t, [{ type: 'payment_capability.resumed', data: { object: { status: 'active', suspension_reason: null } } }]);
});

t.test('activations: one per country and currency; replaced; deleted; the check of a direction and an amount', async (t) => {
  const activations = spec(countryActivationAggregate);
  const rule = { enabledForPayIn: true, enabledForPayout: false, minAmount: 100, maxAmount: 1_000 };
  const create = { type: 'create' as const, activation: { id: 'a-1', ...owner, countryCode: 'SN', currencyIso: 'XOF', ...rule, setBy: 'merchant' as const, createdAt: T0.toISOString() } };
  const byMerchant = { owner, at: T0, by: 'merchant', legacySetter: 'merchant' } as const;
  const history = activations.history(create);
  activations.given(history).when(create).thenThrows(t, 'IKW-CFG-003');
  activations
    .given(history)
    .when({ type: 'update', ...byMerchant, rule: { ...rule, enabledForPayout: true } })
    .thenMatch(t, [{ type: 'country_activation.updated', data: { setBy: 'merchant', object: { enabledForPayout: true, minAmount: 100, setBy: 'merchant' } } }]);
  activations
    .given(history)
    .when({ type: 'delete', ...byMerchant, owner: stranger })
    .thenThrows(t, 'IKW-RES-001');
  const gone = activations.given(history).history({ type: 'delete', ...byMerchant });
  activations
    .given(gone)
    .when({ type: 'delete', ...byMerchant })
    .thenThrows(t, 'IKW-RES-001');

  // Set by the platform operator: the merchant can neither change nor delete it; the operator can.
  const byOperator = { ...byMerchant, by: 'operator' } as const;
  const operators = activations.history({ ...create, activation: { ...create.activation, setBy: 'operator' } });
  activations
    .given(operators)
    .when({ type: 'update', ...byMerchant, rule })
    .thenThrows(t, { code: 'IKW-CFG-005', param: 'activationId' });
  activations
    .given(operators)
    .when({ type: 'delete', ...byMerchant })
    .thenThrows(t, { code: 'IKW-CFG-005', param: 'activationId' });
  activations
    .given(operators)
    .when({ type: 'update', ...byOperator, rule: { ...rule, maxAmount: 500 } })
    .thenMatch(t, [{ type: 'country_activation.updated', data: { setBy: 'operator', object: { maxAmount: 500, setBy: 'operator' } } }]);
  const taken = activations.given(history).history({ type: 'update', ...byOperator, rule });
  activations
    .given(taken)
    .when({ type: 'update', ...byMerchant, rule })
    .thenThrows(t, 'IKW-CFG-005', 'a merchant’s activation the operator changed is the operator’s');
  // Events from before `setBy`: the service's reading of their actor decides.
  const legacy = activations.history({ ...create, activation: { ...create.activation, setBy: undefined as never } });
  activations
    .given(legacy)
    .when({ type: 'delete', ...byMerchant, legacySetter: 'operator' })
    .thenThrows(t, 'IKW-CFG-005');
  activations
    .given(legacy)
    .when({ type: 'delete', ...byMerchant })
    .thenMatch(t, [{ type: 'country_activation.deleted' }]);
  activations
    .given(operators)
    .when({ type: 'delete', ...byMerchant, legacySetter: 'merchant' })
    .thenThrows(t, 'IKW-CFG-005', 'a recorded setter outweighs it');

  const param = { direction: 'transaction_country', amount: 'amount' };
  const payin = activationCheck(rule, 'payin', 'SN', param);
  t.doesNotThrow(() => payin(100));
  t.doesNotThrow(() => payin(1_000));
  t.throws(() => payin(99), new Refusal('IKW-CFG-002', 'SN takes amounts from 100 to 1000 on this account', 'amount'));
  t.throws(() => payin(1_001), { code: 'IKW-CFG-002' });
  t.throws(() => activationCheck(rule, 'payout', 'SN', param), { code: 'IKW-CFG-001', field: 'transaction_country' });
  t.doesNotThrow(() => activationCheck(null, 'payout', 'SN', param)(10 ** 12), 'no activation: the catalog decides');
});

t.test('feature flags are set and deleted; admin keys are revoked once', async (t) => {
  const flags = spec(featureFlagAggregate);
  const set = { type: 'set' as const, flag: { id: 'f-1', key: 'batch_payouts', merchantId: null, isEnabled: true, description: null, at: T0.toISOString() } };
  const history = flags.history(set);
  flags
    .given(history)
    .when(set)
    .thenMatch(t, [{ type: 'feature_flag.set', data: { object: { key: 'batch_payouts', isEnabled: true } } }], 'set again: changed');
  const deleted = flags.given(history).history({ type: 'delete', id: 'f-1', at: T0 });
  flags.given(deleted).when({ type: 'delete', id: 'f-1', at: T0 }).thenThrows(t, 'IKW-RES-001');

  const keys = spec(platformAdminDecider);
  const created = keys.history({ type: 'create_key', key: { keyId: 'key_1', keyHash: 'h', last4: 'abcd', name: 'ops', createdAt: T0.toISOString() } });
  const revoked = keys.given(created).history({ type: 'revoke_key', keyId: 'key_1', at: T0 });
  keys.given(revoked).when({ type: 'revoke_key', keyId: 'key_1', at: T0 }).thenNothing(t);
  keys.given(created).when({ type: 'revoke_key', keyId: 'key_2', at: T0 }).thenThrows(t, 'IKW-RES-001');
});
