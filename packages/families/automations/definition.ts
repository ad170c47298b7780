import { CronExpressionParser } from 'cron-parser';
import { isTimeZone } from '../../core/time-zone.js';
import { problemOf, type ItemError } from '../../core/errors.js';
import { readScopeOfEventType } from '../accounts/index.js';
import { destinationSchema } from '../payouts/index.js';
import { isRefused, Refusal } from '../../core/refusal.js';

/**
 * An automation's definition: a trigger and the steps it runs, and the JSON Schema that requests
 * are validated against (ajv, through the route; docs/automations.md is this schema in prose).
 * String parameters are Liquid templates rendered with the run's context at each step.
 */
export const LIMITS = {
  /** Steps of one automation. */
  maxSteps: 20,
  /** A run is failed when it has not finished this long after it started (waits included). */
  maxRunSeconds: 8 * 86_400,
  /** One wait step. */
  maxWaitSeconds: 7 * 86_400,
  /** Runs started per minute for one merchant and environment; triggers beyond it are recorded as skipped runs. */
  runsPerMinute: 60,
  /** Attempts of one step, the first included (each step may lower it with retry.maxAttempts). */
  maxAttempts: 5,
  defaultAttempts: 3,
  /** Back-off before attempt n+1: base × 4^(n-1) (1 min, 4 min, 16 min, 64 min). */
  retryBaseSeconds: 60,
  /** Consecutive failed runs after which the automation is disabled and the merchant told. */
  failuresBeforeDisable: 5,
  /** Whole-request deadline of an http_request step. */
  httpTimeoutMs: 10_000,
} as const;

export const ACTIONS = ['send_email', 'send_sms', 'http_request', 'create_invoice', 'create_payout', 'tag_customer', 'send_invoice_reminders', 'wait'] as const;
export type ActionType = (typeof ACTIONS)[number];

/**
 * The scope each action needs, beyond `automations.write`, of the credential that saves a step and
 * of that credential still whenever the step runs (docs/automations.md, "Scopes"): what the action
 * could do through the API, and for messages and calls out, scopes of their own.
 */
export const ACTION_SCOPES: Readonly<Record<ActionType, string | null>> = {
  send_email: 'messages.write',
  send_sms: 'messages.write',
  http_request: 'http_requests.write',
  create_invoice: 'billing.write',
  create_payout: 'payouts.write',
  tag_customer: 'billing.write',
  send_invoice_reminders: 'billing.write',
  wait: null,
};

/** A scope a definition needs and the part that needs it (`trigger.eventType`, `steps.2.action`). */
export interface NeededScope {
  scope: string;
  param: string;
}

/**
 * The scopes a definition needs, in its order: its event trigger's read scope (the event's object
 * reaches the steps, as it would a webhook endpoint), then each step's action's.
 */
export function scopesNeeded(definition: Pick<Definition, 'trigger' | 'steps'>): NeededScope[] {
  const needed: NeededScope[] = [];
  if (definition.trigger.type === 'event') needed.push({ scope: readScopeOfEventType(definition.trigger.eventType)!, param: 'trigger.eventType' });
  definition.steps.forEach((step, i) => {
    const scope = ACTION_SCOPES[step.action];
    if (scope !== null) needed.push({ scope, param: `steps.${i}.action` });
  });
  return needed;
}

export type Trigger = { type: 'event'; eventType: string } | { type: 'schedule'; cron: string; timezone?: string };

export interface Step {
  id: string;
  action: ActionType;
  params: Record<string, unknown>;
  retry?: { maxAttempts: number };
}

export interface Definition {
  name: string;
  description: string | null;
  trigger: Trigger;
  steps: Step[];
}

/** A text parameter: a Liquid template, rendered when the step runs. */
const text = (max = 2_000) => ({ type: 'string', minLength: 1, maxLength: max });
/** An amount: minor units, or a template that renders to them (e.g. "{{ event.data.amount }}"). */
const amount = { oneOf: [{ type: 'integer', minimum: 1 }, { type: 'string', minLength: 1, maxLength: 200 }] };
const templateData = { type: 'object', maxProperties: 50, additionalProperties: true };

