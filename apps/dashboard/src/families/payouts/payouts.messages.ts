import type { Language, Messages } from '../../shell/i18n.js';

type DelayReason = 'operator_pending' | 'operator_timeout' | 'operator_down' | 'provider_action_required' | 'unknown';

/** The words of a payout's page (Payout.tsx). */
export const payoutMessages: Messages<
  | 'back'
  | 'notFound'
  | 'destination'
  | 'expectedBy'
  | 'arrival'
  | 'delay'
  | 'onTime'
  | 'paidAt'
  | 'delayedSince'
  | 'money'
  | 'moneyNone'
  | `reason.${DelayReason}`
  | 'review'
  | 'review.held'
  | 'review.released'
  | 'review.declined'
  | 'review.help'
  | 'review.release'
  | 'review.decline'
  | 'review.reason'
  | 'review.declineSubmit'
  | 'review.cancel'
  | 'review.failed'
> = {
  en: {
    back: 'All payouts',
    notFound: 'No such payout in this environment.',
    destination: 'Destination',
    expectedBy: 'Expected by',
    arrival: 'Estimated arrival',
    delay: 'Delay',
    onTime: 'On time',
    paidAt: 'Paid at',
    delayedSince: 'Delayed since {when}: {reason}',
    money: 'Its money on the balance',
    moneyNone: 'Nothing on the balance yet.',
    'reason.operator_pending': 'the operator has not answered yet',
    'reason.operator_timeout': 'the operator did not answer in time',
    'reason.operator_down': 'the operator is down',
    'reason.provider_action_required': 'the provider needs an action of Sika’s operator (a bank transfer waiting for an OTP)',
    'reason.unknown': 'unknown',
    review: 'Review',
    'review.held': 'Held for review',
    'review.released': 'Released after review',
    'review.declined': 'Declined in review',
    'review.help': 'Your risk rules held this payout: its amount and fee are held on your balance and nothing is sent until you release it. Declined, it fails and its money goes back to your available balance.',
    'review.release': 'Release',
    'review.decline': 'Decline',
    'review.reason': 'Reason (optional)',
    'review.declineSubmit': 'Decline the payout',
    'review.cancel': 'Cancel',
    'review.failed': 'The payout could not be released or declined.',
  },
  fr: {
    back: 'Tous les virements',
    notFound: 'Aucun virement de ce nom dans cet environnement.',
    destination: 'Destination',
    expectedBy: 'Attendu avant',
    arrival: 'Arrivée estimée',
    delay: 'Retard',
    onTime: 'À l’heure',
    paidAt: 'Payé le',
    delayedSince: 'Retardé depuis {when} : {reason}',
    money: 'Son argent sur le solde',
    moneyNone: 'Rien sur le solde pour l’instant.',
    'reason.operator_pending': 'l’opérateur n’a pas encore répondu',
    'reason.operator_timeout': 'l’opérateur n’a pas répondu à temps',
    'reason.operator_down': 'l’opérateur est indisponible',
    'reason.provider_action_required': 'le prestataire attend une action de l’opérateur de Sika (un virement bancaire en attente d’un OTP)',
    'reason.unknown': 'inconnu',
    review: 'Examen',
    'review.held': 'Retenu pour examen',
    'review.released': 'Libéré après examen',
    'review.declined': 'Refusé à l’examen',
    'review.help':
      'Vos règles de risque ont retenu ce virement : son montant et ses frais sont bloqués sur votre solde et rien n’est envoyé tant que vous ne le libérez pas. Refusé, il échoue et son argent revient sur votre solde disponible.',
    'review.release': 'Libérer',
    'review.decline': 'Refuser',
    'review.reason': 'Motif (facultatif)',
    'review.declineSubmit': 'Refuser le virement',
    'review.cancel': 'Annuler',
    'review.failed': 'Le virement n’a pas pu être libéré ni refusé.',
  },
};

/** The list's words of payouts held for review by the risk rules (docs/risk.md, "Review"). */
export const heldPayoutMessages: Messages<'held.only' | 'held.badge' | 'held.none'> = {
  en: { 'held.only': 'Held for review only', 'held.badge': 'Held for review', 'held.none': 'No payout is held for review.' },
  fr: { 'held.only': 'Seulement les retenus pour examen', 'held.badge': 'Retenu pour examen', 'held.none': 'Aucun virement n’est retenu pour examen.' },
};

/** What an event of a payout's history says happened. */
export const payoutEventWords: Record<string, Record<Language, string>> = {
  'payout.created': { en: 'Created', fr: 'Créé' },
  'payout.updated': { en: 'Sent to the operator', fr: 'Envoyé à l’opérateur' },
  'payout.delayed': { en: 'Delayed', fr: 'Retardé' },
  'payout.paid': { en: 'Paid', fr: 'Payé' },
  'payout.failed': { en: 'Failed', fr: 'Échoué' },
  'payout.canceled': { en: 'Canceled', fr: 'Annulé' },
};
