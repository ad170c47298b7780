import type { Knex } from 'knex';
import type { ConsumerSpec } from '#packages/bus/consumer.js';
import { unixSeconds } from '#packages/core/clock.js';
import { publicEventId, randomBase62 } from '#packages/core/ids.js';
import { assertMayRun } from './commands.js';
import { currentVersion } from './decider.js';
import { LIMITS, nextTick, scopesNeeded } from './definition.js';
import type { PublicEventCatalogue } from '#packages/families/webhooks/index.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { automationsTriggeredByAny, findAutomationById, type AutomationRow, type TriggerKey } from './read/automations.js';
import { testEventId } from '#packages/families/webhooks/index.js';
import type { TriggerEvent } from './runs.js';
import { AUTOMATIONS_CONSUMER, NOT_IN_TESTS, type RunnerDeps, type TickJob } from './runner.js';
import type { Owner } from '#packages/core/owner.js';

/** The key of the automations a public event can trigger; null for events that trigger none. */
function triggerKeyOf(publicEvents: PublicEventCatalogue, event: RecordedEvent): TriggerKey | null {
  const data = event.data as { object?: Record<string, unknown> } | null;
  const { merchant_id: merchantId, environment } = event.metadata;
  if (!publicEvents.has(event.type) || !data?.object || !merchantId || !environment) return null;
  return { merchantId, environment, eventType: event.type };
}

const keyText = (k: TriggerKey) => `${k.merchantId}|${k.environment}|${k.eventType}`;

/**
 * What starts automation runs (docs/automations.md): a checkpointed bus consumer starts a run for
 * each event an enabled automation listens to and arms schedules; each tick of a schedule starts one;
 * a test run starts one with a sample event. A run is recorded with its first step's job.
 */
export class AutomationTriggers {
  constructor(private readonly deps: Pick<RunnerDeps, 'knex' | 'clock' | 'automations' | 'publicEvents' | 'enqueueStep' | 'enqueueTick'>) {}

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
    assertMayRun(
      scopes,
      scopesNeeded(automation.definition).filter((n) => steps.some((step, i) => n.param === `steps.${i}.action` && !NOT_IN_TESTS.has(step.action))),
    );
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
  private async startRun(trx: Knex.Transaction, automation: AutomationRow, trigger: { kind: 'event' | 'schedule' | 'test'; dedupeKey: string; event: TriggerEvent | null; scheduledFor: Date | null }): Promise<string | null> {
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
}
