import type { Messages } from '../../shell/i18n.js';
import { decisionKindMessages, type DecisionKind } from '../../shell/decisions.messages.js';

export const STAGES = ['new', 'active', 'at_risk', 'churned'] as const;
export type Stage = (typeof STAGES)[number];

/** The insights page's lists: the decisions the service took, and paying customers by lifecycle stage. */
export const insightsActivityMessages: Messages<
  | 'decisions'
  | 'decisionsNone'
  | 'kind'
  | 'allKinds'
  | 'when'
  | 'subject'
  | 'outcome'
  | 'reason'
  | 'decisionPages'
  | 'lifecycle'
  | 'lifecycleNone'
  | 'stage'
  | 'allStages'
  | 'customer'
  | 'firstPayment'
  | 'lastPayment'
  | 'payments'
  | 'customerPages'
  | `kind.${DecisionKind}`
  | `stage.${Stage}`
> = {
  en: {
    decisions: 'Decisions',
    decisionsNone: 'No decision yet.',
    kind: 'Kind',
    allKinds: 'All kinds',
    when: 'When',
    subject: 'About',
    outcome: 'Outcome',
    reason: 'Why',
    decisionPages: 'Pages of decisions',
    lifecycle: 'Paying customers',
    lifecycleNone: 'No paying customer yet.',
    stage: 'Stage',
    allStages: 'All stages',
    customer: 'Customer',
    firstPayment: 'First payment',
    lastPayment: 'Last payment',
    payments: 'Payments',
    customerPages: 'Pages of customers',
    ...decisionKindMessages.en,
    'stage.new': 'New',
    'stage.active': 'Active',
    'stage.at_risk': 'At risk',
    'stage.churned': 'Churned',
  },
  fr: {
    decisions: 'Décisions',
    decisionsNone: 'Pas encore de décision.',
    kind: 'Type',
    allKinds: 'Tous les types',
    when: 'Quand',
    subject: 'Objet',
    outcome: 'Résultat',
    reason: 'Pourquoi',
    decisionPages: 'Pages de décisions',
    lifecycle: 'Clients payeurs',
    lifecycleNone: 'Pas encore de client payeur.',
    stage: 'Étape',
    allStages: 'Toutes les étapes',
    customer: 'Client',
    firstPayment: 'Premier paiement',
    lastPayment: 'Dernier paiement',
    payments: 'Paiements',
    customerPages: 'Pages de clients',
    ...decisionKindMessages.fr,
    'stage.new': 'Nouveau',
    'stage.active': 'Actif',
    'stage.at_risk': 'À risque',
    'stage.churned': 'Perdu',
  },
};
