import { CronExpressionParser } from 'cron-parser';
import { isTimeZone } from '#packages/core/time-zone.js';
import { problemOf, type ItemError } from '#packages/core/errors.js';
import { readScopeOfEventType } from '#packages/families/accounts/index.js';
import { destinationSchema } from '#packages/families/payouts/index.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';

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
const text = (max: number, description: string) => ({ type: 'string', minLength: 1, maxLength: max, description });
/** An amount: minor units, or a template that renders to them (e.g. "{{ event.data.amount }}"). */
const amount = {
  oneOf: [
    { type: 'integer', minimum: 1 },
    { type: 'string', minLength: 1, maxLength: 200 },
  ],
  description: 'The amount in minor units of the currency (XOF has none: 5000 is 5,000 F CFA), or a template that renders to a whole number (`{{ event.data.amount }}`)',
};
const currency = text(200, 'A three-letter currency code (`xof`), or a template that renders to one (`{{ event.data.currency }}`)');
const templateData = {
  type: 'object',
  maxProperties: 50,
  additionalProperties: true,
  description: "The template's data, its string values rendered first; the trigger event's `data` (the object it carries) when left out",
};
const templateId = (kind: string) => text(255, `The id of one of your ${kind} templates (\`tpl_…\`, GET /api/template-engine/templates), or a template that renders to one`);
const locale = text(10, "The language of the template to render (`fr`, `en`); the template's default language when left out");

const PARAMS: Record<ActionType, Record<string, unknown>> = {
  send_email: {
    type: 'object',
    required: ['templateId', 'to'],
    additionalProperties: false,
    description: 'The parameters of a `send_email` step',
    properties: { templateId: templateId('e-mail'), to: text(320, 'The e-mail address to write to (`{{ event.data.customer_email }}`)'), locale, data: templateData },
  },
  send_sms: {
    type: 'object',
    required: ['templateId', 'to'],
    additionalProperties: false,
    description: 'The parameters of a `send_sms` step',
    properties: { templateId: templateId('SMS'), to: text(64, 'The phone number to text, in E.164 (`+221771234567`), or a template that renders to one'), locale, data: templateData },
  },
  http_request: {
    type: 'object',
    required: ['url'],
    additionalProperties: false,
    description: 'The parameters of an `http_request` step',
    properties: {
      url: text(2048, 'The URL to call: https in live, never a private or loopback address (the webhook URL policy); a fixed URL is checked when saved, a templated one when the step runs'),
      method: {
        enum: ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'],
        description: 'The HTTP method; `POST` when left out',
        'x-enumDescriptions': { POST: 'POST, the default', PUT: 'PUT', PATCH: 'PATCH', GET: 'GET: no body unless `body` is given', DELETE: 'DELETE: no body unless `body` is given' },
      },
      headers: {
        type: 'object',
        maxProperties: 20,
        propertyNames: { pattern: '^[A-Za-z0-9-]{1,64}$' },
        additionalProperties: { type: 'string', maxLength: 1_000 },
        description:
          'Up to 20 headers of your own (an `Authorization` token for your server), added to the signature headers. Sealed when saved and answered redacted ("…" and the last four characters); a redacted value sent back keeps the value it stands for',
      },
      body: { description: 'Any JSON value, sent as the request body; its strings are templates. When left out: `{event, run}` (the trigger event and the run id), none for GET and DELETE' },
    },
  },
  create_invoice: {
    type: 'object',
    required: ['customer', 'amount', 'currency'],
    additionalProperties: false,
    description: 'The parameters of a `create_invoice` step',
    properties: {
      customer: text(320, 'The customer to bill: a customer id (`cus_…`) or an e-mail address (the customer with it, made when there is none)'),
      amount,
      currency,
      description: text(500, "The invoice's description, which the customer reads"),
      daysUntilDue: { type: 'integer', minimum: 0, maximum: 365, description: 'Days from its creation to its due date; 30 when left out' },
    },
  },
  create_payout: {
    type: 'object',
    required: ['amount', 'currency'],
    additionalProperties: false,
    description: 'The parameters of a `create_payout` step: `destination` or `payoutMethodId`, not both',
    properties: {
      amount,
      currency,
      destination: destinationSchema,
      payoutMethodId: { type: 'string', format: 'uuid', description: 'A saved payout method to pay instead of an inline `destination`' },
      metadata: { type: 'object', maxProperties: 20, additionalProperties: { type: 'string', maxLength: 500 }, description: "Up to 20 key–value pairs of strings put on the payout's metadata" },
    },
    oneOf: [
      { required: ['destination'], properties: { destination: true } },
      { required: ['payoutMethodId'], properties: { payoutMethodId: true } },
    ],
  },
  tag_customer: {
    type: 'object',
    required: ['customer', 'tag'],
    additionalProperties: false,
    description: 'The parameters of a `tag_customer` step',
    properties: {
      customer: text(320, 'An existing customer: its id (`cus_…`) or e-mail address'),
      tag: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,40}$', description: "The tag to add to the customer's metadata `tags` (comma-separated, sorted): letters, digits, `_` and `-`" },
    },
  },
  send_invoice_reminders: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    description: 'The parameters of a `send_invoice_reminders` step: at least one of the two',
    properties: {
      daysBefore: { type: 'integer', minimum: 1, maximum: 60, description: 'Remind this many days before the due date' },
      daysAfter: { type: 'integer', minimum: 1, maximum: 60, description: 'Remind this many days after the due date' },
    },
  },
  wait: {
    type: 'object',
    required: ['seconds'],
    additionalProperties: false,
    description: 'The parameters of a `wait` step',
    properties: { seconds: { type: 'integer', minimum: 1, maximum: LIMITS.maxWaitSeconds, description: 'How long to pause, in seconds (up to 7 days)' } },
  },
};

