import { unixSeconds } from '../../core/clock.js';
import type { Decider } from '../../core/decider.js';
import { ApiError } from '../../core/errors.js';
import { assertOwned, objectAttacher, present, unreachable, type Draft } from '../aggregate.js';
import type { Owner } from '../audit.js';
import {
  batchHoldSource,
  FINAL_ITEM_OUTCOMES,
  type BatchStatus,
  type ItemOutcome,
  type PayoutBatchCreated,
  type PayoutBatchEvent,
  type PayoutBatchObject,
} from './events.js';

export type PayoutBatchCommand =
  | { type: 'create'; batch: PayoutBatchCreated }
  | ({ owner: Owner; at: Date } & (
      | { type: 'execute' }
      | { type: 'retry' }
      | { type: 'cancel' }
      | { type: 'mark_sent'; attempt: number; indexes: number[] }
      | { type: 'settle_item'; index: number; attempt: number; payoutId: string | null; outcome: 'paid' | 'failed' | 'canceled'; failureCode: string | null }
    ));

export interface PayoutBatchState {
  batch: PayoutBatchCreated | null;
  status: BatchStatus;
  /** The current execution: 0 before the first, then 1, and one more per retry. */
  attempt: number;
  /** Per item index: where it stands, and the attempt it was last executed in (0: never). */
  outcomes: readonly ItemOutcome[];
  attempts: readonly number[];
  /** Per item index: handed to its operator (or stopped) in the current attempt. */
  sent: readonly boolean[];
  counts: Record<ItemOutcome, number>;
  totalAmount: number;
  totalFee: number;
  executedAt: string | null;
  finishedAt: string | null;
  canceledAt: string | null;
}

const noCounts = (): Record<ItemOutcome, number> => ({ validated: 0, queued: 0, paid: 0, failed: 0, canceled: 0 });

export function toPayoutBatchObject(state: PayoutBatchState): PayoutBatchObject {
  const b = present(state.batch, 'payout batch');
  return {
    id: b.id,
    object: 'payout_batch',
    status: state.status,
    currency: b.currency,
    total_amount: state.totalAmount,
    total_fee: state.totalFee,
    item_count: b.items.length,
    counts: { ...state.counts },
    attempt: state.attempt,
    idempotency_key: b.idempotencyKey,
    metadata: b.metadata,
    source_format: b.format,
    created: unixSeconds(new Date(b.createdAt)),
    executed_at: state.executedAt,
    finished_at: state.finishedAt,
    canceled_at: state.canceledAt,
    livemode: b.environment === 'live',
  };
}

/** Moves items to new outcomes, keeping the counts in step. */
function withOutcomes(state: PayoutBatchState, indexes: readonly number[], outcome: ItemOutcome, attempt?: number): PayoutBatchState {
  const outcomes = state.outcomes.slice();
  const attempts = attempt === undefined ? state.attempts : state.attempts.slice();
  const counts = { ...state.counts };
  for (const i of indexes) {
    counts[outcomes[i]!]--;
    counts[outcome]++;
    outcomes[i] = outcome;
    if (attempt !== undefined) (attempts as number[])[i] = attempt;
  }
  return { ...state, outcomes, attempts, counts };
}

const withObjects = objectAttacher<PayoutBatchState, PayoutBatchEvent>((state, event) => payoutBatchDecider.evolve(state, event), toPayoutBatchObject, ['payout_batch.items_sent']);

function withSent(state: PayoutBatchState, indexes: readonly number[], sent: boolean): PayoutBatchState {
  const flags = state.sent.slice();
  for (const i of indexes) flags[i] = sent;
  return { ...state, sent: flags };
}

type OngoingCommand = Exclude<PayoutBatchCommand, { type: 'create' }>;

/**
 * The batch lifecycle: validated → executing → completed | partially_failed | failed, and
 * validated | executing → canceled. A retry takes a partially_failed or failed batch back to
 * executing for its failed items. Outside the statuses listed, execute, retry and cancel are
 * refused (IKW-PEN-005); an item's news changes nothing.
 */
export const PAYOUT_BATCH_TRANSITIONS: Readonly<Record<OngoingCommand['type'], readonly BatchStatus[]>> = {
  execute: ['validated'], // → executing
  retry: ['partially_failed', 'failed'], // → executing, failed items only
  cancel: ['validated', 'executing'], // → canceled: nothing more is sent
  mark_sent: ['executing', 'canceled'], // bookkeeping of the runner
  settle_item: ['executing', 'canceled'], // → completed | partially_failed | failed once every item is final (executing only)
};

/** The execution an execute (every item) or a retry (the failed items) starts: its attempt, items, and the total + fees to hold. */
export function executionOf(state: PayoutBatchState, type: 'execute' | 'retry'): { attempt: number; indexes: number[]; amount: number; fee: number; holdSource: string } {
  const batch = present(state.batch, 'payout batch');
  const attempt = state.attempt + 1;
  const items = type === 'execute' ? batch.items : batch.items.filter((i) => state.outcomes[i.index] === 'failed');
  return {
    attempt,
    indexes: items.map((i) => i.index),
    amount: items.reduce((sum, i) => sum + i.amount, 0),
    fee: items.reduce((sum, i) => sum + i.fee, 0),
    holdSource: batchHoldSource(batch.id, attempt),
  };
}

