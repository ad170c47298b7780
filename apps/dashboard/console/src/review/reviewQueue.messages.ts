import type { Messages } from '../../../src/shell/i18n.js';
import { STATUS_WORDS } from './statuses.js';

/** The words of the console's ReviewQueue page (ReviewQueue.tsx). */
export const reviewQueueMessages = {
  en: {
    ...STATUS_WORDS.en,
    'queue.title': 'Review queue',
    'queue.intro': 'Merchants’ applications to take live money, the one waiting longest first. Open one to read it and decide.',
    'queue.status': 'Show',
    'queue.list': 'Applications',
    'queue.business': 'Business',
    'queue.country': 'Country',
    'queue.type': 'Type',
    'queue.state': 'Status',
    'queue.submitted': 'Submitted',
    'queue.resubmitted': 'submitted {n} times',
    'queue.pages': 'Pages of applications',
    'queue.empty.under_review': 'No application is waiting for a decision.',
    'queue.empty.other': 'No application has this status.',
  },
  fr: {
    ...STATUS_WORDS.fr,
    'queue.title': 'File de revue',
    'queue.intro': 'Les demandes des marchands pour encaisser de l’argent réel, la plus ancienne en premier. Ouvrez-en une pour la lire et décider.',
    'queue.status': 'Afficher',
    'queue.list': 'Demandes',
    'queue.business': 'Entreprise',
    'queue.country': 'Pays',
    'queue.type': 'Type',
    'queue.state': 'Statut',
    'queue.submitted': 'Envoyée',
    'queue.resubmitted': 'envoyée {n} fois',
    'queue.pages': 'Pages de demandes',
    'queue.empty.under_review': 'Aucune demande n’attend de décision.',
    'queue.empty.other': 'Aucune demande n’a ce statut.',
  },
} satisfies Messages<string>;
