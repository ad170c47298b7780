import type { Messages } from './i18n.js';

/** The kinds of the service's decisions (docs/intelligence.md, "Decisions"). */
export const DECISION_KINDS = ['payment_routing', 'payout_routing', 'payout_delay', 'payout_failure', 'risk'] as const;
export type DecisionKind = (typeof DECISION_KINDS)[number];

/** Each kind's words, on Insights' list and on a payment's or payout's own page alike. */
export const decisionKindMessages: Messages<`kind.${DecisionKind}`> = {
  en: {
    'kind.payment_routing': 'Payment routing',
    'kind.payout_routing': 'Payout routing',
    'kind.payout_delay': 'Payout delayed',
    'kind.payout_failure': 'Payout failed',
    'kind.risk': 'Risk rules',
  },
  fr: {
    'kind.payment_routing': 'Routage de paiement',
    'kind.payout_routing': 'Routage de virement',
    'kind.payout_delay': 'Virement retardé',
    'kind.payout_failure': 'Virement échoué',
    'kind.risk': 'Règles de risque',
  },
};

/** A decision's outcome as one line: `decision: review, direction: payout, …`. */
export const decisionOutcome = (outcome: Record<string, unknown>): string =>
  Object.entries(outcome)
    .map(([k, v]) => `${k}: ${v ?? '—'}`)
    .join(', ');
