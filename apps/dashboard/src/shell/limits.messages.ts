import type { Messages } from './i18n.js';

/** The words of the payouts freeze notice (limits.tsx). */
export const limitNoticeMessages: Messages<'frozen' | 'frozen.since' | 'frozen.see'> = {
  en: {
    frozen: 'Payouts are frozen by Sika’s risk team: {reason}. New payouts are refused until the freeze is lifted; payments are still taken.',
    'frozen.since': 'Frozen since {date}.',
    'frozen.see': 'See your limits and holds',
  },
  fr: {
    frozen: 'Les virements sont gelés par l’équipe risques de Sika : {reason}. Les nouveaux virements sont refusés jusqu’à la levée du gel ; les paiements sont toujours acceptés.',
    'frozen.since': 'Gelés depuis le {date}.',
    'frozen.see': 'Voir vos limites et retenues',
  },
};
