import type { DashboardFamily, Page, SignedOutPage } from '../shell/family.js';
import { home } from '../shell/Home.js';
import type { PageName } from '../shell/router.js';
import { accounts } from './accounts/index.js';
import { activation } from './activation/index.js';
import { assets } from './assets/index.js';
import { automations } from './automations/index.js';
import { billing } from './billing/index.js';
import { checkout } from './checkout/index.js';
import { disputes } from './disputes/index.js';
import { escrow } from './escrow/index.js';
import { funding } from './funding/index.js';
import { intelligence } from './intelligence/index.js';
import { ledger } from './ledger/index.js';
import { marketplace } from './marketplace/index.js';
import { merchants } from './merchants/index.js';
import { payments } from './payments/index.js';
import { payoutEngine } from './payout-engine/index.js';
import { payouts } from './payouts/index.js';
import { platform } from './platform/index.js';
import { risk } from './risk/index.js';
import { support } from './support/index.js';
import { templates } from './templates/index.js';
import { webhooks } from './webhooks/index.js';

/**
 * The dashboard's families (docs/dashboard.md, "Layout"), in the navigation's order: within a
 * group, the entries follow this list. A new family is one folder and one entry here; no family
 * imports another (.dependency-cruiser.cjs, dashboard-family-imports-another-family).
 */
const FAMILIES: readonly DashboardFamily[] = [
  home,
  payments,
  disputes,
  checkout,
  payouts,
  payoutEngine,
  funding,
  escrow,
  marketplace,
  billing,
  ledger,
  intelligence,
  risk,
  merchants,
  webhooks,
  assets,
  automations,
  templates,
  accounts,
  activation,
  platform,
  support,
];

/** One table of pages out of the families' own; a page two families give is a mistake, told at once. */
function merged<P>(tables: (Partial<Record<PageName, P>> | undefined)[]): Partial<Record<PageName, P>> {
  const all: Partial<Record<PageName, P>> = {};
  for (const table of tables) {
    for (const [page, component] of Object.entries(table ?? {}) as [PageName, P][]) {
      if (all[page]) throw new Error(`Two families give the page ${page}`);
      all[page] = component;
    }
  }
  return all;
}

/** The pages of a signed-in user, by name. */
export const PAGES: Partial<Record<PageName, Page>> = merged(FAMILIES.map((f) => f.pages));

/** The main navigation's entries. */
export const NAVIGATION = FAMILIES.flatMap((f) => f.navigation ?? []);

/** The pages of a signed-out visitor, by name. */
export const SIGNED_OUT_PAGES: Partial<Record<PageName, SignedOutPage>> = merged(FAMILIES.map((f) => f.signedOutPages));

/** The page a signed-out visitor sees at any other address. */
export const SIGN_IN: SignedOutPage = accounts.signIn;
