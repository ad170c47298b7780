import type { DashboardFamily } from '../../shell/family.js';
import { Funding } from './Funding.js';
import { FundingCampaign } from './FundingCampaign.js';

/** Funding campaigns and a campaign's page. */
export const funding: DashboardFamily = {
  pages: { funding: Funding, fundingCampaign: FundingCampaign },
  navigation: [{ group: 'money', page: 'funding', label: 'nav.funding', under: ['fundingCampaign'] }],
};
