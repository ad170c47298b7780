import type { Knex } from 'knex';
import type { ConsumerSpec } from '#packages/bus/consumer.js';
import type { Clock } from '#packages/core/clock.js';
import type { CampaignPayoutRef, CampaignRef, ContributionPaymentRef } from '../commands.js';
import { CONTRIBUTION_METADATA } from '../events.js';
import type { PaymentIntentObject } from '#packages/families/payments/index.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { enqueue } from '#packages/scheduler/scheduler.js';
import { defineProcess } from '#packages/processes/process.js';

/** A campaign's jobs run in order: its payments' outcomes and its deadline. */
const campaignLane = (p: { campaignId: string }) => `funding_campaign:${p.campaignId}`;

/** A contribution's payment intent reached a final status: the campaign counts it, or marks it failed. */
export const fundingPayment = defineProcess<ContributionPaymentRef>({
  job: { name: 'funding.payment_outcome', key: (p) => `funding-payment:${p.paymentIntentId}`, lane: campaignLane },
  handler:
    ({ fundingContributions }) =>
    (p) =>
      fundingContributions.recordPayment(p),
});

/** A published campaign's deadline: all-or-nothing below target fails and refunds everyone; otherwise it closes and releases. */
export const fundingDeadline = defineProcess<CampaignRef>({
  job: { name: 'funding.deadline', key: (p) => `funding-deadline:${p.campaignId}`, lane: campaignLane },
  handler:
    ({ fundingCampaigns }) =>
    (p) =>
      fundingCampaigns.expire(p),
});

/** A payout of released funds claimed on the campaign but not made (a crash in between): made now, once. */
export const fundingPayoutMend = defineProcess<CampaignPayoutRef>({
  job: { name: 'funding.payout_mend', key: (p) => `funding-payout:${p.campaignPayoutId}`, lane: campaignLane },
  handler:
    ({ campaignPayouts }) =>
    (p) =>
      campaignPayouts.mendPayout(p),
});

export const FUNDING_PAYMENTS_CONSUMER = 'funding-payments';
const FINAL = new Set(['payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled']);

/** The bus consumer that notices the final status of contributions' payment intents: one job each, in the consumer's transaction. */
export function fundingPaymentsConsumer(clock: Clock): ConsumerSpec {
  return {
    name: FUNDING_PAYMENTS_CONSUMER,
    checkpointTable: 'bus_checkpoints',
    handles: [...FINAL],
    handle: async (trx: Knex.Transaction, events: RecordedEvent[]) => {
      for (const event of events) {
        if (!FINAL.has(event.type)) continue;
        const object = (event.data as { object?: PaymentIntentObject }).object;
        const { merchant_id: merchantId, environment } = event.metadata;
        const campaignId = object?.metadata[CONTRIBUTION_METADATA.campaign];
        const contributionId = object?.metadata[CONTRIBUTION_METADATA.contribution];
        // The campaign checks that the intent is the one it made for the contribution: metadata alone proves nothing.
        if (!object || !campaignId || !contributionId || !merchantId || !environment) continue;
        await enqueue(trx, fundingPayment.job, { merchantId, environment, campaignId, contributionId, paymentIntentId: object.id }, clock.now());
      }
    },
  };
}
