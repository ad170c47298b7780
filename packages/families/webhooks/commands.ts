import type { Clock } from '#packages/core/clock.js';
import { newId } from '#packages/core/ids.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import { canReadEventType, readScopeOfEventType } from '#packages/families/accounts/index.js';
import type { PublicEventCatalogue } from '#packages/core/public-events.js';
import { generateSigningSecret, type SecretBox } from '#packages/core/secrets.js';
import { checkEndpointUrl } from '#packages/webhooks/url-policy.js';
import { isOwned } from '#packages/core/aggregate.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { webhookEndpointDecider, type Owner, type WebhookEndpointCommand, type WebhookEndpointState } from './decider.js';
import { webhookEndpointStream, type SealedSecret, type WebhookEndpointEvent } from './events.js';
import type { Cidr } from '#packages/core/cidr.js';
import type { Actor } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import { Refusal } from '#packages/core/refusal.js';

/** A change of an endpoint, in the domain's words (the API's `enabled_events` is translated by its route). */
export interface EndpointChanges {
  url?: string;
  enabledEvents?: string[];
  enabled?: boolean;
}

/** A new secret: the plaintext, shown once, and its sealed form for the event log. */
function newSecret(box: SecretBox, at: Date): { plain: string; sealed: SealedSecret } {
  const plain = generateSigningSecret();
  return { plain, sealed: { sealed: box.seal(plain), last4: plain.slice(-4), createdAt: at.toISOString() } };
}

export class WebhookEndpoints extends CommandService<WebhookEndpointCommand, WebhookEndpointState, WebhookEndpointEvent> {
  constructor(
    store: EventStore,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly allowedPrivateRanges: readonly Cidr[],
    private readonly publicEvents: PublicEventCatalogue,
  ) {
    super(store, webhookEndpointStream, webhookEndpointDecider);
  }

  private url(owner: Owner, raw: string): string {
    const checked = checkEndpointUrl(raw, { environment: owner.environment, allowedPrivateRanges: this.allowedPrivateRanges });
    if (!checked.ok) throw new Refusal('IKW-WHK-001', checked.message, 'url');
    return checked.url;
  }

  private events(types: string[]): string[] {
    types.forEach((type, i) => {
      if (!this.publicEvents.isSubscribable(type)) throw new Refusal('IKW-WHK-002', `Unknown event type '${type}'; see docs/events.md`, `enabledEvents.${i}`);
    });
    return [...new Set(types)];
  }

  /**
   * An endpoint reaches only the event families the credential changing it can read (docs/webhooks.md,
   * "Scopes"): each type's read scope, and for `*` every family's, else 403 IKW-AUT-004 naming the type.
   */
  private assertReadable(scopes: readonly string[], types: readonly string[], param: (i: number) => string): void {
    types.forEach((type, i) => {
      const unreadable = type === '*' ? this.publicEvents.names().find((t) => !canReadEventType(scopes, t)) : canReadEventType(scopes, type) ? undefined : type;
      if (unreadable === undefined) return;
      const scope = readScopeOfEventType(unreadable)!;
      const what = type === '*' ? `'*' (every event type), and ${unreadable} needs ${scope}` : `'${type}': it needs ${scope}`;
      throw new Refusal('IKW-AUT-004', `This credential cannot subscribe to ${what}; an endpoint receives only events its credential can read`, param(i));
    });
  }

  /** Registers an endpoint. The URL is checked, never contacted. Returns the secret once. */
  async create(owner: Owner, input: { url: string; enabledEvents: string[] }, actor: Actor, scopes: readonly string[]): Promise<{ state: WebhookEndpointState; secret: string }> {
    const url = this.url(owner, input.url);
    const enabledEvents = this.events(input.enabledEvents);
    // The list as sent, so that the field's index is the request's.
    this.assertReadable(scopes, input.enabledEvents, (i) => `enabledEvents.${i}`);
    const at = this.clock.now();
    const id = newId('we');
    const secret = newSecret(this.box, at);
    const result = await this.run(
      id,
      { type: 'create', endpoint: { id, merchantId: owner.merchantId, environment: owner.environment, url, enabledEvents, secret: secret.sealed, createdAt: at.toISOString() } },
      auditMetadata(this.clock, owner, id, actor),
    );
    return { state: result.state, secret: secret.plain };
  }

  /**
   * `scopes`: the caller's. An update that leaves the endpoint receiving anything (all but disabling
   * alone) is checked as a creation would be: the types it names, else the ones the endpoint has.
   */
  async update(owner: Owner, id: string, input: EndpointChanges, actor: Actor, scopes: readonly string[]): Promise<WebhookEndpointState> {
    if (input.enabledEvents !== undefined) {
      this.events(input.enabledEvents); // an unknown type is IKW-WHK-002 first
      this.assertReadable(scopes, input.enabledEvents, (i) => `enabledEvents.${i}`);
    } else if (input.url !== undefined || input.enabled === true) {
      const { state } = await this.load(id);
      // Another merchant's endpoint is refused as unknown by the command below, before anything is said of its types.
      if (!state.deleted && state.endpoint && isOwned(state.endpoint, owner)) this.assertReadable(scopes, state.enabledEvents, () => 'enabledEvents');
    }
    const result = await this.run(
      id,
      {
        type: 'update',
        owner,
        at: this.clock.now(),
        ...(input.url !== undefined ? { url: this.url(owner, input.url) } : {}),
        ...(input.enabledEvents !== undefined ? { enabledEvents: this.events(input.enabledEvents) } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      },
      auditMetadata(this.clock, owner, id, actor),
    );
    return result.state;
  }

  /** Marks an endpoint failing (after the last retry failed); true when it was not failing before. */
  async markFailing(owner: Owner, id: string): Promise<boolean> {
    const r = await this.run(id, { type: 'mark_failing', owner, at: this.clock.now() }, this.systemMeta(owner, id), 'internal');
    return r.events.length > 0;
  }

  /** Clears `failing` after a successful delivery. */
  async markRecovered(owner: Owner, id: string): Promise<void> {
    await this.run(id, { type: 'mark_recovered', owner, at: this.clock.now() }, this.systemMeta(owner, id), 'internal');
  }

  private systemMeta(owner: Owner, id: string): EventMetadata {
    return auditMetadata(this.clock, owner, id, { actor: 'webhook-dispatcher' });
  }

  /** Removes the endpoint: no delivery is sent to it again (those queued are skipped) and it is no longer found. */
  async delete(owner: Owner, id: string, actor: Actor): Promise<void> {
    await this.run(id, { type: 'delete', owner, at: this.clock.now() }, auditMetadata(this.clock, owner, id, actor));
  }

  /** The new secret signs from now on; the previous one signs alongside it for 24 hours. */
  async rotateSecret(owner: Owner, id: string, actor: Actor): Promise<{ state: WebhookEndpointState; secret: string }> {
    const at = this.clock.now();
    const secret = newSecret(this.box, at);
    const result = await this.run(id, { type: 'rotate_secret', owner, at, secret: secret.sealed }, auditMetadata(this.clock, owner, id, actor));
    return { state: result.state, secret: secret.plain };
  }
}
