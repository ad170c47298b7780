import type { AnyStep } from '../../../eventstore/command-handler.js';

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

/** The merchant opening organizations use: the one registered, filled once every family is built (merchants are built after accounts). */
export class RegisteredMerchantOpening implements MerchantOpening {
  private registered: MerchantOpening | undefined;

  register(...openings: MerchantOpening[]): void {
    if (openings.length + (this.registered ? 1 : 0) > 1) throw new Error('Merchant opening is registered by more than one family');
    this.registered ??= openings[0];
  }

  create(name: string, actor: string): Promise<{ id: string }> {
    return this.opening().create(name, actor);
  }

  creation(name: string, actor: string, email: string | null): { merchantId: string; step: AnyStep } {
    return this.opening().creation(name, actor, email);
  }

  private opening(): MerchantOpening {
    if (!this.registered) throw new Error('No family opens merchants (the merchants family registers it)');
    return this.registered;
  }
}
