import type { DomainEvent } from '#packages/core/decider.js';
import { derivedId } from '#packages/core/ids.js';
import type { Destination } from '#packages/families/payouts/index.js';
import type { Environment } from '#packages/core/owner.js';

export type BatchStatus = 'validated' | 'executing' | 'completed' | 'partially_failed' | 'failed' | 'canceled';
/** Where an item stands in its batch; the live status of its payout is on the item's row (items list). */
export type ItemOutcome = 'validated' | 'queued' | 'paid' | 'failed' | 'canceled';
export const FINAL_ITEM_OUTCOMES: readonly ItemOutcome[] = ['paid', 'failed', 'canceled'];

/** One validated instruction of a batch: what will be paid, to whom, and its fee. */
export interface BatchItem {
  index: number;
  amount: number;
  fee: number;
  destination: Destination;
  recipientId: string | null;
  reference: string | null;
  metadata: Record<string, string>;
}

export interface PayoutBatchCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  idempotencyKey: string | null;
  metadata: string | null;
  format: 'json' | 'csv';
  /** Digest of the request that created it: the same idempotency_key with another request is refused. */
  fingerprint: string;
  items: BatchItem[];
  createdAt: string;
}

/** The public PayoutBatch: totals and counts; its items are listed apart (GET …/items). */
export interface PayoutBatchObject {
  id: string;
  object: 'payout_batch';
  status: BatchStatus;
  currency: string;
  total_amount: number;
  total_fee: number;
  item_count: number;
  counts: Record<ItemOutcome, number>;
  attempt: number;
  idempotency_key: string | null;
  metadata: string | null;
  source_format: 'json' | 'csv';
  created: number;
  executed_at: string | null;
  finished_at: string | null;
  canceled_at: string | null;
  livemode: boolean;
}

type WithObject<D> = D & { object: PayoutBatchObject };

export type PayoutBatchEvent =
  | DomainEvent<'payout_batch.created', WithObject<PayoutBatchCreated>>
  /**
   * An execution (attempt 1) or a retry of failed items (attempt 2, …): their total + fees are held.
   * `request`: the digest of the request that started it (Idempotency-Key and body), when it had a key.
   */
  | DomainEvent<'payout_batch.execution_started', WithObject<{ attempt: number; indexes: number[]; amount: number; fee: number; holdSource: string; request?: string; at: string }>>
  /** Items of the current attempt handed to their operators (or stopped, once canceled): a resumed run skips them. */
  | DomainEvent<'payout_batch.items_sent', { attempt: number; indexes: number[]; at: string }>
  | DomainEvent<'payout_batch.item_settled', WithObject<{ index: number; attempt: number; payoutId: string | null; outcome: 'paid' | 'failed' | 'canceled'; failureCode: string | null; at: string }>>
  | DomainEvent<'payout_batch.canceled', WithObject<{ at: string }>>
  | DomainEvent<'payout_batch.completed', WithObject<{ at: string }>>
  | DomainEvent<'payout_batch.partially_failed', WithObject<{ at: string }>>
  | DomainEvent<'payout_batch.failed', WithObject<{ at: string }>>;

export const payoutBatchStream = (id: string) => `payout_batch-${id}`;

/** The payout that pays an item in an attempt: derived, so a run resumed after a crash lands on the same payout. */
export const itemPayoutId = (batchId: string, index: number, attempt: number) => derivedId('po', `payout_batch|${batchId}|${index}|${attempt}`);

/** The ledger hold of one execution of a batch. */
export const batchHoldSource = (batchId: string, attempt: number) => `${batchId}/${attempt}`;
