import type { Messages } from '../../shell/i18n.js';

/** The words of the payment links page (PaymentLinks.tsx). */
export const paymentLinkMessages: Messages<
  | 'new'
  | 'amount'
  | 'country'
  | 'description'
  | 'feeMode'
  | 'feeMode.merchant'
  | 'feeMode.customer'
  | 'singleUse'
  | 'expires'
  | 'expiresHelp'
  | 'create'
  | 'created'
  | 'list'
  | 'none'
  | 'link'
  | 'status'
  | 'status.active'
  | 'status.inactive'
  | 'status.expired'
  | 'createdAt'
  | 'actions'
  | 'copyLink'
  | 'qr'
  | 'qrAlt'
  | 'deactivate'
  | 'pages'
  | 'filter'
  | 'filter.all'
> = {
  en: {
    new: 'New payment link',
    amount: 'Amount',
    country: 'Country',
    description: 'What it is for',
    feeMode: 'Who pays the fee',
    'feeMode.merchant': 'You (the customer pays the amount)',
    'feeMode.customer': 'The customer (added to the amount)',
    singleUse: 'Paid once only',
    expires: 'Expires on',
    expiresHelp: 'Optional. The link stops taking payments at the start of that day (UTC).',
    create: 'Create the link',
    created: 'Payment link created. Share it:',
    list: 'Your payment links',
    none: 'No payment link in this environment yet.',
    link: 'Link',
    status: 'Status',
    'status.active': 'Active',
    'status.inactive': 'Deactivated',
    'status.expired': 'Expired',
    createdAt: 'Created',
    actions: 'Actions',
    copyLink: 'Copy the link: {name}',
    qr: 'QR code',
    qrAlt: 'QR code of the payment link {name}',
    deactivate: 'Deactivate',
    pages: 'Pages of payment links',
    filter: 'Show',
    'filter.all': 'All',
  },
  fr: {
    new: 'Nouveau lien de paiement',
    amount: 'Montant',
    country: 'Pays',
    description: 'Objet',
    feeMode: 'Qui paie les frais',
    'feeMode.merchant': 'Vous (le client paie le montant)',
    'feeMode.customer': 'Le client (ajoutés au montant)',
    singleUse: 'Payable une seule fois',
    expires: 'Expire le',
    expiresHelp: "Facultatif. Le lien n'accepte plus de paiement à partir de ce jour (UTC).",
    create: 'Créer le lien',
    created: 'Lien de paiement créé. Partagez-le :',
    list: 'Vos liens de paiement',
    none: 'Aucun lien de paiement dans cet environnement pour le moment.',
    link: 'Lien',
    status: 'Statut',
    'status.active': 'Actif',
    'status.inactive': 'Désactivé',
    'status.expired': 'Expiré',
    createdAt: 'Créé le',
    actions: 'Actions',
    copyLink: 'Copier le lien : {name}',
    qr: 'Code QR',
    qrAlt: 'Code QR du lien de paiement {name}',
    deactivate: 'Désactiver',
    pages: 'Pages de liens de paiement',
    filter: 'Afficher',
    'filter.all': 'Tous',
  },
};
