import type { Knex } from 'knex';
import type { Owner } from '#packages/core/owner.js';
import { BLOCKLIST_KINDS, RISK_ACTIONS, USUAL_AMOUNT_WINDOW, type BlocklistKind } from '../rules/rules.js';
import type { MerchantLimits } from '../limits/commands.js';
import type { RiskRules } from '../rules/commands.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import { idParams } from '#packages/http/route-kit.js';
import { findLimits, reservesHeld } from '../read/index.js';

/** How many held reserves the limits list, soonest released first (the totals count them all). */
const RESERVES_LISTED = 100;

const perCurrency = (what: string) => ({
  type: 'object',
  description: what,
  additionalProperties: { type: 'integer', description: 'The amount, in minor units of the currency named by the key (lower case)' },
});

/** The limits object (docs/limits.md): what the merchant reads and the operators' routes answer. */
export const limitsSchema = {
  type: 'object',
  properties: {
    object: { const: 'limits', description: 'The kind of object: always `limits`' },
    merchantId: { type: 'string', description: 'The merchant they apply to' },
    environment: { enum: ['sandbox', 'live'], description: 'The environment they apply to', 'x-enumDescriptions': { sandbox: 'The sandbox', live: 'Live' } },
    transactionMaximums: perCurrency('The largest amount of one payment or one payout, per currency (a batch: of each item); a currency not listed has none'),
    dailyPayoutCaps: perCurrency("The most the day's payouts may add up to (00:00 to 24:00 UTC), per currency; payouts count from their creation unless they fail or are canceled; a currency not listed has none"),
    payoutFreeze: {
      type: ['object', 'null'],
      description: 'Set while payouts are frozen: every payout and batch execution is refused; null otherwise',
      properties: {
        reason: { type: 'string', description: "The risk team's reason, for the merchant" },
        since: { type: 'integer', description: 'When payouts were frozen (Unix seconds)' },
      },
    },
    rollingReserve: {
      type: ['object', 'null'],
      description: "The share of each payment's net held in `reserved`, and for how long; null when none",
      properties: {
        percent: { type: 'number', description: "The percentage of each payment's net (after fees) held, rounded down to the minor unit" },
        days: { type: 'integer', description: 'How many days after the payment its reserve is released to `available`' },
      },
    },
    updated: { type: ['integer', 'null'], description: 'When the risk team last changed them (Unix seconds); null when never' },
  },
};

/** The reserves a merchant's balance holds now, as the merchant's and the operators' views of its limits give them. */
export const reservesHeldSchema = {
  type: 'object',
  description: "The rolling reserves of past payments the merchant's balance holds now (in its `reserved`), each released to `available` at its date",
  properties: {
    totals: { type: 'object', description: 'The total held, per currency (lower case), in minor units', additionalProperties: { type: 'integer', description: 'The amount held, in minor units' } },
    soonest: {
      type: 'array',
      description: `The reserves released soonest (up to ${RESERVES_LISTED}), each with its payment and release date`,
      items: {
        type: 'object',
        properties: {
          paymentIntent: { type: 'string', description: 'The payment whose reserve it is (`pi_…`)' },
          amount: { type: 'integer', description: 'The amount held, in minor units' },
          currency: { type: 'string', description: 'The currency, lower case' },
          releasesAt: { type: 'string', format: 'date-time', description: 'When it is released to `available` (ISO 8601); a refund of the payment releases it earlier' },
        },
      },
    },
  },
};

/** The reserves the owner's balance holds now, the soonest released listed (reservesHeldSchema). */
export async function reservesHeldOf(knex: Knex, owner: Owner) {
  const held = await reservesHeld(knex, owner, RESERVES_LISTED);
  return { totals: held.totals, soonest: held.soonest.map((r) => ({ ...r, releasesAt: r.releasesAt.toISOString() })) };
}

