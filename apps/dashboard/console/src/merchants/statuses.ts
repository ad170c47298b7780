import type { Messages } from '../../../src/shell/i18n.js';

/** Where a merchant's activation application stands (the activation family's statuses); a merchant that never applied is `not_submitted`. */
export const APPLICATION_STATUSES = ['not_submitted', 'under_review', 'information_requested', 'active', 'rejected', 'suspended'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];

/** A merchant's live status: whether its live environment moves money. */
export const LIVE_STATUSES = ['inactive', 'active', 'deactivated'] as const;
export type LiveStatus = (typeof LIVE_STATUSES)[number];

/** The statuses' words, which the list and the merchant's page share. */
export const STATUS_WORDS = {
  en: {
    'merchant.application.not_submitted': 'Not submitted',
    'merchant.application.under_review': 'Under review',
    'merchant.application.information_requested': 'Information requested',
    'merchant.application.active': 'Active',
    'merchant.application.rejected': 'Rejected',
    'merchant.application.suspended': 'Suspended',
    'merchant.live.inactive': 'Not activated',
    'merchant.live.active': 'Live',
    'merchant.live.deactivated': 'Deactivated',
  },
  fr: {
    'merchant.application.not_submitted': 'Non soumise',
    'merchant.application.under_review': 'En revue',
    'merchant.application.information_requested': 'Informations demandées',
    'merchant.application.active': 'Active',
    'merchant.application.rejected': 'Refusée',
    'merchant.application.suspended': 'Suspendue',
    'merchant.live.inactive': 'Non activé',
    'merchant.live.active': 'En production',
    'merchant.live.deactivated': 'Désactivé',
  },
} satisfies Messages<string>;
