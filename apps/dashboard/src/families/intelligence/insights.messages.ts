import type { Messages } from '../../shell/i18n.js';

/** The words of the insights page (Insights.tsx). */
export const insightsMessages: Messages<
  | 'title'
  | 'period'
  | 'day'
  | 'period.7'
  | 'period.30'
  | 'period.90'
  | 'kpis'
  | 'kpis.none'
  | 'payments'
  | 'succeeded'
  | 'failed'
  | 'successRate'
  | 'volume'
  | 'fees'
  | 'refunds'
  | 'net'
  | 'chart.label'
  | 'byOperator'
  | 'noOperator'
  | 'operator'
  | 'health'
  | 'health.help'
  | 'health.none'
  | 'country'
  | 'attempts'
  | 'failureRate'
  | 'usualFailureRate'
  | 'status'
  | 'status.healthy'
  | 'status.degraded'
  | 'status.insufficient_data'
  | 'rate.label'
  | 'rate.none'
  | 'operators.label'
  | 'operators.figures'
  | 'health.label'
  | 'health.one'
  | 'operators.one'
  | 'health.recent'
  | 'recommendations'
  | 'recommendations.none'
  | 'severity.high'
  | 'severity.medium'
  | 'severity.low'
> = {
  en: {
    title: 'Insights',
    period: 'Period',
    day: 'Day',
    'period.7': 'The last 7 days',
    'period.30': 'The last 30 days',
    'period.90': 'The last 90 days',
    kpis: 'Payments',
    'kpis.none': 'No payment in this period.',
    payments: 'Payments',
    succeeded: 'Succeeded',
    failed: 'Failed',
    successRate: 'Success rate',
    volume: 'Volume',
    fees: 'Fees',
    refunds: 'Refunds',
    net: 'Net',
    'chart.label': 'Volume and refunds per day in {currency}: {volume} received, {refunds} refunded.',
    byOperator: 'By operator',
    noOperator: 'Card (no operator)',
    operator: 'Operator',
    health: 'Operator health',
    'health.help': 'Each operator’s failure rate over the last 7 days against its usual rate (the 28 days before).',
    'health.none': 'No operator was used in the last 7 days.',
    country: 'Country',
    attempts: 'Attempts',
    failureRate: 'Failure rate',
    usualFailureRate: 'Usual failure rate',
    status: 'Status',
    'status.healthy': 'Healthy',
    'status.degraded': 'Degraded',
    'status.insufficient_data': 'Too few payments to tell',
    'rate.label': 'Success rate per day: {rate} of the payments decided over the period ({succeeded} succeeded, {failed} failed).',
    'rate.none': 'No payment was decided (succeeded or failed) in this period.',
    'operators.label': 'Payments per operator over the period, succeeded and failed: {operators}.',
    'operators.figures': 'The figures, operator by operator',
    'health.label': 'Each operator’s failure rate over the last 7 days beside its usual rate: {operators}.',
    'health.recent': 'Failure rate (last 7 days)',
    'health.one': '{name} {recent} (usually {usual})',
    'operators.one': '{name}, {succeeded} succeeded and {failed} failed',
    recommendations: 'Recommendations',
    'recommendations.none': 'No recommendation right now.',
    'severity.high': 'Important',
    'severity.medium': 'Worth a look',
    'severity.low': 'For later',
  },
  fr: {
    title: 'Analyses',
    period: 'Période',
    day: 'Jour',
    'period.7': 'Les 7 derniers jours',
    'period.30': 'Les 30 derniers jours',
    'period.90': 'Les 90 derniers jours',
    kpis: 'Paiements',
    'kpis.none': 'Aucun paiement sur cette période.',
    payments: 'Paiements',
    succeeded: 'Réussis',
    failed: 'Échoués',
    successRate: 'Taux de réussite',
    volume: 'Volume',
    fees: 'Frais',
    refunds: 'Remboursements',
    net: 'Net',
    'chart.label': 'Volume et remboursements par jour en {currency} : {volume} reçus, {refunds} remboursés.',
    byOperator: 'Par opérateur',
    noOperator: 'Carte (sans opérateur)',
    operator: 'Opérateur',
    health: 'Santé des opérateurs',
    'health.help': 'Le taux d’échec de chaque opérateur sur les 7 derniers jours, comparé à son taux habituel (les 28 jours d’avant).',
    'health.none': 'Aucun opérateur utilisé ces 7 derniers jours.',
    country: 'Pays',
    attempts: 'Tentatives',
    failureRate: 'Taux d’échec',
    usualFailureRate: 'Taux d’échec habituel',
    status: 'Statut',
    'status.healthy': 'Bon',
    'status.degraded': 'Dégradé',
    'status.insufficient_data': 'Trop peu de paiements pour juger',
    'rate.label': 'Taux de réussite par jour : {rate} des paiements aboutis sur la période ({succeeded} réussis, {failed} échoués).',
    'rate.none': 'Aucun paiement abouti (réussi ou échoué) sur cette période.',
    'operators.label': 'Paiements par opérateur sur la période, réussis et échoués : {operators}.',
    'operators.figures': 'Les chiffres, opérateur par opérateur',
    'health.label': 'Le taux d’échec de chaque opérateur sur les 7 derniers jours à côté de son taux habituel : {operators}.',
    'health.recent': 'Taux d’échec (7 derniers jours)',
    'health.one': '{name} {recent} (d’habitude {usual})',
    'operators.one': '{name}, {succeeded} réussis et {failed} échoués',
    recommendations: 'Recommandations',
    'recommendations.none': 'Aucune recommandation pour le moment.',
    'severity.high': 'Important',
    'severity.medium': 'À regarder',
    'severity.low': 'Plus tard',
  },
};
