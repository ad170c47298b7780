import type { Messages } from './i18n.js';
import { decisionKindMessages, type DecisionKind } from './decisions.messages.js';

/** The words of an object's decisions (ObjectDecisions.tsx). */
export const objectDecisionMessages: Messages<'decisions' | 'none' | 'when' | 'kind' | 'outcome' | 'reason' | `kind.${DecisionKind}`> = {
  en: {
    decisions: 'Decisions',
    none: 'No decisions.',
    when: 'When',
    kind: 'Kind',
    outcome: 'Outcome',
    reason: 'Why',
    ...decisionKindMessages.en,
  },
  fr: {
    decisions: 'Décisions',
    none: 'Aucune décision.',
    when: 'Quand',
    kind: 'Type',
    outcome: 'Résultat',
    reason: 'Pourquoi',
    ...decisionKindMessages.fr,
  },
};
