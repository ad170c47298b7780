import type { Decider } from '../decider.js';
import type { CustomerCreated, CustomerEvent } from './events.js';

export type CustomerCommand = { type: 'create'; customer: CustomerCreated };

export interface CustomerState {
  customer: CustomerCreated | null;
}

/** Customers; creation is idempotent, so find-or-create can race safely on one stream. */
export const customerDecider: Decider<CustomerCommand, CustomerState, CustomerEvent> = {
  initialState: { customer: null },
  evolve(state, event) {
    switch (event.type) {
      case 'customer.created':
        return { ...state, customer: event.data };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'create':
        return state.customer ? [] : [{ type: 'customer.created', data: command.customer }];
    }
  },
};
