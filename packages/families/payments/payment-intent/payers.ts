import type { Owner } from '#packages/core/owner.js';
import type { EventMetadata } from '#packages/eventstore/port.js';

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
  /** The customer's id, and whether this call created it (none named: null). */
  findOrCreate(owner: Owner, lookup: PayerLookup, metadata: EventMetadata): Promise<{ id: string; created: boolean } | null>;
}
