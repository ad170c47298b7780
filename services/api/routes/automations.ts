import type { Knex } from 'knex';
import type { Clock } from '../../../packages/core/clock.js';
import type { ItemError } from '../../../packages/core/errors.js';
import type { AutomationRunner } from '../../../packages/families/automations/runner.js';
import { findRunWithSteps, listLogs, listRuns, withLastRuns } from '../../../packages/families/automations/runs.js';
import type { AutomationInput, Automations, Saver } from '../../../packages/families/automations/commands.js';
import { ACTION_CATALOG, ACTION_SCOPES, ACTIONS, LIMITS, nextTick, stepsSchema, triggerSchema as triggerOf } from '../../../packages/families/automations/definition.js';
import { PUBLIC_EVENTS } from '../../../packages/families/index.js';
import type { Principal } from '../../../packages/http/context.js';
import { route, type Family, type RouteAuth } from '../../../packages/http/routes.js';
import type { JsonSchema } from '../../../packages/http/validation.js';
import { automationObject, findAutomation, listAutomations, listAutomationVersions } from '../../../projections/automations/automations.js';
import type { CursorQuery } from '../../../projections/paging.js';
import { cursorListSchema, cursorQuery, found, idParams, resourceSchema } from './shared.js';
import type { Owner } from '../../../packages/core/owner.js';

const read: RouteAuth = { scope: 'automations.read', environmentHeader: 'optional' };
const write: RouteAuth = { scope: 'automations.write', environmentHeader: 'optional' };
const BASE = '/api/v1/automations';
const EVENT_TRIGGER_TYPES = PUBLIC_EVENTS.names();
const triggerSchema = triggerOf(EVENT_TRIGGER_TYPES);

/** The caller as the saver of a version: a signed-in user (their role's scopes) or an API key. */
const saverOf = (principal: Principal): Saver => ({
  credential: principal.user ? { type: 'user', id: principal.user.userId } : { type: 'api_key', id: principal.actor },
  scopes: principal.scopes,
});

const definitionFields = {
  name: { type: 'string', minLength: 1, maxLength: 200 },
  description: { type: ['string', 'null'], maxLength: 2_000 },
  trigger: triggerSchema,
  steps: stepsSchema,
  enabled: { type: 'boolean' },
};
const createBody = { type: 'object', required: ['name', 'trigger', 'steps'], additionalProperties: false, properties: definitionFields };

