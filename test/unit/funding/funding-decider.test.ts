/**
 * The funding campaign Decider on its own: the lifecycle table, contributions counted once, the
 * target reached once, a payment after the end given back, refunds and releases decided on the
 * held funds they were computed from, payouts never above what was released. And the ledger's
 * campaign moves: every entry balances, each source posts once.
 */
import t from '#tap';
import { isRefused } from '#packages/core/refusal.js';
import { fold } from '#packages/core/decider.js';
import { CAMPAIGN_TRANSITIONS, fundingCampaignDecider, payableOf, raisedOf, type FundingCampaignCommand } from '#packages/families/funding/decider.js';
import { fundingCampaignAggregate } from '#packages/families/funding/render.js';
import type { CampaignCreated, CampaignStatus, ContributionCreated, FundingModel } from '#packages/families/funding/events.js';
import { persistentMapWork } from '#packages/core/persistent-map.js';
import { balanceOf, type LedgerCommand } from '#packages/ledger/decider.js';
import { familiesLedger } from '../../support/ledger.js';
import { isBalanced } from '#packages/ledger/entry.js';
import { moveCampaignFunds, type CampaignMove } from '#packages/families/funding/postings.js';
import { spec } from '../../support/decider-spec.js';

const at = new Date('2026-01-01T00:00:00Z');
const later = (ms: number) => new Date(at.getTime() + ms);
const DAY = 86_400_000;
const owner = { merchantId: 'acct_1', environment: 'sandbox' as const };
const stranger = { merchantId: 'acct_2', environment: 'sandbox' as const };
const campaigns = spec(fundingCampaignAggregate);

const campaign = (fundingModel: FundingModel = 'keep_what_you_raise', targetAmountMinor: number | null = 10_000): CampaignCreated => ({
  id: 'c1',
  merchantId: 'acct_1',
  environment: 'sandbox',
  slug: 'abcdefghijklmnop',
  url: 'http://x/funding/abcdefghijklmnop',
  title: 'Roof',
  description: null,
  targetAmountMinor,
  currency: 'xof',
  country: 'SN',
  deadline: later(10 * DAY).toISOString(),
  fundingModel,
  payoutMethodId: null,
  metadata: null,
  createdAt: at.toISOString(),
});
const create = (model?: FundingModel, target?: number | null): FundingCampaignCommand => ({ type: 'create', campaign: campaign(model, target) });
const publish: FundingCampaignCommand = { type: 'publish', owner, at };
const contribution = (id: string, amountMinor: number): ContributionCreated => ({
  id,
  campaignId: 'c1',
  paymentIntentId: `pi_${id}`,
  amountMinor,
  currency: 'xof',
  contributorName: null,
  contributorEmail: null,
  anonymous: false,
  message: null,
  metadata: null,
  createdAt: at.toISOString(),
});
const contribute = (id: string, amount: number, when = at): FundingCampaignCommand => ({ type: 'contribute', owner, at: when, contribution: contribution(id, amount) });
const paid = (id: string, moneyVersion: number, fee = 100): FundingCampaignCommand => ({
  type: 'record_payment',
  owner,
  at,
  contributionId: id,
  paymentIntentId: `pi_${id}`,
  outcome: { status: 'succeeded', fee, clearing: 'operator_clearing:orange_money' },
  moneyVersion,
});

