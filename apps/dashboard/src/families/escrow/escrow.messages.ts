import type { Messages } from '../../shell/i18n.js';

/** The words of the escrow pages (Escrow.tsx, EscrowContract.tsx). */
export const escrowMessages: Messages<
  | 'title'
  | 'new'
  | 'amount'
  | 'currency'
  | 'funding'
  | 'funding.merchant_balance'
  | 'funding.payment_intent'
  | 'releaseMode'
  | 'releaseMode.manual'
  | 'releaseMode.immediate'
  | 'destination'
  | 'destination.merchant_balance'
  | 'destination.payout_method'
  | 'payoutMethod'
  | 'autoRelease'
  | 'create'
  | 'list'
  | 'none'
  | 'contract'
  | 'status'
  | 'status.draft'
  | 'status.pending_funding'
  | 'status.funded'
  | 'status.disputed'
  | 'status.completed'
  | 'status.canceled'
  | 'status.all'
  | 'release.pending'
  | 'release.executed'
  | 'release.canceled'
  | 'release.returned'
  | 'dispute.open'
  | 'dispute.resolved'
  | 'funded'
  | 'held'
  | 'released'
  | 'refunded'
  | 'pendingRelease'
  | 'created'
  | 'notFound'
  | 'back'
  | 'fundWithIntent'
  | 'intentId'
  | 'submitIntent'
  | 'participants'
  | 'participants.none'
  | 'role'
  | 'role.payer'
  | 'role.beneficiary'
  | 'role.agent'
  | 'name'
  | 'email'
  | 'addParticipant'
  | 'milestones'
  | 'milestones.none'
  | 'milestoneTitle'
  | 'addMilestone'
  | 'milestone.open'
  | 'milestone.completed'
  | 'milestone.released'
  | 'complete'
  | 'releaseFor'
  | 'releases'
  | 'releases.none'
  | 'newRelease'
  | 'release'
  | 'execute'
  | 'cancelRelease'
  | 'refund'
  | 'refundAll'
  | 'disputes'
  | 'disputes.none'
  | 'reason'
  | 'openDispute'
  | 'resolve'
  | 'outcome'
  | 'outcome.release_to_beneficiary'
  | 'outcome.refund_to_payer'
  | 'outcome.split'
  | 'outcome.dismissed'
  | 'splitRelease'
  | 'cancelContract'
  | 'confirmCancel'
  | 'when'
