import type { ReactNode } from 'react';

/** How a status reads at a glance: money arrived, failed, on its way, waiting, stopped, or late. */
export type Tone = 'success' | 'danger' | 'info' | 'neutral' | 'muted' | 'warning';

/** The tone of the statuses the API gives payments, payouts and refunds (one list for every page). */
const TONES: Record<string, Tone> = {
  succeeded: 'success',
  paid: 'success',
  failed: 'danger',
  in_transit: 'info',
  processing: 'info',
  pending: 'neutral',
  requires_payment_method: 'neutral',
  requires_action: 'neutral',
  canceled: 'muted',
  delayed: 'warning',
};

/** A status as a coloured badge: its words (`children`) in the colour of its tone, the same for every object. */
export function Badge({ status, children }: { status: string; children: ReactNode }) {
  return <span className={`badge badge-${TONES[status] ?? 'neutral'}`}>{children}</span>;
}