const PARAMS: Record<ActionType, Record<string, unknown>> = {
  send_email: {
    type: 'object',
    required: ['templateId', 'to'],
    additionalProperties: false,
    properties: { templateId: text(255), to: text(320), locale: text(10), data: templateData },
  },
  send_sms: {
    type: 'object',
    required: ['templateId', 'to'],
    additionalProperties: false,
    properties: { templateId: text(255), to: text(64), locale: text(10), data: templateData },
  },
  http_request: {
    type: 'object',
    required: ['url'],
    additionalProperties: false,
    properties: {
      url: text(2048),
      method: { enum: ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'] },
      headers: {
        type: 'object',
        maxProperties: 20,
        propertyNames: { pattern: '^[A-Za-z0-9-]{1,64}$' },
        additionalProperties: { type: 'string', maxLength: 1_000 },
        description: 'Sealed when saved and answered redacted ("…" and the last four characters); a redacted value sent back keeps the value it stands for',
      },
      body: { description: 'Any JSON value, sent as the request body; its strings are templates' },
    },
  },
  create_invoice: {
    type: 'object',
    required: ['customer', 'amount', 'currency'],
    additionalProperties: false,
    properties: { customer: text(320), amount, currency: text(200), description: text(500), daysUntilDue: { type: 'integer', minimum: 0, maximum: 365 } },
  },
  create_payout: {
    type: 'object',
    required: ['amount', 'currency'],
    additionalProperties: false,
    properties: { amount, currency: text(200), destination: destinationSchema, payoutMethodId: { type: 'string', format: 'uuid' }, metadata: { type: 'object', maxProperties: 20, additionalProperties: { type: 'string', maxLength: 500 } } },
    oneOf: [
      { required: ['destination'], properties: { destination: true } },
      { required: ['payoutMethodId'], properties: { payoutMethodId: true } },
    ],
  },
  tag_customer: {
    type: 'object',
    required: ['customer', 'tag'],
    additionalProperties: false,
    properties: { customer: text(320), tag: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,40}$' } },
  },
  send_invoice_reminders: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      daysBefore: { type: 'integer', minimum: 1, maximum: 60, description: 'Remind this many days before the due date' },
      daysAfter: { type: 'integer', minimum: 1, maximum: 60, description: 'Remind this many days after the due date' },
    },
  },
  wait: {
    type: 'object',
    required: ['seconds'],
    additionalProperties: false,
    properties: { seconds: { type: 'integer', minimum: 1, maximum: LIMITS.maxWaitSeconds } },
  },
};

/** A trigger: one of `eventTypes` (the public event types), or a schedule. */
export const triggerSchema = (eventTypes: readonly string[]) => ({
  type: 'object',
  required: ['type'],
  properties: {
    type: { enum: ['event', 'schedule'] },
    eventType: { enum: [...eventTypes] },
    cron: { type: 'string', minLength: 9, maxLength: 120 },
    timezone: { type: 'string', minLength: 1, maxLength: 64 },
  },
  additionalProperties: false,
  allOf: [
    { if: { properties: { type: { const: 'event' } }, required: ['type'] }, then: { required: ['eventType'], properties: { eventType: true, cron: false, timezone: false } } },
    { if: { properties: { type: { const: 'schedule' } }, required: ['type'] }, then: { required: ['cron'], properties: { cron: true, eventType: false } } },
  ],
});

export const stepSchema = {
  type: 'object',
  required: ['id', 'action', 'params'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,39}$' },
    action: { enum: [...ACTIONS] },
    params: { type: 'object' },
    retry: { type: 'object', required: ['maxAttempts'], additionalProperties: false, properties: { maxAttempts: { type: 'integer', minimum: 1, maximum: LIMITS.maxAttempts } } },
  },
  allOf: ACTIONS.map((action) => ({ if: { properties: { action: { const: action } }, required: ['action'] }, then: { properties: { params: PARAMS[action] } } })),
};

export const stepsSchema = { type: 'array', minItems: 1, maxItems: LIMITS.maxSteps, items: stepSchema };

/** What each action does and the parameters it takes (GET /api/v1/automations/catalog/actions). */
export const ACTION_CATALOG: readonly { action: ActionType; description: string; params: Record<string, unknown> }[] = [
  { action: 'send_email', description: 'Render an e-mail template (GET /api/template-engine/templates) and send it', params: PARAMS.send_email },
  { action: 'send_sms', description: 'Render an SMS template and send it', params: PARAMS.send_sms },
  { action: 'http_request', description: 'Call an HTTPS URL, signed like a webhook with the automation’s secret; the webhook URL policy applies', params: PARAMS.http_request },
  { action: 'create_invoice', description: 'Create an open invoice for a customer (id or e-mail address)', params: PARAMS.create_invoice },
  { action: 'create_payout', description: 'Create a payout from the available balance', params: PARAMS.create_payout },
  { action: 'tag_customer', description: 'Add a tag to a customer (metadata key "tags", comma-separated)', params: PARAMS.tag_customer },
  {
    action: 'send_invoice_reminders',
    description: 'E-mail a reminder to the customer of each open invoice daysBefore its due date and daysAfter it, once per invoice and offset, in the language it was sent in',
    params: PARAMS.send_invoice_reminders,
  },
  { action: 'wait', description: 'Pause the run, durably, before the next step', params: PARAMS.wait },
];

