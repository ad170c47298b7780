import type { ConsolePage } from './components.js';
import { Merchant } from './merchants/Merchant.js';
import { Merchants } from './merchants/Merchants.js';
import { Team } from './team/Team.js';
import { Reconciliation } from './reconciliation/Reconciliation.js';
import { ReconciliationRun } from './reconciliation/ReconciliationRun.js';
import { Rails } from './rails/Rails.js';
import { Security } from './security/Security.js';
import { Application } from './review/Application.js';
import { ReviewQueue } from './review/ReviewQueue.js';
import { HeldPayouts } from './held/HeldPayouts.js';
import { RiskRules } from './risk/RiskRules.js';
import type { ConsolePageName } from './router.js';
import type { OperatorRole } from './session.js';
import type { ConsoleWord } from './words.js';

/**
 * The console's sections (docs/console.md): each page by name, and the main navigation with the
 * roles each entry is for (admins see every one). The API decides what a role may do (IKW-OPR-001);
 * the navigation only leaves out what the role would be refused.
 */
export const CONSOLE_PAGES: Partial<Record<ConsolePageName, ConsolePage>> = {
  home: ReviewQueue,
  application: Application,
  merchants: Merchants,
  merchant: Merchant,
  rails: Rails,
  reconciliation: Reconciliation,
  reconciliationRun: ReconciliationRun,
  team: Team,
  security: Security,
  heldPayouts: HeldPayouts,
  riskRules: RiskRules,
};

export interface ConsoleNavigationEntry {
  page: ConsolePageName;
  label: ConsoleWord;
  roles: readonly OperatorRole[];
  /** Pages under this entry, which mark it current. */
  under?: ConsolePageName[];
}

export const CONSOLE_NAVIGATION: ConsoleNavigationEntry[] = [
  { page: 'home', label: 'console.nav.review', roles: ['reviewer', 'risk'], under: ['application'] },
  { page: 'merchants', label: 'console.nav.merchants', roles: ['reviewer', 'risk', 'finance'], under: ['merchant'] },
  { page: 'rails', label: 'console.nav.rails', roles: ['reviewer', 'risk', 'finance'] },
  { page: 'reconciliation', label: 'console.nav.reconciliation', roles: ['finance'], under: ['reconciliationRun'] },
  { page: 'heldPayouts', label: 'console.nav.heldPayouts', roles: ['risk'] },
  { page: 'riskRules', label: 'console.nav.riskRules', roles: ['reviewer', 'risk', 'finance'] },
  { page: 'team', label: 'console.nav.team', roles: [] },
];

/** Whether `role` sees `entry` (admins see all). */
export const offeredTo = (role: OperatorRole, entry: ConsoleNavigationEntry) => role === 'admin' || entry.roles.includes(role);
