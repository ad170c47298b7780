import t from '#tap';
import { createMerchant } from '#packages/families/merchants/merchant/commands.js';
import { confirm, createIntent, mobileMoney as payWith, operatorAnswers, snNumber } from '../../support/payments.js';
import { mobileMoney, saveDestination } from '../../support/payouts.js';
import { startPaymentsService } from '../../support/system.js';

const PASSWORD = 'correct horse battery';

t.test('the go-live checklist follows what the merchant and the user did', async (t) => {
  const svc = await startPaymentsService(t);
  const m = await createMerchant(svc.system.store, svc.clock, 'Boutique', 'test', 'ops@boutique.example');
  const userId = await svc.member(m, 'awa@boutique.example', PASSWORD);
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'awa@boutique.example', password: PASSWORD } });
  const token = login.body.accessToken as string;
  const steps = async () => {
    const res = await svc.request('GET', '/api/v1/onboarding/steps', { key: token });
    t.equal(res.status, 200);
    return Object.fromEntries((res.body.data as { key: string; state: string }[]).map((s) => [s.key, s.state]));
  };

  t.same(await steps(), {
    business_profile: 'complete',
    email_verified: 'incomplete',
    phone_verified: 'incomplete',
    payout_destination: 'incomplete',
    first_sandbox_payment: 'incomplete',
    webhook_endpoint: 'incomplete',
    live_activation: 'incomplete',
  });

  await svc.system.accounts.verifyContact(userId, 'email', 'awa@boutique.example', { actor: 'test' });
  await svc.system.accounts.verifyContact(userId, 'phone', '+221771234567', { actor: 'test' });
  await saveDestination(svc, m.api_keys.sandbox, { ...mobileMoney('67'), currency: 'xof' });
  await svc.request('POST', '/api/v1/webhook-endpoints', { key: m.api_keys.sandbox, body: { url: 'https://hooks.boutique.example/sika', enabled_events: ['payout.failed'] } });
  const intent = await createIntent(svc, m.api_keys.sandbox);
  t.equal((await steps()).first_sandbox_payment, 'incomplete', 'created is not paid');
  await confirm(svc, m.api_keys.sandbox, intent.id, { payment_method: payWith(snNumber('67')) });
  await operatorAnswers(svc);

  const after = await steps();
  t.same(
    after,
    {
      business_profile: 'complete',
      email_verified: 'complete',
      phone_verified: 'incomplete',
      payout_destination: 'complete',
      first_sandbox_payment: 'complete',
      webhook_endpoint: 'complete',
      live_activation: 'incomplete',
    },
    'a phone number the user does not hold is not their verified phone',
  );
  const res = await svc.request('GET', '/api/v1/onboarding/steps', { key: token });
  t.match(res.body, { object: 'list', merchantId: m.id, completed: 5, total: 7 });
});

t.test('a merchant without a notification e-mail has an incomplete profile; another merchant’s progress is not shown', async (t) => {
  const svc = await startPaymentsService(t);
  const m = await svc.merchant('No e-mail');
  const other = await createMerchant(svc.system.store, svc.clock, 'Busy', 'test', 'ops@busy.example');
  await svc.request('POST', '/api/v1/webhook-endpoints', { key: other.api_keys.sandbox, body: { url: 'https://hooks.busy.example/sika', enabled_events: ['payout.failed'] } });
  await svc.member(m, 'a@noemail.example', PASSWORD);
  const login = await svc.request('POST', '/api/v1/auth/login', { body: { email: 'a@noemail.example', password: PASSWORD } });
  const res = await svc.request('GET', '/api/v1/onboarding/steps', { key: login.body.accessToken });
  t.match(res.body, { merchantId: m.id, completed: 0 });
  t.match(await svc.request('GET', '/api/v1/onboarding/steps', { key: m.api_keys.sandbox }), { status: 403, body: { code: 'IKW-ACC-003' } });
});
