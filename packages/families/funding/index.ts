import { ledger } from '../ledger/index.js';
import { FundingCampaigns } from './commands.js';
import { fundingCampaignPublicEvents } from './public-events.js';
import { fundingDeadline, fundingPayment, fundingPaymentsConsumer, fundingPayoutMend } from './processes/funding.js';
// Part 2 debt: the family reads its own read side directly until its read API is its manifest's.
import { campaignOfContribution } from './read/funding-campaigns.js';
import { defineFamily } from '../family.js';
import { payments } from '../payments/index.js';
import { payouts } from '../payouts/index.js';
import { fundingErrors } from './errors.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    funding: FundingCampaigns;
  }
}


/** Funding campaigns and their contributions (docs/funding.md). */
export const funding = defineFamily({
  name: 'funding',
  needs: [payments, payouts, ledger],
  errors: fundingErrors,
  accounts: {
    campaign: { owner: 'payers', mayGoNegative: false, shownAs: 'held (campaign)', holds: "a funding campaign's contributions until release (campaign:<campaign>)" },
  },
  publicEvents: [fundingCampaignPublicEvents],
  processes: [fundingPayment, fundingDeadline, fundingPayoutMend],
  build: ({ config, store, clock, knex, enqueuer, countPublicPush }, { paymentIntents, payouts, railRefunds }) => ({
    funding: new FundingCampaigns({
      store,
      clock,
      publicUrl: config.publicUrl,
      paymentIntents,
      payouts,
      railRefunds,
      campaignOfContribution: (owner, id) => campaignOfContribution(knex, owner, id),
      scheduleDeadline: enqueuer(fundingDeadline),
      schedulePayoutMend: enqueuer(fundingPayoutMend),
      countPublicPush,
    }),
  }),
  // Campaigns hold their contributions' payments.
  registrations: ({ funding }) => ({ paymentRecipients: [funding.paymentRecipient] }),
  consumers: (_, { clock }) => [fundingPaymentsConsumer(clock)],
});
