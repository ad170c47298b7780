import type { Messages } from './i18n.js';

/** The words of an object's history (ObjectHistory.tsx). */
export const objectHistoryMessages: Messages<'history' | 'when' | 'event' | 'status' | 'actor' | 'actor.key' | 'actor.user' | 'actor.operator' | 'actor.service' | 'none'> = {
  en: {
    history: 'History',
    when: 'When',
    event: 'What happened',
    status: 'Status',
    actor: 'By',
    'actor.key': 'API key {name}',
    'actor.user': '{name}',
    'actor.operator': 'The operator',
    'actor.service': 'Sika',
    none: 'Nothing recorded yet.',
  },
  fr: {
    history: 'Historique',
    when: 'Quand',
    event: 'Ce qui s’est passé',
    status: 'État',
    actor: 'Par',
    'actor.key': 'Clé d’API {name}',
    'actor.user': '{name}',
    'actor.operator': 'L’opérateur',
    'actor.service': 'Sika',
    none: 'Rien d’enregistré pour l’instant.',
  },
};
