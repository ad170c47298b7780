import type { Knex } from 'knex';
import type { PaymentIntentEvent, PaymentIntentStatus } from '../payment-intent/events.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';

const TABLE = 'read.operations';

/**
 * read.operations: one row per confirmation attempt (`op_…`), for the hosted status page that
 * customers land on. Public by unguessable id, so it holds only what that page shows.
 */
export const operationsProjection: Projection = {
  name: 'operations',
  tables: [TABLE],
  migrations: [
    {
      name: 'operations/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE ${TABLE} (
          id text PRIMARY KEY,
          payment_intent text NOT NULL,
          status text NOT NULL,
          amount bigint NOT NULL,
          currency text NOT NULL,
          return_url text NOT NULL,
          livemode boolean NOT NULL,
          updated_at timestamptz NOT NULL
        )`),
    },
  ],
  handles: [
    'payment_intent.confirmation_started',
    'payment_intent.confirmation_aborted',
    'payment_intent.processing',
    'payment_intent.requires_action',
    'payment_intent.succeeded',
    'payment_intent.payment_failed',
    'payment_intent.canceled',
  ],
  ...rowChangeProjection({ [TABLE]: ['id'] }, (event) => {
    const e = event as unknown as PaymentIntentEvent;
    const update = (id: string, status: string) => [{ table: TABLE, key: { id }, set: { status, updated_at: event.recordedAt } }];
    switch (e.type) {
      case 'payment_intent.confirmation_started': {
        const insert = {
          id: e.data.operationId,
          payment_intent: event.streamId.replace(/^payment_intent-/, ''),
          status: 'processing',
          amount: e.data.amount,
          currency: e.data.currency,
          return_url: e.data.returnUrl,
          livemode: e.data.livemode,
          updated_at: e.data.startedAt,
        };
        return [{ table: TABLE, insert }];
      }
      case 'payment_intent.confirmation_aborted':
        return update(e.data.operationId, 'requires_payment_method');
      case 'payment_intent.processing':
      case 'payment_intent.requires_action':
      case 'payment_intent.succeeded':
      case 'payment_intent.payment_failed':
        return update(e.data.operationId, e.data.object.status);
      case 'payment_intent.canceled': {
        // Canceled from requires_action: the customer's operation ends there too.
        const operationId = e.data.object.latest_operation;
        return operationId ? update(operationId, 'canceled') : [];
      }
      default:
        return [];
    }
  }),
};

export interface OperationRow {
  id: string;
  payment_intent: string;
  status: PaymentIntentStatus;
  amount: string;
  currency: string;
  return_url: string;
  livemode: boolean;
  updated_at: Date;
}

export function findOperation(knex: Knex, id: string): Promise<OperationRow | undefined> {
  return knex(TABLE).where({ id }).first<OperationRow | undefined>();
}
