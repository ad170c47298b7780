import { ledger } from '#packages/families/ledger/index.js';
import { EscrowContractCommits, type EscrowDeps } from './commands.js';
import { EscrowContracts } from './contracts.js';
import { EscrowDisputes } from './disputes.js';
import { EscrowFunding } from './funding.js';
import { EscrowRefunds } from './refunds.js';
import { EscrowReleases } from './releases.js';
import { escrowPayoutFunding } from './payout-funding.js';
import { escrowContractPublicEvents } from './public-events.js';
import type { EscrowDirectory } from '#packages/families/read-ports.js';
import { payments } from '#packages/families/payments/index.js';
import { escrowAutoRelease } from './processes/escrow-auto-release.js';
import { escrowFunding, escrowFundingConsumer } from './processes/escrow-funding.js';
// Part 2 debt: the family reads its own read side directly until its read API is its manifest's.
import { escrowContractFundedBy } from './read/escrow-contracts.js';
import { contractOfDispute } from './read/escrow-disputes.js';
import { contractOfRelease } from './read/escrow-releases.js';
import { escrowPayoutHoldKind } from './postings.js';
import { defineFamily } from '#packages/families/family.js';
import { escrowReadSide } from './read/index.js';
import { payouts } from '#packages/families/payouts/index.js';
import { escrowErrors } from './errors.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    escrowFunding: EscrowFunding;
    escrowReleases: EscrowReleases;
  }
}

/** Escrow contracts, their releases and disputes (docs/escrow.md). */
export const escrow = defineFamily({
  name: 'escrow',
  readSide: escrowReadSide,
  needs: [payments, payouts, ledger],
  ledger: { holds: [escrowPayoutHoldKind] },
  errors: escrowErrors,
  accounts: {
    escrow: { owner: 'payers', mayGoNegative: false, shownAs: 'escrowed, held (escrow)', holds: "an escrow contract's funds (escrow:<contract>)" },
  },
  publicEvents: [escrowContractPublicEvents],
  processes: [escrowFunding, escrowAutoRelease],
  build: ({ store, ledger, clock, knex, enqueuer }, { releasedFundsPayouts, railRefunds }) => {
    const directory: EscrowDirectory = {
      contractOfRelease: (owner, id) => contractOfRelease(knex, owner, id),
      contractOfDispute: (owner, id) => contractOfDispute(knex, owner, id),
      escrowContractFundedBy: (owner, id) => escrowContractFundedBy(knex, owner, id),
    };
    const deps: EscrowDeps = { store, ledger, clock, releasedFundsPayouts, railRefunds, directory, scheduleAutoRelease: enqueuer(escrowAutoRelease) };
    // One contract, several use cases: each is given the contract's commits; funding and disputes give money back through the refunds, and a dispute's release is executed by the releases.
    const commits = new EscrowContractCommits(deps);
    const escrowRefunds = new EscrowRefunds(deps, commits);
    const escrowReleases = new EscrowReleases(deps, commits);
    return {
      escrowContracts: new EscrowContracts(deps, commits),
      escrowFunding: new EscrowFunding(deps, commits, escrowRefunds),
      escrowRefunds,
      escrowReleases,
      escrowDisputes: new EscrowDisputes(deps, commits, escrowRefunds, escrowReleases),
    };
  },
  // Contracts take their payments; their releases' payouts hold out of the contract's escrow.
  registrations: (services) => ({ paymentRecipients: [services.escrowFunding.paymentRecipient], payoutFundingSources: [escrowPayoutFunding] }),
  consumers: (_, { clock }) => [escrowFundingConsumer(clock)],
});
