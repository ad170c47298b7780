import type { Messages } from '../../shell/i18n.js';

type RefundStatus = 'pending' | 'succeeded' | 'failed';
type RefundReason = 'duplicate' | 'fraudulent' | 'requested_by_customer';

/** The words of the refunds list (Refunds.tsx). */
export const refundMessages: Messages<'title' | 'filters' | 'status' | 'none' | 'pages' | 'created' | 'amount' | 'payment' | 'reason' | 'noReason' | 'refund' | `status.${RefundStatus}` | `reason.${RefundReason}`> = {
  en: {
    title: 'Refunds',
    filters: 'Filter refunds',
    status: 'Status',
    none: 'No refund matches.',
    pages: 'Pages of refunds',
    created: 'Created',
    amount: 'Amount',
    payment: 'Payment',
    reason: 'Reason',
    noReason: 'No reason given',
    refund: 'Refund',
    'status.pending': 'Pending',
    'status.succeeded': 'Refunded',
    'status.failed': 'Failed',
    'reason.duplicate': 'Duplicate',
    'reason.fraudulent': 'Fraudulent',
    'reason.requested_by_customer': 'Asked by the customer',
  },
  fr: {
    title: 'Remboursements',
    filters: 'Filtrer les remboursements',
    status: 'Statut',
    none: 'Aucun remboursement ne correspond.',
    pages: 'Pages de remboursements',
    created: 'Créé le',
    amount: 'Montant',
    payment: 'Paiement',
    reason: 'Motif',
    noReason: 'Sans motif',
    refund: 'Remboursement',
    'status.pending': 'En cours',
    'status.succeeded': 'Remboursé',
    'status.failed': 'Échoué',
    'reason.duplicate': 'Doublon',
    'reason.fraudulent': 'Frauduleux',
    'reason.requested_by_customer': 'Demandé par le client',
  },
};

export const REFUND_STATUSES: readonly RefundStatus[] = ['pending', 'succeeded', 'failed'];
export type { RefundStatus };
