import { Refusal } from '#packages/core/refusal.js';
import type { Decider } from '#packages/core/decider.js';
import { assertOwned, unreachable } from '#packages/core/aggregate.js';
import type { TemplateCreated, TemplateEvent, TemplateVersion } from './events.js';
import type { Owner } from '#packages/core/owner.js';

export type TemplateCommand =
  | { type: 'create'; template: TemplateCreated; publish: boolean; at: Date }
  | ({ owner: Owner; at: Date } &
      /** `basedOn`: the latest version a new `version` was merged over; another one since is a conflict. */
      ({ type: 'update'; name?: string; version?: Omit<TemplateVersion, 'version' | 'createdAt'>; basedOn: number; publish: boolean } | { type: 'publish'; version: number } | { type: 'delete' }));

export interface TemplateState {
  template: TemplateCreated | null;
  name: string;
  versions: TemplateVersion[];
  published: number | null;
  deleted: boolean;
}

export const initialTemplateState: TemplateState = { template: null, name: '', versions: [], published: null, deleted: false };

/** The latest version (what an update starts from and a preview shows by default). */
export const latestVersion = (state: TemplateState): TemplateVersion => state.versions[state.versions.length - 1]!;

function evolve(state: TemplateState, event: TemplateEvent): TemplateState {
  switch (event.type) {
    case 'template.created':
      return { ...state, template: event.data, name: event.data.name, versions: [event.data.version] };
    case 'template.renamed':
      return { ...state, name: event.data.name };
    case 'template.version_added':
      return { ...state, versions: [...state.versions, event.data.version] };
    case 'template.version_published':
      return { ...state, published: event.data.version };
    case 'template.deleted':
      return { ...state, deleted: true };
  }
}

export const templateDecider: Decider<TemplateCommand, TemplateState, TemplateEvent> = {
  initialState: initialTemplateState,
  evolve,
  decide(command, state) {
    if (command.type === 'create') {
      if (state.template) throw new Refusal('IKW-RES-003', 'This template already exists');
      const created: TemplateEvent = { type: 'template.created', data: command.template };
      if (!command.publish) return [created];
      return [created, { type: 'template.version_published', data: { id: command.template.id, version: 1, at: command.at.toISOString() } }];
    }
    // A deleted template is gone for every command, as another merchant's is.
    assertOwned(state.deleted ? null : state.template, command.owner, 'No such template', 'templateId');
    const id = state.template!.id;
    const at = command.at.toISOString();
    switch (command.type) {
      case 'update': {
        const events: TemplateEvent[] = [];
        if (command.name !== undefined && command.name !== state.name) events.push({ type: 'template.renamed', data: { id, name: command.name, at } });
        let version = latestVersion(state).version;
        if (command.version && version !== command.basedOn) throw new Refusal('IKW-RES-003', 'Another request changed this template while it was being updated; retry the update');
        if (command.version) {
          version += 1;
          events.push({ type: 'template.version_added', data: { id, version: { ...command.version, version, createdAt: at } } });
        }
        if (command.publish && state.published !== version) events.push({ type: 'template.version_published', data: { id, version, at } });
        return events;
      }
      case 'publish':
        if (!state.versions.some((v) => v.version === command.version)) throw new Refusal('IKW-RES-001', `No such version of template ${id}: ${command.version}`, 'version');
        return state.published === command.version ? [] : [{ type: 'template.version_published', data: { id, version: command.version, at } }];
      case 'delete':
        return [{ type: 'template.deleted', data: { id, at } }];
      default:
        return unreachable(command);
    }
  },
};
