import type { Messages } from '../../shell/i18n.js';

/** The words of the funding pages (Funding.tsx, FundingCampaign.tsx). */
export const fundingMessages: Messages<
  | 'title'
  | 'new'
  | 'campaignTitle'
  | 'description'
  | 'country'
  | 'target'
  | 'deadline'
  | 'model'
  | 'model.keep_what_you_raise'
  | 'model.all_or_nothing'
  | 'create'
  | 'list'
  | 'none'
  | 'status'
  | 'status.draft'
  | 'status.active'
  | 'status.closed'
  | 'status.canceled'
  | 'status.failed'
  | 'status.all'
  | 'contribution.pending'
  | 'contribution.succeeded'
  | 'contribution.failed'
  | 'contribution.canceled'
  | 'contribution.refunded'
  | 'payout.requested'
  | 'payout.created'
  | 'payout.failed'
  | 'raised'
  | 'raisedOf'
  | 'contributors'
  | 'progress'
  | 'publicPage'
  | 'publish'
  | 'close'
  | 'cancel'
  | 'confirmClose'
  | 'confirmCancel'
  | 'held'
  | 'released'
  | 'releasedFee'
  | 'paidOut'
  | 'refunded'
  | 'chart.label'
  | 'chart.in'
  | 'chart.out'
  | 'chart.day'
  | 'updates'
  | 'updates.none'
  | 'updateTitle'
  | 'updateBody'
  | 'post'
  | 'delete'
  | 'contributions'
  | 'contributions.none'
  | 'contributor'
  | 'anonymous'
  | 'amount'
  | 'when'
  | 'refund'
  | 'exportCsv'
  | 'payouts'
  | 'payouts.none'
  | 'payoutTo'
  | 'payoutAll'
  | 'payOut'
  | 'payoutFee'
  | 'noDestination'
  | 'notFound'
  | 'back'