/** GET /api/v1/limits: the limits and holds the platform's risk team set on the merchant (docs/limits.md). */
export function limitsRoutes(knex: Knex, limits: MerchantLimits): RouteGroup {
  return {
    name: 'limits',
    description: "The limits and holds the platform's risk team set on the merchant in each environment: per-transaction maximums, daily payout caps, a payout freeze and a rolling reserve.",
    routes: [
      route({
        method: 'get',
        path: '/api/v1/limits',
        summary: 'The limits and holds that apply to the merchant in the environment',
        description: [
          "What the platform's risk team set on the merchant in this environment (the other environment's are apart): the per-transaction maximum of payments and payouts per currency (above it: `IKW-LIM-003`), the daily cap of payouts per currency (above it: `IKW-LIM-004` with `Retry-After`, the seconds to 00:00 UTC), whether payouts are frozen and why (`IKW-LIM-005`; payments are still taken), and the rolling reserve held from each payment.",
          '',
          "With them, what today's payouts add up to in each currency of a daily cap (`payoutsToday`, counted as the cap counts them), and the reserves the balance holds now with their release dates (`reservesHeld`). Each reserve held shows in the balance's `reserved` and as a `reserve_hold` balance transaction whose `available_on` is its release date (`GET /api/v1/balance-transactions?type=reserve_hold`); its release is a `reserve_release`. A merchant no limit was set on has empty maps and nulls (docs/limits.md).",
        ].join('\n'),
        auth: { scope: 'balance.read', environmentHeader: 'optional' },
        response: {
          ...limitsSchema,
          properties: {
            ...limitsSchema.properties,
            payoutsToday: perCurrency(
              "What today's payouts (00:00 UTC to now) add up to, per currency of a daily cap, as the cap counts them: from their creation, less those failed or canceled, fees aside; the cap less it is what may still be paid out today",
            ),
            reservesHeld: reservesHeldSchema,
          },
        },
        handler: async (ctx) => {
          const limitsNow = await findLimits(knex, ctx.owner.merchantId, ctx.owner.environment);
          return {
            ...limitsNow,
            payoutsToday: await limits.payoutsToday(ctx.owner, Object.keys(limitsNow.dailyPayoutCaps)),
            reservesHeld: await reservesHeldOf(knex, ctx.owner),
          };
        },
      }),
    ],
  };
}

const riskRead: RouteAuth = { scope: 'risk.read', environmentHeader: 'optional' };
const riskWrite: RouteAuth = { scope: 'risk.write', environmentHeader: 'optional' };

const ACTION_WORDS = {
  block: 'Refuse the attempt before any rail is asked (`IKW-LIM-007`, naming no rule)',
  review: 'Hold a payout, created and its money held, until a person releases it (`POST /api/v1/payouts/{id}/release`); on a payment, which cannot wait, recorded as `score`',
  score: 'Only record the decision (Insights, kind `risk`)',
};
const action = { enum: [...RISK_ACTIONS], description: 'What the rule does when it matches', 'x-enumDescriptions': ACTION_WORDS };
const blocklistKind = {
  enum: [...BLOCKLIST_KINDS],
  description: 'What is blocked',
  'x-enumDescriptions': { phone: "A payer's mobile money number", email: "A payer's e-mail (its customer's)", destination: 'A payout destination: a mobile money number or a bank account' },
};
const velocity = (what: string) => ({
  type: ['object', 'null'],
  description: `${what}; null: off`,
  required: ['limit', 'action'],
  additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 100_000, description: 'How many attempts pass in the window; the one beyond matches' }, action },
});

