import type { Messages } from '../../shell/i18n.js';

/** The words of the configuration page (Configuration.tsx). */
export const configurationMessages: Messages<
  | 'title'
  | 'countries'
  | 'countries.help'
  | 'country'
  | 'currency'
  | 'operators'
  | 'activation'
  | 'setBySika'
  | 'default'
  | 'payIn'
  | 'payout'
  | 'on'
  | 'off'
  | 'bounds'
  | 'configure'
  | 'configureOf'
  | 'minAmount'
  | 'maxAmount'
  | 'optional'
  | 'save'
  | 'reset'
  | 'resetOf'
  | 'saved'
  | 'methods'
  | 'methods.help'
  | 'methods.none'
  | 'method'
  | 'method.mobile_money'
  | 'method.card'
  | 'method.bank'
  | 'operator'
  | 'operator.any'
  | 'enabled'
  | 'status'
  | 'status.active'
  | 'status.suspended'
  | 'addMethod'
  | 'add'
  | 'enable'
  | 'disable'
  | 'suspend'
  | 'resume'
  | 'remove'
  | 'reason'
  | 'actions'
  | 'rails'
  | 'rails.help'
  | 'rails.of'
  | 'rails.line'
  | 'rails.summary'
  | 'rails.summaryNone'
  | 'state.available'
  | 'state.slow'
  | 'state.notYet'
  | 'state.paused'
  | 'direction.collect'
  | 'direction.payout'
> = {
  en: {
    title: 'Configuration',
    countries: 'Countries',
    'countries.help': 'Where you take payments and send payouts. A country you have not configured follows the catalog: every operator it lists, any amount within the operators’ limits.',
    country: 'Country',
    currency: 'Currency',
    operators: 'Operators',
    activation: 'Your setting',
    setBySika: 'Set by Sika for your account: ask support to change it.',
    default: 'Catalog default',
    payIn: 'Payments in',
    payout: 'Payouts',
    on: 'on',
    off: 'off',
    bounds: 'Amounts {min} to {max}',
    configure: 'Configure',
    configureOf: 'Configure {country}',
    minAmount: 'Smallest amount',
    maxAmount: 'Largest amount',
    optional: 'optional',
    save: 'Save',
    reset: 'Back to the catalog',
    resetOf: 'Back to the catalog: {country}',
    saved: '{country} saved.',
    methods: 'Payment methods',
    'methods.help': 'Turn a method on or off in a country, for every operator or one; suspend it with a reason to refuse it until you resume it.',
    'methods.none': 'Every method follows the catalog in this environment.',
    method: 'Method',
    'method.mobile_money': 'Mobile money',
    'method.card': 'Card',
    'method.bank': 'Bank',
    operator: 'Operator',
    'operator.any': 'Every operator',
    enabled: 'Enabled',
    status: 'Status',
    'status.active': 'Active',
    'status.suspended': 'Suspended',
    addMethod: 'Set a payment method',
    add: 'Save the method',
    enable: 'Enable',
    disable: 'Disable',
    suspend: 'Suspend',
    resume: 'Resume',
    remove: 'Remove',
    reason: 'Reason for suspending',
    actions: 'Actions',
    rails: 'In live',
    'rails.help':
      'What each method does in live now: available; not available in live yet (Sika has not opened it for live payments there); or paused by the platform (for a while: payments and payouts resume by themselves). Open a country for each method’s payments in and payouts.',
    'rails.of': 'In live: {country}',
    'rails.line': '{method}, {direction}:',
    'rails.summary': 'Available in live: {methods}',
    'rails.summaryNone': 'Not available in live yet',
    'state.available': 'available',
    'state.slow': 'available, slower than usual',
    'state.notYet': 'not available in live yet',
    'state.paused': 'paused by the platform',
    'direction.collect': 'payments in',
    'direction.payout': 'payouts',
  },
  fr: {
    title: 'Configuration',
    countries: 'Pays',
    'countries.help': 'Là où vous encaissez et envoyez des virements. Un pays que vous n’avez pas configuré suit le catalogue : tous ses opérateurs, tout montant dans leurs limites.',
    country: 'Pays',
    currency: 'Devise',
    operators: 'Opérateurs',
    activation: 'Votre réglage',
    setBySika: 'Réglé par Sika pour votre compte : demandez au support de le changer.',
    default: 'Catalogue par défaut',
    payIn: 'Encaissements',
    payout: 'Virements',
    on: 'activés',
    off: 'désactivés',
    bounds: 'Montants de {min} à {max}',
    configure: 'Configurer',
    configureOf: 'Configurer {country}',
    minAmount: 'Montant minimum',
    maxAmount: 'Montant maximum',
    optional: 'facultatif',
    save: 'Enregistrer',
    reset: 'Revenir au catalogue',
    resetOf: 'Revenir au catalogue : {country}',
    saved: '{country} enregistré.',
    methods: 'Moyens de paiement',
    'methods.help': 'Activez ou désactivez un moyen dans un pays, pour tous les opérateurs ou un seul ; suspendez-le avec une raison pour le refuser jusqu’à sa reprise.',
    'methods.none': 'Tous les moyens suivent le catalogue dans cet environnement.',
    method: 'Moyen',
    'method.mobile_money': 'Mobile money',
    'method.card': 'Carte',
    'method.bank': 'Banque',
    operator: 'Opérateur',
    'operator.any': 'Tous les opérateurs',
    enabled: 'Activé',
    status: 'Statut',
    'status.active': 'Actif',
    'status.suspended': 'Suspendu',
    addMethod: 'Régler un moyen de paiement',
    add: 'Enregistrer le moyen',
    enable: 'Activer',
    disable: 'Désactiver',
    suspend: 'Suspendre',
    resume: 'Reprendre',
    remove: 'Retirer',
    reason: 'Raison de la suspension',
    actions: 'Actions',
    rails: 'En live',
    'rails.help':
      'Ce que fait chaque moyen en live maintenant : disponible ; pas encore disponible en live (Sika ne l’a pas encore ouvert aux paiements réels dans ce pays) ; ou mis en pause par la plateforme (pour un temps : encaissements et virements reprennent d’eux-mêmes). Ouvrez un pays pour voir les encaissements et virements de chaque moyen.',
    'rails.of': 'En live : {country}',
    'rails.line': '{method}, {direction} :',
    'rails.summary': 'Disponible en live : {methods}',
    'rails.summaryNone': 'Pas encore disponible en live',
    'state.available': 'disponible',
    'state.slow': 'disponible, plus lent que d’habitude',
    'state.notYet': 'pas encore disponible en live',
    'state.paused': 'mis en pause par la plateforme',
    'direction.collect': 'encaissements',
    'direction.payout': 'virements',
  },
};
