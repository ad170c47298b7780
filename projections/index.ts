import type { ReadSide } from './read-side.js';
import { merchantsReadSide } from './merchants/index.js';
import { platformReadSide } from './platform/index.js';
import { accountsReadSide } from './accounts/index.js';
import { ledgerReadSide } from './ledger/index.js';
import { paymentsReadSide } from './payments/index.js';
import { checkoutReadSide } from './checkout/index.js';
import { payoutsReadSide } from './payouts/index.js';
import { payoutEngineReadSide } from './payout-engine/index.js';
import { marketplaceReadSide } from './marketplace/index.js';
import { escrowReadSide } from './escrow/index.js';
import { fundingReadSide } from './funding/index.js';
import { billingReadSide } from './billing/index.js';
import { customerPortalReadSide } from './customer-portal/index.js';
import { webhooksReadSide } from './webhooks/index.js';
import { assetsReadSide } from './assets/index.js';
import { templatesReadSide } from './templates/index.js';
import { automationsReadSide } from './automations/index.js';
import { intelligenceReadSide } from './intelligence/index.js';
import { operatorsReadSide } from './operators/index.js';
import { riskReadSide } from './risk/index.js';
import { activationReadSide } from './activation/index.js';
import { disputesReadSide } from './disputes/index.js';
import { statementsReadSide } from './statements/index.js';

/**
 * The read-model list: every family's read side (projections/<family>/index.ts), one entry each. A
 * new family with read models adds its entry here and edits nothing else shared; the registry
 * (projections/registry.ts) assembles the read models, their migrations and read.object_events'
 * histories from this list. (Support keeps no read model of its own.)
 */
export const READ_SIDES: readonly ReadSide[] = [
  merchantsReadSide,
  platformReadSide,
  accountsReadSide,
  ledgerReadSide,
  paymentsReadSide,
  checkoutReadSide,
  payoutsReadSide,
  payoutEngineReadSide,
  marketplaceReadSide,
  escrowReadSide,
  fundingReadSide,
  billingReadSide,
  customerPortalReadSide,
  webhooksReadSide,
  assetsReadSide,
  templatesReadSide,
  automationsReadSide,
  intelligenceReadSide,
  operatorsReadSide,
  riskReadSide,
  activationReadSide,
  disputesReadSide,
  statementsReadSide,
];
