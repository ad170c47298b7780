/**
 * Where a succeeded payment's money goes (packages/families/payments/payment-intent/recipients.ts): the first
 * registered recipient that claims it, else nobody (the merchant's balance); a name registers once.
 */
import t from '#tap';
import { PaymentRecipients, type PaymentRecipient, type SucceededPayment } from '#packages/families/payments/payment-intent/recipients.js';

const payment = (metadata: Record<string, string>): SucceededPayment => ({
  intent: { id: 'pi_1', merchantId: 'acct_1', environment: 'sandbox', amount: 1_000, currency: 'xof', metadata },
  fee: 30,
  clearing: 'operator_clearing:orange_money',
  availableOn: new Date(0),
  escrowContract: null,
});

/** Claims payments whose metadata names it, and says who asked. */
function recipient(name: string, asked: string[]): PaymentRecipient {
  return {
    name,
    moneyOf: async (p) => (asked.push(name), p.intent.metadata['to'] === name ? { steps: [], after: null } : null),
    assertRefundable: async (p) => {
      if (p.intent.metadata['to'] === name) throw new Error(`refund it through ${name}`);
    },
  };
}

t.test('the first recipient that claims a payment has it; asked in registration order', async (t) => {
  const asked: string[] = [];
  const recipients = new PaymentRecipients();
  recipients.register(recipient('campaign', asked), recipient('order', asked));
  t.ok(await recipients.moneyOf(payment({ to: 'campaign' }), {}));
  t.same(asked, ['campaign'], 'the later one is not asked');
  asked.length = 0;
  t.ok(await recipients.moneyOf(payment({ to: 'order' }), {}));
  t.same(asked, ['campaign', 'order']);
  t.equal(await recipients.moneyOf(payment({}), {}), null, "nobody's: the merchant's balance");
});

t.test('a refund of a payment some recipient holds is refused by it', async (t) => {
  const recipients = new PaymentRecipients();
  recipients.register(recipient('campaign', []), recipient('order', []));
  const refunded = (to?: string) => ({ intent: { ...payment(to ? { to } : {}).intent }, escrowContract: null });
  await t.rejects(recipients.assertRefundable(refunded('order')), /refund it through order/);
  await t.resolves(recipients.assertRefundable(refunded()), "the merchant's own payment");
});

t.test('a recipient registers once', async (t) => {
  const recipients = new PaymentRecipients();
  recipients.register(recipient('order', []));
  t.throws(() => recipients.register(recipient('order', [])), /registered twice/);
});
