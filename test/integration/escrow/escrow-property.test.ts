/**
 * A property test (fast-check) of escrow money: random sequences of operations on one contract
 * through the real server (releases in either mode, executions, cancels of releases, refunds,
 * disputes and every outcome, cancel of the contract), some fired two at once. After each step
 * the invariants hold: released + refunded ≤ funded, nothing negative, the ledger's escrow account
 * holds exactly what the contract says, every ledger entry balances, and the merchant's available
 * balance is exactly what was released plus what was refunded to it.
 *
 * Environment: ESCROW_RUNS the number of sequences (25; `make test-long` runs 100), FUZZ_SEED the seed.
 */
import fc from 'fast-check';
import t from '#tap';
import { assertInvariants, escrow, fundedContract, invariantViolation, ok } from '../../support/escrow.js';
import { balance } from '../../support/payouts.js';
import type { TestResponse, TestService } from '../../support/system.js';
import { startPaymentsService } from '../../support/system.js';
import { positiveEnv } from '../../support/env.js';

const svc = await startPaymentsService(t);

const RUNS = positiveEnv(process.env.ESCROW_RUNS, 25);
const SEED = positiveEnv(process.env.FUZZ_SEED, 20260401);
if (RUNS > 25) t.setTimeout(0);

type Step =
  | { op: 'release'; amount: number | null; immediate: boolean }
  | { op: 'execute'; pick: number }
  | { op: 'cancel_release'; pick: number }
  | { op: 'refund'; amount: number | null }
  | { op: 'dispute' }
  | { op: 'resolve'; outcome: 'release_to_beneficiary' | 'refund_to_payer' | 'split' | 'dismissed'; split: number }
  | { op: 'cancel' };

const amount = fc.option(fc.integer({ min: 1, max: 6_000 }), { nil: null });
const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('release' as const), amount, immediate: fc.boolean() }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('execute' as const), pick: fc.nat(20) }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('cancel_release' as const), pick: fc.nat(20) }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('refund' as const), amount }), weight: 2 },
  { arbitrary: fc.constant({ op: 'dispute' as const }), weight: 1 },
  {
    arbitrary: fc.record({ op: fc.constant('resolve' as const), outcome: fc.constantFrom('release_to_beneficiary' as const, 'refund_to_payer' as const, 'split' as const, 'dismissed' as const), split: fc.nat(12_000) }),
    weight: 2,
  },
  { arbitrary: fc.constant({ op: 'cancel' as const }), weight: 1 },
);

/** One step as a request; refusals on the merits (4xx with a code) are part of the game, a 5xx is not. */
async function run(s: TestService, key: string, contractId: string, st: Step): Promise<TestResponse> {
  const releases = (await ok(await escrow(s, key, 'GET', `/releases/contract/${contractId}?limit=100`))).data as { id: string }[];
  const picked = (pick: number) => releases[pick % Math.max(1, releases.length)]?.id ?? '0190a8f4-6b7e-7c55-9a55-51ca0c0f1f0e';
  switch (st.op) {
    case 'release':
      return escrow(s, key, 'POST', `/releases/contract/${contractId}`, { ...(st.amount ? { amountMinor: st.amount } : {}), mode: st.immediate ? 'immediate' : 'manual' });
    case 'execute':
      return escrow(s, key, 'POST', `/releases/${picked(st.pick)}/execute`, {});
    case 'cancel_release':
      return escrow(s, key, 'POST', `/releases/${picked(st.pick)}/cancel`);
    case 'refund':
      return escrow(s, key, 'POST', `/contracts/${contractId}/refund`, st.amount ? { amountMinor: st.amount } : {});
    case 'dispute':
      return escrow(s, key, 'POST', `/disputes/contract/${contractId}`, { reason: 'property' });
    case 'resolve': {
      const c = await ok(await escrow(s, key, 'GET', `/contracts/${contractId}`));
      const id = c.openDisputeId ?? '0190a8f4-6b7e-7c55-9a55-51ca0c0f1f0e';
      return escrow(s, key, 'POST', `/disputes/${id}/resolve`, { outcome: st.outcome, splitReleaseMinor: st.split });
    }
    case 'cancel':
      return escrow(s, key, 'POST', `/contracts/${contractId}/cancel`);
  }
}

t.test('random sequences of escrow operations keep the money invariants after every step', async (t) => {
  let problems = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.tuple(step, fc.option(step, { nil: null })), { minLength: 1, maxLength: 10 }), async (steps) => {
      const { merchant, key } = await svc.sandboxMerchant();
      const c = await fundedContract(svc, merchant.id, key, 12_000);
      for (const [first, alongside] of steps) {
        const answers = await Promise.all([run(svc, key, c.id, first), ...(alongside ? [run(svc, key, c.id, alongside)] : [])]);
        for (const a of answers) {
          if (a.status >= 500 || (a.status !== 200 && typeof a.body?.code !== 'string')) {
            problems++;
            t.fail(`a step answered ${a.status} ${a.text}`);
            return false;
          }
        }
        const violation = await invariantViolation(svc, merchant.id, key, c.id);
        if (violation) {
          t.fail(`after ${JSON.stringify(first)}${alongside ? ` with ${JSON.stringify(alongside)}` : ''}: ${violation}`);
          return false;
        }
        const after = await ok(await escrow(svc, key, 'GET', `/contracts/${c.id}`));
        // Funded from the merchant's balance: what left escrow came back to available, as released or refunded.
        const available = (await balance(svc, key)).available;
        if (available !== after.releasedMinor + after.refundedMinor) {
          t.fail(`available ${available} is not released ${after.releasedMinor} + refunded ${after.refundedMinor}`);
          return false;
        }
      }
      await assertInvariants(t, svc, merchant.id, key, c.id);
      return true;
    }),
    { numRuns: RUNS, seed: SEED },
  );
  t.equal(problems, 0, 'no step answered a 5xx or an uncoded error');
});
