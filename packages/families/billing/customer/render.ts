import { unixSeconds } from '#packages/core/clock.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import { present } from '#packages/core/aggregate.js';
import { customerDecider, type CustomerCommand, type CustomerState } from './decider.js';
import type { CustomerEvent, CustomerObject } from './events.js';

/** The public Customer: what the API answers and what customer events carry (`data.object`). */
export function toCustomerObject(state: CustomerState): CustomerObject {
  const c = present(state.customer, 'customer');
  return {
    id: c.id,
    object: 'customer',
    name: state.name,
    email: c.email,
    phone: state.phone,
    currency: state.walletCurrency ?? c.currency,
    balance: state.balance,
    metadata: state.metadata,
    created: unixSeconds(new Date(c.createdAt)),
    livemode: c.environment === 'live',
  };
}

/** Customers as the command handler runs them: the decider's facts, each stored with the customer after it. */
export const customerAggregate: Decider<CustomerCommand, CustomerState, Fact<CustomerEvent>> = { ...customerDecider, render: { object: toCustomerObject } };
