import type { PlatformRiskRules } from '#packages/families/risk/index.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import { ruleSetBody, ruleSetSchema } from '#packages/families/risk/http/index.js';
import { anyOperator, operatorOf } from './shared.js';

const READ = anyOperator('operator.risk_rules.read');
const RISK: RouteAuth = { scope: 'operator.risk_rules', operator: ['risk'] };

const platformRulesSchema = {
  type: 'object',
  required: ['object', 'rules', 'customized', 'updated'],
  properties: {
    object: { const: 'platform_risk_rules', description: 'The kind of object: always `platform_risk_rules`' },
    rules: ruleSetSchema("The platform's rules: they apply to every merchant in both environments; a merchant's own rules only add to them"),
    customized: { type: 'array', items: { type: 'string' }, description: 'The rules the risk team changed from their starting values' },
    updated: { type: ['string', 'null'], format: 'date-time', description: 'When they were last changed (ISO 8601), or null when never' },
  },
};

const EXAMPLE = { amountCeiling: { amounts: { xof: 5_000_000 }, action: 'review' }, amountAboveUsual: { multiple: 20, minimumHistory: 10, action: 'review' } };

/**
 * /api/v1/operator/risk/rules (docs/risk.md, "The platform's rules"): the risk rules every merchant
 * is asked of, whatever its own; every operator reads them, risk (and admin) changes them.
 */
export function operatorRiskRulesRoutes(platformRules: PlatformRiskRules): RouteGroup {
  return {
    name: 'operator-risk-rules',
    description: "The platform's risk rules: asked about every merchant's payments and payouts before money moves, besides the merchant's own rules.",
    routes: [
      route({
        method: 'get',
        path: '/api/v1/operator/risk/rules',
        summary: "The platform's risk rules, which apply to every merchant",
        description:
          "Every rule with its threshold and action (docs/risk.md): they apply to every merchant's payments and payouts in both environments, whatever rules the merchant set (a merchant's own only add to them). Until the risk team changes a rule it has its starting value (`customized` names those changed).",
        auth: READ,
        response: platformRulesSchema,
        handler: () => platformRules.rules(),
      }),
      route<Record<string, unknown>>({
        method: 'put',
        path: '/api/v1/operator/risk/rules',
        summary: "Set the platform's risk rules: each rule given replaces its starting value, null turns it off",
        description:
          "The rules given replace those set before; a rule left out has its starting value again, a rule set to null is off for the platform (a merchant's own rule of that name still applies to it). Takes effect with every merchant's next payment or payout. Recorded with you as its actor (`risk_platform_rules.set`). `IKW-LIM-008` for an unknown currency or a value out of range.",
        refusals: ['IKW-LIM-008'],
        auth: RISK,
        body: ruleSetBody([EXAMPLE]),
        response: platformRulesSchema,
        handler: (ctx) => platformRules.setRules(ctx.body, { actor: `operator:${operatorOf(ctx).operatorId}` }),
      }),
    ],
  };
}
