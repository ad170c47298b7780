import { unixSeconds } from '../../core/clock.js';
import type { Decider } from '../../core/decider.js';
import { Refusal } from '../../core/refusal.js';
import { assertOwned, objectAttacher, present, unreachable, type Draft } from '../aggregate.js';
import type { Destination } from '../payout-method/events.js';
import type { RecipientCreated, RecipientEvent, RecipientObject, RecipientStatus } from './events.js';
import type { Owner } from '../../core/owner.js';

export type RecipientCommand =
  | { type: 'create'; recipient: RecipientCreated }
  | ({ owner: Owner; at: Date } & ({ type: 'update'; displayName: string; destination: Destination } | { type: 'archive' }));

export interface RecipientState {
  recipient: RecipientCreated | null;
  status: RecipientStatus;
  updatedAt: string | null;
}

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

const withObjects = objectAttacher<RecipientState, RecipientEvent>((state, event) => recipientDecider.evolve(state, event), toRecipientObject);

/** A recipient is active until archived; an archived one is kept (batches name it) but takes no change and no new batch. */
export const recipientDecider: Decider<RecipientCommand, RecipientState, RecipientEvent> = {
  initialState: { recipient: null, status: 'active', updatedAt: null },

  evolve(state, event) {
    switch (event.type) {
      case 'payout_recipient.created':
        return { recipient: event.data, status: 'active', updatedAt: event.data.createdAt };
      case 'payout_recipient.updated':
        return { ...state, recipient: { ...state.recipient!, displayName: event.data.displayName, destination: event.data.destination }, updatedAt: event.data.at };
      case 'payout_recipient.archived':
        return { ...state, status: 'archived', updatedAt: event.data.at };
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      if (state.recipient) throw new Refusal('IKW-RES-003', `Recipient ${command.recipient.id} already exists`);
      return withObjects(state, [{ type: 'payout_recipient.created', data: command.recipient }]);
    }
    assertOwned(state.recipient, command.owner, 'No such payout recipient', 'id');
    if (state.status === 'archived') {
      // Archiving twice changes nothing; an archived recipient is not edited.
      if (command.type === 'archive') return [];
      throw new Refusal('IKW-RES-002', 'This recipient is archived and cannot be changed', 'id');
    }
    const at = command.at.toISOString();
    let draft: Draft<RecipientEvent>;
    switch (command.type) {
      case 'update':
        draft = { type: 'payout_recipient.updated', data: { displayName: command.displayName, destination: command.destination, at } };
        break;
      case 'archive':
        draft = { type: 'payout_recipient.archived', data: { at } };
        break;
      default:
        return unreachable(command);
    }
    return withObjects(state, [draft]);
  },
};
