import type { Messages } from '../../shell/i18n.js';

/** The Rules page's words (the rules' own names and actions are the shell's: shell/riskRules.tsx). */
export const ruleMessages: Messages<
  | 'title'
  | 'intro'
  | 'platform'
  | 'own'
  | 'own.toggle'
  | 'own.save'
  | 'own.saved'
  | 'own.sika'
  | 'blocklist'
  | 'blocklist.intro'
  | 'blocklist.empty'
  | 'blocklist.kind'
  | 'blocklist.value'
  | 'blocklist.note'
  | 'blocklist.added'
  | 'blocklist.add'
  | 'blocklist.remove'
  | 'blocklist.removeOne'
  | 'kind.phone'
  | 'kind.email'
  | 'kind.destination'
> = {
  en: {
    title: 'Risk rules',
    intro:
      'Asked about every payment before it is confirmed and every payout before its money is held. Sika’s rules always apply; your own rules add to them, so they can only make a decision stricter. Decisions and their reasons are in Insights.',
    platform: 'Sika’s rules',
    own: 'Your rules',
    'own.toggle': 'My own rule',
    'own.save': 'Save my rules',
    'own.saved': 'Saved: your rules apply from the next payment or payout.',
    'own.sika': 'Sika’s rule: {rule}',
    blocklist: 'Blocklist',
    'blocklist.intro': 'Payments by a blocked payer and payouts to a blocked destination are refused while the blocklist rule is on.',
    'blocklist.empty': 'Nothing is blocked.',
    'blocklist.kind': 'Kind',
    'blocklist.value': 'Value',
    'blocklist.note': 'Note',
    'blocklist.added': 'Added',
    'blocklist.add': 'Block',
    'blocklist.remove': 'Remove',
    'blocklist.removeOne': 'Remove {value} from the blocklist',
    'kind.phone': 'Payer’s number',
    'kind.email': 'Payer’s e-mail',
    'kind.destination': 'Payout destination',
  },
  fr: {
    title: 'Règles de risque',
    intro:
      'Consultées avant la confirmation de chaque paiement et avant la retenue des fonds de chaque virement. Les règles de Sika s’appliquent toujours ; les vôtres s’y ajoutent et ne peuvent que rendre une décision plus stricte. Les décisions et leurs raisons sont dans Analyses.',
    platform: 'Les règles de Sika',
    own: 'Vos règles',
    'own.toggle': 'Ma propre règle',
    'own.save': 'Enregistrer mes règles',
    'own.saved': 'Enregistré : vos règles s’appliquent dès le prochain paiement ou virement.',
    'own.sika': 'Règle de Sika : {rule}',
    blocklist: 'Liste de blocage',
    'blocklist.intro': 'Les paiements d’un payeur bloqué et les virements vers une destination bloquée sont refusés tant que la règle de liste de blocage est activée.',
    'blocklist.empty': 'Rien n’est bloqué.',
    'blocklist.kind': 'Type',
    'blocklist.value': 'Valeur',
    'blocklist.note': 'Note',
    'blocklist.added': 'Ajouté',
    'blocklist.add': 'Bloquer',
    'blocklist.remove': 'Retirer',
    'blocklist.removeOne': 'Retirer {value} de la liste de blocage',
    'kind.phone': 'Numéro du payeur',
    'kind.email': 'E-mail du payeur',
    'kind.destination': 'Destination de virement',
  },
};
