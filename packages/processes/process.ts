import type { Clock } from '#packages/core/clock.js';
import type { EventStore } from '#packages/eventstore/port.js';
import type { Ledger } from '#packages/ledger/decider.js';
import type { BatchJobHandler, JobHandler, JobKind } from '#packages/scheduler/scheduler.js';
import type { OutboxMessenger } from '#packages/messaging/messenger.js';

/**
 * The services a process drives: the kernel's here, and each family adds the services its processes
 * drive to this interface (declaration merging, in its manifest), so the kernel names no family.
 * services/system.ts registers every process with the families' services.
 */
export interface ProcessServices {
  store: EventStore;
  ledger: Ledger;
  clock: Clock;
  outbox: OutboxMessenger;
}

/**
 * A saga or timer: one kind of durable job (its name, payload, dedupe key and lane) and the
 * handler that runs it. Domain services never name a job kind: they get an `Enqueue` port for it.
 */
export type Process<Payload> =
  | { job: JobKind<Payload>; handler(services: ProcessServices): JobHandler<Payload>; batch?: undefined }
  /**
   * A kind whose claimed jobs are handled together (up to `claimLimit` at a time): set-based reads
   * and writes. `companions`: the kinds run one by one that share its lanes (Scheduler.registerBatch).
   */
  | { job: JobKind<Payload>; batch: { handler(services: ProcessServices): BatchJobHandler<Payload>; claimLimit: number; companions?: readonly string[] }; handler?: undefined };

export function defineProcess<Payload>(process: Process<Payload>): Process<Payload> {
  return process;
}

/** Lanes: jobs about one object run in order; different objects' jobs run side by side. */
export const lanes = {
  merchant: (p: { merchantId: string }) => `merchant:${p.merchantId}`,
  payout: (p: { payoutId: string }) => `payout:${p.payoutId}`,
  paymentIntent: (p: { paymentIntentId: string }) => `payment_intent:${p.paymentIntentId}`,
  delivery: (p: { deliveryId: string }) => `delivery:${p.deliveryId}`,
  escrowContract: (p: { contractId: string }) => `escrow_contract:${p.contractId}`,
  refund: (p: { refundId: string }) => `refund:${p.refundId}`,
};
