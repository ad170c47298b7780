import type { Messages } from '../../shell/i18n.js';

/** Where a dispute stands (docs/disputes.md), in the API's order. */
export const DISPUTE_STATUSES = ['needs_response', 'under_review', 'won', 'lost', 'accepted'] as const;
export type DisputeStatus = (typeof DISPUTE_STATUSES)[number];

/** The words of the disputes pages (Disputes.tsx, Dispute.tsx). */
export const disputeMessages: Messages<
  | 'title'
  | 'intro'
  | 'none'
  | 'pages'
  | 'dispute'
  | 'payment'
  | 'amount'
  | 'reason'
  | 'status'
  | 'status.all'
  | 'status.needs_response'
  | 'status.under_review'
  | 'status.won'
  | 'status.lost'
  | 'status.accepted'
  | 'dueBy'
  | 'dueBy.none'
  | 'created'
  | 'closed'
  | 'back'
  | 'notFound'
  | 'facts'
  | 'evidence'
  | 'evidence.none'
  | 'evidence.submittedAt'
  | 'evidence.files'
  | 'evidence.noFiles'
  | 'answer'
  | 'answer.help'
  | 'answer.late'
  | 'customerEmail'
  | 'customerName'
  | 'customerPhone'
  | 'serviceDetails'
  | 'deliveryAddress'
  | 'deliveryDate'
  | 'optional'
  | 'files'
  | 'files.help'
  | 'files.none'
  | 'submit'
  | 'submitted'
  | 'accept'
  | 'accept.help'
  | 'accept.confirm'
  | 'accepted'
> = {
  en: {
    title: 'Disputes',
    intro: 'A payer’s bank took back a card payment. Answer each dispute with evidence, or accept it, before its due date: until it closes, its amount is held on your reserved balance.',
    none: 'No dispute in this environment.',
    pages: 'Pages of disputes',
    dispute: 'Dispute',
    payment: 'Payment',
    amount: 'Amount',
    reason: 'Reason',
    status: 'Status',
    'status.all': 'Every status',
    'status.needs_response': 'Needs your answer',
    'status.under_review': 'Under review',
    'status.won': 'Won',
    'status.lost': 'Lost',
    'status.accepted': 'Accepted',
    dueBy: 'Evidence due by',
    'dueBy.none': 'No due date',
    created: 'Opened',
    closed: 'Closed',
    back: 'All disputes',
    notFound: 'No such dispute in this environment.',
    facts: 'The dispute',
    evidence: 'Evidence sent',
    'evidence.none': 'No evidence sent yet.',
    'evidence.submittedAt': 'Sent',
    'evidence.files': 'Files',
    'evidence.noFiles': 'No file',
    answer: 'Submit evidence',
    'answer.help': 'What you send goes to the card network once; the dispute is then under review until the payer’s bank decides.',
    'answer.late': 'The due date has passed: evidence can no longer be sent.',
    customerEmail: 'Customer’s e-mail address',
    customerName: 'Customer’s name',
    customerPhone: 'Customer’s phone number',
    serviceDetails: 'What was sold or delivered, and how the customer received it',
    deliveryAddress: 'Delivery address',
    deliveryDate: 'Delivery date',
    optional: '(optional)',
    files: 'Files',
    'files.help': 'Receipts or proofs of delivery among your ready files (Files page).',
    'files.none': 'No ready file: upload receipts or proofs of delivery on the Files page first.',
    submit: 'Submit the evidence',
    submitted: 'The evidence was sent: the dispute is under review.',
    accept: 'Accept the dispute',
    'accept.help': 'The payer keeps the amount: it leaves your balance for good.',
    'accept.confirm': 'Accept this dispute? The payer keeps {amount} and it leaves your balance for good.',
    accepted: 'The dispute was accepted and is closed.',
  },
  fr: {
    title: 'Litiges',
    intro: 'La banque d’un payeur a repris un paiement par carte. Répondez à chaque litige avec des preuves, ou acceptez-le, avant sa date limite : tant qu’il est ouvert, son montant est retenu sur votre solde réservé.',
    none: 'Aucun litige dans cet environnement.',
    pages: 'Pages de litiges',
    dispute: 'Litige',
    payment: 'Paiement',
    amount: 'Montant',
    reason: 'Motif',
    status: 'Statut',
    'status.all': 'Tous les statuts',
    'status.needs_response': 'Attend votre réponse',
    'status.under_review': 'En cours d’examen',
    'status.won': 'Gagné',
    'status.lost': 'Perdu',
    'status.accepted': 'Accepté',
    dueBy: 'Preuves attendues avant le',
    'dueBy.none': 'Pas de date limite',
    created: 'Ouvert le',
    closed: 'Clos le',
    back: 'Tous les litiges',
    notFound: 'Aucun litige de ce nom dans cet environnement.',
    facts: 'Le litige',
    evidence: 'Preuves envoyées',
    'evidence.none': 'Aucune preuve envoyée pour le moment.',
    'evidence.submittedAt': 'Envoyées le',
    'evidence.files': 'Fichiers',
    'evidence.noFiles': 'Aucun fichier',
    answer: 'Envoyer des preuves',
    'answer.help': 'Ce que vous envoyez part une seule fois au réseau de cartes ; le litige est ensuite en cours d’examen jusqu’à la décision de la banque du payeur.',
    'answer.late': 'La date limite est passée : les preuves ne peuvent plus être envoyées.',
    customerEmail: 'Adresse e-mail du client',
    customerName: 'Nom du client',
    customerPhone: 'Numéro de téléphone du client',
    serviceDetails: 'Ce qui a été vendu ou livré, et comment le client l’a reçu',
    deliveryAddress: 'Adresse de livraison',
    deliveryDate: 'Date de livraison',
    optional: '(facultatif)',
    files: 'Fichiers',
    'files.help': 'Reçus ou preuves de livraison parmi vos fichiers prêts (page Fichiers).',
    'files.none': 'Aucun fichier prêt : téléversez d’abord des reçus ou des preuves de livraison sur la page Fichiers.',
    submit: 'Envoyer les preuves',
    submitted: 'Les preuves ont été envoyées : le litige est en cours d’examen.',
    accept: 'Accepter le litige',
    'accept.help': 'Le payeur garde le montant : il quitte votre solde définitivement.',
    'accept.confirm': 'Accepter ce litige ? Le payeur garde {amount}, qui quitte votre solde définitivement.',
    accepted: 'Le litige a été accepté et il est clos.',
  },
};
