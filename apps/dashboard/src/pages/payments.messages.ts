import type { Messages } from '../shell/i18n.js';

export const PAYMENT_STATUSES = ['requires_payment_method', 'requires_action', 'processing', 'succeeded', 'failed', 'canceled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** The words of the payments pages (Payments.tsx, Payment.tsx). */
export const paymentMessages: Messages<
  | 'title'
  | 'filters'
  | 'status'
  | 'anyStatus'
  | 'from'
  | 'to'
  | 'minAmount'
  | 'maxAmount'
  | 'search'
  | 'searchHelp'
  | 'apply'
  | 'clear'
  | 'none'
  | 'pages'
  | 'created'
  | 'amount'
  | 'description'
  | 'customer'
  | 'payment'
  | `status.${PaymentStatus}`
> = {
  en: {
    title: 'Payments',
    filters: 'Filter payments',
    status: 'Status',
    anyStatus: 'Any status',
    from: 'From (day)',
    to: 'To (day)',
    minAmount: 'Smallest amount',
    maxAmount: 'Largest amount',
    search: 'Search',
    searchHelp: 'A payment’s id (pi_…), a customer’s id, or words of the description.',
    apply: 'Apply',
    clear: 'Clear',
    none: 'No payment matches.',
    pages: 'Pages of payments',
    created: 'Created',
    amount: 'Amount',
    description: 'Description',
    customer: 'Customer',
    payment: 'Payment',
    'status.requires_payment_method': 'Awaiting payment',
    'status.requires_action': 'Awaiting the payer',
    'status.processing': 'Processing',
    'status.succeeded': 'Succeeded',
    'status.failed': 'Failed',
    'status.canceled': 'Canceled',
  },
  fr: {
    title: 'Paiements',
    filters: 'Filtrer les paiements',
    status: 'Statut',
    anyStatus: 'Tous les statuts',
    from: 'Du (jour)',
    to: 'Au (jour)',
    minAmount: 'Montant minimum',
    maxAmount: 'Montant maximum',
    search: 'Rechercher',
    searchHelp: 'L’identifiant d’un paiement (pi_…), d’un client, ou des mots de la description.',
    apply: 'Appliquer',
    clear: 'Effacer',
    none: 'Aucun paiement ne correspond.',
    pages: 'Pages de paiements',
    created: 'Créé',
    amount: 'Montant',
    description: 'Description',
    customer: 'Client',
    payment: 'Paiement',
    'status.requires_payment_method': 'En attente de paiement',
    'status.requires_action': 'En attente du payeur',
    'status.processing': 'En cours',
    'status.succeeded': 'Réussi',
    'status.failed': 'Échoué',
    'status.canceled': 'Annulé',
  },
};
