import { normalizeMsisdn } from '#packages/catalog/index.js';
import { KERNEL_ERROR_CODES } from '#packages/core/errors.js';
import { fundingErrors } from './errors.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import { derivedUuid, newUuid } from '#packages/core/ids.js';
import { loadState, step, type AnyStep } from '#packages/eventstore/command-handler.js';
import type { EventMetadata } from '#packages/eventstore/port.js';
import { isOwned, assertOwned } from '#packages/core/aggregate.js';
import { ledgerCommand } from '#packages/families/ledger/index.js';
import { moveCampaignFunds } from './postings.js';
import { balanceStream } from '#packages/families/ledger/index.js';
import { HELD_BY_KEY, type ConfirmInput } from '#packages/families/payments/index.js';
import type { PaymentRecipient } from '#packages/families/payments/index.js';
import { paymentIntentAggregate, toObject as toPaymentIntentObject } from '#packages/families/payments/index.js';
import { payinClearing, paymentIntentStream } from '#packages/families/payments/index.js';
import type { RailRefundRecord } from '#packages/families/payments/index.js';
import type { FundingCampaignCommand, FundingCampaignState, PaymentOutcome } from './decider.js';
import { fundingCampaignAggregate, toContributionObject } from './render.js';
import { CONTRIBUTION_METADATA, fundingCampaignStream, type Clearing, type ContributionObject } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { movesOf, type ContributionPaymentRef, type FundingCampaignCommits, type FundingDeps } from './commands.js';

/** What a contribution's append may refuse with: the kernel's codes and funding's own. */
const APPEND_REFUSALS = { ...KERNEL_ERROR_CODES, ...fundingErrors };

export interface ContributeInput {
  campaignId: string;
  amountMinor: number;
  currency: string;
  idempotencyKey?: string | null;
  contributorName?: string | null;
  contributorEmail?: string | null;
  metadata?: string | null;
  anonymous?: boolean;
  message?: string | null;
  /** Pays at once: the contribution's intent is confirmed with it. */
  paymentMethod?: ConfirmInput['payment_method'];
  returnUrl?: string;
}

/**
 * Contributions to a campaign (docs/funding.md): made and paid through payment intents, their
 * payments counted and held on the campaign's account (in the payment's own commit where it can),
 * given back or abandoned.
 */
export class FundingContributions {
  constructor(
    private readonly deps: FundingDeps,
    private readonly commits: FundingCampaignCommits,
  ) {
    // A contribution given back stays refunded whatever the rail answers (a failed give-back's money returns to the account it left, for review);
    // its refund's answer is recorded on it, in the refund's end, for the organizer's reconciliation.
    deps.railRefunds.follow('funding_contribution', (refund, outcome, meta) => {
      if (refund.origin.family !== 'funding_contribution') return [];
      const owner = { merchantId: refund.merchantId, environment: refund.environment };
      const failureCode = outcome.status === 'failed' ? outcome.failureCode : null;
      const command: FundingCampaignCommand = { type: 'settle_refund', owner, at: deps.clock.now(), contributionId: refund.id, status: outcome.status, failureCode };
      return [step({ streamId: fundingCampaignStream(refund.origin.campaignId), decider: fundingCampaignAggregate, command, metadata: meta })];
    });
  }