/** Each rule of a merchant's risk rules (docs/risk.md), as GET answers them and PUT takes them. */
const ruleProperties = {
  payerPaymentsPerHour: velocity('Payments by one payer (its mobile money number or its e-mail) in the last hour'),
  payerPaymentsPerDay: velocity('Payments by one payer in the last 24 hours'),
  payoutsPerDestinationPerDay: velocity('Payouts to one destination in the last 24 hours'),
  amountCeiling: {
    type: ['object', 'null'],
    description: 'A payment or payout above the amount of its currency; null: off',
    required: ['amounts', 'action'],
    additionalProperties: false,
    properties: {
      amounts: { type: 'object', description: 'The ceiling per currency (lower case), in minor units; a currency not listed has none', additionalProperties: { type: 'integer', minimum: 1, description: 'The ceiling, in minor units' } },
      action,
    },
  },
  repeatedPayment: {
    type: ['object', 'null'],
    description: 'The same payer paying the same amount again within the minutes (Hub2 and Orange refuse such repeats as `fraud_suspicion`); null: off',
    required: ['minutes', 'action'],
    additionalProperties: false,
    properties: { minutes: { type: 'integer', minimum: 1, maximum: 1440, description: 'The window, in minutes' }, action },
  },
  blocklist: {
    type: ['object', 'null'],
    description: "A payer's number or e-mail, or a payout's destination, on the merchant's blocklist (`/api/v1/risk/blocklist`); null: off",
    required: ['action'],
    additionalProperties: false,
    properties: { action },
  },
  amountAboveUsual: {
    type: ['object', 'null'],
    description: `A payment or payout above \`multiple\` times the median of the merchant's last ${USUAL_AMOUNT_WINDOW} successful ones (succeeded payments, paid payouts) in its currency, once it has \`minimumHistory\` of them; null: off`,
    required: ['multiple', 'minimumHistory', 'action'],
    additionalProperties: false,
    properties: {
      multiple: { type: 'integer', minimum: 2, maximum: 1000, description: 'How many times the median amount the attempt must exceed' },
      minimumHistory: { type: 'integer', minimum: 1, maximum: USUAL_AMOUNT_WINDOW, description: 'How many successful payments (or payouts) of the currency the merchant must have before the rule decides anything' },
      action,
    },
  },
};

/** The rules as a whole (every rule named), as GET answers them. */
export const ruleSetSchema = (description: string) => ({ type: 'object', description, properties: ruleProperties });
/** The body of a PUT of rules: any of them, each its own or null. */
export const ruleSetBody = (examples: unknown[]) => ({ type: 'object', additionalProperties: false, properties: ruleProperties, examples });

const rulesSchema = {
  type: 'object',
  required: ['object', 'rules', 'customized', 'platform'],
  properties: {
    object: { const: 'risk_rules', description: 'The kind of object: always `risk_rules`' },
    rules: ruleSetSchema("The merchant's rules: its own where it set one (`customized`), the platform's otherwise"),
    customized: { type: 'array', items: { type: 'string' }, description: "The rules the merchant set; they apply besides the platform's" },
    platform: ruleSetSchema("The platform's rules, set by its risk team: they apply in any case; the merchant's own only add to them"),
  },
};

const blocklistEntrySchema = {
  type: 'object',
  required: ['id', 'object', 'kind', 'value', 'note', 'created'],
  properties: {
    id: { type: 'string', description: 'The entry (`rbl_…`)' },
    object: { const: 'risk_blocklist_entry', description: 'The kind of object: always `risk_blocklist_entry`' },
    kind: blocklistKind,
    value: { type: 'string', description: "As compared: a number's digits, an e-mail in lower case, a bank account as `bank_code/account_number`" },
    note: { type: ['string', 'null'], description: "The merchant's note, if any" },
    created: { type: 'integer', description: 'When it was blocked (Unix seconds)' },
  },
};

const RULES_EXAMPLE = { payerPaymentsPerHour: { limit: 5, action: 'block' }, payoutsPerDestinationPerDay: { limit: 3, action: 'review' }, repeatedPayment: null };

