import type { Knex } from 'knex';
import type { ConsumerSpec } from '#packages/bus/consumer.js';
import type { Clock } from '#packages/core/clock.js';
import type { TicketRef } from '../commands.js';
import type { SupportTicketEvent } from '../events.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { enqueue } from '#packages/scheduler/scheduler.js';
import { defineProcess, lanes } from '#packages/processes/process.js';

/** Forwards a submitted support ticket to the support address by e-mail. */
export const supportTicketForward = defineProcess<TicketRef>({
  job: { name: 'support_ticket.forward', key: (p) => `support-ticket:${p.ticketId}`, lane: lanes.merchant },
  handler:
    ({ supportTickets }) =>
    (p) =>
      supportTickets.forward(p),
});

export const SUPPORT_TICKETS_CONSUMER = 'support-tickets';

/** Each submitted ticket becomes a forwarding job, in the consumer's transaction: none is lost or doubled. */
export function supportTicketsConsumer(clock: Clock): ConsumerSpec {
  return {
    name: SUPPORT_TICKETS_CONSUMER,
    checkpointTable: 'bus_checkpoints',
    handles: ['support_ticket.submitted'],
    handle: async (trx: Knex.Transaction, events: readonly RecordedEvent[]) => {
      for (const event of events) {
        if (event.type !== 'support_ticket.submitted') continue;
        const ticket = (event as unknown as Extract<SupportTicketEvent, { type: 'support_ticket.submitted' }>).data;
        await enqueue(trx, supportTicketForward.job, { merchantId: ticket.merchantId, ticketId: ticket.id }, clock.now());
      }
    },
  };
}