/** What each action does, in a word (the catalog's `description` says more). */
export const ACTION_WORDS: Readonly<Record<ActionType, string>> = {
  send_email: 'Send an e-mail from a template',
  send_sms: 'Send an SMS from a template',
  http_request: 'Call an HTTPS URL, signed with the automation’s secret',
  create_invoice: 'Create an open invoice for a customer',
  create_payout: 'Create a payout from the available balance',
  tag_customer: 'Add a tag to a customer',
  send_invoice_reminders: 'E-mail reminders of open invoices before and after they are due',
  wait: 'Pause the run before the next step',
};

/** The event types a trigger may name, and what emits each (the public event catalogue's). */
export interface TriggerEventType {
  type: string;
  emittedBy: string;
}

/** A trigger: one of `eventTypes` (the public event types), or a schedule. */
export const triggerSchema = (eventTypes: readonly TriggerEventType[]) => ({
  type: 'object',
  required: ['type'],
  description: 'What starts a run: an event of your account, or a schedule',
  properties: {
    type: {
      enum: ['event', 'schedule'],
      description: 'The kind of trigger',
      'x-enumDescriptions': { event: 'Each event of `eventType` starts a run', schedule: 'Each tick of the `cron` expression starts a run' },
    },
    eventType: {
      enum: eventTypes.map((e) => e.type),
      description: 'The event type that starts a run (type `event`; docs/events.md). Saving it needs the read scope of its family',
      'x-enumDescriptions': Object.fromEntries(eventTypes.map((e) => [e.type, `Emitted by ${e.emittedBy}`])),
    },
    cron: { type: 'string', minLength: 9, maxLength: 120, description: 'When it runs (type `schedule`): a cron expression of five fields (minute hour day month weekday), or six with seconds first (`0 9 * * 1`: Mondays at 09:00)' },
    timezone: { type: 'string', minLength: 1, maxLength: 64, description: 'The IANA time zone the cron expression is read in (`Africa/Dakar`); UTC when left out' },
  },
  additionalProperties: false,
  allOf: [
    { if: { properties: { type: { const: 'event', description: 'An event trigger' } }, required: ['type'] }, then: { required: ['eventType'], properties: { eventType: true, cron: false, timezone: false } } },
    { if: { properties: { type: { const: 'schedule', description: 'A schedule trigger' } }, required: ['type'] }, then: { required: ['cron'], properties: { cron: true, eventType: false } } },
  ],
});

export const stepSchema = {
  type: 'object',
  required: ['id', 'action', 'params'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,39}$', description: "The step's name, unique in the automation (`notify`): later steps read its output as `steps.<id>`, and it keys the step's idempotency (`<runId>.<id>`)" },
    action: { enum: [...ACTIONS], description: 'What the step does (GET /api/v1/automations/catalog/actions)', 'x-enumDescriptions': ACTION_WORDS },
    params: { type: 'object', description: "The action's parameters; every string among them is a Liquid template rendered when the step runs" },
    retry: {
      type: 'object',
      required: ['maxAttempts'],
      additionalProperties: false,
      description: 'How often a failing step is tried; 3 attempts when left out, retried after 1, 4, 16 then 64 minutes',
      properties: { maxAttempts: { type: 'integer', minimum: 1, maximum: LIMITS.maxAttempts, description: 'Attempts in all, the first included (1 to 5)' } },
    },
  },
  allOf: ACTIONS.map((action) => ({
    if: { properties: { action: { const: action, description: `A \`${action}\` step` } }, required: ['action'] },
    then: { properties: { params: PARAMS[action] } },
  })),
};

export const stepsSchema = { type: 'array', minItems: 1, maxItems: LIMITS.maxSteps, items: stepSchema, description: 'The steps each run takes, in order (1 to 20)' };

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
    return CronExpressionParser.parse(trigger.cron, { currentDate: after, tz: trigger.timezone ?? 'UTC' })
      .next()
      .toDate();
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
