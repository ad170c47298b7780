import type { ReactNode } from 'react';

/** How a status reads at a glance: money arrived, failed, on its way, waiting, stopped, or late. */
export type Tone = 'success' | 'danger' | 'info' | 'neutral' | 'muted' | 'warning';

/**
 * The tone of every status the API gives (payments, payouts, refunds, checkout, billing, funding,
 * escrow, marketplace, batches, files, automations, webhooks, keys, team): one list for every
 * page. A status not here is neutral.
 */
const TONES: Record<string, Tone> = {
  // Done: the money or the work arrived.
  succeeded: 'success',
  paid: 'success',
  complete: 'success',
  completed: 'success',
  released: 'success',
  funded: 'success',
  active: 'success',
  enabled: 'success',
  accepted: 'success',
  healthy: 'success',
  ready: 'success',
  uploaded: 'success',
  available: 'success',
  validated: 'success',
  executed: 'success',
  resolved: 'success',
  // A saved card that can be charged again (billing's customer page).
  reusable: 'success',
  // Failed or refused.
  failed: 'danger',
  error: 'danger',
  disputed: 'danger',
  uncollectible: 'danger',
  past_due: 'danger',
  partially_failed: 'danger',
  // An activation application the platform did not approve.
  rejected: 'danger',
  failures: 'danger',
  // On its way.
  in_transit: 'info',
  processing: 'info',
  executing: 'info',
  running: 'info',
  retrying: 'info',
  queued: 'info',
  created: 'info',
  open: 'info',
  trialing: 'info',
  refunded: 'info',
  partially_refunded: 'info',
  under_review: 'info',
  // Waiting for someone.
  pending: 'neutral',
  pending_funding: 'neutral',
  requires_payment: 'neutral',
  requires_payment_method: 'neutral',
  requires_action: 'neutral',
  waiting: 'neutral',
  draft: 'neutral',
  insufficient_data: 'neutral',
  not_submitted: 'neutral',
  // Stopped.
  canceled: 'muted',
  closed: 'muted',
  expired: 'muted',
  revoked: 'muted',
  void: 'muted',
  inactive: 'muted',
  disabled: 'muted',
  skipped: 'muted',
  finished: 'muted',
  returned: 'muted',
  // A saved card whose bank gave a single-use authorization: kept, but not to charge again.
  single_use: 'muted',
  // Late or weak.
  delayed: 'warning',
  degraded: 'warning',
  suspended: 'warning',
  expiring: 'warning',
  information_requested: 'warning',
  // A card dispute (docs/disputes.md): waiting on the merchant's answer, won, lost.
  needs_response: 'warning',
  won: 'success',
  lost: 'danger',
};

/** A status as a coloured badge: its words (`children`) in the colour of its tone, the same for every object. */
export function Badge({ status, children }: { status: string | null | undefined; children: ReactNode }) {
  return <span className={`badge badge-${TONES[status ?? ''] ?? 'neutral'}`}>{children}</span>;
}
