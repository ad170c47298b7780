import type { ReadSide } from '../read-models/read-side.js';
import { merchantsReadSide } from './merchants/read/index.js';
import { platformReadSide } from './platform/read/index.js';
import { accountsReadSide } from './accounts/read/index.js';
import { ledgerReadSide } from './ledger/read/index.js';
import { paymentsReadSide } from './payments/read/index.js';
import { checkoutReadSide } from './checkout/read/index.js';
import { payoutsReadSide } from './payouts/read/index.js';
import { payoutEngineReadSide } from './payout-engine/read/index.js';
import { marketplaceReadSide } from './marketplace/read/index.js';
import { escrowReadSide } from './escrow/read/index.js';
import { fundingReadSide } from './funding/read/index.js';
import { billingReadSide } from './billing/read/index.js';
import { customerPortalReadSide } from './customer-portal/read/index.js';
import { webhooksReadSide } from './webhooks/read/index.js';
import { assetsReadSide } from './assets/read/index.js';
import { templatesReadSide } from './templates/read/index.js';
import { automationsReadSide } from './automations/read/index.js';
import { intelligenceReadSide } from './intelligence/read/index.js';
import { operatorsReadSide } from './operators/read/index.js';
import { riskReadSide } from './risk/read/index.js';
import { activationReadSide } from './activation/read/index.js';
import { disputesReadSide } from './disputes/read/index.js';
import { statementsReadSide } from './statements/read/index.js';

/**
 * The read-model list: every family's read side (packages/families/<family>/read/index.ts), one entry each. A
 * new family with read models adds its entry here and edits nothing else shared; the registry
 * (packages/families/read-model-registry.ts) assembles the read models, their migrations and read.object_events'
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
