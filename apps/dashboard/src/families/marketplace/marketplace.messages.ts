import type { Messages } from '../../shell/i18n.js';

/** The words of the marketplace pages (Marketplace.tsx, MarketplaceOrder.tsx, MarketplaceSeller.tsx). */
export const marketplaceMessages: Messages<
  | 'title'
  | 'funds'
  | 'funds.none'
  | 'currency'
  | 'sellersPending'
  | 'sellersAvailable'
  | 'commission'
  | 'sellers'
  | 'sellers.none'
  | 'sellerId'
  | 'displayName'
  | 'settlementMode'
  | 'mode.rolling'
  | 'mode.weekly'
  | 'mode.manual'
  | 'delayDays'
  | 'register'
  | 'rules'
  | 'rules.none'
  | 'ruleName'
  | 'percent'
  | 'fixedFee'
  | 'active'
  | 'on'
  | 'off'
  | 'createRule'
  | 'switchOn'
  | 'switchOff'
  | 'orders'
  | 'orders.none'
  | 'newOrder'
  | 'country'
  | 'when'
  | 'buyer'
  | 'orderRule'
  | 'noRule'
  | 'lineSeller'
  | 'lineAmount'
  | 'addLine'
  | 'createOrder'
  | 'order'
  | 'amount'
  | 'status'
  | 'status.requires_payment'
  | 'status.paid'
  | 'status.partially_refunded'
  | 'status.refunded'
  | 'status.canceled'
  | 'created'
  | 'settlements'
  | 'settlements.none'
  | 'runDue'
  | 'ranDue'
  | 'seller'
  | 'settledAt'
  | 'back'
  | 'notFound'
  | 'lines'
  | 'shares'
  | 'share'
  | 'payment'
  | 'refunds'
  | 'refunds.none'
  | 'refundAmount'
  | 'refundReason'
  | 'refund'
  | 'cancelOrder'
  | 'refunded'
  | 'balance'
  | 'pending'
  | 'available'
  | 'changeSettlement'
  | 'save'
  | 'payOut'
  | 'payOutTo'
  | 'msisdn'
  | 'operator'
  | 'payouts'
  | 'payouts.none'
