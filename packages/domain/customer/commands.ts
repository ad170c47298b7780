import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Clock } from '../../core/clock.js';
import { ApiError } from '../../core/errors.js';
import type { EventMetadata, EventStore } from '../../eventstore/port.js';
import { findCustomer } from '../../../projections/customers.js';
import { handleCommand } from '../decider.js';
import type { Environment } from '../merchant/events.js';
import { customerDecider } from './decider.js';
import { customerStream } from './events.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The id of the customer a merchant knows by this e-mail (or phone) in this environment. Derived,
 * not random, so that concurrent find-or-creates land on one stream and create it once.
 */
export function derivedCustomerId(merchantId: string, environment: Environment, kind: 'email' | 'phone', value: string): string {
  const digest = createHash('sha256').update(`${merchantId}|${environment}|${kind}|${value}`).digest();
  let id = '';
  for (let i = 0; i < 24; i++) id += BASE62[digest[i]! % 62];
  return `cus_${id}`;
}

export interface CustomerLookup {
  customer?: string;
  email?: string;
  /** E.164 */
  phone?: string;
}

/**
 * Resolves the customer of a payment intent: an explicit id must exist for this merchant and
 * environment; otherwise the e-mail, then the phone, finds the customer or creates one.
 */
export async function findOrCreateCustomer(
  knex: Knex,
  store: EventStore,
  clock: Clock,
  merchantId: string,
  environment: Environment,
  lookup: CustomerLookup,
  metadata: EventMetadata,
): Promise<string | null> {
  if (lookup.customer) {
    const found = await findCustomer(knex, merchantId, environment, lookup.customer);
    if (!found) throw new ApiError('IKW-VAL-001', `No such customer: '${lookup.customer}'`, 'customer');
    return found.id;
  }
  const email = lookup.email?.trim().toLowerCase();
  const key = email ? ({ kind: 'email', value: email } as const) : lookup.phone ? ({ kind: 'phone', value: lookup.phone } as const) : null;
  if (!key) return null;
  const id = derivedCustomerId(merchantId, environment, key.kind, key.value);
  await handleCommand(
    store,
    customerStream(id),
    customerDecider,
    {
      type: 'create',
      customer: {
        id,
        merchantId,
        environment,
        name: null,
        email: email ?? null,
        phone: lookup.phone ?? null,
        currency: null,
        metadata: {},
        createdAt: clock.now().toISOString(),
      },
    },
    metadata,
    { retriesOnConflict: 3 },
  );
  return id;
}
