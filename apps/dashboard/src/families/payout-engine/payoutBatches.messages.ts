import { useContext } from 'react';
import { LanguageContext, LOCALES, useMessages, type Messages } from '../../shell/i18n.js';

export const BATCH_STATUSES = ['validated', 'executing', 'completed', 'partially_failed', 'failed', 'canceled'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];
export const ITEM_STATUSES = ['validated', 'queued', 'pending', 'in_transit', 'paid', 'failed', 'canceled'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
/** The kinds of entry of a batch's execution log (GET …/execution-logs `type`). */
export const LOG_STEPS = [
  'payout_batch.created',
  'payout_batch.execution_started',
  'payout_batch.item_settled',
  'payout_batch.canceled',
  'payout_batch.completed',
  'payout_batch.partially_failed',
  'payout_batch.failed',
  'payout.created',
  'payout.updated',
  'payout.delayed',
  'payout.paid',
  'payout.failed',
  'payout.canceled',
] as const;
export type LogStep = (typeof LOG_STEPS)[number];

/** The words of the payout batches pages (PayoutBatches.tsx, PayoutBatch.tsx). */
export const batchMessages: Messages<
  | 'title'
  | 'intro'
  | 'upload'
  | 'file'
  | 'fileHelp'
  | 'check'
  | 'checking'
  | 'invalid'
  | 'badRows'
  | 'row'
  | 'field'
  | 'error'
  | 'content'
  | 'fixAndUpload'
  | 'list'
  | 'none'
  | 'pages'
  | 'batch'
  | 'named.one'
  | 'named.other'
  | 'items'
  | 'total'
  | 'fees'
  | 'created'
  | 'executedAt'
  | 'finishedAt'
  | 'status'
  | 'anyStatus'
  | 'back'
  | 'notFound'
  | 'progress'
  | 'progressText'
  | 'execute'
  | 'executeReview'
  | 'executeHold'
  | 'executeConfirm'
  | 'cancelBatch'
  | 'cancelConfirm'
  | 'retry'
  | 'itemsTitle'
  | 'index'
  | 'reference'
  | 'destination'
  | 'amount'
  | 'fee'
  | 'payout'
  | 'failure'
  | 'log'
  | 'logNone'
  | 'when'
  | 'step'
  | 'morePayouts'
  | `status.${BatchStatus}`
  | `item.${ItemStatus}`
  | `step.${LogStep}`
> = {
  en: {
    title: 'Payout batches',
    intro: 'Pay many recipients at once from a CSV file: every line is checked first, and nothing is sent until you execute the batch.',
    upload: 'Upload a batch',
    file: 'CSV file',
    fileHelp: 'A header line, then one payout per line. Columns: amount (in minor units), currency, destination_type, country, operator, msisdn, bank_code, account_number, account_name, recipient_id, reference.',
    check: 'Check the file',
    checking: 'Checking…',
    invalid: '{bad} of {all} lines are invalid: nothing was created. Fix them and upload the file again.',
    badRows: 'Invalid lines',
    row: 'Line',
    field: 'Field',
    error: 'Error',
    content: 'Its content',
    fixAndUpload: 'Fix the file and upload it again.',
    list: 'Batches',
    none: 'No batch yet.',
    pages: 'Pages of batches',
    batch: 'Batch',
    'named.one': '{count} payout',
    'named.other': '{count} payouts',
    items: 'Payouts',
    total: 'Total',
    fees: 'Fees',
    created: 'Created',
    executedAt: 'Executed',
    finishedAt: 'Finished',
    status: 'Status',
    anyStatus: 'Any status',
    back: 'All payout batches',
    notFound: 'No such payout batch in this environment.',
    progress: 'Progress',
    progressText: '{done} of {all} payouts finished: {paid} paid, {failed} failed, {canceled} canceled.',
    execute: 'Execute the batch',
    executeReview: 'Execute this batch?',
    executeHold: '{total} and {fees} of fees are held from your available balance at once; then each payout is sent.',
    executeConfirm: 'Execute',
    cancelBatch: 'Cancel the batch',
    cancelConfirm: 'Payouts not yet sent are canceled and their money returns to your available balance. Cancel the batch?',
    retry: 'Retry the failed payouts',
    itemsTitle: 'Its payouts',
    index: 'No.',
    reference: 'Reference',
    destination: 'Destination',
    amount: 'Amount',
    fee: 'Fee',
    payout: 'Payout',
    failure: 'Why it failed',
    log: 'Execution log',
    logNone: 'No entry yet.',
    when: 'When',
    step: 'Step',
    morePayouts: 'More payouts',
    'status.validated': 'Checked, not executed',
    'status.executing': 'Executing',
    'status.completed': 'Completed',
    'status.partially_failed': 'Partly failed',
    'status.failed': 'Failed',
    'status.canceled': 'Canceled',
    'item.validated': 'Not executed',
    'item.queued': 'Queued',
    'item.pending': 'Pending',
    'item.in_transit': 'In transit',
    'item.paid': 'Paid',
    'item.failed': 'Failed',
    'item.canceled': 'Canceled',
    'step.payout_batch.created': 'Batch checked and created',
    'step.payout_batch.execution_started': 'Execution started: total and fees held',
    'step.payout_batch.item_settled': 'Payout stopped before it was sent',
    'step.payout_batch.canceled': 'Batch canceled',
    'step.payout_batch.completed': 'Batch completed',
    'step.payout_batch.partially_failed': 'Batch finished, partly failed',
    'step.payout_batch.failed': 'Batch failed',
    'step.payout.created': 'Payout created',
    'step.payout.updated': 'Payout sent to the operator',
    'step.payout.delayed': 'Payout delayed',
    'step.payout.paid': 'Payout paid',
    'step.payout.failed': 'Payout failed',
    'step.payout.canceled': 'Payout canceled',
  },
  fr: {
    title: 'Lots de virements',
    intro: 'Payez de nombreux bénéficiaires en une fois à partir d’un fichier CSV : chaque ligne est vérifiée d’abord, et rien n’est envoyé avant que vous n’exécutiez le lot.',
    upload: 'Importer un lot',
    file: 'Fichier CSV',
    fileHelp: 'Une ligne d’en-tête, puis un virement par ligne. Colonnes : amount (en unités mineures), currency, destination_type, country, operator, msisdn, bank_code, account_number, account_name, recipient_id, reference.',
    check: 'Vérifier le fichier',
    checking: 'Vérification…',
    invalid: '{bad} lignes sur {all} sont invalides : rien n’a été créé. Corrigez-les et importez de nouveau le fichier.',
    badRows: 'Lignes invalides',
    row: 'Ligne',
    field: 'Champ',
    error: 'Erreur',
    content: 'Son contenu',
    fixAndUpload: 'Corrigez le fichier et importez-le de nouveau.',
    list: 'Lots',
    none: 'Aucun lot pour l’instant.',
    pages: 'Pages de lots',
    batch: 'Lot',
    'named.one': '{count} virement',
    'named.other': '{count} virements',
    items: 'Virements',
    total: 'Total',
    fees: 'Frais',
    created: 'Créé',
    executedAt: 'Exécuté',
    finishedAt: 'Terminé',
    status: 'État',
    anyStatus: 'Tous les états',
    back: 'Tous les lots de virements',
    notFound: 'Aucun lot de virements de ce nom dans cet environnement.',
    progress: 'Avancement',
    progressText: '{done} virements terminés sur {all} : {paid} payés, {failed} échoués, {canceled} annulés.',
    execute: 'Exécuter le lot',
    executeReview: 'Exécuter ce lot ?',
    executeHold: '{total} et {fees} de frais sont réservés sur votre solde disponible en une fois ; puis chaque virement est envoyé.',
    executeConfirm: 'Exécuter',
    cancelBatch: 'Annuler le lot',
    cancelConfirm: 'Les virements pas encore envoyés sont annulés et leur argent revient sur votre solde disponible. Annuler le lot ?',
    retry: 'Relancer les virements échoués',
    itemsTitle: 'Ses virements',
    index: 'N°',
    reference: 'Référence',
    destination: 'Destination',
    amount: 'Montant',
    fee: 'Frais',
    payout: 'Virement',
    failure: 'Pourquoi il a échoué',
    log: 'Journal d’exécution',
    logNone: 'Aucune entrée pour l’instant.',
    when: 'Quand',
    step: 'Étape',
    morePayouts: 'Plus de virements',
    'status.validated': 'Vérifié, non exécuté',
    'status.executing': 'En cours d’exécution',
    'status.completed': 'Terminé',
    'status.partially_failed': 'En partie échoué',
    'status.failed': 'Échoué',
    'status.canceled': 'Annulé',
    'item.validated': 'Non exécuté',
    'item.queued': 'En file',
    'item.pending': 'En attente',
    'item.in_transit': 'En cours',
    'item.paid': 'Payé',
    'item.failed': 'Échoué',
    'item.canceled': 'Annulé',
    'step.payout_batch.created': 'Lot vérifié et créé',
    'step.payout_batch.execution_started': 'Exécution commencée : total et frais réservés',
    'step.payout_batch.item_settled': 'Virement arrêté avant son envoi',
    'step.payout_batch.canceled': 'Lot annulé',
    'step.payout_batch.completed': 'Lot terminé',
    'step.payout_batch.partially_failed': 'Lot terminé, en partie échoué',
    'step.payout_batch.failed': 'Lot échoué',
    'step.payout.created': 'Virement créé',
    'step.payout.updated': 'Virement envoyé à l’opérateur',
    'step.payout.delayed': 'Virement retardé',
    'step.payout.paid': 'Virement payé',
    'step.payout.failed': 'Virement échoué',
    'step.payout.canceled': 'Virement annulé',
  },
};

/** A batch as the merchant recognises it (it has no name): how many payouts it makes, "3 payouts", in the page's language. */
export function useBatchName(): (payouts: number) => string {
  const t = useMessages(batchMessages);
  const { language } = useContext(LanguageContext);
  const plural = new Intl.PluralRules(LOCALES[language]);
  return (payouts) => t(plural.select(payouts) === 'one' ? 'named.one' : 'named.other', { count: new Intl.NumberFormat(LOCALES[language]).format(payouts) });
}
