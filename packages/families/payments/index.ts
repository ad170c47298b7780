import { PaymentIntents } from './payment-intent/commands.js';
import { paymentIntentPublicEvents } from './payment-intent/public-events.js';
import { PaymentRecipients, type PaymentRecipient } from './payment-intent/recipients.js';
import { ledgerSettlement } from './processes/ledger-settlement.js';
import { payinCallback } from './processes/payin-callback.js';
import { payinStatusCheck, refundStatusCheck } from '../../processes/status-check.js';
import { refundCallback } from './processes/refund-callback.js';
import { RailRefunds } from './rail-refund/commands.js';
import { pendingPayments } from './payment-intent/postings.js';
import { railRefundsInFlight } from './rail-refund/postings.js';
import { defineFamily } from '../family.js';

declare module '../family.js' {
  interface Registrations {
    /** Where a family's payments go (held, split, taken): payment intents ask each in registration order. */
    paymentRecipients?: readonly PaymentRecipient[];
  }
}

/** Payment intents (docs/payment-intents.md); the payment recipients other families register. */
export const payments = defineFamily({
  name: 'payments',
  needs: [],
  // Payments wait in `pending` until settled; refunds through a rail wait for its answer.
  ledger: { reducers: [pendingPayments, railRefundsInFlight] },
  publicEvents: [paymentIntentPublicEvents],
  processes: [payinCallback, payinStatusCheck, refundCallback, refundStatusCheck],
  build: ({ config, store, clock, log, reads, railsOf, payoutSettings, enqueuer, instance }) => {
    // Filled once every family is built (collect, below): the recipients' families are built after this one.
    const paymentRecipients = new PaymentRecipients();
    return {
      paymentIntents: new PaymentIntents({
        customers: reads,
        store,
        clock,
        rails: railsOf,
        capabilities: reads,
        activations: reads,
        publicUrl: config.publicUrl,
        defaultReturnUrl: async (merchantId, environment) => (await payoutSettings.payoutSettings(merchantId, environment)).defaultReturnUrl,
        settlementDelayMs: (env) => (env === 'sandbox' ? 0 : config.settlementDelayMs),
        scheduleSettlement: enqueuer(ledgerSettlement),
        instance,
        recipients: paymentRecipients,
        scheduleStatusCheck: enqueuer(payinStatusCheck),
        log,
      }),
      paymentRecipients,
      // Refunds through a rail that keeps Sika's money, whichever family's (docs/connectors.md, "Refunds through a rail").
      railRefunds: new RailRefunds({ store, clock, log: log.child({ component: 'rail-refunds' }), rails: railsOf, scheduleStatusCheck: enqueuer(refundStatusCheck) }),
    };
  },
  collect: ({ paymentRecipients }, registrations) => paymentRecipients.register(...registrations.flatMap((r) => r.paymentRecipients ?? [])),
});
