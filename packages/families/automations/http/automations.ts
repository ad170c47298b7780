import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { ItemError } from '#packages/core/errors.js';
import type { AutomationRuns } from '../runner.js';
import type { AutomationTriggers } from '../triggers.js';
import { findRunWithSteps, listLogs, listRuns, withLastRuns } from '../runs.js';
import type { AutomationInput, Automations, Saver } from '../commands.js';
import { ACTION_CATALOG, ACTION_SCOPES, ACTION_WORDS, ACTIONS, LIMITS, nextTick, stepsSchema, triggerSchema as triggerOf } from '../definition.js';
import type { Kernel } from '#packages/families/kernel.js';
import type { Principal } from '#packages/http/context.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import type { JsonSchema } from '#packages/http/validation.js';
import { automationObject, findAutomation, listAutomations, listAutomationVersions } from '../read/automations.js';
import type { CursorQuery } from '#packages/read-models/paging.js';
import { cursorListSchema, cursorQuery, found, idParams, resourceSchema } from '#packages/http/route-kit.js';
import type { Owner } from '#packages/core/owner.js';

const read: RouteAuth = { scope: 'automations.read', environmentHeader: 'optional' };
const write: RouteAuth = { scope: 'automations.write', environmentHeader: 'optional' };
const BASE = '/api/v1/automations';

/** The caller as the saver of a version: a signed-in user (their role's scopes) or an API key. */
const saverOf = (principal: Principal): Saver => ({
  credential: principal.user ? { type: 'user', id: principal.user.userId } : { type: 'api_key', id: principal.actor },
  scopes: principal.scopes,
});

const RUN_STATUSES = ['running', 'waiting', 'succeeded', 'failed', 'skipped', 'canceled'];
const RUN_STATUS_WORDS = {
  running: 'Its steps are being run',
  waiting: 'Paused by a `wait` step, durably, until the wait is over',
  succeeded: 'Every step succeeded (or, in a test run, was rendered and skipped)',
  failed: 'A step failed its last attempt, its credential could no longer act, or the run passed 8 days: `error` says why',
  skipped: 'Not run: more than 60 runs started within a minute for this merchant and environment (`error` says so)',
  canceled: 'Canceled by the merchant (POST …/runs/{runId}/cancel)',
};
const runStatus = (description: string) => ({ enum: RUN_STATUSES, description, 'x-enumDescriptions': RUN_STATUS_WORDS });
const LOG_STATUSES = ['succeeded', 'failed', 'waiting', 'skipped'];
const LOG_STATUS_WORDS = {
  succeeded: 'The attempt succeeded: `output` holds what it made',
  failed: 'The attempt failed: `error` says why (it is retried while attempts remain)',
  waiting: 'A `wait` step is pausing the run until `output.resumeAt`; it becomes `succeeded` when the run goes on',
  skipped: 'A test run rendered it without doing it (`output.wouldRun`): a payout, an invoice or a wait',
};
const actionOf = (description: string) => ({ enum: [...ACTIONS], description, 'x-enumDescriptions': ACTION_WORDS });
const automationStatus = {
  enum: ['enabled', 'disabled'],
  description: 'Whether it starts runs',
  'x-enumDescriptions': { enabled: 'Its trigger starts runs', disabled: 'It starts no runs (runs under way go on to their end)' },
};
const isoTime = (description: string) => ({ type: 'string', description: `${description}, as an ISO 8601 time` });
const isoTimeOrNull = (description: string) => ({ type: ['string', 'null'], description: `${description}, as an ISO 8601 time` });

