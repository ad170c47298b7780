import { unixSeconds } from '../../core/clock.js';
import type { Decider } from '../../core/decider.js';
import { Refusal } from '../../core/refusal.js';
import { assertOwned, objectAttacher, present, unreachable, type Draft } from '../aggregate.js';
import type { CapabilityCreated, CapabilityStatus, PaymentCapabilityEvent, PaymentCapabilityObject } from './events.js';
import type { Owner } from '../../core/owner.js';

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

export function toPaymentCapabilityObject(state: PaymentCapabilityState): PaymentCapabilityObject {
  const c = present(state.capability, 'payment capability');
  return {
    id: c.id,
    object: 'payment_capability',
    country: c.country,
    currency: c.currency,
    payment_method_type: c.paymentMethodType,
    operator: c.operator,
    is_enabled: state.isEnabled,
    status: state.status,
    suspension_reason: state.suspensionReason,
    created: unixSeconds(new Date(c.createdAt)),
    updated: unixSeconds(new Date(state.updatedAt ?? c.createdAt)),
    livemode: c.environment === 'live',
  };
}

const withObjects = objectAttacher<PaymentCapabilityState, PaymentCapabilityEvent>((s, e) => paymentCapabilityDecider.evolve(s, e), toPaymentCapabilityObject);

type OngoingCommand = Exclude<PaymentCapabilityCommand, { type: 'create' }>;

/** suspend acts on an active capability, resume on a suspended one; update and delete on either. */
export const PAYMENT_CAPABILITY_TRANSITIONS: Readonly<Record<OngoingCommand['type'], readonly CapabilityStatus[]>> = {
  update: ['active', 'suspended'],
  suspend: ['active'],
  resume: ['suspended'],
  delete: ['active', 'suspended'],
};

function decideOngoing(command: OngoingCommand): Draft<PaymentCapabilityEvent> {
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
export const paymentCapabilityDecider: Decider<PaymentCapabilityCommand, PaymentCapabilityState, PaymentCapabilityEvent> = {
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
      if (state.capability && !state.deleted) throw new Refusal('IKW-CAP-003', undefined, 'paymentMethodType');
      return withObjects(state, [{ type: 'payment_capability.created', data: command.capability }]);
    }
    assertOwned(state.deleted ? null : state.capability, command.owner, 'No such payment capability', 'id');
    if (!PAYMENT_CAPABILITY_TRANSITIONS[command.type].includes(state.status)) {
      throw new Refusal('IKW-RES-002', `A ${state.status} payment capability cannot be ${command.type === 'suspend' ? 'suspended' : 'resumed'}`, 'id');
    }
    return withObjects(state, [decideOngoing(command)]);
  },
};
