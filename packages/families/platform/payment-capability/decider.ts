import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned, unreachable } from '#packages/core/aggregate.js';
import type { CapabilityCreated, CapabilityStatus, PaymentCapabilityEvent } from './events.js';
import type { Owner } from '#packages/core/owner.js';
import { platformErrors } from '../errors.js';

export type PaymentCapabilityCommand =
  | { type: 'create'; capability: CapabilityCreated }
  | ({ owner: Owner; at: Date } & ({ type: 'update'; isEnabled: boolean } | { type: 'suspend'; reason: string } | { type: 'resume' } | { type: 'delete' }));

export interface PaymentCapabilityState {
  capability: CapabilityCreated | null;
  isEnabled: boolean;
  status: CapabilityStatus;
  suspensionReason: string | null;
  deleted: boolean;
  updatedAt: string | null;
}

type OngoingCommand = Exclude<PaymentCapabilityCommand, { type: 'create' }>;

/** suspend acts on an active capability, resume on a suspended one; update and delete on either. */
export const PAYMENT_CAPABILITY_TRANSITIONS: Readonly<Record<OngoingCommand['type'], readonly CapabilityStatus[]>> = {
  update: ['active', 'suspended'],
  suspend: ['active'],
  resume: ['suspended'],
  delete: ['active', 'suspended'],
};

function decideOngoing(command: OngoingCommand): Fact<PaymentCapabilityEvent> {
  const at = command.at.toISOString();
  switch (command.type) {
    case 'update':
      return { type: 'payment_capability.updated', data: { isEnabled: command.isEnabled, at } };
    case 'suspend':
      return { type: 'payment_capability.suspended', data: { reason: command.reason, at } };
    case 'resume':
      return { type: 'payment_capability.resumed', data: { at } };
    case 'delete':
      return { type: 'payment_capability.deleted', data: { at } };
    default:
      return unreachable(command);
  }
}

/**
 * One capability per merchant × environment × country × currency × method × operator (its id is
 * derived from them). Deleted, it is gone (404) until created again: the catalog's default applies.
 */
export const paymentCapabilityDecider: Decider<PaymentCapabilityCommand, PaymentCapabilityState, Fact<PaymentCapabilityEvent>> = {
  initialState: { capability: null, isEnabled: true, status: 'active', suspensionReason: null, deleted: false, updatedAt: null },

  evolve(state, event) {
    switch (event.type) {
      case 'payment_capability.created':
        return { capability: event.data, isEnabled: event.data.isEnabled, status: 'active', suspensionReason: null, deleted: false, updatedAt: event.data.createdAt };
      case 'payment_capability.updated':
        return { ...state, isEnabled: event.data.isEnabled, updatedAt: event.data.at };
      case 'payment_capability.suspended':
        return { ...state, status: 'suspended', suspensionReason: event.data.reason, updatedAt: event.data.at };
      case 'payment_capability.resumed':
        return { ...state, status: 'active', suspensionReason: null, updatedAt: event.data.at };
      case 'payment_capability.deleted':
        return { ...state, deleted: true, updatedAt: event.data.at };
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      if (state.capability && !state.deleted) throw new Refusal('IKW-CAP-003', platformErrors['IKW-CAP-003'].message, 'paymentMethodType');
      return [{ type: 'payment_capability.created', data: command.capability }];
    }
    assertOwned(state.deleted ? null : state.capability, command.owner, 'No such payment capability', 'capabilityId');
    if (!PAYMENT_CAPABILITY_TRANSITIONS[command.type].includes(state.status)) {
      throw new Refusal('IKW-RES-002', `A ${state.status} payment capability cannot be ${command.type === 'suspend' ? 'suspended' : 'resumed'}`, 'capabilityId');
    }
    return [decideOngoing(command)];
  },
};
