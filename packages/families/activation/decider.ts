import type { Decider, Fact } from '#packages/core/decider.js';
import { Refusal } from '#packages/core/refusal.js';
import { unreachable } from '#packages/core/aggregate.js';
import type { ApplicationDetails, ApplicationEvent, ApplicationObject, ApplicationStatus, Decision, DestinationCheck, RequestedField } from './events.js';
import { activationErrors } from './errors.js';

/**
 * An operator's decision on an application: `by` is its actor (`operator:<id>`); `reviewed`, the
 * submission (1, 2, …) the reviewer read, when they name it: a decision on an application the
 * merchant submitted again since is refused, not made on details nobody read.
 */
export type DecisionCommand =
  | { type: 'approve'; by: string; reviewed?: number; at: Date }
  | { type: 'reject'; by: string; reason: string; reviewed?: number; at: Date }
  | { type: 'request_information'; by: string; fields: RequestedField[]; reviewed?: number; at: Date }
  | { type: 'suspend'; by: string; reason: string; at: Date }
  | { type: 'reinstate'; by: string; at: Date };

export type ApplicationCommand = { type: 'submit'; merchantId: string; details: ApplicationDetails; destinationCheck: DestinationCheck; at: Date } | (DecisionCommand & { merchantId: string });

/** The application as it is folded: the object's fields, its merchant unknown until the first submission. */
export interface ApplicationState extends Omit<ApplicationObject, 'object' | 'merchantId'> {
  merchantId: string | null;
}

export const initialApplicationState: ApplicationState = {
  merchantId: null,
  status: 'not_submitted',
  details: null,
  destinationCheck: null,
  submissions: 0,
  firstSubmittedAt: null,
  submittedAt: null,
  decisions: [],
};

/** The statuses each decision applies to, and the one it leads to. */
const DECISIONS: Record<DecisionCommand['type'], { from: readonly ApplicationStatus[]; to: ApplicationStatus; decision: Decision['decision'] }> = {
  approve: { from: ['under_review'], to: 'active', decision: 'approved' },
  // Information asked and not given yet does not hold a rejection back.
  reject: { from: ['under_review', 'information_requested'], to: 'rejected', decision: 'rejected' },
  request_information: { from: ['under_review'], to: 'information_requested', decision: 'information_requested' },
  suspend: { from: ['active'], to: 'suspended', decision: 'suspended' },
  reinstate: { from: ['suspended'], to: 'active', decision: 'reinstated' },
};

/** The statuses a merchant submits in: its first application, and one the platform asked more of. */
export const SUBMITTABLE: readonly ApplicationStatus[] = ['not_submitted', 'information_requested'];

const SUBMIT_REFUSED: Partial<Record<ApplicationStatus, string>> = {
  under_review: 'The application is under review: the platform decides before it can be submitted again',
  active: 'The application was approved: live is open',
  rejected: 'The application was rejected; write to support to contest the decision',
  suspended: 'The account is suspended; write to support (GET /api/v1/merchant/activation gives the reason)',
};

function decided(state: ApplicationState, decision: Decision, status: ApplicationStatus): ApplicationState {
  return { ...state, status, decisions: [...state.decisions, decision] };
}

/**
 * One merchant's application to take live money: submitted (again, after the platform asked for
 * information) by the merchant, decided by operators. Rejection is final for the merchant (the
 * platform asks for information when something can be fixed); a suspension is lifted by reinstating.
 */
export const applicationDecider: Decider<ApplicationCommand, ApplicationState, Fact<ApplicationEvent>> = {
  initialState: initialApplicationState,

  evolve(state, event) {
    switch (event.type) {
      case 'activation.submitted': {
        const d = event.data;
        return {
          ...state,
          merchantId: d.merchantId,
          status: 'under_review',
          details: d.details,
          destinationCheck: d.destinationCheck,
          submissions: state.submissions + 1,
          firstSubmittedAt: state.firstSubmittedAt ?? d.at,
          submittedAt: d.at,
        };
      }
      case 'activation.approved':
        return decided(state, { decision: 'approved', by: event.data.by, reason: null, fields: [], at: event.data.at }, 'active');
      case 'activation.rejected':
        return decided(state, { decision: 'rejected', by: event.data.by, reason: event.data.reason, fields: [], at: event.data.at }, 'rejected');
      case 'activation.information_requested':
        return decided(state, { decision: 'information_requested', by: event.data.by, reason: null, fields: event.data.fields, at: event.data.at }, 'information_requested');
      case 'activation.suspended':
        return decided(state, { decision: 'suspended', by: event.data.by, reason: event.data.reason, fields: [], at: event.data.at }, 'suspended');
      case 'activation.reinstated':
        return decided(state, { decision: 'reinstated', by: event.data.by, reason: null, fields: [], at: event.data.at }, 'active');
    }
  },

  decide(command, state) {
    const at = command.at.toISOString();
    if (command.type === 'submit') {
      if (!SUBMITTABLE.includes(state.status)) throw new Refusal('IKW-ACT-002', SUBMIT_REFUSED[state.status] ?? activationErrors['IKW-ACT-002'].message);
      return [{ type: 'activation.submitted', data: { merchantId: command.merchantId, details: command.details, destinationCheck: command.destinationCheck, at } }];
    }
    const rule = DECISIONS[command.type];
    if (!rule.from.includes(state.status)) throw new Refusal('IKW-ACT-004', `An application ${state.status.replace('_', ' ')} cannot be ${rule.decision.replace('_', ' ')}`);
    if ('reviewed' in command && command.reviewed !== undefined && command.reviewed !== state.submissions) {
      throw new Refusal('IKW-ACT-004', `The merchant submitted again since the submission you read (${command.reviewed}, now ${state.submissions}): read the application again`, 'submission');
    }
    const base = { merchantId: command.merchantId, by: command.by, at };
    switch (command.type) {
      case 'approve':
        return [{ type: 'activation.approved', data: base }];
      case 'reject':
        return [{ type: 'activation.rejected', data: { ...base, reason: command.reason } }];
      case 'request_information':
        return [{ type: 'activation.information_requested', data: { ...base, fields: command.fields } }];
      case 'suspend':
        return [{ type: 'activation.suspended', data: { ...base, reason: command.reason } }];
      case 'reinstate':
        return [{ type: 'activation.reinstated', data: base }];
      default:
        return unreachable(command);
    }
  },
};

/** The application as the API and the read model show it. */
export function toApplicationObject(state: ApplicationState, merchantId = state.merchantId ?? ''): ApplicationObject {
  return {
    object: 'activation_application',
    merchantId,
    status: state.status,
    details: state.details,
    destinationCheck: state.destinationCheck,
    submissions: state.submissions,
    firstSubmittedAt: state.firstSubmittedAt,
    submittedAt: state.submittedAt,
    decisions: state.decisions,
  };
}

/** The aggregate as the command handler runs it: each fact stored with the application after it. */
export const applicationAggregate: Decider<ApplicationCommand, ApplicationState, Fact<ApplicationEvent>> = { ...applicationDecider, render: { object: (state) => toApplicationObject(state) } };
