/**
 * The risk rules as they decide one attempt (docs/risk.md): each rule at its boundary, the
 * strictest action of those that matched deciding, `review` on a payment recorded as `score`, the
 * blocklist by kind, the amount far above the merchant's usual, and the merchant's rules over the
 * platform's (which still apply).
 */
import t from '#tap';
import { decisionOf, DEFAULT_RISK_RULES, destinationKey, evaluate, merchantView, ownRules, rulesInForce, type Attempt, type AttemptCounts, type BlocklistEntry, type RiskRuleSet } from '#packages/families/risk/rules/rules.js';

const none: AttemptCounts = { payerLastHour: 0, payerLastDay: 0, destinationLastDay: 0, repeats: 0, usual: { count: 0, median: 0 } };
const payment: Attempt = { direction: 'payment', amount: 5_000, currency: 'xof', phone: '221771234567', email: 'payer@example.com', destination: null };
const payout: Attempt = { direction: 'payout', amount: 5_000, currency: 'xof', phone: null, email: null, destination: '221771234567' };
const off: RiskRuleSet = { payerPaymentsPerHour: null, payerPaymentsPerDay: null, payoutsPerDestinationPerDay: null, amountCeiling: null, repeatedPayment: null, blocklist: null, amountAboveUsual: null };
const entry = (kind: BlocklistEntry['kind'], value: string): BlocklistEntry => ({ id: `rbl_${kind}`, kind, value, note: null, createdAt: '2026-01-01T00:00:00.000Z' });

t.test('velocity: the limit passes, the attempt beyond it matches', async (t) => {
  const rules = { ...off, payerPaymentsPerHour: { limit: 2, action: 'block' as const }, payoutsPerDestinationPerDay: { limit: 1, action: 'review' as const } };
  t.same(evaluate(rules, [], payment, { ...none, payerLastHour: 1 }), []);
  t.match(evaluate(rules, [], payment, { ...none, payerLastHour: 2 }), [{ rule: 'payerPaymentsPerHour', action: 'block' }]);
  t.same(evaluate(rules, [], payout, { ...none, payerLastHour: 5 }), [], 'payer rules are not asked of payouts');
  t.match(evaluate(rules, [], payout, { ...none, destinationLastDay: 1 }), [{ rule: 'payoutsPerDestinationPerDay', action: 'review' }]);
  t.same(evaluate(rules, [], { ...payment, phone: null, email: null }, { ...none, payerLastHour: 9 }), [], 'a payer known by nothing is counted by nothing');
});

t.test('the ceiling: at it passes, one unit above matches; another currency has none', async (t) => {
  const rules = { ...off, amountCeiling: { amounts: { xof: 5_000 }, action: 'score' as const } };
  t.same(evaluate(rules, [], payment, none), []);
  t.match(evaluate(rules, [], { ...payment, amount: 5_001 }, none), [{ rule: 'amountCeiling', reason: /5001 xof is above the ceiling of 5000/ }]);
  t.same(evaluate(rules, [], { ...payment, amount: 9_999_999, currency: 'ghs' }, none), []);
});

t.test('far above the usual: only with the minimum history, above the multiple of the median', async (t) => {
  const rules = { ...off, amountAboveUsual: { multiple: 5, minimumHistory: 3, action: 'review' as const } };
  const usual = (count: number, median: number) => ({ ...none, usual: { count, median } });
  t.same(evaluate(rules, [], { ...payout, amount: 1_000_000 }, usual(2, 1_000)), [], 'no decision below the minimum history');
  t.same(evaluate(rules, [], { ...payout, amount: 5_000 }, usual(3, 1_000)), [], 'at the multiple it passes');
  t.match(evaluate(rules, [], { ...payout, amount: 5_001 }, usual(3, 1_000)), [{ rule: 'amountAboveUsual', action: 'review', reason: /5001 xof is above 5 times the median \(1000\) of the merchant's last 3 successful payouts/ }]);
});

t.test("the blocklist by kind: a payer's number blocked is not a destination blocked", async (t) => {
  const rules = { ...off, blocklist: { action: 'block' as const } };
  t.match(evaluate(rules, [entry('phone', '221771234567')], payment, none), [{ rule: 'blocklist', action: 'block' }]);
  t.match(evaluate(rules, [entry('email', 'payer@example.com')], payment, none), [{ rule: 'blocklist' }]);
  t.same(evaluate(rules, [entry('phone', '221771234567')], payout, none), []);
  t.match(evaluate(rules, [entry('destination', '221771234567')], payout, none), [{ rule: 'blocklist' }]);
  t.equal(destinationKey({ type: 'bank', bank_code: '044', account_number: '0123456789' }), '044/0123456789');
  t.equal(destinationKey({ type: 'mobile_money', msisdn: '+221 77 123 45 67' }), '221771234567');
});

t.test('the strictest action decides; review on a payment is a score; none matched is allow', async (t) => {
  t.equal(decisionOf('payment', []), 'allow');
  t.equal(
    decisionOf('payment', [
      { rule: 'amountCeiling', action: 'score', reason: '' },
      { rule: 'blocklist', action: 'block', reason: '' },
    ]),
    'block',
  );
  t.equal(
    decisionOf('payout', [
      { rule: 'amountCeiling', action: 'score', reason: '' },
      { rule: 'payoutsPerDestinationPerDay', action: 'review', reason: '' },
    ]),
    'review',
  );
  t.equal(decisionOf('payment', [{ rule: 'amountCeiling', action: 'review', reason: '' }]), 'score');
});

t.test("the merchant's rules over the defaults: those left out follow them, null is off", async (t) => {
  const rules = rulesInForce({ repeatedPayment: null, payerPaymentsPerHour: { limit: 3, action: 'block' } });
  t.equal(rules.repeatedPayment, null);
  t.same(rules.payerPaymentsPerHour, { limit: 3, action: 'block' });
  t.same(rules.blocklist, DEFAULT_RISK_RULES.blocklist);
  t.same(merchantView(rules, { repeatedPayment: { minutes: 5, action: 'block' } }).repeatedPayment, { minutes: 5, action: 'block' }, 'the merchant reads its own where it set one');
  t.same(ownRules({ repeatedPayment: null, blocklist: { action: 'review' } }), { blocklist: { action: 'review' } }, "a merchant's rule turned off adds nothing");
  t.ok(
    Object.values(DEFAULT_RISK_RULES).every((r) => r !== null && (r.action === 'score' || r === DEFAULT_RISK_RULES.blocklist)),
    'the defaults only score, except the blocklist',
  );
});
