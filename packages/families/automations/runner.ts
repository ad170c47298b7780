import type { Knex } from 'knex';
import type { ConsumerSpec } from '../../bus/consumer.js';
import { unixSeconds, type Clock } from '../../core/clock.js';
import { isRefused, Refusal } from '../../core/refusal.js';
import { derivedId, publicEventId, randomBase62 } from '../../core/ids.js';
import type { Logger } from '../../core/logger.js';
import type { SecretBox } from '../../core/secrets.js';
import { assertMayRun, type Automations } from './commands.js';
import { currentVersion } from './decider.js';
import { ACTION_SCOPES, LIMITS, nextTick, scopesNeeded, type Step } from './definition.js';
import { openHeaders, redactRenderedHeaders } from './headers.js';
import type { Billing } from '../billing/index.js';
import type { Messenger } from '../../messaging/messages.js';
import { readScopeOfEventType } from '../accounts/index.js';
import { hasScope } from '../../core/scopes.js';
import type { PayoutCreation } from '../payouts/index.js';
import { renderText, renderVersion } from '../templates/index.js';
import type { PublicEventCatalogue } from '../webhooks/index.js';
import type { RecordedEvent } from '../../eventstore/port.js';
import { automationsTriggeredByAny, findAutomationById, versionCredential, type AutomationRow, type TriggerKey } from '../../../projections/automations/automations.js';
import { findCustomerIdByEmail } from '../../../projections/billing/index.js';
import { findTemplate, findTemplateVersion } from '../../../projections/templates/index.js';
import type { Notifier } from '../../webhooks/notifier.js';
import { testEventId } from '../webhooks/index.js';
import { authorityOf } from './authority.js';
import { callUrl } from './http.js';
import { findRun, type RunRow, type TriggerEvent } from './runs.js';
import type { Cidr } from '../../core/cidr.js';
import type { Actor, Environment, Owner, Requester } from '../../core/owner.js';

export const AUTOMATIONS_CONSUMER = 'automations';

/** One attempt of one step of one run (a scheduler job); `wake` ends a wait. */
export interface StepJob {
  runId: string;
  stepIndex: number;
  attempt: number;
  wake?: true;
}

/** One tick of a schedule trigger. */
export interface TickJob {
  automationId: string;
  at: string;
}

export interface RunnerDeps {
  knex: Knex;
  clock: Clock;
  log: Logger;
  box: SecretBox;
  automations: Automations;
  messenger: Messenger;
  notifier: Notifier;
  payouts: PayoutCreation;
  billing: Billing;
  /** The public event types automations can be triggered by. */
  publicEvents: PublicEventCatalogue;
  /** Enqueue a step attempt, or a tick, in the given transaction: a run never exists without its next job. */
  enqueueStep(db: Knex | Knex.Transaction, job: StepJob, runAt: Date): Promise<void>;
  enqueueTick(db: Knex | Knex.Transaction, job: TickJob, runAt: Date): Promise<void>;
  allowedPrivateRanges: readonly Cidr[];
  httpTimeoutMs: number;
  /** Whether e-mail leaves the service (SMTP_URL), for the runtime capabilities. */
  smtpConfigured: boolean;
  /**
   * Counts one message of a merchant's automations to `to` against the sending limits (per merchant
   * and per recipient, docs/automations.md "Sending"); throws 429 IKW-LIM-001 over either.
   */
  countSend(owner: Owner, to: string): Promise<void>;
}

/**
 * What a step did: its output, or the error that failed this attempt (`final`: no attempt can do
 * better, the run fails now). A `skipped` step (test runs) did nothing on purpose.
 */
type StepResult = { status: 'succeeded' | 'skipped'; output: Record<string, unknown> } | { status: 'failed'; error: string; final?: true };

/** A run that has not ended: the only ones a step may move on (a cancel during a step wins). */
const ACTIVE = ['running', 'waiting'];

/** Actions that move money or make documents: a test run renders their parameters and stops there. */
const NOT_IN_TESTS = new Set(['create_invoice', 'create_payout', 'send_invoice_reminders', 'wait']);

