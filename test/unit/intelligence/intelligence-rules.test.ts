/**
 * The rules behind recommendations, operator health and context suggestions, on known figures:
 * thresholds at their edges, the cheaper rail's saving, and the order suggestions come in.
 */
import t from '#tap';
import { cheaperRails, customersToReengage, failingOperators, operatorHealth, recommend, type OperatorWindow } from '#packages/families/intelligence/recommendations.js';
import { suggest, type MerchantFacts } from '#packages/families/intelligence/suggestions.js';

const w = (operator: string, attempts: number, failed: number, volume = 0, fees = 0, country = 'SN'): OperatorWindow => ({ country, operator, currency: 'XOF', attempts, failed, volume, fees });

t.test('operator health: against its own baseline, or alone', async (t) => {
  t.same(operatorHealth(w('orange_money', 19, 19), undefined), { failureRate: 1, usualFailureRate: null, status: 'insufficient_data' }, 'under 20 attempts says nothing');
  t.equal(operatorHealth(w('orange_money', 20, 6), undefined).status, 'degraded', '30% with no baseline');
  t.equal(operatorHealth(w('orange_money', 20, 5), undefined).status, 'healthy', '25% with no baseline');
  // Usual 10%: degraded from 20% (10 points above, and twice as much).
  t.equal(operatorHealth(w('wave', 100, 20), w('wave', 100, 10)).status, 'degraded');
  t.equal(operatorHealth(w('wave', 100, 19), w('wave', 100, 10)).status, 'healthy');
  // Usual 40%: 50% is 10 points above but not 1.5 times as much.
  t.equal(operatorHealth(w('wave', 100, 50), w('wave', 100, 40)).status, 'healthy');
  t.equal(operatorHealth(w('wave', 100, 60), w('wave', 100, 40)).status, 'degraded');
  t.same(operatorHealth(w('wave', 30, 10), w('wave', 10, 0)).usualFailureRate, null, 'a thin baseline is no baseline');
});

t.test('failing operators name their figures', async (t) => {
  const [rec, ...rest] = failingOperators([w('wave', 100, 20), w('orange_money', 100, 5)], [w('wave', 400, 40), w('orange_money', 400, 20)]);
  t.same(rest, []);
  t.match(rec, { id: 'operator_failing:SN:wave:XOF', kind: 'operator_failing', severity: 'high', evidence: { attempts: 100, failed: 20, failure_rate: 0.2, usual_failure_rate: 0.1 } });
  t.match(rec!.detail, /20% of 100 payments failed .* against 10%/);
});

t.test('customers to re-engage', async (t) => {
  t.same(customersToReengage(0), []);
  t.match(customersToReengage(3), [{ kind: 'reengage_customers', title: '3 customers stopped paying', evidence: { at_risk: 3 } }]);
  t.match(customersToReengage(1), [{ title: '1 customer stopped paying' }]);
});

t.test('a cheaper rail: fee rates actually paid, and the saving', async (t) => {
  // Orange Money: 1% of 1,000,000; Wave: 0.5% of 200,000. Wave would have saved 0.5% of Orange Money's volume.
  const [rec] = cheaperRails([w('orange_money', 100, 0, 1_000_000, 10_000), w('wave', 20, 0, 200_000, 1_000)]);
  t.match(rec, { kind: 'cheaper_rail', evidence: { cheaper: 'wave', current: 'orange_money', cheaper_fee_rate: 0.005, current_fee_rate: 0.01, estimated_saving: 5_000 } });
  t.same(cheaperRails([w('orange_money', 100, 0, 1_000_000, 10_000), w('wave', 20, 0, 200_000, 1_700)]), [], 'at 85% of the cost, not worth it');
  t.same(cheaperRails([w('orange_money', 100, 0, 1_000_000, 10_000), w('wave', 20, 0, 200_000, 1_000, 'CI')]), [], 'other countries are other rails');
  t.same(cheaperRails([w('wave', 100, 0, 1_000_000, 5_000), w('orange_money', 20, 0, 200_000, 2_000)]), [], 'the one most used is the cheapest');
});

t.test('recommendations come most severe first', async (t) => {
  const all = recommend({ recent: [w('wave', 20, 10)], baseline: [], month: [w('orange_money', 100, 0, 1_000_000, 10_000), w('wave', 20, 0, 200_000, 1_000)], atRisk: 2 });
  t.same(
    all.map((r) => r.kind),
    ['operator_failing', 'reengage_customers', 'cheaper_rail'],
  );
});

t.test('suggestions: problems, then go-live steps, then features; the page’s first', async (t) => {
  const done: MerchantFacts = {
    hasPayoutDestination: true,
    hasSucceededSandboxPayment: true,
    hasWebhookEndpoint: true,
    hasLogo: true,
    hasPaymentLink: true,
    hasRecipients: true,
    hasCustomers: true,
    recentFailedPayments: 0,
    delayedPayouts: 0,
  };
  t.same(suggest(done, undefined), [], 'nothing left to suggest');
  const facts = { ...done, recentFailedPayments: 2, delayedPayouts: 1, hasWebhookEndpoint: false, hasRecipients: false };
  t.same(
    suggest(facts, undefined).map((s) => s.id),
    ['failed_payments', 'delayed_payouts', 'webhook_endpoint', 'payout_engine'],
  );
  t.same(
    suggest(facts, 'developers').map((s) => s.id),
    ['webhook_endpoint', 'failed_payments', 'delayed_payouts', 'payout_engine'],
  );
  t.same(
    suggest(facts, 'payouts').map((s) => s.id),
    ['delayed_payouts', 'payout_engine', 'failed_payments', 'webhook_endpoint'],
  );
  t.match(suggest(facts, undefined)[0], { object: 'context_suggestion', kind: 'attention', title: '2 payments failed since yesterday' });
});
