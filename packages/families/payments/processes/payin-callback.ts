import type { CollectCallback } from '#packages/connectors/callbacks.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/** The operator's answer to a collection (sandbox timers; live callbacks) reaches its payment intent. */
export const payinCallback = defineProcess<CollectCallback>({
  job: { name: 'payin.callback', key: (p) => `payin:${p.operationId}`, lane: lanes.paymentIntent },
  handler:
    ({ collectionOutcomes }) =>
    async (callback) => {
      await collectionOutcomes.applyCallback(callback);
    },
});
