import type { Messages } from '../../../src/shell/i18n.js';

/** The words of the console's RiskRules page (RiskRules.tsx). */
export const riskRuleMessages = {
  en: {
    'riskRules.title': 'Risk rules',
    'riskRules.intro': 'The platform’s rules apply to every merchant’s payments and payouts, in both environments, whatever rules the merchant set: a merchant’s own rules only add to them.',
    'riskRules.on': 'On',
    'riskRules.save': 'Save the platform’s rules',
    'riskRules.saved': 'Saved: they apply from every merchant’s next payment or payout.',
    'riskRules.updated': 'Last changed {date}.',
    'riskRules.never': 'Never changed: the starting values.',
  },
  fr: {
    'riskRules.title': 'Règles de risque',
    'riskRules.intro': 'Les règles de la plateforme s’appliquent aux paiements et virements de chaque marchand, dans les deux environnements, quelles que soient les règles du marchand : les siennes ne font que s’y ajouter.',
    'riskRules.on': 'Activée',
    'riskRules.save': 'Enregistrer les règles de la plateforme',
    'riskRules.saved': 'Enregistré : elles s’appliquent dès le prochain paiement ou virement de chaque marchand.',
    'riskRules.updated': 'Modifiées le {date}.',
    'riskRules.never': 'Jamais modifiées : les valeurs de départ.',
  },
} satisfies Messages<string>;
