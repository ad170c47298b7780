import type { Messages } from '../../shell/i18n.js';

/** The words of the billing pages (Customers, Customer, Products, Subscriptions, Subscription, Invoices, Invoice). */
export const billingMessages: Messages<
  | 'customers.title'
  | 'customers.add'
  | 'customers.none'
  | 'customers.search'
  | 'customer'
  | 'invoiceFor'
  | 'cards.title'
  | 'cards.help'
  | 'cards.none'
  | 'cards.card'
  | 'cards.expires'
  | 'cards.use'
  | 'cards.reusable'
  | 'cards.singleUse'
  | 'cards.token'
  | 'email'
  | 'name'
  | 'name.optional'
  | 'phone'
  | 'wallet'
  | 'created'
  | 'notFound'
  | 'back.customers'
  | 'back.subscriptions'
  | 'back.invoices'
  | 'products.title'
  | 'products.new'
  | 'products.none'
  | 'products.create'
  | 'product'
  | 'description'
  | 'prices'
  | 'prices.none'
  | 'prices.add'
  | 'prices.addTo'
  | 'price'
  | 'amount'
  | 'currency'
  | 'interval'
  | 'interval.once'
  | 'interval.day'
  | 'interval.week'
  | 'interval.month'
  | 'interval.year'
  | 'usageType'
  | 'usage.licensed'
  | 'usage.metered'
  | 'perUnit'
  | 'subscriptions.title'
  | 'subscriptions.new'
  | 'subscriptions.create'
  | 'subscriptions.none'
  | 'subscriptions.needs'
  | 'subscription'
  | 'quantity'
  | 'status'
  | 'filter'
  | 'all'
  | 'period'
  | 'periodEnd'
  | 'cancelAtPeriodEnd'
  | 'cancelNow'
  | 'cancelNow.confirm'
  | 'confirm'
  | 'keep'
  | 'endsAtPeriodEnd'
  | 'canceledAt'
  | 'sub.active'
  | 'sub.trialing'
  | 'sub.past_due'
  | 'sub.canceled'
  | 'invoices.title'
  | 'invoices.none'
  | 'invoices.new'
  | 'invoices.newCustomer'
  | 'invoices.lineN'
  | 'invoices.freeText'
  | 'invoices.lineDescription'
  | 'invoices.unitAmount'
  | 'invoices.addLine'
  | 'invoices.removeLine'
  | 'invoices.memo'
  | 'invoices.language'
  | 'invoices.createSend'
  | 'invoices.createDraft'
  | 'send'
  | 'send.done'
  | 'invoice'
  | 'inv.draft'
  | 'inv.open'
  | 'inv.paid'
  | 'inv.void'
  | 'inv.uncollectible'
  | 'amountDue'
  | 'amountPaid'
  | 'remaining'
  | 'dueDate'
  | 'lines'
  | 'line'
  | 'unitAmount'
  | 'hostedLink'
  | 'copyLink'
  | 'open'
  | 'finalize'
  | 'markPaid'
  | 'markPaid.confirm'
  | 'collect'
  | 'collect.help'
  | 'collect.country'
  | 'collect.operator'
  | 'collect.msisdn'
  | 'collect.submit'
  | 'collect.asked'
  | 'collect.failed'
  | 'void'
  | 'uncollectible'
  | 'pdf'
  | 'usage'
  | 'usage.none'
  | 'usage.record'
  | 'meter'
  | 'occurred'
  | 'usage.onlyMetered'
  | 'done'
  | 'reminders.title'
  | 'reminders.help'
  | 'reminders.daysBefore'
  | 'reminders.daysAfter'
  | 'reminders.turnOn'
  | 'reminders.turnOff'
  | 'reminders.edit'
  | 'reminders.on'
  | 'reminders.off'
  | 'reminders.name'
  | 'reminders.description'
