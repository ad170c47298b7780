import { unixSeconds } from '#packages/core/clock.js';
import type { Decider } from '#packages/core/decider.js';
import { present } from '#packages/core/aggregate.js';
import { fundingCampaignDecider, raisedOf, type FundingCampaignCommand, type FundingCampaignState } from './decider.js';
import type { CampaignObject, ContributionObject, FundingCampaignFact } from './events.js';

/** The public campaign: what the API answers and what the campaign's events carry (`data.object`). */
export function toCampaignObject(s: FundingCampaignState): CampaignObject {
  const c = present(s.campaign, 'funding campaign');
  const raised = raisedOf(s);
  return {
    id: c.id,
    object: 'funding.campaign',
    slug: c.slug,
    url: c.url,
    title: c.title,
    description: c.description,
    targetAmountMinor: c.targetAmountMinor,
    currency: c.currency,
    country: c.country,
    deadline: c.deadline,
    fundingModel: c.fundingModel,
    payoutMethodId: c.payoutMethodId,
    metadata: c.metadata,
    status: s.status,
    raisedAmountMinor: raised,
    contributorCount: s.contributors,
    percentFunded: c.targetAmountMinor ? Math.floor((raised * 10_000) / c.targetAmountMinor) / 100 : null,
    targetReachedAt: s.targetReachedAt,
    heldAmountMinor: s.held,
    releasedAmountMinor: s.released,
    releasedFeeMinor: s.releasedFee,
    paidOutAmountMinor: s.paidOut,
    refundedAmountMinor: s.refunded,
    publishedAt: s.publishedAt,
    closedAt: s.closedAt,
    livemode: c.environment === 'live',
    created: unixSeconds(new Date(c.createdAt)),
  };
}

/** The public contribution: what the API answers and what a contribution's events carry (`data.object`). */
export function toContributionObject(s: FundingCampaignState, id: string): ContributionObject {
  const c = present(s.contributions.get(id), 'contribution');
  return {
    id: c.id,
    object: 'funding.contribution',
    campaignId: c.campaignId,
    paymentIntentId: c.paymentIntentId,
    amountMinor: c.amountMinor,
    currency: c.currency,
    status: c.status,
    contributorName: c.contributorName,
    contributorEmail: c.contributorEmail,
    anonymous: c.anonymous,
    message: c.message,
    metadata: c.metadata,
    feeMinor: c.fee,
    refundReason: c.refundReason,
    refundedFrom: c.refundedFrom,
    succeededAt: c.succeededAt,
    refundedAt: c.refundedAt,
    refund: c.refund ?? null,
    livemode: s.campaign?.environment === 'live',
    created: unixSeconds(new Date(c.createdAt)),
  };
}

/** The contribution an event is about, for a contribution's events; null for the campaign's own. */
function contributionOf(event: FundingCampaignFact): string | null {
  switch (event.type) {
    case 'funding_campaign.contribution_created':
      return event.data.id;
    case 'funding_campaign.contribution_received':
    case 'funding_campaign.contribution_failed':
    case 'funding_campaign.contribution_refunded':
    case 'funding_campaign.contribution_refund_settled':
      return event.data.contributionId;
    default:
      return null;
  }
}

/**
 * Campaigns as the command handler runs them: each event stored with the object it is about as it
 * stands after it, the contribution for a contribution's events (what its webhook sends), with the
 * campaign's tallies after it alongside (`campaign`); else the campaign.
 */
export const fundingCampaignAggregate: Decider<FundingCampaignCommand, FundingCampaignState, FundingCampaignFact> = {
  ...fundingCampaignDecider,
  render: {
    object: (s, event) => {
      const contribution = contributionOf(event);
      return contribution === null ? toCampaignObject(s) : toContributionObject(s, contribution);
    },
    alongside: (s, event) => (contributionOf(event) === null ? undefined : { campaign: toCampaignObject(s) }),
  },
};