  /**
   * A contribution: its payment intent (named after the contribution, so a retry finds it), then
   * the contribution on the campaign's stream, refused there if the campaign no longer takes any.
   * With `paymentMethod` the intent is confirmed at once.
   */
  async contribute(owner: Owner, input: ContributeInput, actor: Actor, requestRef?: string, from: 'merchant' | 'public_page' = 'merchant'): Promise<ContributionObject> {
    const { state } = await this.commits.load(input.campaignId);
    const campaign = state.campaign;
    assertOwned(campaign, owner, `No such funding campaign: '${input.campaignId}'`, 'campaignId');
    const seed = input.idempotencyKey ?? requestRef;
    const id = seed == null ? newUuid() : derivedUuid(`funding_contribution|${owner.merchantId}|${owner.environment}|${campaign.id}|${seed}`);
    const pm = input.paymentMethod;
    // A number the intent would refuse is left to its refusal (IKW-VAL-007), uncounted.
    const pushTo = from === 'public_page' && pm?.type === 'mobile_money' ? normalizeMsisdn(pm.mobile_money.msisdn, pm.mobile_money.country) : null;
    const countPush = () => (pushTo ? this.deps.countPublicPush({ environment: owner.environment, msisdn: pushTo, checkoutSessionId: null, link: `funding_campaign:${campaign.id}` }) : Promise.resolve());
    if (!state.contributions.has(id)) {
      const at = this.deps.clock.now();
      // Refusals on the merits before an intent exists; the append below decides again on the stream.
      fundingCampaignAggregate.decide(
        {
          type: 'contribute',
          owner,
          at,
          contribution: {
            id,
            campaignId: campaign.id,
            paymentIntentId: '',
            amountMinor: input.amountMinor,
            currency: input.currency.toLowerCase(),
            contributorName: null,
            contributorEmail: null,
            anonymous: false,
            message: null,
            metadata: null,
            createdAt: at.toISOString(),
          },
        },
        state,
      );
      // Counted before anything is made: a refused push leaves no contribution behind.
      await countPush();
      const intent = await this.deps.paymentIntents.create(
        owner,
        {
          amount: input.amountMinor,
          currency: input.currency,
          transactionCountry: campaign.country,
          description: campaign.title.slice(0, 500),
          metadata: { [CONTRIBUTION_METADATA.campaign]: campaign.id, [CONTRIBUTION_METADATA.contribution]: id },
          // Typed by whoever contributes: a card is never kept on a customer it only matched.
          ...(input.contributorEmail ? { customerEmail: input.contributorEmail, payerTyped: true } : {}),
        },
        actor,
        `funding_contribution:${id}`,
        { [HELD_BY_KEY]: `funding_campaign:${campaign.id}` },
      );
      try {
        await this.commits.run(
          campaign.id,
          {
            type: 'contribute',
            owner,
            at,
            contribution: {
              id,
              campaignId: campaign.id,
              paymentIntentId: intent.id,
              amountMinor: input.amountMinor,
              currency: input.currency.toLowerCase(),
              contributorName: input.contributorName ?? null,
              contributorEmail: input.contributorEmail ?? null,
              anonymous: input.anonymous ?? false,
              message: input.message ?? null,
              metadata: input.metadata ?? null,
              createdAt: at.toISOString(),
            },
          },
          this.commits.metadata(owner, campaign.id, actor),
        );
      } catch (err) {
        // Refused for good (closed meanwhile): the intent made for it is canceled, so nobody pays
        // it. A failure the client may retry (a conflict, a deadlock's victim, a lost connection)
        // leaves it for the retry, which finds the same intent by its key and contributes with it.
        // The append refuses with funding's codes or the kernel's (a conflict is retryable): both tables say which.
        if (isRefused(err) && !APPEND_REFUSALS[err.code as keyof typeof APPEND_REFUSALS]?.retryable) await this.deps.paymentIntents.cancel(owner, intent.id, 'abandoned', actor).catch(() => undefined);
        throw err;
      }
    } else if (state.contributions.get(id)?.status === 'pending') {
      await countPush(); // a repeat that pays the contribution made before
    }
    const now = (await this.commits.load(campaign.id)).state;
    // A repeat of a contribution already paid (or failed) answers it as it is.
    if (!input.paymentMethod || now.contributions.get(id)?.status !== 'pending') return toContributionObject(now, id);
    // Every request naming this contribution (its key) is the one that pays it: retried after its
    // process died while the operator held the confirmation's answer, it answers the contribution
    // (pending, the status check decides) rather than 409 "confirmation in progress".
    const confirmRef = seed == null ? undefined : `funding_contribution:${id}`;
    return this.confirm(owner, campaign.id, id, { payment_method: input.paymentMethod, ...(input.returnUrl ? { return_url: input.returnUrl } : {}) }, actor, confirmRef);
  }

  /** Pays a pending contribution through its intent; the outcome reaches the campaign by the payment's events. */
  async confirmContribution(owner: Owner, contributionId: string, input: ConfirmInput, actor: Actor, requestRef?: string): Promise<ContributionObject> {
    return this.confirm(owner, await this.commits.campaignOf(owner, contributionId), contributionId, input, actor, requestRef);
  }

