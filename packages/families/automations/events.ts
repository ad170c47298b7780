import type { DomainEvent } from '#packages/core/decider.js';
import type { SealedSecret } from '#packages/families/webhooks/index.js';
import type { Definition } from './definition.js';
import type { Credential, Environment } from '#packages/core/owner.js';

/** One immutable version of a definition; runs record the version they ran. */
export interface AutomationVersion {
  version: number;
  definition: Definition;
  createdAt: string;
  /**
   * Who saved it: its runs act with this credential's authority as it is when each step runs
   * (docs/automations.md, "Scopes"). Absent on versions saved before credentials were recorded.
   */
  credential?: Credential;
}

export interface AutomationCreated {
  id: string;
  merchantId: string;
  environment: Environment;
  version: AutomationVersion;
  enabled: boolean;
  /** Signs the requests of http_request steps (Standard Webhooks); sealed, shown once at creation. */
  secret: SealedSecret;
  createdAt: string;
}

/** Why an automation stopped: the merchant's choice, or its runs failing again and again. */
export type DisabledReason = 'merchant' | 'failures';

export type AutomationEvent =
  | DomainEvent<'automation.created', AutomationCreated>
  | DomainEvent<'automation.updated', { id: string; version: AutomationVersion }>
  | DomainEvent<'automation.enabled', { id: string; at: string }>
  | DomainEvent<'automation.disabled', { id: string; at: string; reason: DisabledReason; failures: number | null; lastError: string | null }>
  | DomainEvent<'automation.deleted', { id: string; at: string }>;

export const automationStream = (id: string) => `automation-${id}`;