> = {
  en: {
    title: 'Escrow',
    new: 'New contract',
    amount: 'Amount',
    currency: 'Currency',
    funding: 'Funded by',
    'funding.merchant_balance': 'Your balance, at once',
    'funding.payment_intent': "The payer's payment, later",
    releaseMode: 'Releases',
    'releaseMode.manual': 'Wait for you to execute them',
    'releaseMode.immediate': 'Execute at once',
    destination: 'Released to',
    'destination.merchant_balance': 'Your balance',
    'destination.payout_method': 'A saved payout destination',
    payoutMethod: 'Payout destination',
    autoRelease: 'Release automatically on',
    create: 'Create the contract',
    list: 'Your contracts',
    none: 'No escrow contract in this environment yet.',
    contract: 'Contract',
    status: 'Status',
    'status.draft': 'Draft',
    'status.pending_funding': 'Waiting for funds',
    'status.funded': 'Funded',
    'status.disputed': 'Disputed',
    'status.completed': 'Completed',
    'status.canceled': 'Canceled',
    'status.all': 'Every status',
    'release.pending': 'Pending',
    'release.executed': 'Executed',
    'release.canceled': 'Canceled',
    'release.returned': 'Returned',
    'dispute.open': 'Open',
    'dispute.resolved': 'Resolved',
    funded: 'Funded',
    held: 'Held',
    released: 'Released',
    refunded: 'Refunded',
    pendingRelease: 'In pending releases',
    created: 'Created',
    notFound: 'No such escrow contract in this environment.',
    back: 'All contracts',
    fundWithIntent: "Fund with the payer's payment",
    intentId: 'Payment intent (pi_…)',
    submitIntent: 'Use this payment',
    participants: 'Participants',
    'participants.none': 'No participant yet.',
    role: 'Role',
    'role.payer': 'Payer',
    'role.beneficiary': 'Beneficiary',
    'role.agent': 'Agent',
    name: 'Name',
    email: 'E-mail (optional)',
    addParticipant: 'Add the participant',
    milestones: 'Milestones',
    'milestones.none': 'No milestone yet.',
    milestoneTitle: 'Milestone',
    addMilestone: 'Add the milestone',
    'milestone.open': 'Open',
    'milestone.completed': 'Delivered',
    'milestone.released': 'Released',
    complete: 'Mark delivered',
    releaseFor: 'For milestone',
    releases: 'Releases',
    'releases.none': 'No release yet.',
    newRelease: 'Release funds',
    release: 'Release',
    execute: 'Execute',
    cancelRelease: 'Cancel',
    refund: 'Refund to the payer',
    refundAll: 'Amount (empty: all that is not being released)',
    disputes: 'Disputes',
    'disputes.none': 'No dispute.',
    reason: 'Reason',
    openDispute: 'Open a dispute',
    resolve: 'Resolve',
    outcome: 'Outcome',
    'outcome.release_to_beneficiary': 'Release to the beneficiary',
    'outcome.refund_to_payer': 'Refund the payer',
    'outcome.split': 'Split',
    'outcome.dismissed': 'Dismiss',
    splitRelease: 'Released to the beneficiary in a split',
    cancelContract: 'Cancel the contract',
    confirmCancel: 'Cancel the contract? What it holds is refunded to the payer.',
    when: 'When',
  },
  fr: {
    title: 'Séquestre',
    new: 'Nouveau contrat',
    amount: 'Montant',
    currency: 'Devise',
    funding: 'Financé par',
    'funding.merchant_balance': 'Votre solde, tout de suite',
    'funding.payment_intent': 'Le paiement du payeur, plus tard',
    releaseMode: 'Libérations',
    'releaseMode.manual': 'Attendent que vous les exécutiez',
    'releaseMode.immediate': 'Exécutées tout de suite',
    destination: 'Libéré vers',
    'destination.merchant_balance': 'Votre solde',
    'destination.payout_method': 'Une destination de virement enregistrée',
    payoutMethod: 'Destination de virement',
    autoRelease: 'Libérer automatiquement le',
    create: 'Créer le contrat',
    list: 'Vos contrats',
    none: 'Aucun contrat de séquestre dans cet environnement pour le moment.',
    contract: 'Contrat',
    status: 'Statut',
    'status.draft': 'Brouillon',
    'status.pending_funding': 'En attente des fonds',
    'status.funded': 'Financé',
    'status.disputed': 'En litige',
    'status.completed': 'Terminé',
    'status.canceled': 'Annulé',
    'status.all': 'Tous les statuts',
    'release.pending': 'En attente',
    'release.executed': 'Exécutée',
    'release.canceled': 'Annulée',
    'release.returned': 'Retournée',
    'dispute.open': 'Ouvert',
    'dispute.resolved': 'Résolu',
    funded: 'Financé',
    held: 'Détenu',
    released: 'Libéré',
    refunded: 'Remboursé',
    pendingRelease: 'En libérations en attente',
    created: 'Créé le',
    notFound: 'Aucun contrat de séquestre de ce nom dans cet environnement.',
    back: 'Tous les contrats',
    fundWithIntent: 'Financer par le paiement du payeur',
    intentId: 'Intention de paiement (pi_…)',
    submitIntent: 'Utiliser ce paiement',
    participants: 'Participants',
    'participants.none': 'Aucun participant pour le moment.',
    role: 'Rôle',
    'role.payer': 'Payeur',
    'role.beneficiary': 'Bénéficiaire',
    'role.agent': 'Agent',
    name: 'Nom',
    email: 'E-mail (facultatif)',
    addParticipant: 'Ajouter le participant',
    milestones: 'Étapes',
    'milestones.none': 'Aucune étape pour le moment.',
    milestoneTitle: 'Étape',
    addMilestone: "Ajouter l'étape",
    'milestone.open': 'Ouverte',
    'milestone.completed': 'Livrée',
    'milestone.released': 'Libérée',
    complete: 'Marquer livrée',
    releaseFor: "Pour l'étape",
    releases: 'Libérations',
    'releases.none': 'Aucune libération pour le moment.',
    newRelease: 'Libérer des fonds',
    release: 'Libérer',
    execute: 'Exécuter',
    cancelRelease: 'Annuler',
    refund: 'Rembourser le payeur',
    refundAll: "Montant (vide : tout ce qui n'est pas en libération)",
    disputes: 'Litiges',
    'disputes.none': 'Aucun litige.',
    reason: 'Raison',
    openDispute: 'Ouvrir un litige',
    resolve: 'Régler',
    outcome: 'Issue',
    'outcome.release_to_beneficiary': 'Libérer au bénéficiaire',
    'outcome.refund_to_payer': 'Rembourser le payeur',
    'outcome.split': 'Partager',
    'outcome.dismissed': 'Rejeter',
    splitRelease: 'Libéré au bénéficiaire dans un partage',
    cancelContract: 'Annuler le contrat',
    confirmCancel: 'Annuler le contrat ? Ce qu’il détient est remboursé au payeur.',
    when: 'Quand',
  },
};
