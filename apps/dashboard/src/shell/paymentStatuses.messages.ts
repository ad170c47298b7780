import type { Messages } from './i18n.js';

/** A payment's statuses and their words: the payments pages list them, a checkout session's page shows its payments' (so both families share them here). */
export const PAYMENT_STATUSES = ['requires_payment_method', 'requires_action', 'processing', 'succeeded', 'failed', 'canceled'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

export const paymentStatusMessages: Messages<`status.${PaymentStatus}`> = {
  en: {
    'status.requires_payment_method': 'Awaiting payment',
    'status.requires_action': 'Awaiting the payer',
    'status.processing': 'Processing',
    'status.succeeded': 'Succeeded',
    'status.failed': 'Failed',
    'status.canceled': 'Canceled',
  },
  fr: {
    'status.requires_payment_method': 'En attente de paiement',
    'status.requires_action': 'En attente du payeur',
    'status.processing': 'En cours',
    'status.succeeded': 'Réussi',
    'status.failed': 'Échoué',
    'status.canceled': 'Annulé',
  },
};
