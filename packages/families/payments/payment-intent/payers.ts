import type { Owner } from '../../../core/owner.js';
import type { EventMetadata } from '../../../eventstore/port.js';

/** How a payment names its payer: an existing customer's id, or an e-mail or an E.164 phone to find or create one by. */
export interface PayerLookup {
  customer?: string;
  email?: string;
  phone?: string;
}

/**
 * The customers payments are made by: the id of the customer a payment names, found or created in
 * the payment's commit (docs/payments.md). The family that keeps customers (billing) registers it.
 */
export interface PayerCustomers {
  findOrCreate(owner: Owner, lookup: PayerLookup, metadata: EventMetadata): Promise<string | null>;
}

/**
 * The payer customers payment intents ask: the one a family registers (its manifest's
 * registrations). Filled once every family is built, since billing is built after payments.
 */
export class RegisteredPayerCustomers implements PayerCustomers {
  private registered: PayerCustomers | undefined;

  register(...customers: PayerCustomers[]): void {
    if (customers.length + (this.registered ? 1 : 0) > 1) throw new Error('Payer customers are registered by more than one family');
    this.registered ??= customers[0];
  }

  findOrCreate(owner: Owner, lookup: PayerLookup, metadata: EventMetadata): Promise<string | null> {
    if (!this.registered) throw new Error("No family keeps the payers' customers (billing registers them)");
    return this.registered.findOrCreate(owner, lookup, metadata);
  }
}