/** /api/v1/risk: the merchant's risk rules and blocklist (docs/risk.md). */
export function riskRulesRoutes(riskRules: RiskRules): RouteGroup {
  return {
    name: 'risk',
    description:
      "The merchant's risk rules, asked about each payment before it is confirmed and each payout before its money is held: velocity per payer and per destination, an amount ceiling, the same payer and amount repeated, and a blocklist. Each rule blocks, holds a payout for review, or only scores.",
    routes: [
      route({
        method: 'get',
        path: '/api/v1/risk/rules',
        summary: "The merchant's risk rules, and the platform's, which always apply",
        description:
          "Every rule with its threshold and action: those the merchant set (`customized`) and the platform's for the others, and apart the platform's rules (`platform`), which its risk team sets and which apply to every merchant whatever it set: a merchant's own rules only add to them, so they can make the decision stricter, never looser (docs/risk.md). The environment of the credential, or `X-Environment`.",
        auth: riskRead,
        response: rulesSchema,
        handler: (ctx) => riskRules.rules(ctx.owner),
      }),
      route<Record<string, unknown>>({
        method: 'put',
        path: '/api/v1/risk/rules',
        summary: "Set the merchant's own risk rules, which apply besides the platform's",
        description:
          "The rules given replace those the merchant set before; a rule left out or set to null is the merchant's no more (the platform's rule of that name still applies). Each attempt is asked of the platform's rules and the merchant's, and the strictest action of all that match decides. `IKW-LIM-008` for an unknown currency or a value out of range.",
        refusals: ['IKW-LIM-008'],
        auth: riskWrite,
        body: ruleSetBody([RULES_EXAMPLE]),
        response: rulesSchema,
        handler: (ctx) => riskRules.setRules(ctx.owner, ctx.body, ctx.actor),
      }),
      route({
        method: 'get',
        path: '/api/v1/risk/blocklist',
        summary: "The merchant's blocklist: payers' numbers and e-mails, payout destinations",
        description: 'Every blocked value, oldest first (at most 1000). A payment whose payer or a payout whose destination is on it is refused with `IKW-LIM-007` while the `blocklist` rule is on (its default).',
        auth: riskRead,
        response: { type: 'object', required: ['object', 'data'], properties: { object: { const: 'list', description: 'Always `list`' }, data: { type: 'array', items: blocklistEntrySchema, description: 'The entries, oldest first' } } },
        handler: async (ctx) => ({ object: 'list', data: await riskRules.blocklist(ctx.owner) }),
      }),
      route<{ kind: BlocklistKind; value: string; note?: string }>({
        method: 'post',
        path: '/api/v1/risk/blocklist',
        summary: "Block a payer's number or e-mail, or a payout destination",
        description:
          'Adds the value to the blocklist; one blocked already answers its entry as it is. A `phone` or mobile money `destination` is an international number (`+221…`), a bank `destination` is `bank_code/account_number`, an `email` an address (`IKW-LIM-008` otherwise). Payments by the payer and payouts to the destination are refused from the next attempt.',
        refusals: ['IKW-LIM-008'],
        auth: riskWrite,
        body: {
          type: 'object',
          required: ['kind', 'value'],
          additionalProperties: false,
          properties: {
            kind: blocklistKind,
            value: { type: 'string', minLength: 1, maxLength: 254, description: 'The number, address or bank account' },
            note: { type: 'string', maxLength: 500, description: "Why, for the merchant's team" },
          },
          examples: [{ kind: 'phone', value: '+221771234567', note: 'chargeback on order 42' }],
        },
        response: blocklistEntrySchema,
        handler: (ctx) => riskRules.block(ctx.owner, ctx.body, ctx.actor),
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: '/api/v1/risk/blocklist/:id',
        fields: { blocklistEntryId: 'id' },
        summary: 'Remove an entry from the blocklist',
        description: "The value is no longer blocked from the next attempt. An entry that is not there (or another merchant's) is `404 IKW-RES-001`.",
        refusals: [],
        auth: riskWrite,
        params: idParams,
        response: {
          type: 'object',
          required: ['id', 'object', 'deleted'],
          properties: {
            id: { type: 'string', description: 'The id of the removed entry' },
            object: { const: 'risk_blocklist_entry', description: 'The kind of object: always `risk_blocklist_entry`' },
            deleted: { const: true, description: 'Always `true`: it is removed' },
          },
        },
        handler: async (ctx) => {
          await riskRules.unblock(ctx.owner, ctx.params.id, ctx.actor);
          return { id: ctx.params.id, object: 'risk_blocklist_entry', deleted: true };
        },
      }),
    ],
  };
}