const DAY_MS = 86_400_000;
/** A calendar day (YYYY-MM-DD) `days` after `day`. */
const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Renders every string in a parameter value with the run's context (Liquid; no code runs). */
async function renderParams(value: unknown, scope: Record<string, unknown>): Promise<unknown> {
  if (typeof value === 'string') return renderText(value, scope);
  if (Array.isArray(value)) return Promise.all(value.map((v) => renderParams(v, scope)));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await renderParams(v, scope);
    return out;
  }
  return value;
}

/** An amount parameter after rendering: a positive whole number of minor units. */
function amountOf(value: unknown): number {
  const n = typeof value === 'number' ? value : /^\d{1,15}$/.test(String(value).trim()) ? Number(String(value).trim()) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new Refusal('IKW-VAL-001', `amount must render to a positive whole number of minor units, not '${String(value)}'`, 'amount');
  return n;
}

const errorText = (err: unknown) => (isRefused(err) ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err));

/**
 * Runs automations (docs/automations.md): a checkpointed bus consumer starts a run for each event
 * an enabled automation listens to; each step is a durable scheduler job, at least once, made
 * idempotent by a key derived from the run and the step; waits are timers; failed steps are
 * retried with back-off; a run that fails after its last attempt counts against the automation,
 * which is disabled (and its merchant told) after repeated failures.
 */
/** The key of the automations a public event can trigger; null for events that trigger none. */
function triggerKeyOf(publicEvents: PublicEventCatalogue, event: RecordedEvent): TriggerKey | null {
  const data = event.data as { object?: Record<string, unknown> } | null;
  const { merchant_id: merchantId, environment } = event.metadata;
  if (!publicEvents.has(event.type) || !data?.object || !merchantId || !environment) return null;
  return { merchantId, environment, eventType: event.type };
}

const keyText = (k: TriggerKey) => `${k.merchantId}|${k.environment}|${k.eventType}`;

export class AutomationRunner {
  constructor(private readonly deps: RunnerDeps) {}

  /** The bus consumer: runs for events, and the first tick of every schedule that was created, changed or enabled. */
  consumer(): ConsumerSpec {
    return {
      name: AUTOMATIONS_CONSUMER,
      checkpointTable: 'bus_checkpoints',
      handles: [...this.deps.publicEvents.names(), 'automation.created', 'automation.updated', 'automation.enabled'],
      handle: async (trx, events) => {
        const waiting = await this.waitingFor(trx, events);
        for (const event of events) {
          if (event.type === 'automation.created' || event.type === 'automation.updated' || event.type === 'automation.enabled') await this.armSchedule(trx, (event.data as { id: string }).id);
          else await this.trigger(trx, event, waiting);
        }
      },
    };
  }

  /** The automations the batch's public events can trigger, by trigger key: one query per batch, none without such events. */
  private async waitingFor(trx: Knex.Transaction, events: readonly RecordedEvent[]): Promise<Map<string, AutomationRow[]>> {
    const keys = new Map<string, TriggerKey>();
    for (const event of events) {
      const key = triggerKeyOf(this.deps.publicEvents, event);
      if (key) keys.set(keyText(key), key);
    }
    const waiting = new Map<string, AutomationRow[]>();
    if (keys.size === 0) return waiting;
    for (const row of await automationsTriggeredByAny(trx, [...keys.values()])) {
      const text = keyText({ merchantId: row.merchant_id, environment: row.environment, eventType: row.trigger_event! });
      const list = waiting.get(text);
      if (list) list.push(row);
      else waiting.set(text, [row]);
    }
    return waiting;
  }

  private async trigger(trx: Knex.Transaction, event: RecordedEvent, waiting: Map<string, AutomationRow[]>): Promise<void> {
    const key = triggerKeyOf(this.deps.publicEvents, event);
    const automations = key ? (waiting.get(keyText(key)) ?? []) : [];
    if (automations.length === 0) return;
    const data = event.data as { object: Record<string, unknown> };
    const environment = key!.environment;
    const id = publicEventId(event.eventId);
    const created = new Date(event.metadata.occurred_at ?? event.recordedAt);
    const payload: TriggerEvent = { id, type: event.type, created: unixSeconds(created), livemode: environment === 'live', data: data.object };
    for (const automation of automations) {
      // A consumer catching up on the log must not run a new automation for what happened before it existed.
      if (created.getTime() < automation.created_at.getTime()) continue;
      await this.startRun(trx, automation, { kind: 'event', dedupeKey: `event:${id}`, event: payload, scheduledFor: null });
    }
  }

