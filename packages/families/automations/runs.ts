import type { Knex } from 'knex';
import { unixSeconds } from '#packages/core/clock.js';
import type { Step } from './definition.js';
import { cursorPage, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import type { Environment, Owner } from '#packages/core/owner.js';

/** The runs and step logs of the runner's tables, as the API lists and shows them. */

/** The event that started a run, as its steps see it (`event` in their templates): a webhook event's shape. */
export interface TriggerEvent {
  id: string;
  type: string;
  created: number;
  livemode: boolean;
  data: Record<string, unknown>;
}

export interface RunRow {
  id: string;
  seq: string;
  automation_id: string;
  automation_version: number;
  merchant_id: string;
  environment: Environment;
  trigger_kind: 'event' | 'schedule' | 'test';
  trigger_event: TriggerEvent | null;
  scheduled_for: Date | null;
  steps: Step[];
  status: 'running' | 'waiting' | 'succeeded' | 'failed' | 'skipped' | 'canceled';
  current_step: number;
  error: string | null;
  started_at: Date;
  finished_at: Date | null;
}

interface LogRow {
  id: string;
  seq: string;
  run_id: string;
  automation_id: string;
  step_index: number;
  step_id: string;
  action: string;
  attempt: number;
  status: string;
  input: unknown;
  output: unknown;
  error: string | null;
  started_at: Date;
  duration_ms: number;
}

export function findRun(db: Knex | Knex.Transaction, id: string): Promise<RunRow | undefined> {
  return db('automation_runs').where({ id }).first<RunRow | undefined>();
}

export function runObject(row: RunRow) {
  return {
    id: row.id,
    object: 'automation_run',
    automation: row.automation_id,
    automationVersion: row.automation_version,
    trigger: { kind: row.trigger_kind, eventId: row.trigger_event?.id ?? null, eventType: row.trigger_event?.type ?? null, scheduledFor: row.scheduled_for?.toISOString() ?? null },
    test: row.trigger_kind === 'test',
    status: row.status,
    currentStep: row.current_step < row.steps.length ? row.steps[row.current_step]!.id : null,
    error: row.error,
    livemode: row.environment === 'live',
    startedAt: row.started_at.toISOString(),
    finishedAt: row.finished_at?.toISOString() ?? null,
    created: unixSeconds(row.started_at),
  };
}

export function logObject(row: LogRow) {
  return {
    id: row.id,
    object: 'automation_log',
    automation: row.automation_id,
    run: row.run_id,
    step: row.step_id,
    stepIndex: row.step_index,
    action: row.action,
    attempt: row.attempt,
    status: row.status,
    input: row.input,
    output: row.output,
    error: row.error,
    durationMs: row.duration_ms,
    startedAt: row.started_at.toISOString(),
    created: unixSeconds(row.started_at),
  };
}

const ownedRuns = (knex: Knex, owner: Owner) => knex('automation_runs').where({ merchant_id: owner.merchantId, environment: owner.environment });

export function listRuns(knex: Knex, owner: Owner, automationId: string, query: CursorQuery & { status?: string }, url: string): Promise<CursorList<ReturnType<typeof runObject>>> {
  const base = ownedRuns(knex, owner).where({ automation_id: automationId }).select('*');
  if (query.status) base.where({ status: query.status });
  return cursorPage<RunRow, ReturnType<typeof runObject>>(base, query, url, 'id', runObject);
}

/** A run of this owner's automation, with every attempt of its steps in order. */
export async function findRunWithSteps(knex: Knex, owner: Owner, automationId: string, runId: string) {
  const row = await ownedRuns(knex, owner).where({ id: runId, automation_id: automationId }).first<RunRow | undefined>();
  if (!row) return undefined;
  const logs = (await knex('automation_step_logs').where({ run_id: row.id }).orderBy('seq')) as LogRow[];
  return { ...runObject(row), steps: row.steps.map((s) => ({ id: s.id, action: s.action })), logs: logs.map(logObject) };
}

/** An automation's newest run, as the automation object carries it (`lastRun`): enough for a list's row. */
export interface LastRun {
  id: string;
  status: RunRow['status'];
  test: boolean;
  startedAt: string;
  finishedAt: string | null;
}

/**
 * The newest run of each of these automations of this owner, in one query: each automation's run
 * is the last entry of its own range of the automation_runs_list index, so a page of 100
 * automations costs 100 index probes, never a scan of their runs.
 */
export async function lastRuns(knex: Knex, owner: Owner, automationIds: readonly string[]): Promise<Map<string, LastRun>> {
  if (automationIds.length === 0) return new Map();
  const { rows } = (await knex.raw(
    `SELECT r.id, r.automation_id, r.status, r.trigger_kind, r.started_at, r.finished_at
       FROM unnest(?::text[]) AS a(id)
       CROSS JOIN LATERAL (
         SELECT id, automation_id, status, trigger_kind, started_at, finished_at FROM automation_runs
          WHERE merchant_id = ? AND environment = ? AND automation_id = a.id
          ORDER BY seq DESC LIMIT 1
       ) r`,
    [[...automationIds], owner.merchantId, owner.environment],
  )) as { rows: Pick<RunRow, 'id' | 'automation_id' | 'status' | 'trigger_kind' | 'started_at' | 'finished_at'>[] };
  return new Map(rows.map((r) => [r.automation_id, { id: r.id, status: r.status, test: r.trigger_kind === 'test', startedAt: r.started_at.toISOString(), finishedAt: r.finished_at?.toISOString() ?? null }]));
}

/** Automations as the API answers them: each with its newest run (`lastRun`, null before the first). */
export async function withLastRuns<A extends { id: string }>(knex: Knex, owner: Owner, automations: A[]): Promise<(A & { lastRun: LastRun | null })[]> {
  const last = await lastRuns(
    knex,
    owner,
    automations.map((a) => a.id),
  );
  return automations.map((a) => ({ ...a, lastRun: last.get(a.id) ?? null }));
}

/** Every step attempt of this owner's runs, newest first, narrowed by automation, run, status or action. */
export function listLogs(knex: Knex, owner: Owner, query: CursorQuery & { automation?: string; run?: string; status?: string; action?: string }, url: string): Promise<CursorList<ReturnType<typeof logObject>>> {
  const base = knex('automation_step_logs').where({ merchant_id: owner.merchantId, environment: owner.environment }).select('*');
  if (query.automation) base.where({ automation_id: query.automation });
  if (query.run) base.where({ run_id: query.run });
  if (query.status) base.where({ status: query.status });
  if (query.action) base.where({ action: query.action });
  return cursorPage<LogRow, ReturnType<typeof logObject>>(base, query, url, 'id', logObject);
}