t.test('contributions: counted once; the target reached once; refused outside an active campaign', async (t) => {
  const active = campaigns.history(create(), publish, contribute('a', 6_000), contribute('b', 6_000));
  const first = campaigns
    .given(active)
    .when(paid('a', 0))
    .thenMatch(t, [{ type: 'funding_campaign.contribution_received', data: { contributionId: 'a', fee: 100 } }]);
  campaigns.given(first).when(paid('a', 1)).thenNothing(t, 'a repeated outcome changes nothing');
  campaigns
    .given(first)
    .when({ ...paid('a', 1), paymentIntentId: 'pi_forged' } as FundingCampaignCommand)
    .thenNothing(t, 'only the intent made for it counts');
  const both = campaigns
    .given(first)
    .when(paid('b', 1))
    .thenMatch(t, [{ type: 'funding_campaign.contribution_received' }, { type: 'funding_campaign.target_reached' }]);
  campaigns
    .given(both)
    .when(contribute('c', 1_000))
    .thenState((s) => t.equal(s.contributions.size, 3));
  campaigns.given(first).when(paid('b', 0)).thenThrows(t, { code: 'IKW-RES-003' }, 'computed on stale funds: decided again');
  campaigns.given(campaigns.history(create())).when(contribute('a', 1)).thenThrows(t, { code: 'IKW-FND-002', param: 'campaignId' });
  campaigns
    .given(active)
    .when(contribute('z', 1, later(10 * DAY)))
    .thenThrows(t, { code: 'IKW-FND-002', param: 'campaignId' }, 'past the deadline');
  campaigns
    .given(active)
    .when({ type: 'contribute', owner, at, contribution: { ...contribution('z', 1), currency: 'ghs' } })
    .thenThrows(t, { code: 'IKW-VAL-009', param: 'currency' });
  campaigns
    .given(active)
    .when({ type: 'contribute', owner: stranger, at, contribution: contribution('z', 1) })
    .thenThrows(t, { code: 'IKW-RES-001', param: 'campaignId' });
  campaigns
    .given(active)
    .when({ type: 'record_payment', owner, at, contributionId: 'a', paymentIntentId: 'pi_a', outcome: { status: 'failed' }, moneyVersion: 0 })
    .thenMatch(t, [{ type: 'funding_campaign.contribution_failed', data: { contributionId: 'a', status: 'failed' } }]);
});

t.test('close releases what is held, fees included, once; a payment after it is given back', async (t) => {
  const held = campaigns.history(create(), publish, contribute('a', 6_000), contribute('b', 1_000), paid('a', 0, 120));
  const closed = campaigns
    .given(held)
    .when({ type: 'close', owner, at, reason: 'organizer', moneyVersion: 1 })
    .thenMatch(t, [{ type: 'funding_campaign.closed', data: { released: 6_000, fee: 120 } }]);
  campaigns.given(closed).when({ type: 'close', owner, at, reason: 'organizer', moneyVersion: 2 }).thenThrows(t, { code: 'IKW-FND-001', param: 'campaignId' });
  campaigns
    .given(closed)
    .when({ type: 'expire', owner, at: later(10 * DAY), moneyVersion: 2 })
    .thenNothing(t, 'the deadline after a close does nothing');
  campaigns
    .given(closed)
    .when(paid('b', 2))
    .thenMatch(t, [{ type: 'funding_campaign.contribution_received' }, { type: 'funding_campaign.contribution_refunded', data: { contributionId: 'b', reason: 'campaign_ended', fromReleased: false } }]);
  const refunded = campaigns
    .given(closed)
    .when({ type: 'refund_contribution', owner, at, contributionId: 'a', moneyVersion: 2 })
    .thenMatch(t, [{ type: 'funding_campaign.contribution_refunded', data: { fromReleased: true, campaign: { raisedAmountMinor: 0, contributorCount: 0, releasedAmountMinor: 6_000, refundedAmountMinor: 6_000 } } }]);
  t.equal(raisedOf(campaigns.state(refunded)), 0, 'a refund after release is no longer raised');
  t.equal(payableOf(campaigns.state(refunded)), 6_000 - 120 - 6_000, 'and its amount, taken from the balance, is no longer there to pay out');
  campaigns.given(held).when({ type: 'refund_contribution', owner, at, contributionId: 'b', moneyVersion: 1 }).thenThrows(t, { code: 'IKW-FND-004', param: 'contributionId' });
  // A give-back that names its request: that request again decides nothing (its retry is answered), another is refused.
  const givenBack = campaigns
    .given(held)
    .when({ type: 'refund_contribution', owner, at, contributionId: 'a', moneyVersion: 1, request: 'req-1' })
    .thenMatch(t, [{ type: 'funding_campaign.contribution_refunded', data: { contributionId: 'a', request: 'req-1' } }]);
  campaigns.given(givenBack).when({ type: 'refund_contribution', owner, at, contributionId: 'a', moneyVersion: 2, request: 'req-1' }).thenNothing(t, 'its own retry');
  campaigns.given(givenBack).when({ type: 'refund_contribution', owner, at, contributionId: 'a', moneyVersion: 2, request: 'req-2' }).thenThrows(t, { code: 'IKW-FND-004', param: 'contributionId' });
  campaigns.given(givenBack).when({ type: 'refund_contribution', owner, at, contributionId: 'a', moneyVersion: 2 }).thenThrows(t, { code: 'IKW-FND-004', param: 'contributionId' });
});