const logSchema = resourceSchema('automation_log', ['automation', 'run', 'step', 'action', 'attempt', 'status', 'durationMs'], {
  automation: { type: 'string', description: 'The automation (`auto_…`)' },
  run: { type: 'string', description: 'The run (`arun_…`)' },
  step: { type: 'string', description: "The step's `id`" },
  stepIndex: { type: 'integer', description: "The position of the step in the run's steps, from 0" },
  action: actionOf("The step's action"),
  attempt: { type: 'integer', description: 'Which attempt of the step this is, from 1' },
  status: { enum: LOG_STATUSES, description: 'How the attempt went', 'x-enumDescriptions': LOG_STATUS_WORDS },
  input: { description: "The step's parameters as rendered for this attempt (header values redacted); null when it failed before rendering" },
  output: { description: "What the attempt made: a message's delivery, an HTTP answer's status and first 4 KiB, the invoice or payout made, …; null when it failed" },
  error: { type: ['string', 'null'], description: 'Why the attempt failed; null otherwise' },
  durationMs: { type: 'integer', description: 'How long the attempt took, in milliseconds' },
  startedAt: isoTime('When the attempt started'),
  created: { type: 'integer', description: 'When the attempt started, in Unix seconds' },
});
const runSchema = resourceSchema('automation_run', ['automation', 'status', 'trigger', 'startedAt'], {
  automation: { type: 'string', description: 'The automation it is a run of (`auto_…`)' },
  automationVersion: { type: 'integer', description: 'The version of the automation it runs: a run keeps the version it started with' },
  trigger: {
    type: 'object',
    required: ['kind', 'eventId', 'eventType', 'scheduledFor'],
    description: 'What started it: an event (its id and type), a schedule (the tick it was due at) or a test',
    properties: {
      kind: {
        enum: ['event', 'schedule', 'test'],
        description: 'What kind of start',
        'x-enumDescriptions': { event: "An event of the trigger's type", schedule: "A tick of the trigger's schedule", test: 'A test run (POST …/{id}/test)' },
      },
      eventId: { type: ['string', 'null'], description: "The id of the event that started it (`evt_…`; a test event's for a test run); null for a schedule" },
      eventType: { type: ['string', 'null'], description: "The event's type (a test run's: its sample's type, or `schedule.tick` for a schedule automation); null for a schedule" },
      scheduledFor: isoTimeOrNull('The tick it was due at; null unless a schedule started it'),
    },
  },
  test: { type: 'boolean', description: '`true` for a test run: steps that move money, make documents or wait are rendered and skipped' },
  status: runStatus('How the run went, or where it is'),
  currentStep: { type: ['string', 'null'], description: 'The `id` of the step it is at (or stopped at); null once past the last' },
  error: { type: ['string', 'null'], description: 'Why it failed, was skipped or canceled; null otherwise' },
  startedAt: isoTime('When it started'),
  finishedAt: isoTimeOrNull('When it finished; null while running or waiting'),
  steps: {
    type: 'array',
    description: 'One run only: the steps of its version',
    items: { type: 'object', required: ['id', 'action'], properties: { id: { type: 'string', description: "The step's `id`" }, action: actionOf("The step's action") } },
  },
  logs: { type: 'array', description: 'One run only: its step logs, in order', items: logSchema },
  livemode: { type: 'boolean' },
  created: { type: 'integer', description: 'When it started, in Unix seconds' },
});
/** One run as its own page shows it: the steps of its version and their logs. */
const runWithStepsSchema = { ...runSchema, required: [...runSchema.required, 'steps', 'logs'] };
const triggerEntrySchema = {
  type: 'object',
  required: ['object', 'type', 'description'],
  properties: {
    object: { const: 'automation_trigger', description: 'The kind of object: always `automation_trigger`' },
    type: { enum: ['event', 'schedule'], description: 'The kind of trigger', 'x-enumDescriptions': { event: 'An event type', schedule: 'A cron schedule' } },
    eventType: { type: 'string', description: 'The event type that starts it (type event)' },
    description: { type: 'string', description: 'What emits the event, or how a schedule is written' },
    data: { description: "The event's data object (type event)" },
    example: { type: 'object', description: 'A trigger of this kind (type schedule)' },
  },
};
const actionEntrySchema = {
  type: 'object',
  required: ['object', 'action', 'description', 'params'],
  properties: {
    object: { const: 'automation_action', description: 'The kind of object: always `automation_action`' },
    action: actionOf('The action, as a step names it'),
    description: { type: 'string', description: 'What a step of this action does' },
    params: { type: 'object', description: "The JSON Schema of the step's params" },
  },
};
const idString = { type: 'string', minLength: 1, maxLength: 255 };
const LIMIT_WORDS: Record<keyof typeof LIMITS, string> = {
  maxSteps: 'The most steps an automation has',
  maxRunSeconds: 'A run not finished this many seconds after it started fails (waits included)',
  maxWaitSeconds: 'The longest `wait` step, in seconds',
  runsPerMinute: 'Runs started in a minute for one merchant and environment, test runs included; beyond it, runs are recorded `skipped`',
  maxAttempts: 'The most attempts of one step (`retry.maxAttempts`)',
  defaultAttempts: 'The attempts of a step without `retry`',
  retryBaseSeconds: 'The back-off before the second attempt, in seconds; it is multiplied by 4 before each next one',
  failuresBeforeDisable: 'Failed runs in a row that disable an automation (its merchant is e-mailed)',
  httpTimeoutMs: 'The deadline of an `http_request` call, in milliseconds',
};
const runParams = {
  type: 'object',
  required: ['id', 'runId'],
  properties: { id: { ...idString, description: 'The automation (`auto_…`)' }, runId: { ...idString, description: 'The run (`arun_…`)' } },
};

