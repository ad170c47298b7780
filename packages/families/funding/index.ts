import { ledger } from '#packages/families/ledger/index.js';
import { FundingCampaignCommits, type FundingDeps } from './commands.js';
import { FundingCampaigns } from './campaigns.js';
import { FundingContributions } from './contributions.js';
import { CampaignPayouts } from './payouts.js';
import { CampaignUpdates } from './updates.js';
import { fundingCampaignPublicEvents } from './public-events.js';
import { fundingDeadline, fundingPayment, fundingPaymentsConsumer, fundingPayoutMend } from './processes/funding.js';
// Part 2 debt: the family reads its own read side directly until its read API is its manifest's.
import { campaignOfContribution } from './read/funding-campaigns.js';
import { defineFamily } from '#packages/families/family.js';
import { fundingReadSide } from './read/index.js';
import { payments } from '#packages/families/payments/index.js';
import { payouts } from '#packages/families/payouts/index.js';
import { fundingErrors } from './errors.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    fundingCampaigns: FundingCampaigns;
    fundingContributions: FundingContributions;
    campaignPayouts: CampaignPayouts;
  }
}

/** Funding campaigns and their contributions (docs/funding.md). */
export const funding = defineFamily({
  name: 'funding',
  readSide: fundingReadSide,
  needs: [payments, payouts, ledger],
  errors: fundingErrors,
  accounts: {
    campaign: { owner: 'payers', mayGoNegative: false, shownAs: 'held (campaign)', holds: "a funding campaign's contributions until release (campaign:<campaign>)" },
  },
  publicEvents: [fundingCampaignPublicEvents],
  processes: [fundingPayment, fundingDeadline, fundingPayoutMend],
  build: ({ config, store, ledger, clock, knex, enqueuer, countPublicPush }, { paymentIntents, payouts, railRefunds }) => {
    const deps: FundingDeps = {
      store,
      ledger,
      clock,
      publicUrl: config.publicUrl,
      paymentIntents,
      payouts,
      railRefunds,
      campaignOfContribution: (owner, id) => campaignOfContribution(knex, owner, id),
      scheduleDeadline: enqueuer(fundingDeadline),
      schedulePayoutMend: enqueuer(fundingPayoutMend),
      countPublicPush,
    };
    // One campaign, several use cases: each is given the campaign's commits; a campaign's end cancels its pending contributions and pays out what it released.
    const commits = new FundingCampaignCommits(deps);
    const fundingContributions = new FundingContributions(deps, commits);
    const campaignPayouts = new CampaignPayouts(deps, commits);
    return {
      fundingCampaigns: new FundingCampaigns(deps, commits, fundingContributions, campaignPayouts),
      fundingContributions,
      campaignPayouts,
      campaignUpdates: new CampaignUpdates(deps, commits),
    };
  },
  // Campaigns hold their contributions' payments.
  registrations: ({ fundingContributions }) => ({ paymentRecipients: [fundingContributions.paymentRecipient] }),
  consumers: (_, { clock }) => [fundingPaymentsConsumer(clock)],
});
