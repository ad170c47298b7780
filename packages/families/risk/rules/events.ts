import type { DomainEvent } from '#packages/core/decider.js';
import type { Environment } from '#packages/core/owner.js';
import type { Attempt, BlocklistEntry, RiskDecision, RiskReason, RiskRuleSet } from './rules.js';

interface Owned {
  merchantId: string;
  environment: Environment;
  at: string;
}

/** Internal events: the merchant reads its rules and blocklist (GET /api/v1/risk/rules, /blocklist). */
export type RiskSettingsEvent =
  | DomainEvent<'risk_rules.set', Owned & { overrides: Partial<RiskRuleSet> }>
  | DomainEvent<'risk_rules.blocklist_added', Owned & { entry: BlocklistEntry }>
  | DomainEvent<'risk_rules.blocklist_removed', Owned & { entryId: string }>;

/** Internal: the operators' risk role set the platform's rules (GET /api/v1/operator/risk/rules); they apply to every merchant, in both environments. */
export type PlatformRiskRulesEvent = DomainEvent<'risk_platform_rules.set', { overrides: Partial<RiskRuleSet>; at: string }>;

/** The platform's rules: one stream. */
export const PLATFORM_RISK_RULES_STREAM = 'risk_platform_rules-platform';

/** One merchant's rules and blocklist in one environment. */
export const riskSettingsStream = (id: string) => `risk_rules-${id}`;
export const riskSettingsId = (merchantId: string, environment: Environment) => `${merchantId}-${environment}`;

/**
 * One attempt the rules were asked about, before any rail: who paid or was paid, how much, and
 * what was decided and why. Recorded for every attempt (the velocity rules count them), shown to
 * the merchant when a rule matched (Insights, kind `risk`).
 */
export interface RiskAssessed extends Attempt {
  id: string;
  merchantId: string;
  environment: Environment;
  /** The payment intent (`pi_…`) or payout (`po_…`) it was decided for. */
  subject: string;
  decision: RiskDecision;
  reasons: RiskReason[];
  at: string;
}

export type RiskAssessmentEvent = DomainEvent<'risk.assessed', RiskAssessed>;

export const riskAssessmentStream = (id: string) => `risk_assessment-${id}`;
