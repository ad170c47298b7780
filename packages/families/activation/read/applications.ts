import type { Knex } from 'knex';
import type { ApplicationEvent, ApplicationObject, ApplicationStatus } from '../events.js';
import { Refusal } from '#packages/core/refusal.js';
import { rowChangeProjection } from '#packages/read-models/batch.js';
import type { Projection } from '#packages/read-models/projection.js';

/**
 * read.activation_applications: one row per merchant that submitted an application, with the
 * application as its last event rendered it (the reviewer's whole view: details, document asset
 * id, the settlement destination's check, every decision with its operator). Every event of the
 * stream carries the whole application, so each one replaces the row.
 */
export const activationApplicationsProjection: Projection = {
  name: 'activation_applications',
  tables: ['read.activation_applications'],
  migrations: [
    {
      name: 'activation_applications/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.activation_applications (
          merchant_id text PRIMARY KEY,
          status text NOT NULL,
          submitted_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL,
          object jsonb NOT NULL
        );
        CREATE INDEX activation_applications_queue ON read.activation_applications (status, submitted_at, merchant_id)`),
    },
  ],
  handles: ['activation.submitted', 'activation.approved', 'activation.rejected', 'activation.information_requested', 'activation.suspended', 'activation.reinstated'],
  ...rowChangeProjection({ 'read.activation_applications': ['merchant_id'] }, (event) => {
    const e = event as unknown as ApplicationEvent;
    const application = e.data.object;
    const row = { status: application.status, submitted_at: application.submittedAt, updated_at: e.data.at, object: application };
    const key = { merchant_id: e.data.merchantId };
    return [
      { table: 'read.activation_applications', insert: { ...key, ...row } },
      { table: 'read.activation_applications', key, set: row },
    ];
  }),
};

interface ApplicationRow {
  merchant_id: string;
  status: ApplicationStatus;
  submitted_at: Date;
  object: ApplicationObject;
}

/** One merchant's application as the reviewer opens it (details, document asset ids, the destination's check, decisions with their operators); undefined when it never submitted one. */
export async function findActivationApplication(knex: Knex, merchantId: string): Promise<ApplicationObject | undefined> {
  const row = await knex('read.activation_applications').where({ merchant_id: merchantId }).first<ApplicationRow | undefined>('object');
  return row?.object;
}

export interface ApplicationQueueQuery {
  /** The applications in this status (the review queue: `under_review`). */
  status: ApplicationStatus;
  /** 1 to 100. */
  limit: number;
  /** A merchant id of the previous page's last application: the page starts after it. */
  startingAfter?: string;
}

/**
 * The applications in a status, the longest waiting first (by their last submission, then merchant
 * id), cursor-paged: `startingAfter` is a merchant id in the list (else 400 IKW-VAL-001).
 */
export async function listActivationApplications(knex: Knex, query: ApplicationQueueQuery): Promise<{ data: ApplicationObject[]; hasMore: boolean }> {
  const q = knex('read.activation_applications').where({ status: query.status });
  if (query.startingAfter !== undefined) {
    const cursor = await knex('read.activation_applications').where({ status: query.status, merchant_id: query.startingAfter }).first<{ submitted_at: Date } | undefined>('submitted_at');
    if (!cursor) throw new Refusal('IKW-VAL-001', `No ${query.status} application of merchant '${query.startingAfter}'`, 'startingAfter');
    q.whereRaw('(submitted_at, merchant_id) > (?, ?)', [cursor.submitted_at, query.startingAfter]);
  }
  const rows = await q
    .orderBy([{ column: 'submitted_at' }, { column: 'merchant_id' }])
    .limit(query.limit + 1)
    .select<ApplicationRow[]>('object');
  return { data: rows.slice(0, query.limit).map((r) => r.object), hasMore: rows.length > query.limit };
}
