import { Refusal } from '#packages/core/refusal.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { Decider } from '#packages/core/decider.js';
import type { SealedSecret, WebhookEndpointCreated, WebhookEndpointEvent } from './events.js';
import type { Owner } from '#packages/core/owner.js';

/** After a rotation the previous secret keeps signing alongside the new one for this long. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 3_600_000;

export type { Owner };

export type WebhookEndpointCommand =
  | { type: 'create'; endpoint: WebhookEndpointCreated }
  | ({ owner: Owner; at: Date } & (
      | { type: 'update'; url?: string; enabledEvents?: string[]; enabled?: boolean }
      | { type: 'rotate_secret'; secret: SealedSecret }
      | { type: 'mark_failing' }
      | { type: 'mark_recovered' }
      | { type: 'delete' }
    ));

export interface WebhookEndpointState {
  endpoint: WebhookEndpointCreated | null;
  url: string;
  enabledEvents: string[];
  enabled: boolean;
  failing: boolean;
  secret: SealedSecret | null;
  previous: { secret: SealedSecret; expiresAt: string } | null;
  rotatedAt: string | null;
  deleted: boolean;
}

export const webhookEndpointDecider: Decider<WebhookEndpointCommand, WebhookEndpointState, WebhookEndpointEvent> = {
  initialState: { endpoint: null, url: '', enabledEvents: [], enabled: false, failing: false, secret: null, previous: null, rotatedAt: null, deleted: false },

  evolve(state, event) {
    switch (event.type) {
      case 'webhook_endpoint.created':
        return { ...state, endpoint: event.data, url: event.data.url, enabledEvents: event.data.enabledEvents, enabled: true, secret: event.data.secret };
      case 'webhook_endpoint.updated':
        return {
          ...state,
          url: event.data.url ?? state.url,
          enabledEvents: event.data.enabledEvents ?? state.enabledEvents,
          enabled: event.data.enabled ?? state.enabled,
        };
      case 'webhook_endpoint.secret_rotated':
        return { ...state, secret: event.data.secret, previous: { secret: event.data.previous, expiresAt: event.data.previousExpiresAt }, rotatedAt: event.data.secret.createdAt };
      case 'webhook_endpoint.failing':
        return { ...state, failing: true };
      case 'webhook_endpoint.recovered':
        return { ...state, failing: false };
      case 'webhook_endpoint.deleted':
        return { ...state, deleted: true, enabled: false };
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      if (state.endpoint) throw new Refusal('IKW-RES-003', 'This webhook endpoint already exists');
      return [{ type: 'webhook_endpoint.created', data: command.endpoint }];
    }
    // A deleted endpoint is no longer found, by its owner either.
    const e = state.deleted ? null : state.endpoint;
    assertOwned(e, command.owner, 'No such webhook endpoint', 'endpointId');
    const at = command.at.toISOString();
    switch (command.type) {
      case 'update': {
        const data: { id: string; url?: string; enabledEvents?: string[]; enabled?: boolean; updatedAt: string } = { id: e.id, updatedAt: at };
        if (command.url !== undefined && command.url !== state.url) data.url = command.url;
        if (command.enabledEvents !== undefined) data.enabledEvents = command.enabledEvents;
        if (command.enabled !== undefined && command.enabled !== state.enabled) data.enabled = command.enabled;
        if (Object.keys(data).length === 2) return [];
        return [{ type: 'webhook_endpoint.updated', data }];
      }
      case 'rotate_secret':
        return [
          {
            type: 'webhook_endpoint.secret_rotated',
            data: { id: e.id, secret: command.secret, previous: state.secret!, previousExpiresAt: new Date(command.at.getTime() + PREVIOUS_SECRET_TTL_MS).toISOString() },
          },
        ];
      case 'mark_failing':
        return state.failing ? [] : [{ type: 'webhook_endpoint.failing', data: { id: e.id, at } }];
      case 'mark_recovered':
        return state.failing ? [{ type: 'webhook_endpoint.recovered', data: { id: e.id, at } }] : [];
      case 'delete':
        return [{ type: 'webhook_endpoint.deleted', data: { id: e.id, at } }];
    }
  },
};