/** The schemas that name the public events an automation may be triggered by: those of the catalogue the service opens with. */
function eventSchemas(publicEvents: Kernel['publicEvents']) {
  const eventTriggerTypes = publicEvents.names();
  const triggerSchema = triggerOf(publicEvents.types);
  const definitionFields = {
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'What your team calls it (`Dunning`)' },
    description: { type: ['string', 'null'], maxLength: 2_000, description: 'What it is for, in your words; null for none' },
    trigger: triggerSchema,
    steps: stepsSchema,
    enabled: { type: 'boolean', description: 'Whether it runs: `true` (the default on create) starts runs, `false` keeps it disabled' },
  };
  const createBody = { type: 'object', required: ['name', 'trigger', 'steps'], additionalProperties: false, properties: definitionFields };
  const automationSchema = resourceSchema('automation', ['name', 'status', 'version', 'trigger', 'steps', 'livemode', 'created', 'lastRun'], {
    name: { type: 'string', description: 'What your team calls it' },
    description: { type: ['string', 'null'], description: 'What it is for, or null' },
    status: automationStatus,
    disabledReason: {
      enum: ['merchant', 'failures', null],
      description: 'Why it is disabled; null while enabled',
      'x-enumDescriptions': { merchant: 'Disabled by the merchant (disable, `enabled: false`)', failures: 'Disabled after 5 failed runs in a row; the merchant was e-mailed. Enable it once fixed' },
    },
    version: { type: 'integer', description: 'The number of its current version, from 1: each change of its definition adds one' },
    trigger: triggerSchema,
    steps: stepsSchema,
    secretLast4: { type: 'string', description: 'The last four characters of its signing secret, to tell which one your server holds' },
    secret: {
      type: 'string',
      description: 'The signing secret (`whsec_…`) of its `http_request` calls (Standard Webhooks, as webhooks are signed): only in the answer to create, shown this once',
    },
    livemode: { type: 'boolean' },
    created: { type: 'integer' },
    updated: { type: 'integer' },
    lastRun: {
      type: ['object', 'null'],
      description: 'Its newest run (test runs included), null before the first: the full run is GET …/{id}/runs/{runId}',
      required: ['id', 'status', 'test', 'startedAt', 'finishedAt'],
      properties: {
        id: { type: 'string', description: "The run's id (`arun_…`)" },
        status: runStatus('How the run went, or where it is'),
        test: { type: 'boolean', description: '`true` for a test run (POST …/{id}/test)' },
        startedAt: isoTime('When it started'),
        finishedAt: isoTimeOrNull('When it finished; null while running or waiting'),
      },
    },
  });
  /** A version of an automation: its definition as it was saved. */
  const versionSchema = {
    type: 'object',
    required: ['object', 'automation', 'version', 'current', 'name', 'description', 'trigger', 'steps', 'created'],
    properties: {
      object: { const: 'automation_version', description: 'The kind of object: always `automation_version`' },
      automation: { type: 'string', description: 'The automation (`auto_…`)' },
      version: { type: 'integer', description: 'Its number, from 1' },
      current: { type: 'boolean', description: 'The version the automation runs' },
      name: { type: 'string', description: 'The name it had in this version' },
      description: { type: ['string', 'null'], description: 'The description it had in this version, or null' },
      trigger: triggerSchema,
      steps: stepsSchema,
      created: { type: 'integer', description: 'When this version was saved, in Unix seconds' },
    },
  };
  return { eventTriggerTypes, triggerSchema, definitionFields, createBody, automationSchema, versionSchema };
}

