import { ledger } from '#packages/families/ledger/index.js';
import { merchants } from '#packages/families/merchants/index.js';
import { platform } from '#packages/families/platform/index.js';
import { risk } from '#packages/families/risk/index.js';
import { AccountHolderLookup, BankList } from './payout/banks.js';
import { BatchPayouts } from './payout/batch-payouts.js';
import { PayoutCommits, type PayoutDeps } from './payout/commands.js';
import { PayoutCreation } from './payout/creation.js';
import { PayoutOperatorSide } from './payout/operator-side.js';
import { ReleasedFundsPayouts } from './payout/released-funds.js';
import { PayoutReviews } from './payout/reviews.js';
import { PayoutFundingSources, type FundingSource } from './payout/funding.js';
import { payoutPublicEvents } from './payout/public-events.js';
import { PayoutSettingsService } from './payout/settings.js';
import { payoutCallback } from './processes/payout-callback.js';
import { payoutOverdue } from './processes/payout-overdue.js';
import { payoutReconcile } from './processes/payout-reconcile.js';
import { payoutStatusCheck } from './processes/status-check.js';
// Part 2 debt: the family reads its own read side directly until its read API is its manifest's.
import { hasPaidTo, neverPaid } from './read/payouts.js';
import { accounts } from '#packages/families/accounts/index.js';
import { payoutHoldKind } from './payout/postings.js';
import { defineFamily } from '#packages/families/family.js';
import { payoutsReadSide } from './read/index.js';
import { payoutErrors } from './errors.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    payouts: PayoutCreation;
    payoutOperatorSide: PayoutOperatorSide;
  }
}

declare module '../family.js' {
  interface Registrations {
    /** Where a family's payouts hold their money from and where it returns (batches, escrow releases). */
    payoutFundingSources?: readonly FundingSource[];
  }
}

/** Payouts to mobile money and their destinations; the merchant's payout settings (docs/payouts.md). */
export const payouts = defineFamily({
  name: 'payouts',
  readSide: payoutsReadSide,
  needs: [accounts, ledger, merchants, platform, risk],
  ledger: { holds: [payoutHoldKind] },
  errors: payoutErrors,
  publicEvents: [payoutPublicEvents],
  processes: [payoutCallback, payoutOverdue, payoutReconcile, payoutStatusCheck],
  build: ({ config, store, ledger, clock, log, knex, railsOf, reads, payoutSettings, enqueuer, unscheduler, outbox: messenger, rateLimiter }, { verifications, riskAssessments }) => {
    // Filled once every family is built (collect, below): the families funding payouts are built after this one.
    const payoutFundingSources = new PayoutFundingSources();
    const nameChecks = async (owner: { merchantId: string; environment: string }, credential: string) => {
      const rule = config.nameCheckLimit;
      if (!rule) return { giveBack: async () => undefined };
      const bucket = { key: `name-check:${owner.merchantId}:${owner.environment}:${credential}`, rule };
      await rateLimiter.take([bucket]);
      return { giveBack: () => rateLimiter.giveBack(bucket) };
    };
    const deps: PayoutDeps = {
      store,
      ledger,
      clock,
      log,
      rails: railsOf,
      capabilities: reads,
      activations: reads,
      limits: reads,
      risk: riskAssessments,
      history: { hasPaidTo: (owner, destination) => hasPaidTo(knex, owner, destination), neverPaid: (owner, destinations) => neverPaid(knex, owner, destinations) },
      settings: (owner) => payoutSettings.payoutSettings(owner.merchantId, owner.environment),
      // A user's challenge is used up in the payout's commit.
      verifications,
      nameChecks,
      funding: payoutFundingSources,
      scheduleOverdueCheck: enqueuer(payoutOverdue),
      dropOverdueCheck: unscheduler(payoutOverdue),
      scheduleReconcile: enqueuer(payoutReconcile),
      scheduleStatusCheck: enqueuer(payoutStatusCheck),
    };
    // One payout, several use cases: each is given the payout's commits, and those that send a payout the operator's side.
    const commits = new PayoutCommits(deps);
    const payoutOperatorSide = new PayoutOperatorSide(deps, commits);
    const payouts = new PayoutCreation(deps, commits, payoutOperatorSide);
    return {
      payouts,
      payoutOperatorSide,
      payoutReviews: new PayoutReviews(deps, commits, payoutOperatorSide),
      batchPayouts: new BatchPayouts(deps, commits, payoutOperatorSide),
      releasedFundsPayouts: new ReleasedFundsPayouts(deps, commits, payoutOperatorSide, payouts),
      payoutFundingSources,
      payoutBanks: new BankList(railsOf),
      accountHolders: new AccountHolderLookup({ rails: railsOf, activations: reads, nameChecks }),
      /** Payout settings: lowering the safety delay of saved destinations takes a second factor. */
      merchantPayoutSettings: new PayoutSettingsService({ store, clock, verifications, messenger, directory: reads }),
    };
  },
  collect: ({ payoutFundingSources }, registrations) => payoutFundingSources.register(...registrations.flatMap((r) => r.payoutFundingSources ?? [])),
});

// What other families use of this one (its public face): they import it from here, never from its files.
export { loadPayoutMethod } from './payout-method/commands.js';
export { unusableReason } from './payout-method/decider.js';
export { destinationSchema, normalizeDestination } from './payout-method/destination.js';
export type { DestinationInput } from './payout-method/destination.js';
export type { Destination } from './payout-method/events.js';
export { payoutIdOf } from './payout/commands.js';
export type { AccountHolder, AccountHolderLookup, BankList, SettlementCheck } from './payout/banks.js';
export type { BatchPayouts } from './payout/batch-payouts.js';
export type { CreatePayoutInput, PayoutRef } from './payout/commands.js';
export type { PayoutCreation } from './payout/creation.js';
export type { ReleasedFundsPayouts } from './payout/released-funds.js';
export { FINAL_PAYOUT_STATUSES } from './payout/decider.js';
export type { PayoutCreated, PayoutObject } from './payout/events.js';
export type { FundingSource } from './payout/funding.js';
// The book the rails' news desk matches payouts' news against (registered when the system opens: services/rails.ts).
export { payoutBook } from './payout/news-book.js';

// What other families' routes and read models use of this family.
export type { DelayReason, PayoutEvent } from './payout/events.js';
export type { PayoutReviews } from './payout/reviews.js';
export { payoutErrors } from './errors.js';
