import type { Decider, Fact } from '#packages/core/decider.js';
import { unixSeconds } from '#packages/core/clock.js';
import { present } from '#packages/core/aggregate.js';
import type { RecipientEvent, RecipientObject } from './events.js';
import { type RecipientCommand, recipientDecider, type RecipientState } from './decider.js';

/** The public payout recipient: what the API answers and what its events carry (`data.object`). */
export function toRecipientObject(state: RecipientState): RecipientObject {
  const r = present(state.recipient, 'payout recipient');
  const d = r.destination;
  return {
    id: r.id,
    object: 'payout_recipient',
    display_name: r.displayName,
    destination_type: d.type,
    currency: d.currency,
    country: d.type === 'mobile_money' ? d.country : null,
    operator: d.type === 'mobile_money' ? d.operator : null,
    msisdn: d.type === 'mobile_money' ? d.msisdn : null,
    bank_code: d.type === 'bank' ? d.bank_code : null,
    account_number: d.type === 'bank' ? d.account_number : null,
    account_name: d.type === 'bank' ? d.account_name : null,
    status: state.status,
    created: unixSeconds(new Date(r.createdAt)),
    updated: unixSeconds(new Date(state.updatedAt ?? r.createdAt)),
    livemode: r.environment === 'live',
  };
}

/** The payout recipient aggregate as the command handler runs it: the decider's facts, each stored with the public object after it. */
export const recipientAggregate: Decider<RecipientCommand, RecipientState, Fact<RecipientEvent>> = { ...recipientDecider, render: { object: toRecipientObject } };
