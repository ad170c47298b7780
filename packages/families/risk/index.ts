import { defineFamily } from '#packages/families/family.js';
import { riskReadSide } from './read/index.js';
import { MerchantLimits } from './limits/commands.js';
import { payoutsByDay } from './limits/postings.js';
import { PlatformRiskRules, RiskAssessments, RiskRules } from './rules/commands.js';
// The family's own read side: the attempts its rules count.
import { attemptCounter } from './read/assessments.js';

/**
 * Risk: the limits and holds the platform's risk operators set per merchant and environment
 * (docs/limits.md): per-transaction maximums, daily payout caps, payout freezes, rolling reserves.
 * Payments and payouts read them through the kernel's read ports and decide them where money moves.
 * And the merchant's risk rules (docs/risk.md), asked by payments and payouts before money moves.
 */
export const risk = defineFamily({
  name: 'risk',
  readSide: riskReadSide,
  needs: [],
  // The day's payouts of a balance, folded from its entries: the daily cap is decided on the balance stream.
  ledger: { reducers: [payoutsByDay] },
  build: ({ store, ledger, clock, knex }) => {
    const platformRiskRules = new PlatformRiskRules({ store, clock });
    const riskRules = new RiskRules({ store, clock, platform: platformRiskRules });
    return {
      merchantLimits: new MerchantLimits({ store, ledger, clock }),
      platformRiskRules,
      riskRules,
      riskAssessments: new RiskAssessments({ store, clock, platform: platformRiskRules, rules: riskRules, counter: attemptCounter(knex) }),
    };
  },
});

// What other families use of this one (its public face): they import it from here, never from its files.
export type { LimitsGate, MerchantLimits } from './limits/commands.js';
export { noLimits } from './limits/decider.js';
export type { Limits, LimitsEvent, LimitsObject, PerCurrency, RollingReserve } from './limits/events.js';
export { toLimitsObject } from './limits/render.js';
export { assertPayoutsOpen, assertWithinTransactionMaximum, secondsToNextDay, withinPayoutLimits } from './limits/postings.js';
export type { AttemptCounter, BlocklistEntryObject, PaymentAttempt, PayoutAttempt, PlatformRiskRules, PlatformRiskRulesObject, RiskAssessments, RiskGate, RiskRules, RiskRulesObject, RiskVerdict } from './rules/commands.js';
export type { PlatformRiskRulesEvent, RiskAssessed, RiskAssessmentEvent, RiskSettingsEvent } from './rules/events.js';
export { BLOCKLIST_KINDS, DEFAULT_RISK_RULES, RISK_ACTIONS, RISK_RULE_NAMES, USUAL_AMOUNT_WINDOW } from './rules/rules.js';
export type { BlocklistKind, RiskAction, RiskDecision, RiskReason, RiskRuleSet } from './rules/rules.js';