const RUN_STATUSES = ['running', 'waiting', 'succeeded', 'failed', 'skipped', 'canceled'];
const automationSchema = resourceSchema('automation', ['name', 'status', 'version', 'trigger', 'steps', 'livemode', 'created', 'lastRun'], {
  name: { type: 'string' },
  description: { type: ['string', 'null'] },
  status: { enum: ['enabled', 'disabled'] },
  disabledReason: { enum: ['merchant', 'failures', null] },
  version: { type: 'integer' },
  trigger: triggerSchema,
  steps: stepsSchema,
  secretLast4: { type: 'string' },
  secret: { type: 'string', description: 'create only: signs the requests of http_request steps, shown this once' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
  updated: { type: 'integer' },
  lastRun: {
    type: ['object', 'null'],
    description: 'Its newest run (test runs included), null before the first: the full run is GET …/{id}/runs/{runId}',
    required: ['id', 'status', 'test', 'startedAt', 'finishedAt'],
    properties: {
      id: { type: 'string' },
      status: { enum: RUN_STATUSES },
      test: { type: 'boolean' },
      startedAt: { type: 'string' },
      finishedAt: { type: ['string', 'null'] },
    },
  },
});
const logSchema = resourceSchema('automation_log', ['automation', 'run', 'step', 'action', 'attempt', 'status', 'durationMs'], {
  automation: { type: 'string' },
  run: { type: 'string' },
  step: { type: 'string' },
  stepIndex: { type: 'integer' },
  action: { enum: [...ACTIONS] },
  attempt: { type: 'integer' },
  status: { enum: ['succeeded', 'failed', 'waiting', 'skipped'] },
  input: {},
  output: {},
  error: { type: ['string', 'null'] },
  durationMs: { type: 'integer' },
  startedAt: { type: 'string' },
  created: { type: 'integer' },
});
const runSchema = resourceSchema('automation_run', ['automation', 'status', 'trigger', 'startedAt'], {
  automation: { type: 'string' },
  automationVersion: { type: 'integer' },
  trigger: {
    type: 'object',
    required: ['kind', 'eventId', 'eventType', 'scheduledFor'],
    description: 'What started it: an event (its id and type), a schedule (the tick it was due at) or a test',
    properties: { kind: { enum: ['event', 'schedule', 'test'] }, eventId: { type: ['string', 'null'] }, eventType: { type: ['string', 'null'] }, scheduledFor: { type: ['string', 'null'] } },
  },
  test: { type: 'boolean' },
  status: { enum: RUN_STATUSES },
  currentStep: { type: ['string', 'null'] },
  error: { type: ['string', 'null'] },
  startedAt: { type: 'string' },
  finishedAt: { type: ['string', 'null'] },
  steps: { type: 'array', description: 'One run only: the steps of its version', items: { type: 'object', required: ['id', 'action'], properties: { id: { type: 'string' }, action: { enum: [...ACTIONS] } } } },
  logs: { type: 'array', description: 'One run only: its step logs, in order', items: logSchema },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});
/** One run as its own page shows it: the steps of its version and their logs. */
const runWithStepsSchema = { ...runSchema, required: [...runSchema.required, 'steps', 'logs'] };
/** A version of an automation: its definition as it was saved. */
const versionSchema = {
  type: 'object',
  required: ['object', 'automation', 'version', 'current', 'name', 'description', 'trigger', 'steps', 'created'],
  properties: {
    object: { const: 'automation_version' },
    automation: { type: 'string' },
    version: { type: 'integer' },
    current: { type: 'boolean', description: 'The version the automation runs' },
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    trigger: triggerSchema,
    steps: stepsSchema,
    created: { type: 'integer' },
  },
};
const triggerEntrySchema = {
  type: 'object',
  required: ['object', 'type', 'description'],
  properties: {
    object: { const: 'automation_trigger' },
    type: { enum: ['event', 'schedule'] },
    eventType: { type: 'string', description: 'The event type that starts it (type event)' },
    description: { type: 'string' },
    data: { description: "The event's data object (type event)" },
    example: { type: 'object', description: 'A trigger of this kind (type schedule)' },
  },
};
const actionEntrySchema = {
  type: 'object',
  required: ['object', 'action', 'description', 'params'],
  properties: { object: { const: 'automation_action' }, action: { enum: [...ACTIONS] }, description: { type: 'string' }, params: { type: 'object', description: "The JSON Schema of the step's params" } },
};
const idString = { type: 'string', minLength: 1, maxLength: 255 };
const runParams = { type: 'object', required: ['id', 'runId'], properties: { id: idString, runId: idString } };

/** /api/v1/automations: catalogs, automations and their versions, test runs, runs and step logs. */
export function automationsFamily(knex: Knex, clock: Clock, automations: Automations, runner: AutomationRunner): Family {
  const load = (owner: Owner, id: string) => found('automation', id, findAutomation(knex, owner, id));
  const object = async (owner: Owner, id: string) => (await withLastRuns(knex, owner, [automationObject(await load(owner, id))]))[0]!;
  // A definition the schema refuses is also checked beyond it where it can be: one answer lists every problem.
  const beyondSchema = { beyondSchema: (ctx: { owner: Owner }, body: unknown, refused: readonly ItemError[]) => automations.problemsBeyondSchema(ctx.owner, body, refused) };
  const catalog = (path: string, summary: string, item: JsonSchema, body: () => unknown) =>
    route({ method: 'get', path: `${BASE}/catalog/${path}`, summary, auth: read, response: cursorListSchema(item), handler: async () => body() });
  return {
    name: 'automations',
    description: 'Automations: when an event happens or a schedule comes, run steps such as sending an e-mail, an SMS or a signed HTTP request.',
    // Steps need scopes no route asks for (messages, calls out): keys may be given them.
    scopes: [...new Set(Object.values(ACTION_SCOPES).filter((s): s is string => s !== null))],
    routes: [
      catalog('triggers', 'What can start an automation: every event type, and schedules by cron expression', triggerEntrySchema, () => ({
        object: 'list',
        data: [
          ...PUBLIC_EVENTS.types.map((e) => ({ object: 'automation_trigger', type: 'event', eventType: e.type, description: e.emittedBy, data: e.data })),
          { object: 'automation_trigger', type: 'schedule', description: 'A cron expression (five fields, or six with seconds), in UTC or an IANA time zone', example: { type: 'schedule', cron: '0 9 * * 1', timezone: 'Africa/Dakar' } },
        ],
        has_more: false,
        url: `${BASE}/catalog/triggers`,
      })),
      catalog('actions', 'What a step can do, and the parameters each action takes (JSON Schema)', actionEntrySchema, () => ({
        object: 'list',
        data: ACTION_CATALOG.map((a) => ({ object: 'automation_action', ...a })),
        has_more: false,
        url: `${BASE}/catalog/actions`,
      })),
      route({
        method: 'get',
        path: `${BASE}/catalog/runtime-capabilities`,
        summary: "This deployment's limits and what it can do (delivery of e-mail and SMS, the URL policy, schedules)",
        auth: read,
        response: {
          type: 'object',
          required: ['object', 'limits', 'email', 'sms', 'http', 'schedules', 'templating'],
          properties: {
            object: { const: 'automation_runtime_capabilities' },
            limits: {
              type: 'object',
              description: 'Steps, runs and sizes an automation may have (docs/automations.md)',
              required: Object.keys(LIMITS),
              properties: Object.fromEntries(Object.keys(LIMITS).map((k) => [k, { type: 'integer' }])),
            },
            email: { type: 'object', properties: { delivery: { enum: ['smtp', 'outbox'] } } },
            sms: { type: 'object', properties: { delivery: { const: 'outbox' } } },
            http: {
              type: 'object',
              properties: { privateAddressesAllowed: { type: 'boolean' }, httpAllowed: { type: 'boolean' }, redirectsFollowed: { type: 'boolean' }, signing: { const: 'standard-webhooks' } },
            },
            schedules: { type: 'object', properties: { cronFields: { type: 'array', items: { type: 'integer' } }, timeZones: { type: 'string' }, catchUp: { type: 'string' } } },
            templating: { const: 'liquid' },
          },
        },
        handler: async (ctx) => runner.capabilities(ctx.owner.environment),
      }),
      route<unknown, CursorQuery & { automation?: string; run?: string; status?: string; action?: string }>({
        method: 'get',
        path: `${BASE}/logs`,
        summary: 'Step logs of every run, newest first: input, output, duration and error of each attempt',
        auth: read,
        query: cursorQuery({ automation: idString, run: idString, status: { enum: ['succeeded', 'failed', 'waiting', 'skipped'] }, action: { enum: [...ACTIONS] } }),
        response: cursorListSchema(logSchema),
        handler: (ctx) => listLogs(knex, ctx.owner, ctx.query, `${BASE}/logs`),
      }),
      route<AutomationInput>({
        method: 'post',
        path: `${BASE}/validate`,
        summary: 'Check a definition without saving it; for a schedule, the next runs',
        auth: read,
        body: createBody,
        everyProblem: beyondSchema,
        response: { type: 'object', required: ['object', 'valid'], properties: { object: { const: 'automation_validation' }, valid: { const: true }, nextRuns: { type: 'array', items: { type: 'string' } } } },
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
        auth: read,
        query: cursorQuery({ status: { enum: ['enabled', 'disabled'] } }),
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
        auth: write,
        params: idParams,
        response: { type: 'object', required: ['id', 'object', 'deleted'], properties: { id: { type: 'string' }, object: { const: 'automation' }, deleted: { const: true } } },
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
        auth: write,
        params: idParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: { event: { type: 'object', additionalProperties: false, properties: { type: { enum: [...EVENT_TRIGGER_TYPES] }, data: { type: 'object', maxProperties: 200 } } } },
        },
        response: runWithStepsSchema,
        status: 202,
        handler: async (ctx) => {
          const row = await load(ctx.owner, ctx.params.id);
          const runId = await runner.testRun(ctx.owner, row, ctx.body.event ?? {}, ctx.principal.scopes);
          return (await findRunWithSteps(knex, ctx.owner, row.id, runId))!;
        },
      }),
      route<unknown, unknown, { id: string }>({
        method: 'get',
        path: `${BASE}/:id/versions`,
        summary: "List an automation's versions, newest first",
        auth: read,
        params: idParams,
        response: cursorListSchema(versionSchema),
        handler: async (ctx) => listAutomationVersions(knex, await load(ctx.owner, ctx.params.id)),
      }),
      route<unknown, CursorQuery & { status?: string }, { id: string }>({
        method: 'get',
        path: `${BASE}/:id/runs`,
        summary: "List an automation's runs, newest first",
        auth: read,
        params: idParams,
        query: cursorQuery({ status: { enum: RUN_STATUSES } }),
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
        auth: write,
        params: runParams,
        response: runWithStepsSchema,
        handler: async (ctx) => {
          await found('automation run', ctx.params.runId, findRunWithSteps(knex, ctx.owner, ctx.params.id, ctx.params.runId));
          await runner.cancel(ctx.owner, ctx.params.id, ctx.params.runId);
          return (await findRunWithSteps(knex, ctx.owner, ctx.params.id, ctx.params.runId))!;
        },
      }),
    ],
  };
}

