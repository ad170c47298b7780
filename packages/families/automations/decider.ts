import { canonicalJson } from '#packages/core/json.js';
import { Refusal } from '#packages/core/refusal.js';
import type { Decider } from '#packages/core/decider.js';
import { assertOwned, unreachable } from '#packages/core/aggregate.js';
import type { Definition } from './definition.js';
import type { AutomationCreated, AutomationEvent, AutomationVersion, DisabledReason } from './events.js';
import type { Credential, Owner } from '#packages/core/owner.js';

export type AutomationCommand =
  | { type: 'create'; automation: AutomationCreated }
  | ({ owner: Owner; at: Date } &
      /** `basedOn`: the version the changes were merged over; another update since is a conflict. */
      (
        | { type: 'update'; definition: Definition; basedOn: number; credential: Credential }
        | { type: 'enable' }
        | { type: 'disable' }
        /** The runner's: `failures` consecutive failed runs. */
        | { type: 'disable_for_failures'; failures: number; lastError: string }
        | { type: 'delete' }
      ));

export interface AutomationState {
  automation: AutomationCreated | null;
  versions: AutomationVersion[];
  enabled: boolean;
  disabledReason: DisabledReason | null;
  deleted: boolean;
}

export const initialAutomationState: AutomationState = { automation: null, versions: [], enabled: false, disabledReason: null, deleted: false };

export const currentVersion = (state: AutomationState): AutomationVersion => state.versions[state.versions.length - 1]!;

function evolve(state: AutomationState, event: AutomationEvent): AutomationState {
  switch (event.type) {
    case 'automation.created':
      return { ...state, automation: event.data, versions: [event.data.version], enabled: event.data.enabled, disabledReason: event.data.enabled ? null : 'merchant' };
    case 'automation.updated':
      return { ...state, versions: [...state.versions, event.data.version] };
    case 'automation.enabled':
      return { ...state, enabled: true, disabledReason: null };
    case 'automation.disabled':
      return { ...state, enabled: false, disabledReason: event.data.reason };
    case 'automation.deleted':
      return { ...state, enabled: false, deleted: true };
  }
}

/**
 * An automation: its definition's versions and whether it runs. Enable and disable are
 * idempotent; the runner's disable only acts on an enabled automation (its notice is sent once).
 */
export const automationDecider: Decider<AutomationCommand, AutomationState, AutomationEvent> = {
  initialState: initialAutomationState,
  evolve,
  decide(command, state) {
    if (command.type === 'create') {
      if (state.automation) throw new Refusal('IKW-RES-003', 'This automation already exists');
      return [{ type: 'automation.created', data: command.automation }];
    }
    assertOwned(state.deleted ? null : state.automation, command.owner, 'No such automation', 'automationId');
    const id = state.automation!.id;
    const at = command.at.toISOString();
    switch (command.type) {
      case 'update': {
        const current = currentVersion(state);
        if (current.version !== command.basedOn) throw new Refusal('IKW-RES-003', 'Another request changed this automation while it was being updated; retry the update');
        // The same definition saved by another credential is a new version: the way to give an automation a credential that is still valid.
        // Canonical JSON: a definition read back (jsonb orders keys its own way) and sent again is the same definition.
        if (canonicalJson(current.definition) === canonicalJson(command.definition) && canonicalJson(current.credential ?? null) === canonicalJson(command.credential)) return [];
        return [{ type: 'automation.updated', data: { id, version: { version: current.version + 1, definition: command.definition, createdAt: at, credential: command.credential } } }];
      }
      case 'enable':
        return state.enabled ? [] : [{ type: 'automation.enabled', data: { id, at } }];
      case 'disable':
        return state.enabled ? [{ type: 'automation.disabled', data: { id, at, reason: 'merchant', failures: null, lastError: null } }] : [];
      case 'disable_for_failures':
        return state.enabled ? [{ type: 'automation.disabled', data: { id, at, reason: 'failures', failures: command.failures, lastError: command.lastError } }] : [];
      case 'delete':
        return [{ type: 'automation.deleted', data: { id, at } }];
      default:
        return unreachable(command);
    }
  },
};
