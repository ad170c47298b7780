import type { AnyStep } from '#packages/eventstore/command-handler.js';

/**
 * How an organization opens its merchant (the merchants family registers it, its manifest's
 * registrations): accounts know organizations and their members, merchants know their keys.
 */
export interface MerchantOpening {
  /** Creates a merchant in its own commit; resolves to its id. */
  create(name: string, actor: string): Promise<{ id: string }>;
  /** The step that creates a merchant, to commit with what opens it (a sign-up), and the new merchant's id. */
  creation(name: string, actor: string, email: string | null): { merchantId: string; step: AnyStep };
}