  /** Enqueues the next tick of a schedule automation that is enabled; ticks of an older cron stop by themselves. */
  private async armSchedule(trx: Knex.Transaction, automationId: string): Promise<void> {
    // The stream, not a read model that may lag the log.
    const { state } = await this.deps.automations.load(automationId);
    if (!state.automation || !state.enabled || state.deleted) return;
    const trigger = currentVersion(state).definition.trigger;
    if (trigger.type !== 'schedule') return;
    const at = nextTick(trigger, this.deps.clock.now());
    await this.deps.enqueueTick(trx, { automationId, at: at.toISOString() }, at);
  }

  /** A tick of a schedule: one run (once per tick), then the next tick. Missed ticks (the service was down) are not made up, but for the latest. */
  async tick(job: TickJob): Promise<void> {
    const { knex, clock } = this.deps;
    const row = await findAutomationById(knex, job.automationId);
    const trigger = row?.definition.trigger;
    if (!row || !row.enabled || row.deleted || trigger?.type !== 'schedule') return;
    const at = new Date(job.at);
    // The cron changed since this tick was set: the update armed its own chain.
    if (nextTick(trigger, new Date(at.getTime() - 1)).getTime() !== at.getTime()) return;
    await knex.transaction(async (trx) => {
      await this.startRun(trx, row, { kind: 'schedule', dedupeKey: `schedule:${job.at}`, event: null, scheduledFor: at });
      const now = clock.now();
      const next = nextTick(trigger, now.getTime() > at.getTime() ? now : at);
      await this.deps.enqueueTick(trx, { automationId: row.id, at: next.toISOString() }, next);
    });
  }

  /**
   * A test run with a sample event: the steps run for real, except money, documents and waits
   * (rendered, then skipped). The caller's `scopes` must allow the steps that run (403 IKW-AUT-004
   * otherwise), as the version's credential must: the sample's data reaches them.
   */
  async testRun(owner: Owner, automation: AutomationRow, sample: { type?: string; data?: Record<string, unknown> }, scopes: readonly string[]): Promise<string> {
    const steps = automation.definition.steps;
    assertMayRun(scopes, scopesNeeded(automation.definition).filter((n) => steps.some((step, i) => n.param === `steps.${i}.action` && !NOT_IN_TESTS.has(step.action))));
    const now = this.deps.clock.now();
    const trigger = automation.definition.trigger;
    const event: TriggerEvent = {
      id: testEventId(),
      type: sample.type ?? (trigger.type === 'event' ? trigger.eventType : 'schedule.tick'),
      created: unixSeconds(now),
      livemode: owner.environment === 'live',
      data: sample.data ?? {},
    };
    // A test run counts against the per-minute limit like any other: over it, it is recorded as skipped.
    return this.deps.knex.transaction(async (trx) => (await this.startRun(trx, automation, { kind: 'test', dedupeKey: `test:${event.id}`, event, scheduledFor: null }))!);
  }

  /**
   * Records a run and enqueues its first step, in the caller's transaction. Beyond the per-minute
   * limit of the merchant the run is recorded as `skipped`, so the merchant sees what was dropped.
   */
  private async startRun(
    trx: Knex.Transaction,
    automation: AutomationRow,
    trigger: { kind: 'event' | 'schedule' | 'test'; dedupeKey: string; event: TriggerEvent | null; scheduledFor: Date | null },
  ): Promise<string | null> {
    const now = this.deps.clock.now();
    const [recent] = await trx('automation_runs')
      .where({ merchant_id: automation.merchant_id, environment: automation.environment })
      .whereNot({ status: 'skipped' })
      .where('started_at', '>', new Date(now.getTime() - 60_000))
      .count<{ count: string }[]>('* as count');
    const limited = Number(recent!.count) >= LIMITS.runsPerMinute;
    const status = limited ? 'skipped' : 'running';
    const error = limited ? `rate limit: more than ${LIMITS.runsPerMinute} runs started within a minute for this merchant` : null;
    const id = `arun_${randomBase62(24)}`;
    const inserted = await trx('automation_runs')
      .insert({
        id,
        automation_id: automation.id,
        automation_version: automation.version,
        merchant_id: automation.merchant_id,
        environment: automation.environment,
        trigger_kind: trigger.kind,
        dedupe_key: trigger.dedupeKey,
        trigger_event: trigger.event ? JSON.stringify(trigger.event) : null,
        scheduled_for: trigger.scheduledFor,
        steps: JSON.stringify(automation.definition.steps),
        status,
        error,
        started_at: now,
        finished_at: status === 'skipped' ? now : null,
      })
      .onConflict(['automation_id', 'dedupe_key'])
      .ignore()
      .returning('id');
    if (inserted.length === 0 || status === 'skipped') return inserted.length === 0 ? null : id;
    await this.deps.enqueueStep(trx, { runId: id, stepIndex: 0, attempt: 1 }, now);
    return id;
  }

