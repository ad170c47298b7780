import type { Messages } from './i18n.js';

/** The words of the risk rules, shared by the merchant's Rules page and the console (riskRules.tsx). */
export const riskRuleMessages: Messages<
  | 'rule.payerPaymentsPerHour'
  | 'rule.payerPaymentsPerDay'
  | 'rule.payoutsPerDestinationPerDay'
  | 'rule.amountCeiling'
  | 'rule.repeatedPayment'
  | 'rule.amountAboveUsual'
  | 'rule.blocklist'
  | 'field.limit'
  | 'field.minutes'
  | 'field.multiple'
  | 'field.minimumHistory'
  | 'field.amounts'
  | 'field.action'
  | 'action.block'
  | 'action.review'
  | 'action.score'
  | 'off'
  | 'text.limit'
  | 'text.minutes'
  | 'text.usual'
  | 'text.amounts'
> = {
  en: {
    'rule.payerPaymentsPerHour': 'Payments by one payer in an hour',
    'rule.payerPaymentsPerDay': 'Payments by one payer in 24 hours',
    'rule.payoutsPerDestinationPerDay': 'Payouts to one destination in 24 hours',
    'rule.amountCeiling': 'Amount ceiling per currency',
    'rule.repeatedPayment': 'Same payer, same amount again',
    'rule.amountAboveUsual': 'Amount far above the usual',
    'rule.blocklist': 'Blocklist',
    'field.limit': 'Attempts allowed',
    'field.minutes': 'Within (minutes)',
    'field.multiple': 'Times the median',
    'field.minimumHistory': 'Successful ones needed first',
    'field.amounts': 'Ceilings (minor units, e.g. xof 2000000, ghs 5000000)',
    'field.action': 'Action',
    'action.block': 'Block',
    'action.review': 'Hold payouts for review',
    'action.score': 'Only record',
    off: 'Off',
    'text.limit': '{count} allowed',
    'text.minutes': 'within {count} minutes',
    'text.usual': 'above {multiple} × the median, after {count} successful',
    'text.amounts': 'above {amounts}',
  },
  fr: {
    'rule.payerPaymentsPerHour': 'Paiements d’un même payeur en une heure',
    'rule.payerPaymentsPerDay': 'Paiements d’un même payeur en 24 heures',
    'rule.payoutsPerDestinationPerDay': 'Virements vers une même destination en 24 heures',
    'rule.amountCeiling': 'Plafond de montant par devise',
    'rule.repeatedPayment': 'Même payeur, même montant à nouveau',
    'rule.amountAboveUsual': 'Montant très au-dessus de l’habituel',
    'rule.blocklist': 'Liste de blocage',
    'field.limit': 'Tentatives permises',
    'field.minutes': 'En (minutes)',
    'field.multiple': 'Fois la médiane',
    'field.minimumHistory': 'Réussis nécessaires d’abord',
    'field.amounts': 'Plafonds (unités mineures, ex. xof 2000000, ghs 5000000)',
    'field.action': 'Action',
    'action.block': 'Bloquer',
    'action.review': 'Retenir les virements pour revue',
    'action.score': 'Seulement noter',
    off: 'Désactivée',
    'text.limit': '{count} permises',
    'text.minutes': 'en {count} minutes',
    'text.usual': 'au-dessus de {multiple} × la médiane, après {count} réussis',
    'text.amounts': 'au-dessus de {amounts}',
  },
};