/** /api/v1/automations: catalogs, automations and their versions, test runs, runs and step logs. */
export function automationsRoutes(knex: Knex, clock: Clock, automations: Automations, triggers: AutomationTriggers, runs: AutomationRuns, publicEvents: Kernel['publicEvents']): RouteGroup {
  const { eventTriggerTypes, triggerSchema, definitionFields, createBody, automationSchema, versionSchema } = eventSchemas(publicEvents);
  const load = (owner: Owner, id: string) => found('automation', id, findAutomation(knex, owner, id));
  const object = async (owner: Owner, id: string) => (await withLastRuns(knex, owner, [automationObject(await load(owner, id))]))[0]!;
  // A definition the schema refuses is also checked beyond it where it can be: one answer lists every problem.
  const beyondSchema = { beyondSchema: (ctx: { owner: Owner }, body: unknown, refused: readonly ItemError[]) => automations.problemsBeyondSchema(ctx.owner, body, refused) };
  const catalog = (path: string, summary: string, description: string, item: JsonSchema, body: () => unknown) =>
    route({ method: 'get', path: `${BASE}/catalog/${path}`, summary, description, refusals: [], auth: read, response: cursorListSchema(item), handler: async () => body() });
  return {
    name: 'automations',
    description: 'Automations: when an event happens or a schedule comes, run steps such as sending an e-mail, an SMS or a signed HTTP request.',
    // Steps need scopes no route asks for (messages, calls out): keys may be given them.
    scopes: [...new Set(Object.values(ACTION_SCOPES).filter((s): s is string => s !== null))],
    routes: [
      catalog(
        'triggers',
        'What can start an automation: every event type, and schedules by cron expression',
        'Every trigger an automation may have, for an editor to offer: each public event type (docs/events.md) with what emits it and the object its `data` carries, which the steps read as `event.data`, and the schedule trigger with an example. The whole list, in one page.',
        triggerEntrySchema,
        () => ({
          object: 'list',
          data: [
            ...publicEvents.types.map((e) => ({ object: 'automation_trigger', type: 'event', eventType: e.type, description: e.emittedBy, data: e.data })),
            { object: 'automation_trigger', type: 'schedule', description: 'A cron expression (five fields, or six with seconds), in UTC or an IANA time zone', example: { type: 'schedule', cron: '0 9 * * 1', timezone: 'Africa/Dakar' } },
          ],
          has_more: false,
          url: `${BASE}/catalog/triggers`,
        }),
      ),
      catalog(
        'actions',
        'What a step can do, and the parameters each action takes (JSON Schema)',
        'The eight actions a step may take, each with the JSON Schema its `params` are validated against when a definition is saved, for an editor to build its forms from. Every string parameter is a Liquid template rendered when the step runs.',
        actionEntrySchema,
        () => ({
          object: 'list',
          data: ACTION_CATALOG.map((a) => ({ object: 'automation_action', ...a })),
          has_more: false,
          url: `${BASE}/catalog/actions`,
        }),
      ),
      route({
        method: 'get',
        path: `${BASE}/catalog/runtime-capabilities`,
        summary: "This deployment's limits and what it can do (delivery of e-mail and SMS, the URL policy, schedules)",
        description:
          'What automations may do here, in the environment the request acts in: the limits (steps, waits, run length, runs a minute, attempts), whether e-mail leaves by SMTP or stays in the outbox, what the URL policy of `http_request` steps allows, and how schedules are read. Read it before designing an automation near a limit.',
        refusals: [],
        auth: read,
        response: {
          type: 'object',
          required: ['object', 'limits', 'email', 'sms', 'http', 'schedules', 'templating'],
          properties: {
            object: { const: 'automation_runtime_capabilities', description: 'The kind of object: always `automation_runtime_capabilities`' },
            limits: {
              type: 'object',
              description: 'Steps, runs and sizes an automation may have (docs/automations.md)',
              required: Object.keys(LIMITS),
              properties: Object.fromEntries(Object.keys(LIMITS).map((k) => [k, { type: 'integer', description: LIMIT_WORDS[k as keyof typeof LIMITS] }])),
            },
            email: {
              type: 'object',
              description: 'How `send_email` steps deliver',
              properties: {
                delivery: {
                  enum: ['smtp', 'outbox'],
                  description: 'Where e-mail goes',
                  'x-enumDescriptions': { smtp: 'Sent by SMTP (and kept in the outbox)', outbox: 'Recorded in the outbox only: this deployment has no SMTP server' },
                },
              },
            },
            sms: { type: 'object', description: 'How `send_sms` steps deliver', properties: { delivery: { const: 'outbox', description: 'Recorded in the outbox, which a gateway relays' } } },
            http: {
              type: 'object',
              description: "The URL policy of `http_request` steps (the webhooks' one)",
              properties: {
                privateAddressesAllowed: { type: 'boolean', description: 'Whether some private addresses may be called (sandbox, with ranges opened by the operator)' },
                httpAllowed: { type: 'boolean', description: 'Whether plain `http://` URLs are allowed (sandbox only)' },
                redirectsFollowed: { type: 'boolean', description: 'Whether a 3xx answer is followed: never, it fails the attempt' },
                signing: { const: 'standard-webhooks', description: "How calls are signed: Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), with the automation's secret" },
              },
            },
            schedules: {
              type: 'object',
              description: 'How schedule triggers are read',
              properties: {
                cronFields: { type: 'array', items: { type: 'integer' }, description: 'The numbers of fields a cron expression may have (5, or 6 with seconds)' },
                timeZones: { type: 'string', description: 'The time zones `timezone` takes: IANA names' },
                catchUp: { type: 'string', description: 'What runs after downtime: the latest missed tick only' },
              },
            },
            templating: { const: 'liquid', description: 'The template language of string parameters: Liquid' },
          },
        },
        handler: async (ctx) => runs.capabilities(ctx.owner.environment),
      }),
      route<unknown, CursorQuery & { automation?: string; run?: string; status?: string; action?: string }>({
        method: 'get',
        path: `${BASE}/logs`,
        summary: 'Step logs of every run, newest first: input, output, duration and error of each attempt',
        description:
          'Every attempt of every step of your automations, newest first: what it was given (`input`, rendered), what it made (`output`), how long it took and why it failed. Filter by automation, run, status or action to find, say, every failed `http_request`. Cursor-paged (docs/pagination.md).',
        refusals: [],
        auth: read,
        query: cursorQuery({
          automation: { ...idString, description: 'Only the logs of this automation (`auto_…`)' },
          run: { ...idString, description: 'Only the logs of this run (`arun_…`)' },
          status: { enum: LOG_STATUSES, description: 'Only the attempts that went this way', 'x-enumDescriptions': LOG_STATUS_WORDS },
          action: actionOf('Only the attempts of steps of this action'),
        }),
        response: cursorListSchema(logSchema),
        handler: (ctx) => listLogs(knex, ctx.owner, ctx.query, `${BASE}/logs`),
      }),
      route<AutomationInput>({
        method: 'post',
        path: `${BASE}/validate`,
        summary: 'Check a definition without saving it; for a schedule, the next runs',
        description:
          'Checks a definition as create would, saving nothing: the schema, step ids used once (`IKW-ATM-001`), the cron expression and time zone (`IKW-ATM-002`), fixed templates yours and of the right kind (`IKW-ATM-003`), fixed URLs allowed by the webhook URL policy (`IKW-WHK-001`). A definition with problems is refused with every one of them in `errors`, in its order. A valid schedule answers its next three runs. It does not check the scopes the definition needs (create does).',
        refusals: ['IKW-ATM-001', 'IKW-ATM-002', 'IKW-ATM-003', 'IKW-WHK-001'],
        auth: read,
        body: createBody,
        everyProblem: beyondSchema,
        response: {
          type: 'object',
          required: ['object', 'valid'],
          properties: {
            object: { const: 'automation_validation', description: 'The kind of object: always `automation_validation`' },
            valid: { const: true, description: 'Always `true`: an invalid definition is refused instead' },
            nextRuns: { type: 'array', items: { type: 'string' }, description: "A schedule's next three runs, as ISO 8601 times; empty for an event trigger" },
          },
        },
        handler: async (ctx) => {
          const definition = await automations.check(ctx.owner, ctx.body);
          const nextRuns: string[] = [];
          if (definition.trigger.type === 'schedule') {
            let at = clock.now();
            for (let i = 0; i < 3; i++) nextRuns.push((at = nextTick(definition.trigger, at)).toISOString());
          }
          return { object: 'automation_validation', valid: true, nextRuns };
        },
      }),
      route<AutomationInput>({
        method: 'post',
        path: BASE,
        summary: 'Create an automation (enabled unless enabled: false); the answer holds its signing secret, shown once',
        description:
          "Saves an automation: a `trigger` (an event type, or a cron schedule) and up to 20 `steps`, run in order for each trigger. It is checked as validate checks it, every problem in one answer; then the scopes it needs, of the credential saving it (`IKW-AUT-004`, naming the part): an event trigger needs its event's read scope, each step its action's (`messages.write`, `http_requests.write`, `billing.write`, `payouts.write`). Its runs act with that credential's authority as it is when each step runs. The answer holds `secret` (`whsec_…`), which signs its `http_request` calls: store it now, it is never shown again. A retry with the same `Idempotency-Key` answers the automation without its secret.",
        refusals: ['IKW-ATM-001', 'IKW-ATM-002', 'IKW-ATM-003', 'IKW-WHK-001'],
        auth: write,
        body: createBody,
        everyProblem: beyondSchema,
        response: automationSchema,
        handler: async (ctx) => {
          const { state, secret } = await automations.create(ctx.owner, ctx.body, ctx.actor, saverOf(ctx.principal), ctx.requestRef);
          return { ...(await object(ctx.owner, state.automation!.id)), ...(secret !== null ? { secret } : {}) };
        },
      }),
      route<unknown, CursorQuery & { status?: 'enabled' | 'disabled' }>({
        method: 'get',
        path: BASE,
        summary: 'List automations, newest first, each with its last run',
        description:
          'Your automations in the environment the request acts in, newest first, each with `lastRun` (how it last went) so that a list page needs no other call. `status` keeps the enabled or the disabled ones (disabled after failing: `disabledReason: failures`). Cursor-paged (docs/pagination.md).',
        refusals: [],
        auth: read,
        query: cursorQuery({ status: { ...automationStatus, description: 'Only the automations in this state' } }),
        response: cursorListSchema(automationSchema),
        handler: async (ctx) => {
          const list = await listAutomations(knex, ctx.owner, ctx.query, BASE);
          return { ...list, data: await withLastRuns(knex, ctx.owner, list.data) };
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: `${BASE}/:id`,
        summary: 'Retrieve an automation',
        description:
          "The automation with its current definition (header values of `http_request` steps redacted), its status and its last run. Another merchant's automation, one of the other environment or a deleted one is `404 IKW-RES-001`.",
        refusals: [],
        auth: read,
        params: idParams,
        response: automationSchema,
        handler: (ctx) => object(ctx.owner, ctx.params.id),
      }),
      route<Partial<AutomationInput>, unknown, { id: string }>({
        method: 'patch',
        path: `${BASE}/:id`,
        fields: { automationId: 'id' },
        summary: 'Update an automation: a change of definition adds a version',
        description:
          'Any of `name`, `description`, `trigger` and `steps` is merged over the current definition and saved as a new version, checked as create checks it (every problem at once, then the scopes of the whole definition, of your credential); runs under way finish with the version they started with. The new version acts with your credential: save an automation again, even unchanged, to give it a credential that still holds what its steps need. A header value sent back redacted, as it was read, keeps its stored value. `enabled` alone enables or disables. An update that lands while another is saved is `409 IKW-RES-003`: read it again and retry.',
        refusals: ['IKW-ATM-001', 'IKW-ATM-002', 'IKW-ATM-003', 'IKW-WHK-001', 'IKW-RES-003'],
        auth: write,
        params: idParams,
        body: { type: 'object', additionalProperties: false, minProperties: 1, properties: definitionFields },
        everyProblem: { beyondSchema: (ctx, body, refused) => automations.updateProblemsBeyondSchema(ctx.owner, String(ctx.params.id), body, refused) },
        response: automationSchema,
        handler: async (ctx) => {
          const row = await load(ctx.owner, ctx.params.id);
          await automations.update(ctx.owner, row.id, ctx.body, ctx.actor, saverOf(ctx.principal));
          return object(ctx.owner, row.id);
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'delete',
        path: `${BASE}/:id`,
        fields: { automationId: 'id' },
        summary: 'Delete an automation: it starts no more runs; runs under way go on to their end',
        description: 'Deletes the automation for good: its trigger starts no more runs, and it is `404 IKW-RES-001` from now on (its runs and logs included). Runs under way go on to their end. To stop it for a while, disable it instead.',
        refusals: ['IKW-RES-003'],
        auth: write,
        params: idParams,
        response: {
          type: 'object',
          required: ['id', 'object', 'deleted'],
          properties: {
            id: { type: 'string', description: 'The id of the deleted automation' },
            object: { const: 'automation', description: 'The kind of object: always `automation`' },
            deleted: { const: true, description: 'Always `true`: it is deleted' },
          },
        },
        handler: async (ctx) => {
          await automations.delete(ctx.owner, ctx.params.id, ctx.actor);
          return { id: ctx.params.id, object: 'automation', deleted: true };
        },
      }),
      ...(['enable', 'disable'] as const).map((verb) =>
        route<unknown, unknown, { id: string }>({
          method: 'post',
          path: `${BASE}/:id/${verb}`,
          fields: { automationId: 'id' },
          summary: verb === 'enable' ? 'Enable an automation (also after it was disabled for failing)' : 'Disable an automation: it starts no more runs',
          description:
            verb === 'enable'
              ? 'Its trigger starts runs again; one disabled after 5 failed runs in a row (`disabledReason: failures`) starts afresh, its count of failures back at zero. Enabling an enabled automation changes nothing.'
              : 'Its trigger starts no more runs, until it is enabled again; runs under way go on to their end. `disabledReason` becomes `merchant`. Disabling a disabled automation changes nothing.',
          refusals: ['IKW-RES-003'],
          auth: write,
          params: idParams,
          response: automationSchema,
          handler: async (ctx) => {
            await automations.setEnabled(ctx.owner, ctx.params.id, verb === 'enable', ctx.actor);
            return object(ctx.owner, ctx.params.id);
          },
        }),
      ),
      route<{ event?: { type?: string; data?: Record<string, unknown> } }, unknown, { id: string }>({
        method: 'post',
        path: `${BASE}/:id/test`,
        fields: { automationId: 'id' },
        summary: 'Test-run an automation with a sample event: messages and HTTP calls happen; invoices, payouts and waits are rendered and skipped',
        description:
          "Starts a run of the current version at once with a sample event, enabled or not, and answers it (`202`, `running`): follow it with GET …/runs/{runId}. E-mails, SMS, HTTP calls and tags happen for real, so your credential needs the scopes of those steps (`IKW-AUT-004`); `create_payout`, `create_invoice` and `wait` are only rendered and logged `skipped` with `output.wouldRun`. Test runs never count towards disabling a failing automation, but count against the 60 runs a minute (over it, the run is `skipped`). In the sandbox, messages reach only your team's verified addresses.",
        refusals: [],
        auth: write,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            event: {
              type: 'object',
              additionalProperties: false,
              description: 'The sample event the steps read as `event`; an empty one when left out',
              properties: {
                type: {
                  enum: [...eventTriggerTypes],
                  description: "Its type; the trigger's event type when left out (`schedule.tick` for a schedule)",
                  'x-enumDescriptions': triggerSchema.properties.eventType['x-enumDescriptions'],
                },
                data: { type: 'object', maxProperties: 200, description: 'Its `data`: the object the steps read as `event.data`; `{}` when left out' },
              },
            },
          },
        },
        response: runWithStepsSchema,
        status: 202,
        handler: async (ctx) => {
          const row = await load(ctx.owner, ctx.params.id);
          const runId = await triggers.testRun(ctx.owner, row, ctx.body.event ?? {}, ctx.principal.scopes);
          return (await findRunWithSteps(knex, ctx.owner, row.id, runId))!;
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: `${BASE}/:id/versions`,
        summary: "List an automation's versions, newest first",
        description: 'Every definition the automation has had, newest first, `current` marking the one it runs: to see what changed, or what an older run ran (a run names its `automationVersion`). The whole list, in one page.',
        refusals: [],
        auth: read,
        params: idParams,
        response: cursorListSchema(versionSchema),
        handler: async (ctx) => listAutomationVersions(knex, await load(ctx.owner, ctx.params.id)),
      }),
      route<unknown, CursorQuery & { status?: string }, { id: string }>({
        method: 'get',
        path: `${BASE}/:id/runs`,
        summary: "List an automation's runs, newest first",
        description: "The automation's runs, test runs included, newest first, without their steps and logs (GET …/runs/{runId} has them). `status` finds, say, the failed ones. Cursor-paged (docs/pagination.md).",
        refusals: [],
        auth: read,
        params: idParams,
        query: cursorQuery({ status: runStatus('Only the runs in this state') }),
        response: cursorListSchema(runSchema),
        handler: async (ctx) => {
          const row = await load(ctx.owner, ctx.params.id);
          return listRuns(knex, ctx.owner, row.id, ctx.query, `${BASE}/${row.id}/runs`);
        },
      }),
      route<unknown, unknown, { id: string; runId: string }>({
        method: 'get',
        path: `${BASE}/:id/runs/:runId`,
        summary: 'Retrieve a run with the log of each step attempt',
        description:
          'One run with the steps of its version and the log of every attempt, in order: where it stands, what each step was given and made, and why it failed. A run of another automation, merchant or environment is `404 IKW-RES-001`.',
        refusals: [],
        auth: read,
        params: runParams,
        response: runWithStepsSchema,
        handler: (ctx) => found('automation run', ctx.params.runId, findRunWithSteps(knex, ctx.owner, ctx.params.id, ctx.params.runId)),
      }),
      route<unknown, unknown, { id: string; runId: string }>({
        method: 'post',
        path: `${BASE}/:id/runs/:runId/cancel`,
        fields: { automationId: 'id' },
        summary: 'Cancel a run that is running or waiting',
        description:
          'Stops a run that is `running` or `waiting` (say, in a long `wait` before a payout you no longer want): it becomes `canceled` and no further step starts. A step already under way finishes. A run that has finished is `409 IKW-RES-002`.',
        refusals: ['IKW-RES-002'],
        auth: write,
        params: runParams,
        response: runWithStepsSchema,
        handler: async (ctx) => {
          await found('automation run', ctx.params.runId, findRunWithSteps(knex, ctx.owner, ctx.params.id, ctx.params.runId));
          await runs.cancel(ctx.owner, ctx.params.id, ctx.params.runId);
          return (await findRunWithSteps(knex, ctx.owner, ctx.params.id, ctx.params.runId))!;
        },
      }),
    ],
  };
}