  /** One attempt of one step (a scheduler job). A job that runs again after its attempt was recorded does nothing. */
  async runStep(job: StepJob): Promise<void> {
    const { knex, clock } = this.deps;
    const run = await findRun(knex, job.runId);
    if (!run || !ACTIVE.includes(run.status) || run.current_step !== job.stepIndex) return;
    const step = run.steps[job.stepIndex]!;
    const now = clock.now();
    const recorded = await knex('automation_step_logs').where({ run_id: run.id, step_index: job.stepIndex, attempt: job.attempt }).first<{ id: string; status: string; started_at: Date; output: { resumeAt?: string } | null } | undefined>();
    if (recorded && recorded.status !== 'waiting') return;
    if (now.getTime() - run.started_at.getTime() > LIMITS.maxRunSeconds * 1000) {
      await this.fail(run, `run time limit: not finished within ${LIMITS.maxRunSeconds} seconds`);
      return;
    }
    const test = run.trigger_kind === 'test';
    if (step.action === 'wait' && !test) {
      await this.wait(run, step, job, recorded, now);
      return;
    }
    const started = process.hrtime.bigint();
    let input: unknown = null;
    let result: StepResult;
    try {
      const acts = !(test && NOT_IN_TESTS.has(step.action));
      const unauthorized = acts ? await this.unauthorized(run, step, now) : null;
      if (unauthorized !== null) result = { status: 'failed', error: unauthorized, final: true };
      else {
        const params = (await renderParams(openHeaders(step, this.deps.box, run.automation_id), await this.scope(run))) as Record<string, unknown>;
        // The log shows header values redacted, as the definition does.
        input = step.action === 'http_request' ? redactRenderedHeaders(params) : params;
        result = acts ? await this.act(run, step, params) : { status: 'skipped', output: { test: true, wouldRun: input } };
      }
    } catch (err) {
      result = { status: 'failed', error: errorText(err) };
    }
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
    await this.record(run, step, job, now, durationMs, input, result);
  }

  /** A wait: the first run of its job records it and sets the wake-up timer; the wake-up ends it. */
  private async wait(run: RunRow, step: Step, job: StepJob, recorded: { id: string; started_at: Date; output: { resumeAt?: string } | null } | undefined, now: Date): Promise<void> {
    const { knex } = this.deps;
    if (!recorded) {
      const resumeAt = new Date(now.getTime() + (step.params.seconds as number) * 1000);
      await knex.transaction(async (trx) => {
        await trx('automation_step_logs').insert(this.logRow(run, step, job, now, 0, { status: 'waiting', input: step.params, output: { resumeAt: resumeAt.toISOString() }, error: null }));
        if ((await trx('automation_runs').where({ id: run.id }).whereIn('status', ACTIVE).update({ status: 'waiting' })) === 0) return;
        await this.deps.enqueueStep(trx, { ...job, wake: true }, resumeAt);
      });
      return;
    }
    const resumeAt = new Date(recorded.output!.resumeAt!);
    if (now.getTime() < resumeAt.getTime()) return;
    await knex.transaction(async (trx) => {
      await trx('automation_step_logs')
        .where({ id: recorded.id })
        .update({ status: 'succeeded', output: JSON.stringify({ resumeAt: resumeAt.toISOString(), resumedAt: now.toISOString() }), duration_ms: now.getTime() - recorded.started_at.getTime() });
      await this.advance(trx, run, job.stepIndex, now);
    });
  }