t.test('all or nothing: close below target refused; the deadline fails and refunds, or closes at target', async (t) => {
  const below = campaigns.history(create('all_or_nothing', 10_000), publish, contribute('a', 4_000), paid('a', 0));
  campaigns.given(below).when({ type: 'close', owner, at, reason: 'organizer', moneyVersion: 1 }).thenThrows(t, 'IKW-FND-003');
  campaigns
    .given(below)
    .when({ type: 'expire', owner, at: later(10 * DAY - 1), moneyVersion: 1 })
    .thenNothing(t, 'not before the deadline');
  campaigns
    .given(below)
    .when({ type: 'expire', owner, at: later(10 * DAY), moneyVersion: 1 })
    .thenMatch(t, [{ type: 'funding_campaign.contribution_refunded', data: { contributionId: 'a', reason: 'campaign_failed' } }, { type: 'funding_campaign.failed' }]);
  const reached = campaigns.history(create('all_or_nothing', 4_000), publish, contribute('a', 4_000), paid('a', 0));
  campaigns
    .given(reached)
    .when({ type: 'expire', owner, at: later(10 * DAY), moneyVersion: 1 })
    .thenMatch(t, [{ type: 'funding_campaign.closed', data: { reason: 'deadline', released: 4_000 } }]);
});

t.test('the lifecycle table: each command acts in its statuses only', async (t) => {
  const histories: Record<CampaignStatus, ReturnType<typeof campaigns.history>> = {
    draft: campaigns.history(create()),
    active: campaigns.history(create(), publish),
    closed: campaigns.history(create(), publish, { type: 'close', owner, at, reason: 'organizer', moneyVersion: 0 }),
    canceled: campaigns.history(create(), { type: 'cancel', owner, at, moneyVersion: 0 }),
    failed: campaigns.history(create('all_or_nothing'), publish, { type: 'expire', owner, at: later(10 * DAY), moneyVersion: 0 }),
  };
  const commands: Record<keyof typeof CAMPAIGN_TRANSITIONS, FundingCampaignCommand> = {
    update: { type: 'update', owner, at, changes: { title: 'New' } },
    publish,
    close: { type: 'close', owner, at, reason: 'organizer', moneyVersion: 0 },
    cancel: { type: 'cancel', owner, at, moneyVersion: 0 },
    expire: { type: 'expire', owner, at: later(10 * DAY), moneyVersion: 0 },
    contribute: contribute('x', 1_000),
    post_update: { type: 'post_update', owner, at, update: { id: 'u1', title: 'T', body: 'B', createdAt: at.toISOString(), editedAt: null } },
    request_payout: { type: 'request_payout', owner, at, payout: { id: 'p1', payoutId: 'po_1', payoutMethodId: 'pm', amountMinor: 0, feeMinor: 0, status: 'requested', failureReason: null, createdAt: at.toISOString() } },
  };
  for (const [name, command] of Object.entries(commands) as [keyof typeof CAMPAIGN_TRANSITIONS, FundingCampaignCommand][]) {
    for (const [status, history] of Object.entries(histories) as [CampaignStatus, ReturnType<typeof campaigns.history>][]) {
      const allowed = (CAMPAIGN_TRANSITIONS[name] as readonly CampaignStatus[]).includes(status);
      let refused = false;
      try {
        fundingCampaignDecider.decide(command, fold(fundingCampaignDecider, history));
      } catch (err) {
        // A refusal of the lifecycle, not any exception (a TypeError would otherwise pass for one).
        if (!isRefused(err) || !['IKW-FND-001', 'IKW-FND-002', 'IKW-FND-003'].includes(err.code)) throw err;
        refused = true;
      }
      // Repeats that change nothing (publish when active, cancel when canceled, expire once ended) are accepted.
      const idempotent = (name === 'publish' && status === 'active') || (name === 'cancel' && status === 'canceled') || name === 'expire';
      t.equal(!refused, allowed || idempotent, `${name} on a ${status} campaign`);
    }
  }
});

