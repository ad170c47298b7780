import { PersistentMap } from '#packages/core/persistent-map.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned, present, unreachable } from '#packages/core/aggregate.js';
import { batchHoldSource, FINAL_ITEM_OUTCOMES, type BatchStatus, type ItemOutcome, type PayoutBatchCreated, type PayoutBatchEvent } from './events.js';
import type { Owner } from '#packages/core/owner.js';

export type PayoutBatchCommand =
  | { type: 'create'; batch: PayoutBatchCreated }
  | ({ owner: Owner; at: Date } & (
      | { type: 'execute'; request?: string }
      | { type: 'retry'; request?: string }
      | { type: 'cancel' }
      | { type: 'mark_sent'; attempt: number; indexes: number[] }
      | { type: 'settle_items'; items: readonly ItemNews[] }
    ));

/** How one item's payout ended (or that it was stopped before it had one: payoutId null). */
export interface ItemNews {
  index: number;
  attempt: number;
  payoutId: string | null;
  outcome: 'paid' | 'failed' | 'canceled';
  failureCode: string | null;
}

/** Where one item stands: its outcome, the attempt it was last executed in (0: never), and whether that attempt handed it over (or stopped it). */
export interface ItemState {
  outcome: ItemOutcome;
  attempt: number;
  sent: boolean;
}

const NEVER_EXECUTED: ItemState = { outcome: 'validated', attempt: 0, sent: false };

export interface PayoutBatchState {
  batch: PayoutBatchCreated | null;
  status: BatchStatus;
  /** The current execution: 0 before the first, then 1, and one more per retry. */
  attempt: number;
  /** The attempt each request that started an execution started (by the digest of its Idempotency-Key and body). */
  requests: Readonly<Record<string, number>>;
  /**
   * Per item index (as a string key), the items that left NEVER_EXECUTED: a persistent map, so an
   * event about a few items costs O(log n), not a copy of 10 000 entries (docs/performance.md).
   */
  items: PersistentMap<ItemState>;
  counts: Record<ItemOutcome, number>;
  totalAmount: number;
  totalFee: number;
  executedAt: string | null;
  finishedAt: string | null;
  canceledAt: string | null;
}

const noCounts = (): Record<ItemOutcome, number> => ({ validated: 0, queued: 0, paid: 0, failed: 0, canceled: 0 });

/** Where item `index` stands. */
export function itemOf(state: PayoutBatchState, index: number): ItemState {
  return state.items.get(String(index)) ?? NEVER_EXECUTED;
}

/** Changes items, keeping the counts in step. */
function withItems(state: PayoutBatchState, indexes: readonly number[], change: (item: ItemState) => ItemState): PayoutBatchState {
  let items = state.items;
  const counts = { ...state.counts };
  for (const i of indexes) {
    const before = items.get(String(i)) ?? NEVER_EXECUTED;
    const after = change(before);
    counts[before.outcome]--;
    counts[after.outcome]++;
    items = items.set(String(i), after);
  }
  return { ...state, items, counts };
}

/** The item indexes of the batch whose item passes `keep`, in index order: a full pass, for what happens once per execution or run. */
export function indexesWhere(state: PayoutBatchState, keep: (item: ItemState) => boolean): number[] {
  const count = state.batch?.items.length ?? 0;
  const found: number[] = [];
  for (let i = 0; i < count; i++) if (keep(itemOf(state, i))) found.push(i);
  return found;
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
  settle_items: ['executing', 'canceled'], // → completed | partially_failed | failed once every item is final (executing only)
};

/** The execution an execute (every item) or a retry (the failed items) starts: its attempt, items, and the total + fees to hold. */
export function executionOf(state: PayoutBatchState, type: 'execute' | 'retry'): { attempt: number; indexes: number[]; amount: number; fee: number; holdSource: string } {
  const batch = present(state.batch, 'payout batch');
  const attempt = state.attempt + 1;
  const items = type === 'execute' ? batch.items : batch.items.filter((i) => itemOf(state, i.index).outcome === 'failed');
  return {
    attempt,
    indexes: items.map((i) => i.index),
    amount: items.reduce((sum, i) => sum + i.amount, 0),
    fee: items.reduce((sum, i) => sum + i.fee, 0),
    holdSource: batchHoldSource(batch.id, attempt),
  };
}

/** How a batch ends once every item is final: all paid, none paid, or some of each. */
function finish(state: PayoutBatchState, at: string): Fact<PayoutBatchEvent>[] {
  if (state.status !== 'executing' || state.counts.queued > 0) return [];
  const type = state.counts.paid === state.batch!.items.length ? 'payout_batch.completed' : state.counts.paid === 0 ? 'payout_batch.failed' : 'payout_batch.partially_failed';
  return [{ type, data: { at } }];
}