  /**
   * Why the credential behind the run's version may not do this step now, or null when it may
   * (docs/automations.md, "Scopes"): it must still authenticate (or be a member) and hold
   * automations.write, the action's scope and, for a run an event started, the event's read scope.
   * A version saved before credentials were recorded has none and runs as it did, until it is next saved.
   */
  private async unauthorized(run: RunRow, step: Step, now: Date): Promise<string | null> {
    const credential = await versionCredential(this.deps.knex, run.automation_id, run.automation_version);
    if (credential === null) return null;
    const owner: Owner = { merchantId: run.merchant_id, environment: run.environment };
    const authority = await authorityOf(this.deps.knex, owner, credential, now);
    const remedy = `; save the automation again with a credential that holds what its steps need (docs/automations.md, "Scopes")`;
    if ('lost' in authority) return `credential: version ${run.automation_version} was saved by ${authority.lost}${remedy}`;
    const needed = ['automations.write', ACTION_SCOPES[step.action], run.trigger_kind === 'event' && run.trigger_event ? readScopeOfEventType(run.trigger_event.type) : undefined];
    const missing = needed.find((scope): scope is string => typeof scope === 'string' && !hasScope(authority.scopes, scope));
    return missing === undefined ? null : `credential: version ${run.automation_version} was saved by ${authority.holder}, which no longer holds ${missing}${remedy}`;
  }

  /** What a step's templates see: the trigger's event, the run, and the outputs of the steps before it. */
  private async scope(run: RunRow): Promise<Record<string, unknown>> {
    const done = (await this.deps.knex('automation_step_logs').where({ run_id: run.id }).whereIn('status', ['succeeded', 'skipped']).select('step_id', 'output')) as { step_id: string; output: unknown }[];
    return {
      event: run.trigger_event,
      run: { id: run.id, scheduledFor: run.scheduled_for?.toISOString() ?? null, test: run.trigger_kind === 'test' },
      automation: { id: run.automation_id },
      steps: Object.fromEntries(done.map((d) => [d.step_id, d.output])),
    };
  }

  /**
   * The `send_invoice_reminders` step: each open invoice of the owner with a due date and an
   * amount left is reminded `daysBefore` it (from that day until the due date, so a day the
   * schedule missed is caught up) and `daysAfter` it (from that day on), each (invoice, offset)
   * once whatever runs again: the reminder is claimed (committed) before it is sent, so a crash
   * between the two loses that reminder rather than sending it twice. Days are UTC calendar days.
   */
  private async remindInvoices(run: RunRow, owner: Owner, params: { daysBefore?: number; daysAfter?: number }): Promise<Record<string, unknown>> {
    const { knex, clock } = this.deps;
    const today = clock.now().toISOString().slice(0, 10);
    const due = (await knex('read.invoices')
      .where({ merchant_id: owner.merchantId, environment: owner.environment, status: 'open' })
      .whereRaw(`(object->>'due_date') IS NOT NULL AND (object->>'amount_remaining')::bigint > 0`)
      .orderBy('seq')
      .select('id', knex.raw(`object->>'due_date' AS due_date`))) as { id: string; due_date: string }[];
    const reminded: { invoice: string; offsetDays: number; delivery: string }[] = [];
    for (const invoice of due) {
      const dueDay = invoice.due_date.slice(0, 10);
      const offsets: number[] = [];
      if (params.daysBefore !== undefined && today >= addDays(dueDay, -params.daysBefore) && today < dueDay) offsets.push(-params.daysBefore);
      if (params.daysAfter !== undefined && today >= addDays(dueDay, params.daysAfter)) offsets.push(params.daysAfter);
      for (const offsetDays of offsets) {
        const claimed = await knex('invoice_reminders')
          .insert({ invoice_id: invoice.id, offset_days: offsetDays, merchant_id: owner.merchantId, environment: owner.environment, automation_run_id: run.id, claimed_at: clock.now() })
          .onConflict(['invoice_id', 'offset_days'])
          .ignore()
          .returning('invoice_id');
        if (claimed.length === 0) continue;
        const outcome = await this.deps.billing.invoices.remind(owner, invoice.id, offsetDays);
        const delivery = outcome === null ? 'not_sent' : outcome.status;
        await knex('invoice_reminders').where({ invoice_id: invoice.id, offset_days: offsetDays }).update({ delivery });
        reminded.push({ invoice: invoice.id, offsetDays, delivery });
      }
    }
    return { day: today, reminded };
  }