t.test('payouts never take more than the released funds; a failed one gives its claim back', async (t) => {
  const closed = campaigns.history(create(), publish, contribute('a', 10_000), paid('a', 0, 200), { type: 'close', owner, at, reason: 'organizer', moneyVersion: 1 });
  t.equal(payableOf(campaigns.state(closed)), 9_800);
  const payout = (id: string, amountMinor: number): FundingCampaignCommand => ({
    type: 'request_payout',
    owner,
    at,
    payout: { id, payoutId: `po_${id}`, payoutMethodId: 'pm', amountMinor, feeMinor: 300, status: 'requested', failureReason: null, createdAt: at.toISOString() },
  });
  const claimed = campaigns
    .given(closed)
    .when(payout('p1', 9_500))
    .thenMatch(t, [{ type: 'funding_campaign.payout_requested' }]);
  campaigns.given(claimed).when(payout('p2', 1)).thenThrows(t, { code: 'IKW-FND-005', param: 'amountMinor' });
  campaigns.given(claimed).when(payout('p1', 9_500)).thenNothing(t, 'the same claim twice is one claim');
  const failed = campaigns
    .given(claimed)
    .when({ type: 'settle_payout', owner, at, campaignPayoutId: 'p1', status: 'failed', failureReason: 'IKW-BAL-001' })
    .thenMatch(t, [{ type: 'funding_campaign.payout_settled' }]);
  t.equal(payableOf(campaigns.state(failed)), 9_800);
});

t.test('ledger: campaign moves balance, post once per source, and hold what the campaign says', async (t) => {
  const ctx = {
    merchantId: 'acct_1',
    environment: 'sandbox' as const,
    currency: 'xof',
    at,
    newEntryId: (() => {
      let n = 0;
      return () => `txn_${++n}`;
    })(),
  };
  const moves = (m: CampaignMove[]): LedgerCommand => ({ ...ctx, ...moveCampaignFunds('c1', m) });
  const ledger = spec(familiesLedger.decider);
  const inflow = ledger.history(
    moves([
      { kind: 'contribution', source: 'a', clearing: 'operator_clearing:orange_money', amount: 6_000 },
      { kind: 'contribution', source: 'b', clearing: 'card_clearing', amount: 4_000 },
    ]),
  );
  t.ok(
    inflow.every((e) => isBalanced(e.data.lines)),
    'every entry balances',
  );
  ledger
    .given(inflow)
    .when(moves([{ kind: 'contribution', source: 'a', clearing: 'operator_clearing:orange_money', amount: 6_000 }]))
    .thenNothing(t, 'a contribution posts once');
  const after = ledger
    .given(inflow)
    .when(
      moves([
        { kind: 'refund', source: 'b', clearing: 'card_clearing', amount: 4_000 },
        { kind: 'release', source: 'c1', amount: 6_000, fee: 150 },
      ]),
    )
    .thenState((s) => {
      t.equal(balanceOf(s, 'campaign:c1'), 0);
      t.equal(balanceOf(s, 'available'), 5_850);
      t.equal(balanceOf(s, 'fees'), 150);
    });
  ledger
    .given(after)
    .when(moves([{ kind: 'release', source: 'c1', amount: 6_000, fee: 150 }]))
    .thenNothing(t, 'released once');
  ledger
    .given(after)
    .when(moves([{ kind: 'refund_released', source: 'a', clearing: 'operator_clearing:orange_money', amount: 6_000 }]))
    .thenThrows(t, { code: 'IKW-BAL-001' });
  t.throws(() => familiesLedger.decider.decide(moves([{ kind: 'refund', source: 'x', clearing: 'card_clearing', amount: 1 }]), ledger.state(after)), /holds less/, 'never more out of the campaign account than it holds');
});

