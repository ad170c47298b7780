import { ledger } from '#packages/families/ledger/index.js';
import { platform } from '#packages/families/platform/index.js';
import { risk } from '#packages/families/risk/index.js';
import { PaymentIntents, type PaymentIntentDeps } from './payment-intent/commands.js';
import { CollectionOutcomes } from './payment-intent/outcomes.js';
import { PaymentIntentOtps } from './payment-intent/otp.js';
import { paymentIntentPublicEvents } from './payment-intent/public-events.js';
import type { PayerCustomers } from './payment-intent/payers.js';
import { PaymentRecipients, type PaymentRecipient } from './payment-intent/recipients.js';
import { ledgerSettlement } from './processes/ledger-settlement.js';
import { payinCallback } from './processes/payin-callback.js';
import { payinStatusCheck, refundStatusCheck } from './processes/status-check.js';
import { refundCallback } from './processes/refund-callback.js';
import { RailRefunds } from './rail-refund/commands.js';
import { knexRefundLeases } from './rail-refund/lease.js';
import { heldReserves, pendingPayments } from './payment-intent/postings.js';
import { railRefundsInFlight } from './rail-refund/postings.js';
import { defineFamily, RegisteredOnce } from '#packages/families/family.js';
import { paymentsReadSide } from './read/index.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    paymentIntents: PaymentIntents;
    /** A collection's callbacks and status checks. */
    collectionOutcomes: CollectionOutcomes;
    /** submit_otp: the payer's one-time code for a payment that waits for it. */
    paymentIntentOtps: PaymentIntentOtps;
    railRefunds: RailRefunds;
  }
}

declare module '../family.js' {
  interface Registrations {
    /** Where a family's payments go (held, split, taken): payment intents ask each in registration order. */
    paymentRecipients?: readonly PaymentRecipient[];
    /** Who keeps the customers payments are made by (billing): found or created in a payment's commit. */
    payerCustomers?: PayerCustomers;
  }
}

/** Payment intents (docs/payments.md); the payment recipients other families register. */
export const payments = defineFamily({
  name: 'payments',
  readSide: paymentsReadSide,
  needs: [ledger, platform, risk],
  // Payments wait in `pending` until settled, their reserves in `reserved` until released; refunds through a rail wait for its answer.
  ledger: { reducers: [pendingPayments, heldReserves, railRefundsInFlight] },
  publicEvents: [paymentIntentPublicEvents],
  // The settlement delay of payments: pending funds become available (ledger.settle).
  processes: [payinCallback, payinStatusCheck, refundCallback, refundStatusCheck, ledgerSettlement],
  build: ({ config, store, ledger, clock, log, knex, reads, railsOf, payoutSettings, enqueuer, instance }, { riskAssessments }) => {
    // Filled once every family is built (collect, below): the recipients' families are built after this one.
    const paymentRecipients = new PaymentRecipients();
    const payerCustomers = new RegisteredOnce<PayerCustomers>("the payers' customers (billing)");
    const paymentIntentDeps: PaymentIntentDeps = {
      customers: reads,
      payers: { findOrCreate: (owner, lookup, metadata) => payerCustomers.get().findOrCreate(owner, lookup, metadata) },
      store,
      ledger,
      clock,
      rails: railsOf,
      capabilities: reads,
      activations: reads,
      limits: reads,
      risk: riskAssessments,
      publicUrl: config.publicUrl,
      defaultReturnUrl: async (merchantId, environment) => (await payoutSettings.payoutSettings(merchantId, environment)).defaultReturnUrl,
      settlementDelayMs: (env) => (env === 'sandbox' ? 0 : config.settlementDelayMs),
      scheduleSettlement: enqueuer(ledgerSettlement),
      instance,
      recipients: paymentRecipients,
      scheduleStatusCheck: enqueuer(payinStatusCheck),
      log,
    };
    return {
      paymentIntents: new PaymentIntents(paymentIntentDeps),
      collectionOutcomes: new CollectionOutcomes(paymentIntentDeps),
      paymentIntentOtps: new PaymentIntentOtps({ store, clock, rails: railsOf, log: log.child({ component: 'payment-intent-otps' }) }),
      paymentRecipients,
      payerCustomers,
      // Refunds through a rail that keeps Sika's money, whichever family's (docs/connectors.md, "Refunds through a rail").
      railRefunds: new RailRefunds({ store, ledger, clock, log: log.child({ component: 'rail-refunds' }), rails: railsOf, scheduleStatusCheck: enqueuer(refundStatusCheck), leases: knexRefundLeases(knex, instance) }),
    };
  },
  collect: ({ paymentRecipients, payerCustomers }, registrations) => {
    paymentRecipients.register(...registrations.flatMap((r) => r.paymentRecipients ?? []));
    payerCustomers.register(...registrations.flatMap((r) => (r.payerCustomers ? [r.payerCustomers] : [])));
  },
});

// What other families use of this one (its public face): they import it from here, never from its files.
export { HELD_BY_KEY, MARKETPLACE_ORDER_METADATA_KEY } from './payment-intent/commands.js';
export type { ConfirmInput, PaymentIntents } from './payment-intent/commands.js';
export type { PaymentIntentOtps } from './payment-intent/otp.js';
export { payinClearing, paymentIntentStream } from './payment-intent/events.js';
export { releasingReserve } from './payment-intent/postings.js';
export type { PayinClearing, PaymentIntentObject, PaymentIntentStatus, PaymentMethodDetails } from './payment-intent/events.js';
export type { PayerCustomers, PayerLookup } from './payment-intent/payers.js';
export type { PaymentIntentState } from './payment-intent/decider.js';
export type { PaymentRecipient, PaymentRecipients } from './payment-intent/recipients.js';
export { paymentIntentAggregate, toObject } from './payment-intent/render.js';
export type { RailRefunds } from './rail-refund/commands.js';
export type { RailRefundRecord } from './rail-refund/events.js';
// The books the rails' news desk matches news against (registered when the system opens: services/rails.ts).
export { collectionBook } from './payment-intent/news-book.js';
export { refundBook } from './rail-refund/news-book.js';

// What other families' routes and read models use of this family.
export type { PaymentIntentEvent } from './payment-intent/events.js';