  private async act(run: RunRow, step: Step, params: Record<string, unknown>): Promise<StepResult> {
    const owner: Owner = { merchantId: run.merchant_id, environment: run.environment };
    const actor: Actor = { actor: `automation:${run.automation_id}`, causationId: run.id };
    /** The step's idempotency key: the same on every attempt of this step of this run. */
    const key = `${run.id}.${step.id}`;
    switch (step.action) {
      case 'send_email':
      case 'send_sms': {
        const channel = step.action === 'send_email' ? 'email' : 'sms';
        const template = await findTemplate(this.deps.knex, owner, params.templateId as string);
        if (!template || template.kind !== channel) return { status: 'failed', error: `No ${channel} template '${String(params.templateId)}'` };
        if (template.published_version === null) return { status: 'failed', error: `Template ${template.id} has no published version` };
        const version = (await findTemplateVersion(this.deps.knex, template.id, template.published_version))!;
        const data = (params.data as Record<string, unknown> | undefined) ?? (run.trigger_event?.data as Record<string, unknown> | undefined) ?? {};
        const out = await renderVersion(version, data, params.locale as string | undefined);
        const to = String(params.to).trim();
        // What the messenger will hold (the sandbox, outside the team) is not sent, so not counted.
        if ((await this.deps.messenger.holdOf(owner, channel, to)) === undefined) {
          try {
            await this.deps.countSend(owner, channel === 'email' ? to.toLowerCase() : to);
          } catch (err) {
            if (isRefused(err, 'IKW-LIM-001')) return { status: 'failed', error: `rate limit: too many messages from this merchant's automations, or to ${to}; tried again later` };
            throw err;
          }
        }
        const outcome = await this.deps.messenger.send({
          channel,
          to,
          subject: out.subject ?? '',
          text: out.text,
          ...(out.html !== undefined ? { html: out.html } : {}),
          ...(channel === 'email' ? { messageId: `<${key}@automations.sika.invalid>` } : {}),
          purpose: 'automation',
          merchant: owner,
        });
        if (outcome.status === 'failed') return { status: 'failed', error: `${channel} not delivered: ${outcome.error}` };
        return {
          status: 'succeeded',
          output: { to, template: template.id, version: version.version, locale: out.locale, ...(out.subject !== undefined ? { subject: out.subject } : {}), delivery: outcome.status, ...(outcome.status === 'held' ? { held: outcome.reason } : {}) },
        };
      }
      case 'http_request': {
        const secret = this.deps.box.open((await findAutomationById(this.deps.knex, run.automation_id))!.secret_sealed);
        const method = (params.method as string | undefined) ?? 'POST';
        const outcome = await callUrl({
          url: String(params.url),
          method,
          headers: (params.headers as Record<string, string> | undefined) ?? {},
          body: params.body ?? (method === 'GET' || method === 'DELETE' ? undefined : { event: run.trigger_event, run: run.id }),
          key,
          secret,
          at: this.deps.clock.now(),
          environment: run.environment,
          allowedPrivateRanges: this.deps.allowedPrivateRanges,
          timeoutMs: this.deps.httpTimeoutMs,
        });
        if (!outcome.ok) return { status: 'failed', error: outcome.error };
        let body: unknown = outcome.body;
        try {
          body = JSON.parse(outcome.body);
        } catch {
          // Not JSON: kept as text.
        }
        return { status: 'succeeded', output: { status: outcome.status, body } };
      }
      case 'create_invoice': {
        const customer = String(params.customer).trim();
        const invoice = await this.deps.billing.invoices.create(
          owner,
          {
            id: derivedId('in', `automation|${key}`),
            customer: customer.startsWith('cus_') ? { id: customer } : { email: customer },
            currency: String(params.currency),
            amountDue: amountOf(params.amount),
            ...(params.description !== undefined ? { description: String(params.description) } : {}),
            ...(params.daysUntilDue !== undefined ? { daysUntilDue: params.daysUntilDue as number } : {}),
            metadata: { automation_id: run.automation_id, automation_run_id: run.id },
            finalize: true,
          },
          actor,
        );
        const i = invoice.invoice!;
        return { status: 'succeeded', output: { invoice: i.id, customer: i.customer, amountDue: i.amountDue, currency: i.currency, status: invoice.status } };
      }
      case 'create_payout': {
        // The payout is asked by whoever saved the version; a user is not there to give a second
        // factor, so in live their automations pay inline only destinations paid before (docs/automations.md).
        const credential = await versionCredential(this.deps.knex, run.automation_id, run.automation_version);
        const by: Requester = { userId: credential?.type === 'user' ? credential.id : null, challengeId: null };
        const payout = await this.deps.payouts.create(
          owner,
          {
            amount: amountOf(params.amount),
            currency: String(params.currency),
            ...(params.destination !== undefined ? { destination: params.destination as never } : {}),
            ...(params.payoutMethodId !== undefined ? { payout_method_id: String(params.payoutMethodId) } : {}),
            metadata: { ...((params.metadata as Record<string, string> | undefined) ?? {}), automation_id: run.automation_id, automation_run_id: run.id },
          },
          by,
          'api',
          actor,
          `automation:${key}`,
        );
        return { status: 'succeeded', output: { payout: payout.id, amount: payout.amount, currency: payout.currency, status: payout.status } };
      }
      case 'send_invoice_reminders':
        return { status: 'succeeded', output: await this.remindInvoices(run, owner, params as { daysBefore?: number; daysAfter?: number }) };
      case 'tag_customer': {
        const ref = String(params.customer).trim();
        const id = ref.startsWith('cus_') ? ref : await findCustomerIdByEmail(this.deps.knex, owner, ref);
        if (!id) return { status: 'failed', error: `No customer '${ref}'` };
        const customer = await this.deps.billing.customers.tag(owner, id, String(params.tag), actor);
        return { status: 'succeeded', output: { customer: customer.id, tags: (customer.metadata.tags ?? '').split(',').filter(Boolean) } };
      }
      case 'wait':
        // Waits are timers (see `wait`); a test run skips them before it gets here.
        return { status: 'skipped', output: { seconds: params.seconds } };
    }
  }

