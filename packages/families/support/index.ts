import { SupportTickets } from './commands.js';
import { supportTicketForward, supportTicketsConsumer } from './processes/support-ticket-forward.js';
import { defineFamily } from '#packages/families/family.js';

declare module '../../processes/process.js' {
  interface ProcessServices {
    supportTickets: SupportTickets;
  }
}

/** Support requests: recorded, then e-mailed to SUPPORT_EMAIL (docs/support.md). */
export const support = defineFamily({
  name: 'support',
  needs: [],
  processes: [supportTicketForward],
  build: ({ config, store, clock, outbox: messenger }) => ({
    supportTickets: new SupportTickets({ store, clock, messenger, supportEmail: config.supportEmail }),
  }),
  consumers: (_, { clock }) => [supportTicketsConsumer(clock)],
});
