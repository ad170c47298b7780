import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned, unreachable } from '#packages/core/aggregate.js';
import type { Destination } from '#packages/families/payouts/index.js';
import type { RecipientCreated, RecipientEvent, RecipientStatus } from './events.js';
import type { Owner } from '#packages/core/owner.js';

export type RecipientCommand = { type: 'create'; recipient: RecipientCreated } | ({ owner: Owner; at: Date } & ({ type: 'update'; displayName: string; destination: Destination } | { type: 'archive' }));

export interface RecipientState {
  recipient: RecipientCreated | null;
  status: RecipientStatus;
  updatedAt: string | null;
}

/** A recipient is active until archived; an archived one is kept (batches name it) but takes no change and no new batch. */
export const recipientDecider: Decider<RecipientCommand, RecipientState, Fact<RecipientEvent>> = {
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
      return [{ type: 'payout_recipient.created', data: command.recipient }];
    }
    assertOwned(state.recipient, command.owner, 'No such payout recipient', 'recipientId');
    if (state.status === 'archived') {
      // Archiving twice changes nothing; an archived recipient is not edited.
      if (command.type === 'archive') return [];
      throw new Refusal('IKW-RES-002', 'This recipient is archived and cannot be changed', 'recipientId');
    }
    const at = command.at.toISOString();
    let draft: Fact<RecipientEvent>;
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
    return [draft];
  },
};
