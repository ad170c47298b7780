import type { Messages } from '../../shell/i18n.js';

/** The words of the reports page (Reports.tsx). */
export const reportMessages: Messages<
  | 'balanceAt'
  | 'balanceAt.help'
  | 'balanceAt.moment'
  | 'balanceAt.show'
  | 'balanceAt.none'
  | 'transactions'
  | 'transactions.help'
  | 'type'
  | 'type.all'
  | 'from'
  | 'to'
  | 'payout'
  | 'payout.help'
  | 'filter'
  | 'download'
  | 'downloading'
  | 'none'
  | 'pages'
  | 'settled'
  | 'summaries'
  | 'summaries.help'
  | 'day'
  | 'opening'
  | 'in'
  | 'out'
  | 'fees'
  | 'closing'
  | 'addsUp'
  | 'addsUp.yes'
  | 'addsUp.no'
  | 'summaries.none'
> = {
  en: {
    balanceAt: 'The balance at a moment',
    'balanceAt.help': 'Each currency as it stood then: what had arrived, what was still pending and what was reserved.',
    'balanceAt.moment': 'Moment (your time)',
    'balanceAt.show': 'Show the balance',
    'balanceAt.none': 'Nothing was held at that moment.',
    transactions: 'Balance transactions',
    'transactions.help': 'Every movement of the balance, newest first. With an end date, each shows the status it had then.',
    type: 'Type',
    'type.all': 'Every type',
    from: 'From (UTC day)',
    to: 'To (UTC day, included)',
    payout: 'Settled by payout',
    'payout.help': 'A payout’s id (po_…): only the transactions that payout drew on, to reconcile it.',
    filter: 'Filter',
    download: 'Download CSV',
    downloading: 'Preparing the file…',
    none: 'No balance transaction matches.',
    pages: 'Pages of balance transactions',
    settled: 'Payout {payout} drew on these {count} transactions, oldest funds first.',
    summaries: 'Daily summaries',
    'summaries.help': 'Each UTC day: opening + in − out − fees = closing.',
    day: 'Day',
    opening: 'Opening',
    in: 'In',
    out: 'Out',
    fees: 'Fees',
    closing: 'Closing',
    addsUp: 'Adds up',
    'addsUp.yes': 'Yes',
    'addsUp.no': 'No',
    'summaries.none': 'No balance in these days.',
  },
  fr: {
    balanceAt: 'Le solde à un moment donné',
    'balanceAt.help': 'Chaque devise telle qu’elle était alors : ce qui était arrivé, ce qui était encore en attente et ce qui était réservé.',
    'balanceAt.moment': 'Moment (votre heure)',
    'balanceAt.show': 'Afficher le solde',
    'balanceAt.none': 'Rien n’était détenu à ce moment.',
    transactions: 'Transactions du solde',
    'transactions.help': 'Chaque mouvement du solde, du plus récent au plus ancien. Avec une date de fin, chacune a le statut qu’elle avait alors.',
    type: 'Type',
    'type.all': 'Tous les types',
    from: 'Du (jour UTC)',
    to: 'Au (jour UTC, inclus)',
    payout: 'Réglées par le virement',
    'payout.help': 'L’identifiant d’un virement (po_…) : seulement les transactions sur lesquelles il a puisé, pour le rapprocher.',
    filter: 'Filtrer',
    download: 'Télécharger le CSV',
    downloading: 'Préparation du fichier…',
    none: 'Aucune transaction ne correspond.',
    pages: 'Pages de transactions',
    settled: 'Le virement {payout} a puisé dans ces {count} transactions, les fonds les plus anciens d’abord.',
    summaries: 'Résumés quotidiens',
    'summaries.help': 'Chaque jour UTC : ouverture + entrées − sorties − frais = clôture.',
    day: 'Jour',
    opening: 'Ouverture',
    in: 'Entrées',
    out: 'Sorties',
    fees: 'Frais',
    closing: 'Clôture',
    addsUp: 'Juste',
    'addsUp.yes': 'Oui',
    'addsUp.no': 'Non',
    'summaries.none': 'Aucun solde ces jours-là.',
  },
};