> = {
  en: {
    title: 'Funding',
    new: 'New campaign',
    campaignTitle: 'Title',
    description: 'Description',
    country: 'Country',
    target: 'Target',
    deadline: 'Deadline',
    model: 'Funding model',
    'model.keep_what_you_raise': 'Keep what you raise',
    'model.all_or_nothing': 'All or nothing (refunded if the target is missed)',
    create: 'Create the campaign',
    list: 'Your campaigns',
    none: 'No campaign in this environment yet.',
    status: 'Status',
    'status.draft': 'Draft',
    'status.active': 'Active',
    'status.closed': 'Closed',
    'status.canceled': 'Canceled',
    'status.failed': 'Failed',
    'status.all': 'Every status',
    'contribution.pending': 'Pending',
    'contribution.succeeded': 'Succeeded',
    'contribution.failed': 'Failed',
    'contribution.canceled': 'Canceled',
    'contribution.refunded': 'Refunded',
    'payout.requested': 'Requested',
    'payout.created': 'Sent',
    'payout.failed': 'Failed',
    raised: 'Raised',
    raisedOf: '{raised} of {target}',
    contributors: 'Contributors',
    progress: 'Progress toward the target',
    publicPage: 'Public page',
    publish: 'Publish',
    close: 'Close and release the funds',
    cancel: 'Cancel and refund everyone',
    confirmClose: 'Close the campaign? It takes no more contributions and its funds come to your balance.',
    confirmCancel: 'Cancel the campaign? Every contribution is refunded in full.',
    held: 'Held for the campaign',
    released: 'Released to your balance',
    releasedFee: 'Fees on release',
    paidOut: 'Paid out',
    refunded: 'Refunded',
    'chart.label': 'Contributions per day: {raised} raised.',
    'chart.in': 'Contributions',
    'chart.out': 'Refunds',
    'chart.day': 'Day',
    updates: 'Updates',
    'updates.none': 'No update posted yet.',
    updateTitle: 'Update title',
    updateBody: 'What is new',
    post: 'Post the update',
    delete: 'Delete',
    contributions: 'Contributions',
    'contributions.none': 'No contribution yet.',
    contributor: 'Contributor',
    anonymous: 'Anonymous',
    amount: 'Amount',
    when: 'When',
    refund: 'Refund',
    exportCsv: 'Export contributors (CSV)',
    payouts: 'Payouts of the released funds',
    'payouts.none': 'Nothing paid out yet.',
    payoutTo: 'To',
    payoutAll: 'Pay out what remains',
    payOut: 'Pay out',
    payoutFee: 'Fee',
    noDestination: 'Save a payout destination first (Payouts).',
    notFound: 'No such campaign in this environment.',
    back: 'All campaigns',
  },
  fr: {
    title: 'Cagnottes',
    new: 'Nouvelle cagnotte',
    campaignTitle: 'Titre',
    description: 'Description',
    country: 'Pays',
    target: 'Objectif',
    deadline: 'Date limite',
    model: 'Modèle',
    'model.keep_what_you_raise': 'Garder ce qui est collecté',
    'model.all_or_nothing': 'Tout ou rien (remboursé si l’objectif est manqué)',
    create: 'Créer la cagnotte',
    list: 'Vos cagnottes',
    none: 'Aucune cagnotte dans cet environnement pour le moment.',
    status: 'Statut',
    'status.draft': 'Brouillon',
    'status.active': 'Active',
    'status.closed': 'Clôturée',
    'status.canceled': 'Annulée',
    'status.failed': 'Échouée',
    'status.all': 'Tous les statuts',
    'contribution.pending': 'En attente',
    'contribution.succeeded': 'Réussie',
    'contribution.failed': 'Échouée',
    'contribution.canceled': 'Annulée',
    'contribution.refunded': 'Remboursée',
    'payout.requested': 'Demandé',
    'payout.created': 'Envoyé',
    'payout.failed': 'Échoué',
    raised: 'Collecté',
    raisedOf: '{raised} sur {target}',
    contributors: 'Contributeurs',
    progress: 'Progression vers l’objectif',
    publicPage: 'Page publique',
    publish: 'Publier',
    close: 'Clôturer et libérer les fonds',
    cancel: 'Annuler et rembourser tout le monde',
    confirmClose: 'Clôturer la cagnotte ? Elle ne reçoit plus de contributions et ses fonds arrivent sur votre solde.',
    confirmCancel: 'Annuler la cagnotte ? Chaque contribution est remboursée intégralement.',
    held: 'Détenu pour la cagnotte',
    released: 'Libéré sur votre solde',
    releasedFee: 'Frais à la libération',
    paidOut: 'Versé',
    refunded: 'Remboursé',
    'chart.label': 'Contributions par jour : {raised} collectés.',
    'chart.in': 'Contributions',
    'chart.out': 'Remboursements',
    'chart.day': 'Jour',
    updates: 'Nouvelles',
    'updates.none': 'Aucune nouvelle publiée.',
    updateTitle: 'Titre de la nouvelle',
    updateBody: 'Quoi de neuf',
    post: 'Publier la nouvelle',
    delete: 'Supprimer',
    contributions: 'Contributions',
    'contributions.none': 'Aucune contribution pour le moment.',
    contributor: 'Contributeur',
    anonymous: 'Anonyme',
    amount: 'Montant',
    when: 'Quand',
    refund: 'Rembourser',
    exportCsv: 'Exporter les contributeurs (CSV)',
    payouts: 'Virements des fonds libérés',
    'payouts.none': 'Rien de versé pour le moment.',
    payoutTo: 'Vers',
    payoutAll: 'Verser ce qui reste',
    payOut: 'Verser',
    payoutFee: 'Frais',
    noDestination: 'Enregistrez d’abord une destination de virement (Virements).',
    notFound: 'Aucune cagnotte de ce nom dans cet environnement.',
    back: 'Toutes les cagnottes',
  },
};