/**
 * The ready-made automation a merchant turns on for invoice reminders (docs/billing.md,
 * "Reminders"): every day at 09:00 in `timezone`, a reminder 3 days before each open invoice's due
 * date and 3 days after it. A wait step cannot reach a due date (a run lasts at most 8 days), so
 * a daily schedule looks at every open invoice instead.
 */
export const invoiceRemindersTemplate = (params: { daysBefore?: number; daysAfter?: number; timezone?: string } = {}): Definition => ({
  name: 'Invoice reminders',
  description: 'E-mails the customer before and after an open invoice is due',
  trigger: { type: 'schedule', cron: '0 9 * * *', timezone: params.timezone ?? 'UTC' },
  steps: [{ id: 'remind', action: 'send_invoice_reminders', params: { daysBefore: params.daysBefore ?? 3, daysAfter: params.daysAfter ?? 3 } }],
});

/** The time of the next tick of a schedule after `after`; IKW-ATM-002 when the expression or time zone is invalid. */
export function nextTick(trigger: { cron: string; timezone?: string }, after: Date): Date {
  if (trigger.timezone !== undefined && !isTimeZone(trigger.timezone)) {
    throw new Refusal('IKW-ATM-002', `trigger.timezone: unknown time zone '${trigger.timezone}' (an IANA name such as Africa/Dakar)`, 'trigger.timezone');
  }
  try {
    return CronExpressionParser.parse(trigger.cron, { currentDate: after, tz: trigger.timezone ?? 'UTC' }).next().toDate();
  } catch (err) {
    throw new Refusal('IKW-ATM-002', `trigger.cron: ${err instanceof Error ? err.message : String(err)}`, 'trigger.cron');
  }
}

/**
 * The problems beyond the schema that the definition alone shows: an invalid schedule (its cron
 * expression, its time zone), then each step id used again. A part the schema refused is left out
 * (undefined: no trigger, no step), its problems being the schema's.
 */
export function definitionProblems(definition: { trigger?: Trigger | undefined; steps: readonly (Step | undefined)[] }, now: Date): ItemError[] {
  const problems: ItemError[] = [];
  const trigger = definition.trigger;
  if (trigger?.type === 'schedule') {
    const tickProblems = (t: { cron: string; timezone?: string }): ItemError[] => {
      try {
        nextTick(t, now);
        return [];
      } catch (err) {
        if (isRefused(err)) return [problemOf(err)];
        throw err;
      }
    };
    const fields = trigger.cron.trim().split(/\s+/).length;
    if (fields !== 5 && fields !== 6) problems.push({ code: 'IKW-ATM-002', message: 'trigger.cron must have five fields (minute hour day month weekday), or six with seconds', param: 'trigger.cron' });
    else problems.push(...tickProblems({ cron: trigger.cron }));
    // The time zone on its own, with a cron expression that is always valid.
    if (trigger.timezone !== undefined) problems.push(...tickProblems({ cron: '0 0 * * *', timezone: trigger.timezone }));
  }
  const seen = new Set<string>();
  definition.steps.forEach((step, i) => {
    if (!step) return;
    if (seen.has(step.id)) problems.push({ code: 'IKW-ATM-001', message: `Step id '${step.id}' is used twice`, param: `steps.${i}.id` });
    seen.add(step.id);
  });
  return problems;
}

/** Problems in the order of the definition they are about: the trigger's, then each step's in turn (stable within each). */
export function inDefinitionOrder(problems: readonly ItemError[]): ItemError[] {
  const rank = (p: ItemError) => {
    const step = /^steps\.(\d+)(\.|$)/.exec(p.param ?? '');
    return step ? 1 + Number(step[1]) : 0;
  };
  return [...problems].sort((a, b) => rank(a) - rank(b));
}
