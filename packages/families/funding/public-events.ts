import { testId, CURRENCY, type PublicEvents } from '#packages/core/public-events.js';
import type { CampaignObject, ContributionObject } from './events.js';

/** Funding campaigns' public events (docs/funding.md, docs/events.md), each with an example `data` for test events (docs/webhooks.md). */
export const fundingCampaignPublicEvents: PublicEvents = {
  types: [
    { type: 'funding_campaign.contribution_received', emittedBy: "a contribution's payment succeeding (its funds held on the campaign's account)", data: 'the Contribution' },
    { type: 'funding_campaign.target_reached', emittedBy: 'the contribution that brings the raised amount to the target (once per campaign)', data: 'the Campaign' },
    { type: 'funding_campaign.closed', emittedBy: 'POST /api/v1/funding/campaigns/{id}/close, or the deadline of a campaign that succeeded: its funds are released', data: 'the Campaign (status closed)' },
  ],
  example: (type, created, livemode) => (type === 'funding_campaign.contribution_received' ? contribution(created, livemode) : campaign(type, created, livemode)),
};

function campaign(type: string, created: number, livemode: boolean): CampaignObject {
  const at = new Date(created * 1000).toISOString();
  const closed = type === 'funding_campaign.closed';
  return {
    id: testId('fc'),
    object: 'funding.campaign',
    slug: 'school-roof',
    url: 'https://pay.sika.example/f/school-roof',
    title: 'A new roof for the school',
    description: null,
    targetAmountMinor: 1_000_000,
    currency: CURRENCY,
    country: 'SN',
    deadline: null,
    fundingModel: 'keep_what_you_raise',
    payoutMethodId: null,
    metadata: null,
    status: closed ? 'closed' : 'active',
    raisedAmountMinor: 1_000_000,
    contributorCount: 42,
    percentFunded: 100,
    targetReachedAt: at,
    heldAmountMinor: closed ? 0 : 1_000_000,
    releasedAmountMinor: closed ? 1_000_000 : 0,
    releasedFeeMinor: closed ? 20_000 : 0,
    paidOutAmountMinor: 0,
    refundedAmountMinor: 0,
    publishedAt: at,
    closedAt: closed ? at : null,
    livemode,
    created,
  };
}

function contribution(created: number, livemode: boolean): ContributionObject {
  return {
    id: testId('fcc'),
    object: 'funding.contribution',
    campaignId: testId('fc'),
    paymentIntentId: testId('pi'),
    amountMinor: 10000,
    currency: CURRENCY,
    status: 'succeeded',
    contributorName: 'Awa Diop',
    contributorEmail: 'awa.diop@example.com',
    anonymous: false,
    message: 'Good luck!',
    metadata: null,
    feeMinor: 200,
    refundReason: null,
    refundedFrom: null,
    succeededAt: new Date(created * 1000).toISOString(),
    refundedAt: null,
    refund: null,
    livemode,
    created,
  };
}
