import type { Messages } from './i18n.js';

/** The words of the home page (Home.tsx). */
export const homeMessages: Messages<'title' | 'balances' | 'empty' | 'chart.title' | 'chart.in' | 'chart.out' | 'chart.fees' | 'chart.label' | 'chart.day' | 'chart.quiet' | 'activity.title' | 'activity.empty'> = {
  en: {
    title: 'Home',
    balances: 'Balances',
    empty: 'No balance yet in this environment.',
    'chart.title': 'The last 30 days',
    'chart.in': 'Payments in',
    'chart.out': 'Payouts out',
    'chart.fees': 'Fees',
    'chart.label': 'Money in and out per day over the last 30 days, in {currency}: {in} in, {out} out.',
    'chart.day': 'Day',
    'chart.quiet': 'No money moved in the last 30 days.',
    'activity.title': 'Recent activity',
    'activity.empty': 'Nothing has moved on the balance yet.',
  },
  fr: {
    title: 'Accueil',
    balances: 'Soldes',
    empty: 'Pas encore de solde dans cet environnement.',
    'chart.title': 'Les 30 derniers jours',
    'chart.in': 'Paiements reçus',
    'chart.out': 'Virements envoyés',
    'chart.fees': 'Frais',
    'chart.label': 'Entrées et sorties par jour sur les 30 derniers jours, en {currency} : {in} reçus, {out} envoyés.',
    'chart.day': 'Jour',
    'chart.quiet': "Aucun mouvement d'argent ces 30 derniers jours.",
    'activity.title': 'Activité récente',
    'activity.empty': "Rien n'a encore bougé sur le solde.",
  },
};
