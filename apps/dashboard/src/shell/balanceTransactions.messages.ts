import type { Messages } from './i18n.js';

export const TYPES = ['payment', 'payout', 'payout_failure', 'refund', 'escrow_funding', 'escrow_release', 'escrow_refund', 'funding_release'] as const;
export type TransactionType = (typeof TYPES)[number];

/** The words of the balance transactions table (BalanceTransactions.tsx). */
export const balanceTransactionMessages: Messages<'when' | 'what' | 'source' | 'status' | 'amount' | 'fee' | 'net' | `type.${TransactionType}` | 'status.pending' | 'status.available'> = {
  en: {
    when: 'When',
    what: 'What',
    source: 'For',
    status: 'Status',
    amount: 'Amount',
    fee: 'Fee',
    net: 'Net',
    'type.payment': 'Payment',
    'type.payout': 'Payout',
    'type.payout_failure': 'Failed payout returned',
    'type.refund': 'Refund',
    'type.escrow_funding': 'Escrow funded',
    'type.escrow_release': 'Escrow released',
    'type.escrow_refund': 'Escrow refunded',
    'type.funding_release': 'Funding released',
    'status.pending': 'Pending',
    'status.available': 'Available',
  },
  fr: {
    when: 'Quand',
    what: 'Quoi',
    source: 'Pour',
    status: 'Statut',
    amount: 'Montant',
    fee: 'Frais',
    net: 'Net',
    'type.payment': 'Paiement',
    'type.payout': 'Virement',
    'type.payout_failure': 'Virement échoué, rendu',
    'type.refund': 'Remboursement',
    'type.escrow_funding': 'Séquestre alimenté',
    'type.escrow_release': 'Séquestre libéré',
    'type.escrow_refund': 'Séquestre remboursé',
    'type.funding_release': 'Cagnotte versée',
    'status.pending': 'En attente',
    'status.available': 'Disponible',
  },
};
