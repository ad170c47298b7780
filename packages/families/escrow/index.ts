import { EscrowContracts } from '../../domain/escrow/commands.js';
import { escrowAutoRelease } from '../../processes/escrow-auto-release.js';
import { escrowFunding, escrowFundingConsumer } from '../../processes/escrow-funding.js';
// Part 2 debt: the family reads its own read side directly until its read API is its manifest's.
import { escrowDirectory } from '../../../projections/read-ports.js';
import { defineFamily } from '../family.js';
import { payouts } from '../payouts/index.js';

/** Escrow contracts, their releases and disputes (docs/escrow.md). */
export const escrow = defineFamily({
  name: 'escrow',
  needs: [payouts],
  processes: [escrowFunding, escrowAutoRelease],
  build: ({ store, clock, knex, enqueuer }, { payouts }) => ({
    escrow: new EscrowContracts({ store, clock, payouts, directory: escrowDirectory(knex), scheduleAutoRelease: enqueuer(escrowAutoRelease) }),
  }),
  // Contracts take their payments.
  registrations: ({ escrow }) => ({ paymentRecipients: [escrow.paymentRecipient] }),
  consumers: (_, { clock }) => [escrowFundingConsumer(clock)],
});