  /** `requestRef` names the request confirming: the same one retried after its process died answers the contribution as it stands. */
  private async confirm(owner: Owner, campaignId: string, contributionId: string, input: ConfirmInput, actor: Actor, requestRef?: string): Promise<ContributionObject> {
    const { state } = await this.commits.load(campaignId);
    const c = state.contributions.get(contributionId);
    if (!c) throw new Refusal('IKW-RES-001', `No such contribution: '${contributionId}'`, 'contributionId');
    if (c.status !== 'pending') throw new Refusal('IKW-FND-004', `The contribution is ${c.status}; only a pending contribution can be paid`, 'contributionId');
    if (state.status !== 'active') throw new Refusal('IKW-FND-002', `The campaign is ${state.status}: it takes no contributions`, 'campaignId');
    const intent = await this.deps.paymentIntents.confirm(owner, c.paymentIntentId, input, actor, requestRef);
    // A sandbox or card answer may be final already: the campaign learns it now rather than from the bus.
    if (intent.status === 'succeeded' || intent.status === 'failed' || intent.status === 'canceled') {
      await this.recordPayment({ ...owner, campaignId, contributionId, paymentIntentId: intent.id });
    }
    return toContributionObject((await this.commits.load(campaignId)).state, contributionId);
  }

  /** A contribution's intent is final: the campaign counts it (and holds its funds) or marks it failed. Idempotent. */
  async recordPayment(ref: ContributionPaymentRef): Promise<void> {
    const owner = { merchantId: ref.merchantId, environment: ref.environment };
    const { state: pi } = await loadState(this.deps.store, paymentIntentStream(ref.paymentIntentId), paymentIntentAggregate);
    if (!isOwned(pi.intent, owner)) return;
    let outcome: PaymentOutcome;
    if (pi.status === 'succeeded' && pi.paymentMethod) outcome = { status: 'succeeded', fee: pi.fee ?? 0, clearing: payinClearing(pi.paymentMethod, pi.confirmation?.connector) };
    else if (pi.status === 'failed' || pi.status === 'canceled') outcome = { status: pi.status };
    else return;
    const at = this.deps.clock.now();
    await this.commits.moveFunds(ref.campaignId, this.commits.metadata(owner, ref.campaignId, { actor: 'funding', causationId: ref.paymentIntentId }), (s) => ({
      type: 'record_payment',
      owner,
      at,
      contributionId: ref.contributionId,
      paymentIntentId: ref.paymentIntentId,
      outcome,
      moneyVersion: s.moneyVersion,
    }));
  }

  /**
   * A contribution's payment succeeding, as steps of the payment's own commit (PaymentIntents
   * applyCallback): the campaign counts the contribution and its money lands on the campaign's
   * account, so no read shows the payment succeeded without them. Decided on the campaign as it
   * stands; should it change before the commit, the commit fails whole and the operator's answer
   * is applied again. The campaign holds every payment marked HELD_BY_KEY: one that pays no
   * contribution of this owner posts nothing (the campaign's process sorts it out).
   */
  readonly paymentRecipient: PaymentRecipient = {
    name: 'funding_campaign',
    moneyOf: async ({ intent, fee, clearing }, meta) => {
      if (intent.metadata[HELD_BY_KEY] === undefined) return null;
      const money = await this.paymentSteps(intent, { fee, clearing }, meta);
      const railRefunds = money?.railRefunds ?? [];
      // A contribution paid after its campaign ended is given back in the payment's commit; its refund is sent once that commit is made.
      const after =
        railRefunds.length === 0
          ? null
          : async () => {
              for (const refund of railRefunds) await this.deps.railRefunds.send(refund);
            };
      return { steps: money?.steps ?? [], after };
    },
    assertRefundable: async ({ intent }) => {
      if (intent.metadata[HELD_BY_KEY] === undefined) return;
      const contribution = intent.metadata[CONTRIBUTION_METADATA.contribution] ?? '{id}';
      throw new Refusal('IKW-FND-006', `Payment ${intent.id} is a contribution to a funding campaign; refund it with POST /api/v1/funding/contributions/${contribution}/refund`, 'paymentId');
    },
  };