  private logRow(run: RunRow, step: Step, job: StepJob, at: Date, durationMs: number, r: { status: string; input: unknown; output: unknown; error: string | null }) {
    return {
      id: `alog_${randomBase62(24)}`,
      run_id: run.id,
      automation_id: run.automation_id,
      merchant_id: run.merchant_id,
      environment: run.environment,
      step_index: job.stepIndex,
      step_id: step.id,
      action: step.action,
      attempt: job.attempt,
      status: r.status,
      input: r.input === null || r.input === undefined ? null : JSON.stringify(r.input),
      output: r.output === null || r.output === undefined ? null : JSON.stringify(r.output),
      error: r.error,
      started_at: at,
      duration_ms: durationMs,
    };
  }

  /** Records an attempt; then the next step, a retry after back-off, or the end of the run, in the same transaction. */
  private async record(run: RunRow, step: Step, job: StepJob, at: Date, durationMs: number, input: unknown, result: StepResult): Promise<void> {
    const maxAttempts = step.retry?.maxAttempts ?? LIMITS.defaultAttempts;
    const failed = result.status === 'failed';
    const retryAt = failed && !result.final && job.attempt < maxAttempts ? new Date(at.getTime() + LIMITS.retryBaseSeconds * 1000 * 4 ** (job.attempt - 1)) : null;
    let finalError: string | null = null;
    await this.deps.knex.transaction(async (trx) => {
      const inserted = await trx('automation_step_logs')
        .insert(this.logRow(run, step, job, at, durationMs, { status: result.status, input, output: failed ? null : result.output, error: failed ? result.error : null }))
        .onConflict(['run_id', 'step_index', 'attempt'])
        .ignore()
        .returning('id');
      if (inserted.length === 0) return; // another run of this job recorded it first
      if (!failed) return this.advance(trx, run, job.stepIndex, at);
      // A retry of a run canceled meanwhile finds it ended and does nothing.
      if (retryAt) return this.deps.enqueueStep(trx, { runId: run.id, stepIndex: job.stepIndex, attempt: job.attempt + 1 }, retryAt);
      finalError = `step ${step.id} (${step.action}) failed after ${job.attempt} attempt${job.attempt === 1 ? '' : 's'}: ${result.error}`;
      if ((await trx('automation_runs').where({ id: run.id }).whereIn('status', ACTIVE).update({ status: 'failed', error: finalError, finished_at: at })) === 0) finalError = null;
    });
    if (finalError !== null) await this.countFailure(run, finalError);
  }

