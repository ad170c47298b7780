import type { Messages } from '../../shell/i18n.js';
import { paymentStatusMessages, type PaymentStatus } from '../../shell/paymentStatuses.messages.js';

export const REASONS = ['requested_by_customer', 'duplicate', 'fraudulent'] as const;
export type Reason = (typeof REASONS)[number];

/** The words of the payments pages (Payments.tsx, Payment.tsx). */
export const paymentMessages: Messages<'title' | 'filters' | 'status' | 'minAmount' | 'maxAmount' | 'search' | 'searchHelp' | 'none' | 'pages' | 'created' | 'amount' | 'description' | 'customer' | 'payment' | `status.${PaymentStatus}`> = {
  en: {
    title: 'Payments',
    filters: 'Filter payments',
    status: 'Status',
    minAmount: 'Smallest amount',
    maxAmount: 'Largest amount',
    search: 'Search',
    searchHelp: 'A payment’s id (pi_…) or its receipt’s references, a customer’s id or e-mail, the last digits of the payer’s number, or words of the description.',
    none: 'No payment matches.',
    pages: 'Pages of payments',
    created: 'Created',
    amount: 'Amount',
    description: 'Description',
    customer: 'Customer',
    payment: 'Payment',
    ...paymentStatusMessages.en,
  },
  fr: {
    title: 'Paiements',
    filters: 'Filtrer les paiements',
    status: 'Statut',
    minAmount: 'Montant minimum',
    maxAmount: 'Montant maximum',
    search: 'Rechercher',
    searchHelp: 'L’identifiant d’un paiement (pi_…) ou les références de son reçu, l’identifiant ou l’e-mail d’un client, les derniers chiffres du numéro du payeur, ou des mots de la description.',
    none: 'Aucun paiement ne correspond.',
    pages: 'Pages de paiements',
    created: 'Créé',
    amount: 'Montant',
    description: 'Description',
    customer: 'Client',
    payment: 'Paiement',
    ...paymentStatusMessages.fr,
  },
};

/** The words only a payment's page has (Payment.tsx), besides those of the payments pages. */
export const paymentDetailMessages: Messages<
  | 'back'
  | 'notFound'
  | 'fee'
  | 'received'
  | 'method'
  | 'refunded'
  | 'refunds'
  | 'refundsNone'
  | 'refund'
  | 'refundAmount'
  | 'refundAmountHelp'
  | 'reason'
  | 'refundDone'
  | 'nothingLeft'
  | 'when'
  | `reason.${Reason}`
  | `refundStatus.${'pending' | 'succeeded' | 'failed'}`
> = {
  en: {
    back: 'All payments',
    notFound: 'No such payment in this environment.',
    fee: 'Fee',
    received: 'Received',
    method: 'Paid with',
    refunded: 'Refunded',
    refunds: 'Refunds',
    refundsNone: 'No refund.',
    refund: 'Refund',
    refundAmount: 'Amount to refund',
    refundAmountHelp: 'Leave empty to refund all that is left.',
    reason: 'Reason',
    refundDone: 'Refund of {amount} made.',
    when: 'When',
    nothingLeft: 'Nothing left to refund.',
    'reason.requested_by_customer': 'Asked by the customer',
    'reason.duplicate': 'Duplicate',
    'reason.fraudulent': 'Fraudulent',
    'refundStatus.pending': 'Pending',
    'refundStatus.succeeded': 'Succeeded',
    'refundStatus.failed': 'Failed',
  },
  fr: {
    back: 'Tous les paiements',
    notFound: 'Aucun paiement de ce nom dans cet environnement.',
    fee: 'Frais',
    received: 'Reçu',
    method: 'Payé par',
    refunded: 'Remboursé',
    refunds: 'Remboursements',
    refundsNone: 'Aucun remboursement.',
    refund: 'Rembourser',
    refundAmount: 'Montant à rembourser',
    refundAmountHelp: 'Laissez vide pour rembourser tout ce qui reste.',
    reason: 'Motif',
    refundDone: 'Remboursement de {amount} effectué.',
    when: 'Quand',
    nothingLeft: 'Plus rien à rembourser.',
    'reason.requested_by_customer': 'Demandé par le client',
    'reason.duplicate': 'Doublon',
    'reason.fraudulent': 'Frauduleux',
    'refundStatus.pending': 'En attente',
    'refundStatus.succeeded': 'Réussi',
    'refundStatus.failed': 'Échoué',
  },
};

/** What an event of the history says happened, in the page's language; one this page does not know shows as the API names it. */
export const paymentEventWords: Record<string, { en: string; fr: string }> = {
  'payment_intent.created': { en: 'Created', fr: 'Créé' },
  'payment_intent.updated': { en: 'Updated', fr: 'Modifié' },
  'payment_intent.processing': { en: 'Sent to the operator', fr: 'Envoyé à l’opérateur' },
  'payment_intent.requires_action': { en: 'Waiting for the payer', fr: 'En attente du payeur' },
  'payment_intent.succeeded': { en: 'Paid', fr: 'Payé' },
  'payment_intent.payment_failed': { en: 'Failed', fr: 'Échoué' },
  'payment_intent.canceled': { en: 'Canceled', fr: 'Annulé' },
};
