/** The support ticket decider: submitted once, forwarded once. */
import t from '#tap';
import { supportTicketAggregate } from '#packages/families/support/render.js';
import type { TicketSubmitted } from '#packages/families/support/events.js';
import { spec } from '../../support/decider-spec.js';

const owner = { merchantId: 'acct_1', environment: 'sandbox' } as const;
const T0 = new Date('2026-01-01T00:00:00Z');

t.test('support ticket: submitted once, forwarded once', async (t) => {
  const tickets = spec(supportTicketAggregate);
  const ticket: TicketSubmitted = {
    id: 't1',
    ...owner,
    name: 'Awa',
    email: 'awa@example.com',
    subject: 'Help',
    message: 'Hi',
    category: 'other',
    context: { merchantName: 'Boutique', livemode: false, actor: 'key_1', userId: null, requestId: 'req_1', userAgent: null, page: null, relatedObject: null },
    submittedAt: T0.toISOString(),
  };
  const submitted = tickets.history({ type: 'submit', ticket });
  t.match(submitted, [{ type: 'support_ticket.submitted', data: { object: { id: 't1', object: 'support_ticket', status: 'received', email: 'awa@example.com' } } }]);
  tickets.given(submitted).when({ type: 'submit', ticket }).thenThrows(t, 'IKW-RES-003');
  const forwarded = tickets
    .given(submitted)
    .when({ type: 'record_forwarded', to: 'help@sika.example', at: T0 })
    .then(t, [{ type: 'support_ticket.forwarded', data: { to: 'help@sika.example', at: T0.toISOString() } }]);
  tickets.given(forwarded).when({ type: 'record_forwarded', to: 'help@sika.example', at: T0 }).thenNothing(t, 'a job run again forwards nothing twice');
  tickets.given([]).when({ type: 'record_forwarded', to: null, at: T0 }).thenNothing(t, 'no such ticket: nothing to forward');
});
