import type { Messages } from '../../shell/i18n.js';
import { paymentStatusMessages, type PaymentStatus } from '../../shell/paymentStatuses.js';

/** The words of the payments pages (Payments.tsx, Payment.tsx). */
export const paymentMessages: Messages<
  | 'title'
  | 'filters'
  | 'status'
  | 'minAmount'
  | 'maxAmount'
  | 'search'
  | 'searchHelp'
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
