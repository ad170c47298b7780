import type { Messages } from '../../shell/i18n.js';

export const SESSION_STATUSES = ['open', 'complete', 'canceled', 'expired'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];
export const SESSION_PAYMENT_STATUSES = ['unpaid', 'processing', 'paid', 'failed'] as const;
export type SessionPaymentStatus = (typeof SESSION_PAYMENT_STATUSES)[number];

/** The words of the checkout sessions pages (Checkout.tsx, CheckoutSession.tsx). */
export const checkoutMessages: Messages<
  | 'title'
  | 'intro'
  | 'list'
  | 'none'
  | 'pages'
  | 'filter'
  | 'filter.all'
  | 'session'
  | 'amount'
  | 'status'
  | 'payment'
  | 'created'
  | 'expires'
  | 'page'
  | 'openPage'
  | 'openPageOf'
  | `status.${SessionStatus}`
  | `payment.${SessionPaymentStatus}`
  | 'back'
  | 'notFound'
  | 'id'
  | 'customerPays'
  | 'description'
  | 'customer'
  | 'paymentLink'
  | 'successUrl'
  | 'cancelUrl'
  | 'copyPage'
  | 'itsPayment'
  | 'noPayment'
  | 'intent'
  | 'intentStatus'
  | 'fee'
  | 'received'
  | 'fees'
  | 'feesHelp'
  | 'operator'
  | 'card'
  | 'youReceive'
  | 'expire'
  | 'expireConfirm'
  | 'expireYes'
  | 'keep'
  | 'expired'
> = {
  en: {
    title: 'Checkout sessions',
    intro: 'The hosted payment pages your server opens (POST /api/v1/checkout/sessions) and those your payment links open, newest first.',
    list: 'Sessions',
    none: 'No checkout session in this environment yet.',
    pages: 'Pages of checkout sessions',
    filter: 'Show',
    'filter.all': 'All',
    session: 'Session',
    amount: 'Amount',
    status: 'Status',
    payment: 'Payment',
    created: 'Created',
    expires: 'Expires',
    page: 'Hosted page',
    openPage: 'Open the page',
    openPageOf: 'Open the page of {id}',
    'status.open': 'Open',
    'status.complete': 'Complete',
    'status.canceled': 'Canceled',
    'status.expired': 'Expired',
    'payment.unpaid': 'Unpaid',
    'payment.processing': 'With the operator',
    'payment.paid': 'Paid',
    'payment.failed': 'Failed (may be tried again)',
    back: 'All checkout sessions',
    notFound: 'No such checkout session in this environment.',
    id: 'Id',
    customerPays: 'The customer pays',
    description: 'Description',
    customer: 'Customer',
    paymentLink: 'Payment link',
    successUrl: 'After payment',
    cancelUrl: 'On cancel',
    copyPage: 'Copy the hosted page’s link',
    itsPayment: 'Its payment',
    noPayment: 'No payment attempt yet.',
    intent: 'Payment',
    intentStatus: 'Payment status',
    fee: 'Fee',
    received: 'You receive',
    fees: 'Its fee by operator',
    feesHelp: 'What a payment of this session costs with each operator of {country}, and what reaches your balance.',
    operator: 'Operator',
    card: 'Card',
    youReceive: 'You receive',
    expire: 'Expire now',
    expireConfirm: 'Expire this session now? Its page will say it expired and take no payment.',
    expireYes: 'Expire the session',
    keep: 'Keep it open',
    expired: 'The session has expired.',
  },
  fr: {
    title: 'Sessions de paiement',
    intro: 'Les pages de paiement hébergées qu’ouvre votre serveur (POST /api/v1/checkout/sessions) et celles qu’ouvrent vos liens de paiement, des plus récentes aux plus anciennes.',
    list: 'Sessions',
    none: 'Aucune session de paiement dans cet environnement pour le moment.',
    pages: 'Pages de sessions de paiement',
    filter: 'Afficher',
    'filter.all': 'Toutes',
    session: 'Session',
    amount: 'Montant',
    status: 'Statut',
    payment: 'Paiement',
    created: 'Créée le',
    expires: 'Expire le',
    page: 'Page hébergée',
    openPage: 'Ouvrir la page',
    openPageOf: 'Ouvrir la page de {id}',
    'status.open': 'Ouverte',
    'status.complete': 'Terminée',
    'status.canceled': 'Annulée',
    'status.expired': 'Expirée',
    'payment.unpaid': 'Non payée',
    'payment.processing': 'Chez l’opérateur',
    'payment.paid': 'Payée',
    'payment.failed': 'Échoué (peut être retenté)',
    back: 'Toutes les sessions de paiement',
    notFound: 'Aucune session de paiement de ce nom dans cet environnement.',
    id: 'Identifiant',
    customerPays: 'Le client paie',
    description: 'Description',
    customer: 'Client',
    paymentLink: 'Lien de paiement',
    successUrl: 'Après le paiement',
    cancelUrl: 'En cas d’annulation',
    copyPage: 'Copier le lien de la page hébergée',
    itsPayment: 'Son paiement',
    noPayment: 'Aucune tentative de paiement pour le moment.',
    intent: 'Paiement',
    intentStatus: 'Statut du paiement',
    fee: 'Frais',
    received: 'Vous recevez',
    fees: 'Ses frais par opérateur',
    feesHelp: 'Ce que coûte un paiement de cette session avec chaque opérateur de {country}, et ce qui arrive sur votre solde.',
    operator: 'Opérateur',
    card: 'Carte',
    youReceive: 'Vous recevez',
    expire: 'Faire expirer maintenant',
    expireConfirm: 'Faire expirer cette session maintenant ? Sa page dira qu’elle a expiré et n’acceptera plus de paiement.',
    expireYes: 'Faire expirer la session',
    keep: 'La garder ouverte',
    expired: 'La session a expiré.',
  },
};

/** What the merchant recognises a session by: its description (a payment link's), else its customer, else "Session". */
export const sessionName = (s: { description?: string | null; customerEmail?: string | null; customerPhone?: string | null }, session: string) => s.description ?? s.customerEmail ?? s.customerPhone ?? session;