t.test('folding and cancelling thousands of contributions costs work linear in their number; earlier states stay as they were', async (t) => {
  const d = fundingCampaignDecider;
  /** A campaign with `n` paid contributions, built as the command handler does: decide on the last state, evolve it. */
  const campaignOf = (n: number) => {
    let state = d.initialState;
    const events: ReturnType<typeof d.decide> = [];
    const run = (command: FundingCampaignCommand) => {
      for (const e of d.decide(command, state)) {
        state = d.evolve(state, e);
        events.push(e);
      }
    };
    run(create('keep_what_you_raise', null));
    run(publish);
    for (let i = 0; i < n; i++) {
      run(contribute(`k${i}`, 100));
      run(paid(`k${i}`, state.moneyVersion, 3));
    }
    return events;
  };
  /** The work (map slots copied or visited) of folding the stream, then deciding and folding a cancel on it. */
  const workOf = (n: number) => {
    const events = campaignOf(n);
    const before = persistentMapWork();
    const folded = fold(d, events);
    const canceled = d.decide({ type: 'cancel', owner, at, moneyVersion: folded.moneyVersion }, folded);
    const after = canceled.reduce((s, e) => d.evolve(s, e), folded);
    return { work: persistentMapWork() - before, folded, canceled, after };
  };
  const small = workOf(2_000);
  const large = workOf(8_000);
  t.ok(small.work > 2_000, 'the contributions are kept in the persistent map');
  // Linear (times a logarithm) is about 4.5×; a copy per event, or a count over all contributions per event, is 16×.
  t.ok(large.work < 6 * small.work, `4× the contributions, ${(large.work / small.work).toFixed(2)}× the work`);
  t.equal(large.canceled.length, 8_001, 'every contribution refunded, then the campaign canceled');
  t.match(large.canceled[0], { type: 'funding_campaign.contribution_refunded', data: { contributionId: 'k0' } }, 'refunds in the order contributions came');
  t.equal(large.after.contributors, 0);
  t.equal(large.after.held, 0);
  t.equal(large.folded.contributors, 8_000, 'the state the cancel was decided on is unchanged');
  t.equal(large.folded.held, 800_000);
  t.equal(large.folded.contributions.get('k0')!.status, 'succeeded');
  t.equal(large.after.contributions.get('k0')!.status, 'refunded');
});

t.test("the balance stream's fold and a cancel's refunds cost work linear in the entries", async (t) => {
  const ctx = {
    merchantId: 'acct_1',
    environment: 'sandbox' as const,
    currency: 'xof',
    at,
    newEntryId: (() => {
      let n = 0;
      return () => `txn_${++n}`;
    })(),
  };
  const moves = (m: CampaignMove[]): LedgerCommand => ({ ...ctx, ...moveCampaignFunds('c1', m) });
  const workOf = (n: number) => {
    let state = familiesLedger.decider.initialState;
    for (let i = 0; i < n; i++) for (const e of familiesLedger.decider.decide(moves([{ kind: 'contribution', source: `k${i}`, clearing: 'card_clearing', amount: 100 }]), state)) state = familiesLedger.decider.evolve(state, e);
    const before = persistentMapWork();
    const refunds = familiesLedger.decider.decide(moves(Array.from({ length: n }, (_, i) => ({ kind: 'refund' as const, source: `k${i}`, clearing: 'card_clearing' as const, amount: 100 }))), state);
    const after = refunds.reduce((s, e) => familiesLedger.decider.evolve(s, e), state);
    return { work: persistentMapWork() - before, refunds, before: state, after };
  };
  const small = workOf(2_000);
  const large = workOf(8_000);
  t.ok(large.work < 6 * small.work, `4× the refunds, ${(large.work / small.work).toFixed(2)}× the work`);
  t.equal(large.refunds.length, 8_000);
  t.equal(balanceOf(large.after, 'campaign:c1'), 0);
  t.equal(balanceOf(large.before, 'campaign:c1'), 800_000, 'the state the refunds were decided on is unchanged');
});