function decideOngoing(command: OngoingCommand, state: PayoutBatchState): Fact<PayoutBatchEvent>[] {
  const at = command.at.toISOString();
  switch (command.type) {
    case 'execute':
    case 'retry':
      return [{ type: 'payout_batch.execution_started', data: { ...executionOf(state, command.type), ...(command.request !== undefined ? { request: command.request } : {}), at } }];
    case 'cancel':
      return [{ type: 'payout_batch.canceled', data: { at } }];
    case 'mark_sent': {
      const indexes = command.indexes.filter((i) => {
        const item = itemOf(state, i);
        return item.attempt === command.attempt && !item.sent;
      });
      return indexes.length === 0 ? [] : [{ type: 'payout_batch.items_sent', data: { attempt: command.attempt, indexes, at } }];
    }
    case 'settle_items': {
      // One item_settled per item still waiting on this news (each once, even if named twice), then the end of the batch if it came.
      const events: Fact<PayoutBatchEvent>[] = [];
      let after = state;
      for (const news of command.items) {
        const item = itemOf(after, news.index);
        if (news.index >= (state.batch?.items.length ?? 0) || item.attempt !== news.attempt || FINAL_ITEM_OUTCOMES.includes(item.outcome)) continue;
        events.push({
          type: 'payout_batch.item_settled',
          data: { index: news.index, attempt: news.attempt, payoutId: news.payoutId, outcome: news.outcome, failureCode: news.failureCode, at },
        });
        after = withItems(after, [news.index], (i) => ({ ...i, outcome: news.outcome }));
      }
      return events.length === 0 ? [] : [...events, ...finish(after, at)];
    }
    default:
      return unreachable(command);
  }
}

export const payoutBatchDecider: Decider<PayoutBatchCommand, PayoutBatchState, Fact<PayoutBatchEvent>> = {
  initialState: {
    batch: null,
    status: 'validated',
    attempt: 0,
    requests: {},
    items: PersistentMap.empty(),
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
          items: PersistentMap.empty(),
          counts: { ...noCounts(), validated: items.length },
          totalAmount: items.reduce((sum, i) => sum + i.amount, 0),
          totalFee: items.reduce((sum, i) => sum + i.fee, 0),
        };
      }
      case 'payout_batch.execution_started': {
        const requests = event.data.request !== undefined ? { ...state.requests, [event.data.request]: event.data.attempt } : state.requests;
        return { ...withItems(state, event.data.indexes, () => ({ outcome: 'queued', attempt: event.data.attempt, sent: false })), status: 'executing', attempt: event.data.attempt, requests, executedAt: event.data.at, finishedAt: null };
      }
      case 'payout_batch.items_sent':
        return withItems(state, event.data.indexes, (i) => ({ ...i, sent: true }));
      case 'payout_batch.item_settled':
        return withItems(state, [event.data.index], (i) => ({ ...i, outcome: event.data.outcome }));
      case 'payout_batch.canceled': {
        // Items never executed are canceled at once; queued ones when the runner has stopped them.
        const waiting = indexesWhere(state, (i) => i.outcome === 'validated');
        return { ...withItems(state, waiting, (i) => ({ ...i, outcome: 'canceled' })), status: 'canceled', canceledAt: event.data.at };
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
        throw new Refusal('IKW-IDM-002', 'This idempotency_key was used with a different batch', 'idempotencyKey');
      }
      return [{ type: 'payout_batch.created', data: command.batch }];
    }
    assertOwned(state.batch, command.owner, 'No such payout batch', 'batchId');
    // A request that started an execution, retried (after a crash), started it already.
    if ((command.type === 'execute' || command.type === 'retry') && command.request !== undefined && state.requests[command.request] !== undefined) return [];
    if (!PAYOUT_BATCH_TRANSITIONS[command.type].includes(state.status)) {
      if (command.type === 'settle_items' || command.type === 'mark_sent') return [];
      throw new Refusal('IKW-PEN-005', `A payout batch with status ${state.status} cannot be ${command.type === 'execute' ? 'executed' : command.type === 'retry' ? 'retried' : 'canceled'}`, 'batchId');
    }
    if (command.type === 'retry' && state.counts.failed === 0) throw new Refusal('IKW-PEN-005', 'This payout batch has no failed item to retry', 'batchId');
    return decideOngoing(command, state);
  },
};
