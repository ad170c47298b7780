import type { Knex } from 'knex';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import { randomBase62 } from '#packages/core/ids.js';
import type { Logger } from '#packages/core/logger.js';
import type { Automations } from './commands.js';
import { ACTION_SCOPES, LIMITS, type Step } from './definition.js';
import { openHeaders, redactRenderedHeaders } from './headers.js';
import { readScopeOfEventType } from '#packages/families/accounts/index.js';
import { hasScope } from '#packages/core/scopes.js';
import { renderText } from '#packages/families/templates/index.js';
import type { PublicEventCatalogue } from '#packages/families/webhooks/index.js';
import { findAutomationById, versionCredential } from './read/automations.js';
import type { Notifier } from '#packages/webhooks/notifier.js';
import { authorityOf } from './authority.js';
import { findRun, type RunRow } from './runs.js';
import type { StepActionDeps, StepActions, StepResult } from './actions.js';
import type { Environment, Owner } from '#packages/core/owner.js';

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

/** What the triggers, the runs and the step actions are built from (the manifest's one object). */
export interface RunnerDeps extends StepActionDeps {
  log: Logger;
  automations: Automations;
  notifier: Notifier;
  /** The public event types automations can be triggered by. */
  publicEvents: PublicEventCatalogue;
  /** Enqueue a step attempt, or a tick, in the given transaction: a run never exists without its next job. */
  enqueueStep(db: Knex | Knex.Transaction, job: StepJob, runAt: Date): Promise<void>;
  enqueueTick(db: Knex | Knex.Transaction, job: TickJob, runAt: Date): Promise<void>;
  /** Whether e-mail leaves the service (SMTP_URL), for the runtime capabilities. */
  smtpConfigured: boolean;
}

/** A run that has not ended: the only ones a step may move on (a cancel during a step wins). */
const ACTIVE = ['running', 'waiting'];

/** Actions that move money or make documents: a test run renders their parameters and stops there. */
export const NOT_IN_TESTS = new Set(['create_invoice', 'create_payout', 'send_invoice_reminders', 'wait']);

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

const errorText = (err: unknown) => (isRefused(err) ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err));

/**
 * Runs automations' steps (docs/automations.md): each step is a durable scheduler job, at least
 * once, made idempotent by a key derived from the run and the step; waits are timers; failed steps
 * are retried with back-off; a run that fails after its last attempt counts against the automation,
 * which is disabled (and its merchant told) after repeated failures. What starts runs is
 * `AutomationTriggers`; what each action does is `StepActions`.
 */
export class AutomationRuns {
  constructor(
    private readonly deps: Pick<RunnerDeps, 'knex' | 'clock' | 'box' | 'automations' | 'notifier' | 'enqueueStep' | 'allowedPrivateRanges' | 'smtpConfigured'>,
    private readonly actions: StepActions,
  ) {}

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
        result = acts ? await this.actions.act(run, step, params) : { status: 'skipped', output: { test: true, wouldRun: input } };
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
    const changed = await this.deps
      .knex('automation_runs')
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
