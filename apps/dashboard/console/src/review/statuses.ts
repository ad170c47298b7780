import type { Answer } from '../../../../../clients/typescript/src/index.js';
import type { Messages } from '../../../src/shell/i18n.js';

/** One merchant's application as the reviewer reads it (GET /api/v1/operator/applications/{merchantId}). */
export type ReviewedApplication = Answer<'get', '/api/v1/operator/applications/{merchantId}'>;
export type ApplicationStatus = Answer<'get', '/api/v1/operator/applications'>['data'][number]['status'];

/** The statuses the queue can show: every one but `not_submitted`, which is never listed. */
export const QUEUE_STATUSES = ['under_review', 'information_requested', 'active', 'rejected', 'suspended'] as const satisfies readonly ApplicationStatus[];
export type QueueStatus = (typeof QUEUE_STATUSES)[number];

/** An application's status and its type of business in words, for the queue and the application's page. */
export const STATUS_WORDS = {
  en: {
    'status.not_submitted': 'Not submitted',
    'status.under_review': 'Awaiting a decision',
    'status.information_requested': 'Information requested',
    'status.active': 'Approved: live',
    'status.rejected': 'Rejected',
    'status.suspended': 'Suspended',
    'type.individual': 'Individual',
    'type.company': 'Company',
  },
  fr: {
    'status.not_submitted': 'Pas envoyée',
    'status.under_review': 'En attente de décision',
    'status.information_requested': 'Informations demandées',
    'status.active': 'Approuvée : en production',
    'status.rejected': 'Refusée',
    'status.suspended': 'Suspendue',
    'type.individual': 'Personne physique',
    'type.company': 'Société',
  },
} satisfies Messages<string>;