  private async paymentSteps(
    intent: { id: string; merchantId: string; environment: Owner['environment']; metadata: Record<string, string> },
    payment: { fee: number; clearing: Clearing },
    meta: EventMetadata,
  ): Promise<{ steps: AnyStep[]; railRefunds: RailRefundRecord[] } | null> {
    const owner = { merchantId: intent.merchantId, environment: intent.environment };
    const campaignId = intent.metadata[CONTRIBUTION_METADATA.campaign];
    const contributionId = intent.metadata[CONTRIBUTION_METADATA.contribution];
    if (!campaignId || !contributionId) return null;
    const { state } = await this.commits.load(campaignId);
    if (!isOwned(state.campaign, owner)) return null;
    const command: FundingCampaignCommand = {
      type: 'record_payment',
      owner,
      at: this.deps.clock.now(),
      contributionId,
      paymentIntentId: intent.id,
      outcome: { status: 'succeeded', fee: payment.fee, clearing: payment.clearing },
      moneyVersion: state.moneyVersion,
    };
    const moves = movesOf(state, fundingCampaignAggregate.decide(command, state));
    const steps = [step({ streamId: fundingCampaignStream(campaignId), decider: fundingCampaignAggregate, command, metadata: meta })];
    const railRefunds: RailRefundRecord[] = [];
    if (moves.length > 0) {
      const c = state.campaign!;
      const ledger = ledgerCommand(this.deps.clock, { merchantId: c.merchantId, environment: c.environment, currency: c.currency }, moveCampaignFunds(campaignId, moves));
      steps.push(step({ streamId: balanceStream(c.merchantId, c.environment, c.currency), decider: this.deps.ledger.decider, command: ledger, metadata: meta }));
      railRefunds.push(...(await this.commits.railRefundsOf(state, moves)));
      for (const refund of railRefunds) steps.push(await this.deps.railRefunds.request(refund, meta));
    }
    return { steps, railRefunds };
  }

  /** What the contributor must do next for the payment (approve on the phone, a 3-D Secure page), if anything. */
  async nextActionOf(owner: Owner, paymentIntentId: string): Promise<unknown> {
    const { state } = await loadState(this.deps.store, paymentIntentStream(paymentIntentId), paymentIntentAggregate);
    if (!isOwned(state.intent, owner)) return null;
    return toPaymentIntentObject(state).next_action;
  }

  /**
   * Refunds one contribution in full: from the campaign's account, or from the organizer's balance
   * once released. `requestRef` (the Idempotency-Key with the body's fingerprint) is recorded on the
   * give-back, so a request retried after a crash answers the contribution its first attempt gave
   * back (its refund sent once) rather than IKW-FND-004; any other request is still refused.
   */
  async refundContribution(owner: Owner, contributionId: string, actor: Actor, requestRef?: string): Promise<ContributionObject> {
    const campaignId = await this.commits.campaignOf(owner, contributionId);
    // Its own give-back found again, the decider decides nothing: no move, nothing sent.
    const request = requestRef === undefined ? undefined : derivedUuid(`funding_give_back|${owner.merchantId}|${owner.environment}|${contributionId}|${requestRef}`);
    const at = this.deps.clock.now();
    const state = await this.commits.moveFunds(campaignId, this.commits.metadata(owner, campaignId, actor), (s) => ({
      type: 'refund_contribution',
      owner,
      at,
      contributionId,
      moneyVersion: s.moneyVersion,
      ...(request !== undefined ? { request } : {}),
    }));
    return toContributionObject(state, contributionId);
  }

  /** Abandons a pending contribution: its intent is canceled (refused while the operator has it). */
  async cancelContribution(owner: Owner, contributionId: string, actor: Actor): Promise<ContributionObject> {
    const campaignId = await this.commits.campaignOf(owner, contributionId);
    return toContributionObject(await this.cancelContributionOf(owner, campaignId, contributionId, actor), contributionId);
  }

  /** Abandons a contribution of a campaign known already: also each pending one when its campaign ends. */
  async cancelContributionOf(owner: Owner, campaignId: string, contributionId: string, actor: Actor): Promise<FundingCampaignState> {
    const { state } = await this.commits.load(campaignId);
    const c = state.contributions.get(contributionId);
    if (!c) throw new Refusal('IKW-RES-001', `No such contribution: '${contributionId}'`, 'contributionId');
    if (c.status === 'pending') await this.deps.paymentIntents.cancel(owner, c.paymentIntentId, 'abandoned', actor);
    const result = await this.commits.run(campaignId, { type: 'cancel_contribution', owner, at: this.deps.clock.now(), contributionId }, this.commits.metadata(owner, campaignId, actor));
    return result.state;
  }
}