/** How a batch ends once every item is final: all paid, none paid, or some of each. */
function finish(state: PayoutBatchState, at: string): Draft<PayoutBatchEvent>[] {
  if (state.status !== 'executing' || state.counts.queued > 0) return [];
  const type = state.counts.paid === state.outcomes.length ? 'payout_batch.completed' : state.counts.paid === 0 ? 'payout_batch.failed' : 'payout_batch.partially_failed';
  return [{ type, data: { at } }];
}

function decideOngoing(command: OngoingCommand, state: PayoutBatchState): Draft<PayoutBatchEvent>[] {
  const at = command.at.toISOString();
  switch (command.type) {
    case 'execute':
    case 'retry':
      return [{ type: 'payout_batch.execution_started', data: { ...executionOf(state, command.type), at } }];
    case 'cancel':
      return [{ type: 'payout_batch.canceled', data: { at } }];
    case 'mark_sent': {
      const indexes = command.indexes.filter((i) => state.attempts[i] === command.attempt && !state.sent[i]);
      return indexes.length === 0 ? [] : [{ type: 'payout_batch.items_sent', data: { attempt: command.attempt, indexes, at } }];
    }
    case 'settle_item': {
      if (state.attempts[command.index] !== command.attempt || FINAL_ITEM_OUTCOMES.includes(state.outcomes[command.index]!)) return [];
      const settled: Draft<PayoutBatchEvent> = {
        type: 'payout_batch.item_settled',
        data: { index: command.index, attempt: command.attempt, payoutId: command.payoutId, outcome: command.outcome, failureCode: command.failureCode, at },
      };
      return [settled, ...finish(withOutcomes(state, [command.index], command.outcome), at)];
    }
    default:
      return unreachable(command);
  }
}

export const payoutBatchDecider: Decider<PayoutBatchCommand, PayoutBatchState, PayoutBatchEvent> = {
  initialState: {
    batch: null,
    status: 'validated',
    attempt: 0,
    outcomes: [],
    attempts: [],
    sent: [],
    counts: noCounts(),
    totalAmount: 0,
    totalFee: 0,
    executedAt: null,
    finishedAt: null,
    canceledAt: null,
  },

  evolve(state, event) {
    switch (event.type) {
      case 'payout_batch.created': {
        const items = event.data.items;
        return {
          ...state,
          batch: event.data,
          status: 'validated',
          outcomes: items.map(() => 'validated'),
          attempts: items.map(() => 0),
          sent: items.map(() => false),
          counts: { ...noCounts(), validated: items.length },
          totalAmount: items.reduce((sum, i) => sum + i.amount, 0),
          totalFee: items.reduce((sum, i) => sum + i.fee, 0),
        };
      }
      case 'payout_batch.execution_started':
        return { ...withSent(withOutcomes(state, event.data.indexes, 'queued', event.data.attempt), event.data.indexes, false), status: 'executing', attempt: event.data.attempt, executedAt: event.data.at, finishedAt: null };
      case 'payout_batch.items_sent':
        return withSent(state, event.data.indexes, true);
      case 'payout_batch.item_settled':
        return withOutcomes(state, [event.data.index], event.data.outcome);
      case 'payout_batch.canceled': {
        // Items never executed are canceled at once; queued ones when the runner has stopped them.
        const waiting = state.outcomes.flatMap((o, i) => (o === 'validated' ? [i] : []));
        return { ...withOutcomes(state, waiting, 'canceled'), status: 'canceled', canceledAt: event.data.at };
      }
      case 'payout_batch.completed':
        return { ...state, status: 'completed', finishedAt: event.data.at };
      case 'payout_batch.partially_failed':
        return { ...state, status: 'partially_failed', finishedAt: event.data.at };
      case 'payout_batch.failed':
        return { ...state, status: 'failed', finishedAt: event.data.at };
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      // The same idempotency key twice: the same request is the same batch; another request is refused.
      if (state.batch) {
        if (state.batch.fingerprint === command.batch.fingerprint) return [];
        throw new ApiError('IKW-IDM-002', 'This idempotency_key was used with a different batch', 'idempotency_key');
      }
      return withObjects(state, [{ type: 'payout_batch.created', data: command.batch }]);
    }
    assertOwned(state.batch, command.owner, 'No such payout batch', 'batchId');
    if (!PAYOUT_BATCH_TRANSITIONS[command.type].includes(state.status)) {
      if (command.type === 'settle_item' || command.type === 'mark_sent') return [];
      throw new ApiError('IKW-PEN-005', `A payout batch with status ${state.status} cannot be ${command.type === 'execute' ? 'executed' : command.type === 'retry' ? 'retried' : 'canceled'}`, 'batchId');
    }
    if (command.type === 'retry' && state.counts.failed === 0) throw new ApiError('IKW-PEN-005', 'This payout batch has no failed item to retry', 'batchId');
    return withObjects(state, decideOngoing(command, state));
  },
};
