import type { ReadSide } from '#packages/read-models/read-side.js';
import { fundingCampaignsProjection } from './funding-campaigns.js';

/** Funding campaigns and their contributions. */
export const fundingReadSide: ReadSide = {
  family: 'funding',
  readModels: [fundingCampaignsProjection],
};

// The queries other code reads this family by.
export {
  allContributions,
  campaignLedger,
  campaignOfContribution,
  contributionsByDay,
  findCampaign,
  findCampaignBySlug,
  findContribution,
  findContributionById,
  findUpdate,
  listCampaignPayouts,
  listCampaigns,
  listContributions,
  listUpdates,
  publicCampaignView,
} from './funding-campaigns.js';