> = {
  en: {
    'customers.title': 'Customers',
    'customers.add': 'Add a customer',
    'customers.none': 'No customer yet.',
    'customers.search': 'Search by name, e-mail or phone',
    customer: 'Customer',
    invoiceFor: 'What for',
    'cards.title': 'Saved cards',
    'cards.help': 'Cards kept from this customer’s card payments, which a payment can charge again by their token.',
    'cards.none': 'No saved card.',
    'cards.card': 'Card',
    'cards.expires': 'Expires',
    'cards.use': 'Use',
    'cards.reusable': 'Reusable',
    'cards.singleUse': 'Single use',
    'cards.token': 'Token',
    email: 'E-mail address',
    name: 'Name',
    'name.optional': 'Name (optional)',
    phone: 'Phone',
    wallet: 'Wallet',
    created: 'Created',
    notFound: 'No such object in this environment.',
    'back.customers': 'All customers',
    'back.subscriptions': 'All subscriptions',
    'back.invoices': 'All invoices',
    'products.title': 'Products and prices',
    'products.new': 'New product',
    'products.none': 'No product yet.',
    'products.create': 'Create the product',
    product: 'Product',
    description: 'Description (optional)',
    prices: 'Prices',
    'prices.none': 'No price yet.',
    'prices.add': 'Add a price',
    'prices.addTo': 'Add a price to {name}',
    price: 'Price',
    amount: 'Amount',
    currency: 'Currency',
    interval: 'Billed',
    'interval.once': 'once',
    'interval.day': 'every day',
    'interval.week': 'every week',
    'interval.month': 'every month',
    'interval.year': 'every year',
    usageType: 'Charged for',
    'usage.licensed': 'a quantity, in advance',
    'usage.metered': 'usage recorded, in arrears',
    perUnit: '{amount} per unit, {interval}',
    'subscriptions.title': 'Subscriptions',
    'subscriptions.new': 'Subscribe a customer',
    'subscriptions.create': 'Subscribe',
    'subscriptions.none': 'No subscription.',
    'subscriptions.needs': 'Add a customer and a recurring price first.',
    subscription: 'Subscription',
    quantity: 'Quantity',
    status: 'Status',
    filter: 'Status',
    all: 'All',
    period: 'Current period',
    periodEnd: 'Period ends',
    cancelAtPeriodEnd: 'Cancel at period end',
    cancelNow: 'Cancel now',
    'cancelNow.confirm': 'Cancel now: the subscription ends at once. Confirm?',
    confirm: 'Confirm',
    keep: 'Keep it',
    endsAtPeriodEnd: 'Ends when the period ends',
    canceledAt: 'Canceled on',
    'sub.active': 'Active',
    'sub.trialing': 'Trial',
    'sub.past_due': 'Past due',
    'sub.canceled': 'Canceled',
    'invoices.title': 'Invoices',
    'invoices.none': 'No invoice.',
    'invoices.new': 'New invoice',
    'invoices.newCustomer': 'A new customer…',
    'invoices.lineN': 'Line {n}',
    'invoices.freeText': 'Free text',
    'invoices.lineDescription': 'Description of line {n}',
    'invoices.unitAmount': 'Unit amount of line {n}',
    'invoices.addLine': 'Add a line',
    'invoices.removeLine': 'Remove line {n}',
    'invoices.memo': 'Memo (optional)',
    'invoices.language': 'E-mail and page in',
    'invoices.createSend': 'Create and send',
    'invoices.createDraft': 'Save as draft',
    send: 'Send by e-mail',
    'send.done': 'Sent to {email}.',
    invoice: 'Invoice {id}',
    'inv.draft': 'Draft',
    'inv.open': 'Open',
    'inv.paid': 'Paid',
    'inv.void': 'Void',
    'inv.uncollectible': 'Uncollectible',
    amountDue: 'Amount due',
    amountPaid: 'Paid',
    remaining: 'Remaining',
    dueDate: 'Due on',
    lines: 'Lines',
    line: 'Item',
    unitAmount: 'Unit amount',
    hostedLink: 'Hosted invoice page',
    copyLink: 'Copy the hosted invoice link',
    open: 'Open it',
    finalize: 'Finalize',
    markPaid: 'Mark paid',
    'markPaid.confirm': 'Mark paid: the remaining {amount} is recorded as paid outside Sika. Confirm?',
    collect: 'Collect by mobile money',
    'collect.help': 'The customer is asked to approve {amount} on their phone; once they do, the invoice is paid and the money is on your balance.',
    'collect.country': 'Country',
    'collect.operator': 'Operator',
    'collect.msisdn': "Customer's mobile money number",
    'collect.submit': 'Ask the customer to pay',
    'collect.asked': 'Payment {id} asked: waiting for the customer to approve it on their phone.',
    'collect.failed': 'Payment {id} did not go through: the invoice is still open.',
    void: 'Void',
    uncollectible: 'Mark uncollectible',
    pdf: 'Download the PDF',
    usage: 'Usage',
    'usage.none': 'No usage recorded.',
    'usage.record': 'Record usage',
    meter: 'Meter',
    occurred: 'When',
    'usage.onlyMetered': 'This subscription has no metered price: it takes no usage.',
    done: 'Done.',
    'reminders.title': 'Reminders',
    'reminders.help': 'E-mail each customer before an open invoice is due and after, if it is still unpaid: once each, every morning at 9 in your time zone.',
    'reminders.daysBefore': 'Days before the due date',
    'reminders.daysAfter': 'Days after it',
    'reminders.turnOn': 'Turn reminders on',
    'reminders.turnOff': 'Turn reminders off',
    'reminders.edit': 'Change the schedule or the e-mail',
    'reminders.on': 'On: customers are reminded {before} days before an invoice is due and {after} days after, each morning at 9 ({zone}).',
    'reminders.off': 'Off: customers are not reminded.',
    'reminders.name': 'Invoice reminders',
    'reminders.description': 'E-mails the customer before and after an open invoice is due',
  },
  fr: {
    'customers.title': 'Clients',
    'customers.add': 'Ajouter un client',
    'customers.none': 'Aucun client pour l’instant.',
    'customers.search': 'Chercher par nom, e-mail ou téléphone',
    customer: 'Client',
    invoiceFor: 'Objet',
    'cards.title': 'Cartes enregistrées',
    'cards.help': 'Les cartes gardées des paiements par carte de ce client, qu’un paiement peut débiter de nouveau par leur jeton.',
    'cards.none': 'Aucune carte enregistrée.',
    'cards.card': 'Carte',
    'cards.expires': 'Expire',
    'cards.use': 'Usage',
    'cards.reusable': 'Réutilisable',
    'cards.singleUse': 'Usage unique',
    'cards.token': 'Jeton',
    email: 'Adresse e-mail',
    name: 'Nom',
    'name.optional': 'Nom (facultatif)',
    phone: 'Téléphone',
    wallet: 'Porte-monnaie',
    created: 'Créé le',
    notFound: 'Aucun objet de ce nom dans cet environnement.',
    'back.customers': 'Tous les clients',
    'back.subscriptions': 'Tous les abonnements',
    'back.invoices': 'Toutes les factures',
    'products.title': 'Produits et prix',
    'products.new': 'Nouveau produit',
    'products.none': 'Aucun produit pour l’instant.',
    'products.create': 'Créer le produit',
    product: 'Produit',
    description: 'Description (facultative)',
    prices: 'Prix',
    'prices.none': 'Aucun prix pour l’instant.',
    'prices.add': 'Ajouter un prix',
    'prices.addTo': 'Ajouter un prix à {name}',
    price: 'Prix',
    amount: 'Montant',
    currency: 'Devise',
    interval: 'Facturé',
    'interval.once': 'une fois',
    'interval.day': 'chaque jour',
    'interval.week': 'chaque semaine',
    'interval.month': 'chaque mois',
    'interval.year': 'chaque année',
    usageType: 'Facturé pour',
    'usage.licensed': 'une quantité, d’avance',
    'usage.metered': 'l’usage relevé, à terme échu',
    perUnit: '{amount} l’unité, {interval}',
    'subscriptions.title': 'Abonnements',
    'subscriptions.new': 'Abonner un client',
    'subscriptions.create': 'Abonner',
    'subscriptions.none': 'Aucun abonnement.',
    'subscriptions.needs': 'Ajoutez d’abord un client et un prix récurrent.',
    subscription: 'Abonnement',
    quantity: 'Quantité',
    status: 'Statut',
    filter: 'Statut',
    all: 'Tous',
    period: 'Période en cours',
    periodEnd: 'Fin de période',
    cancelAtPeriodEnd: 'Résilier en fin de période',
    cancelNow: 'Résilier maintenant',
    'cancelNow.confirm': 'Résilier maintenant : l’abonnement prend fin tout de suite. Confirmer ?',
    confirm: 'Confirmer',
    keep: 'Le garder',
    endsAtPeriodEnd: 'Prend fin avec la période',
    canceledAt: 'Résilié le',
    'sub.active': 'Actif',
    'sub.trialing': 'Essai',
    'sub.past_due': 'En retard',
    'sub.canceled': 'Résilié',
    'invoices.title': 'Factures',
    'invoices.none': 'Aucune facture.',
    'invoices.new': 'Nouvelle facture',
    'invoices.newCustomer': 'Un nouveau client…',
    'invoices.lineN': 'Ligne {n}',
    'invoices.freeText': 'Texte libre',
    'invoices.lineDescription': 'Description de la ligne {n}',
    'invoices.unitAmount': 'Prix unitaire de la ligne {n}',
    'invoices.addLine': 'Ajouter une ligne',
    'invoices.removeLine': 'Retirer la ligne {n}',
    'invoices.memo': 'Note (facultatif)',
    'invoices.language': 'E-mail et page en',
    'invoices.createSend': 'Créer et envoyer',
    'invoices.createDraft': 'Enregistrer le brouillon',
    send: 'Envoyer par e-mail',
    'send.done': 'Envoyée à {email}.',
    invoice: 'Facture {id}',
    'inv.draft': 'Brouillon',
    'inv.open': 'À payer',
    'inv.paid': 'Payée',
    'inv.void': 'Annulée',
    'inv.uncollectible': 'Irrécouvrable',
    amountDue: 'Montant dû',
    amountPaid: 'Payé',
    remaining: 'Reste à payer',
    dueDate: 'Échéance',
    lines: 'Lignes',
    line: 'Article',
    unitAmount: 'Prix unitaire',
    hostedLink: 'Page de la facture',
    copyLink: 'Copier le lien de la page de la facture',
    open: 'L’ouvrir',
    finalize: 'Finaliser',
    markPaid: 'Marquer payée',
    'markPaid.confirm': 'Marquer payée : les {amount} restants sont notés payés hors de Sika. Confirmer ?',
    collect: 'Encaisser par mobile money',
    'collect.help': 'Le client est invité à approuver {amount} sur son téléphone ; dès qu’il le fait, la facture est payée et l’argent est sur votre solde.',
    'collect.country': 'Pays',
    'collect.operator': 'Opérateur',
    'collect.msisdn': 'Numéro mobile money du client',
    'collect.submit': 'Demander le paiement au client',
    'collect.asked': 'Paiement {id} demandé : en attente de l’approbation du client sur son téléphone.',
    'collect.failed': 'Le paiement {id} n’a pas abouti : la facture reste ouverte.',
    void: 'Annuler la facture',
    uncollectible: 'Marquer irrécouvrable',
    pdf: 'Télécharger le PDF',
    usage: 'Consommation',
    'usage.none': 'Aucune consommation relevée.',
    'usage.record': 'Relever une consommation',
    meter: 'Compteur',
    occurred: 'Quand',
    'usage.onlyMetered': 'Cet abonnement n’a pas de prix à l’usage : il ne prend pas de consommation.',
    done: 'C’est fait.',
    'reminders.title': 'Relances',
    'reminders.help': 'Écrire à chaque client avant l’échéance d’une facture ouverte, et après si elle reste impayée : une fois chacune, chaque matin à 9 h dans votre fuseau horaire.',
    'reminders.daysBefore': 'Jours avant l’échéance',
    'reminders.daysAfter': 'Jours après',
    'reminders.turnOn': 'Activer les relances',
    'reminders.turnOff': 'Désactiver les relances',
    'reminders.edit': 'Changer l’horaire ou l’e-mail',
    'reminders.on': 'Activées : les clients sont relancés {before} jours avant l’échéance d’une facture et {after} jours après, chaque matin à 9 h ({zone}).',
    'reminders.off': 'Désactivées : les clients ne sont pas relancés.',
    'reminders.name': 'Relances de factures',
    'reminders.description': 'Écrit au client avant et après l’échéance d’une facture ouverte',
  },
};

export const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'canceled'] as const;
export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void', 'uncollectible'] as const;