  /** The step succeeded: the next one now, or the run is done (and the automation healthy again). */
  private async advance(trx: Knex.Transaction, run: RunRow, stepIndex: number, at: Date): Promise<void> {
    const next = stepIndex + 1;
    const active = () => trx('automation_runs').where({ id: run.id }).whereIn('status', ACTIVE);
    if (next < run.steps.length) {
      if ((await active().update({ status: 'running', current_step: next })) > 0) await this.deps.enqueueStep(trx, { runId: run.id, stepIndex: next, attempt: 1 }, at);
      return;
    }
    if ((await active().update({ status: 'succeeded', current_step: next, finished_at: at })) === 0) return;
    if (run.trigger_kind !== 'test') await trx('automation_health').where({ automation_id: run.automation_id }).update({ consecutive_failures: 0, updated_at: at });
  }

  private async fail(run: RunRow, error: string): Promise<void> {
    const failed = await this.deps.knex('automation_runs').where({ id: run.id }).whereIn('status', ACTIVE).update({ status: 'failed', error, finished_at: this.deps.clock.now() });
    if (failed > 0) await this.countFailure(run, error);
  }

  /** One more failed run in a row; at the limit the automation is disabled and, on that transition only, its merchant told. */
  private async countFailure(run: RunRow, error: string): Promise<void> {
    if (run.trigger_kind === 'test') return;
    const { knex, clock } = this.deps;
    const now = clock.now();
    const [health] = (await knex('automation_health')
      .insert({ automation_id: run.automation_id, consecutive_failures: 1, last_error: error, updated_at: now })
      .onConflict('automation_id')
      .merge({ consecutive_failures: knex.raw('automation_health.consecutive_failures + 1'), last_error: error, updated_at: now })
      .returning('consecutive_failures')) as { consecutive_failures: number }[];
    if (health!.consecutive_failures < LIMITS.failuresBeforeDisable) return;
    const owner: Owner = { merchantId: run.merchant_id, environment: run.environment };
    if (await this.deps.automations.disableForFailures(owner, run.automation_id, health!.consecutive_failures, error)) {
      const row = await findAutomationById(knex, run.automation_id);
      await this.deps.notifier.automationDisabled(run.merchant_id, run.environment, { id: run.automation_id, name: row?.definition.name ?? run.automation_id }, health!.consecutive_failures, error);
      await knex('automation_health').where({ automation_id: run.automation_id }).update({ consecutive_failures: 0, updated_at: now });
    }
  }

  /** Cancels a run that is running or waiting; its pending jobs then find it finished and do nothing. */
  async cancel(owner: Owner, automationId: string, runId: string): Promise<void> {
    const changed = await this.deps.knex('automation_runs')
      .where({ id: runId, automation_id: automationId, merchant_id: owner.merchantId, environment: owner.environment })
      .whereIn('status', ACTIVE)
      .update({ status: 'canceled', error: 'canceled by the merchant', finished_at: this.deps.clock.now() });
    if (changed === 0) throw new Refusal('IKW-RES-002', 'Only a running or waiting run can be canceled', 'runId');
  }

  /** What this deployment can do (GET /api/v1/automations/catalog/runtime-capabilities). */
  capabilities(environment: Environment) {
    return {
      object: 'automation_runtime_capabilities',
      limits: { ...LIMITS },
      email: { delivery: this.deps.smtpConfigured ? 'smtp' : 'outbox' },
      sms: { delivery: 'outbox' },
      http: { privateAddressesAllowed: environment === 'sandbox' && this.deps.allowedPrivateRanges.length > 0, httpAllowed: environment === 'sandbox', redirectsFollowed: false, signing: 'standard-webhooks' },
      schedules: { cronFields: [5, 6], timeZones: 'IANA', catchUp: 'latest missed tick only' },
      templating: 'liquid',
    };
  }
}