> = {
  en: {
    title: 'Marketplace',
    funds: "The marketplace's funds",
    'funds.none': 'No order paid yet in this environment.',
    currency: 'Currency',
    sellersPending: 'Sellers, pending',
    sellersAvailable: 'Sellers, available',
    commission: 'Your commission',
    sellers: 'Sellers',
    'sellers.none': 'No seller yet.',
    sellerId: 'Your id for the seller',
    displayName: 'Name',
    settlementMode: 'Settlement',
    'mode.rolling': 'Rolling',
    'mode.weekly': 'Weekly',
    'mode.manual': 'Manual',
    delayDays: 'Delay in days',
    register: 'Register the seller',
    rules: 'Commission rules',
    'rules.none': 'No commission rule yet.',
    ruleName: 'Rule',
    percent: 'Percentage',
    fixedFee: 'Fixed fee',
    active: 'Active',
    on: 'on',
    off: 'off',
    createRule: 'Create the rule',
    switchOn: 'Switch on',
    switchOff: 'Switch off',
    orders: 'Orders',
    'orders.none': 'No order yet.',
    newOrder: 'New order',
    country: 'Country',
    when: 'Date',
    buyer: 'Buyer (optional)',
    orderRule: 'Commission rule',
    noRule: 'No commission',
    lineSeller: 'Seller of line {n}',
    lineAmount: 'Amount of line {n}',
    addLine: 'Add a line',
    createOrder: 'Create the order',
    order: 'Order',
    amount: 'Amount',
    status: 'Status',
    'status.requires_payment': 'Awaiting payment',
    'status.paid': 'Paid',
    'status.partially_refunded': 'Partly refunded',
    'status.refunded': 'Refunded',
    'status.canceled': 'Canceled',
    created: 'Created',
    settlements: 'Settlements',
    'settlements.none': 'No settlement yet.',
    runDue: 'Settle what is due',
    ranDue: '{count} shares settled.',
    seller: 'Seller',
    settledAt: 'Settled',
    back: 'Marketplace',
    notFound: 'No such object in this environment.',
    lines: 'Lines',
    shares: "Sellers' shares",
    share: 'Share',
    payment: 'Payment',
    refunds: 'Refunds',
    'refunds.none': 'No refund.',
    refundAmount: 'Amount (empty: all that is left)',
    refundReason: 'Reason',
    refund: 'Refund',
    cancelOrder: 'Cancel the order',
    refunded: 'Refunded',
    balance: 'Balance',
    pending: 'Pending',
    available: 'Available',
    changeSettlement: 'Change the settlement',
    save: 'Save',
    payOut: 'Pay the seller',
    payOutTo: 'To the mobile money number',
    msisdn: 'Mobile money number',
    operator: 'Operator',
    payouts: 'Payouts to the seller',
    'payouts.none': 'No payout to this seller yet.',
  },
  fr: {
    title: 'Place de marché',
    funds: 'Les fonds de la place de marché',
    'funds.none': 'Aucune commande payée dans cet environnement pour le moment.',
    currency: 'Devise',
    sellersPending: 'Vendeurs, en attente',
    sellersAvailable: 'Vendeurs, disponible',
    commission: 'Votre commission',
    sellers: 'Vendeurs',
    'sellers.none': 'Aucun vendeur pour le moment.',
    sellerId: 'Votre identifiant du vendeur',
    displayName: 'Nom',
    settlementMode: 'Règlement',
    'mode.rolling': 'Glissant',
    'mode.weekly': 'Hebdomadaire',
    'mode.manual': 'Manuel',
    delayDays: 'Délai en jours',
    register: 'Enregistrer le vendeur',
    rules: 'Règles de commission',
    'rules.none': 'Aucune règle de commission pour le moment.',
    ruleName: 'Règle',
    percent: 'Pourcentage',
    fixedFee: 'Frais fixes',
    active: 'Active',
    on: 'oui',
    off: 'non',
    createRule: 'Créer la règle',
    switchOn: 'Activer',
    switchOff: 'Désactiver',
    orders: 'Commandes',
    'orders.none': 'Aucune commande pour le moment.',
    newOrder: 'Nouvelle commande',
    country: 'Pays',
    when: 'Date',
    buyer: 'Acheteur (facultatif)',
    orderRule: 'Règle de commission',
    noRule: 'Sans commission',
    lineSeller: 'Vendeur de la ligne {n}',
    lineAmount: 'Montant de la ligne {n}',
    addLine: 'Ajouter une ligne',
    createOrder: 'Créer la commande',
    order: 'Commande',
    amount: 'Montant',
    status: 'Statut',
    'status.requires_payment': 'En attente de paiement',
    'status.paid': 'Payée',
    'status.partially_refunded': 'Remboursée en partie',
    'status.refunded': 'Remboursée',
    'status.canceled': 'Annulée',
    created: 'Créée le',
    settlements: 'Règlements',
    'settlements.none': 'Aucun règlement pour le moment.',
    runDue: 'Régler ce qui est dû',
    ranDue: '{count} parts réglées.',
    seller: 'Vendeur',
    settledAt: 'Réglé le',
    back: 'Place de marché',
    notFound: 'Aucun objet de ce nom dans cet environnement.',
    lines: 'Lignes',
    shares: 'Parts des vendeurs',
    share: 'Part',
    payment: 'Paiement',
    refunds: 'Remboursements',
    'refunds.none': 'Aucun remboursement.',
    refundAmount: 'Montant (vide : tout ce qui reste)',
    refundReason: 'Raison',
    refund: 'Rembourser',
    cancelOrder: 'Annuler la commande',
    refunded: 'Remboursé',
    balance: 'Solde',
    pending: 'En attente',
    available: 'Disponible',
    changeSettlement: 'Changer le règlement',
    save: 'Enregistrer',
    payOut: 'Payer le vendeur',
    payOutTo: 'Vers le numéro mobile money',
    msisdn: 'Numéro mobile money',
    operator: 'Opérateur',
    payouts: 'Virements au vendeur',
    'payouts.none': 'Aucun virement à ce vendeur pour le moment.',
  },
};
