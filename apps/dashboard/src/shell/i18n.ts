import { createContext, useContext } from 'react';

export type Language = 'en' | 'fr';

const en = {
  'app.name': 'Sika dashboard',
  'signIn.title': 'Sign in',
  'signIn.email': 'E-mail address',
  'signIn.password': 'Password',
  'signIn.submit': 'Sign in',
  'signIn.code': 'Security code',
  'signIn.codeHelp.totp': 'The 6-digit code of your authenticator app, or a recovery code.',
  'signIn.codeHelp.email': 'The 6-digit code we just e-mailed you.',
  'signIn.codeHelp.password': 'Your password again.',
  'signIn.codeHelp.passkey': 'Or, if your passkey is not at hand, one of your recovery codes.',
  'passkey.use': 'Use your passkey',
  'passkey.signIn': 'Sign in with a passkey',
  'passkey.notUsed': 'The passkey was not used: the prompt was closed or timed out. Try again.',
  'google.signIn': 'Sign in with Google',
  'google.title': 'Sign-in with Google',
  'google.notFromGoogle': 'This page finishes a trip to Google begun in this browser, and there is none to finish: start again.',
  'google.connected': 'Google account {email} connected.',
  'google.toSettings': 'Back to Settings',
  'signIn.verify': 'Verify',
  'signIn.failed': 'Sign-in failed',
  'signIn.back': 'Back to sign-in',
  'link.email': 'Your e-mail address',
  'link.send': 'Send the link',
  'link.sent': 'If {email} has an account, the link is on its way.',
  'signIn.toMagicLink': 'E-mail me a sign-in link',
  'signIn.toForgot': 'Forgot your password?',
  'signIn.toSignUp': 'Create an account',
  'nav.main': 'Main',
  'nav.menu': 'Menu',
  'nav.group.money': 'Money',
  'nav.group.finance': 'Finance',
  'nav.group.billing': 'Billing',
  'nav.customers': 'Customers',
  'nav.products': 'Products',
  'nav.subscriptions': 'Subscriptions',
  'nav.invoices': 'Invoices',
  'nav.group.build': 'Build',
  'nav.group.account': 'Account',
  'nav.home': 'Home',
  'nav.signOut': 'Sign out',
  'env.label': 'Environment',
  'env.sandbox': 'Sandbox',
  'env.live': 'Live',
  'env.sandboxBanner': 'Sandbox: test data, no real money moves.',
  'language.label': 'Language',
  'balance.currency': 'Currency',
  'balance.available': 'Available',
  'balance.pending': 'Pending',
  'balance.reserved': 'Reserved',
  'balance.held': 'Held for others',
  'nav.reports': 'Reports',
  'nav.insights': 'Insights',
  'nav.files': 'Files',
  'nav.funding': 'Funding',
  'nav.escrow': 'Escrow',
  'nav.marketplace': 'Marketplace',
  'nav.configuration': 'Configuration',
  'nav.developers': 'Developers',
  'nav.payments': 'Payments',
  'nav.paymentLinks': 'Payment links',
  'nav.checkout': 'Checkout',
  'nav.automations': 'Automations',
  'nav.templates': 'Templates',
  'nav.webhooks': 'Webhooks',
  'nav.team': 'Team',
  'nav.settings': 'Settings',
  'nav.help': 'Help',
  'factor.title': 'Confirm with your second factor',
  'action.cancel': 'Cancel',
  'action.copy': 'Copy',
  'action.copied': 'Copied',
  'action.copyId': 'Copy the id',
  'object.id': 'Id',
  'action.done': 'Done',
  'chart.figures': 'The figures, day by day',
  'chart.legend': 'Legend',
  'chart.legendItem': '{name}: {value}',
  'keys.title': 'API keys',
  'developers.reference': 'Open the API reference',
  'developers.referenceIntro': 'Every operation of the API with its examples and code samples (curl, TypeScript), and the guides: API keys and going live, errors, webhooks.',
  'keys.create': 'Create a key',
  'keys.name': 'Name',
  'keys.key': 'Key',
  'keys.scopes': 'Scopes',
  'keys.scopes.all': 'Every scope',
  'keys.scopes.read': 'Read only',
  'keys.status': 'Status',
  'keys.status.active': 'Active',
  'keys.status.expiring': 'Expiring',
  'keys.status.expired': 'Expired',
  'keys.status.revoked': 'Revoked',
  'keys.lastUsed': 'Last used',
  'keys.actions': 'Actions',
  'keys.grace': 'Old secret works',
  'keys.grace.0': 'Stop it now',
  'keys.grace.60': 'For 1 hour',
  'keys.grace.1440': 'For 24 hours',
  'keys.grace.10080': 'For 7 days',
  'keys.roll': 'Roll',
  'keys.revoke': 'Revoke',
  'keys.secretOnce': 'Copy this secret now: it will not be shown again. Key:',
  'keys.forbidden': 'Only owners and admins manage API keys.',
  'events.title': 'Events',
  'events.type': 'Event type',
  'events.filter': 'Filter',
  'events.none': 'No event in the last 30 days.',
  'events.pages': 'Pages of events',
  'events.id': 'Event id',
  'events.find': 'Find',
  'events.found': 'The event',
  'nav.payouts': 'Payouts',
  'action.previous': 'Previous',
  'action.next': 'Next',
  'payouts.new': 'New payout',
  'payouts.saved': 'Saved destination',
  'payouts.savedNone': 'A new number',
  'payouts.country': 'Country',
  'payouts.operator': 'Operator',
  'payouts.msisdn': 'Mobile money number',
  'payouts.amount': 'Amount',
  'payouts.reviewAction': 'Review',
  'payouts.review': 'Review the payout',
  'payouts.recipient': 'Recipient',
  'payouts.fee': 'Fee',
  'payouts.total': 'Debited from your balance',
  'payouts.confirm': 'Confirm payout',
  'payouts.created': 'Payout created:',
  'payouts.list': 'Payouts',
  'payouts.id': 'Payout',
  'payouts.status': 'Status',
  'payouts.status.all': 'All',
  'payouts.status.pending': 'Pending',
  'payouts.status.in_transit': 'In transit',
  'payouts.status.paid': 'Paid',
  'payouts.status.failed': 'Failed',
  'payouts.status.canceled': 'Canceled',
  'payouts.delayed': 'delayed',
  'payouts.pages': 'Pages of payouts',
  'payouts.none': 'No payout yet.',
  'payouts.batches': 'Pay many at once from a CSV file: payout batches',
  'payouts.cannot': 'Your role can see payouts but not make them: an owner, an admin or a finance member can.',
  'payouts.created.at': 'Created',
  'failure.reason': 'Why it failed',
  'payouts.available': 'Available to pay out: {amount}',
  'method.card': 'Card',
  'method.mobile_money': 'Mobile money',
  'method.bank': 'Bank transfer',
  'choose': 'Choose…',
  'loading': 'Loading…',
  'error.generic': 'Something went wrong',
};

export type MessageKey = keyof typeof en;

const fr: Record<MessageKey, string> = {
  'app.name': 'Tableau de bord Sika',
  'signIn.title': 'Connexion',
  'signIn.email': 'Adresse e-mail',
  'signIn.password': 'Mot de passe',
  'signIn.submit': 'Se connecter',
  'signIn.code': 'Code de sécurité',
  'signIn.codeHelp.totp': 'Le code à 6 chiffres de votre application d’authentification, ou un code de secours.',
  'signIn.codeHelp.email': 'Le code à 6 chiffres que nous venons de vous envoyer par e-mail.',
  'signIn.codeHelp.password': 'Votre mot de passe, à nouveau.',
  'signIn.codeHelp.passkey': 'Ou, si votre clé d’accès n’est pas à portée de main, l’un de vos codes de secours.',
  'passkey.use': 'Utiliser votre clé d’accès',
  'passkey.signIn': 'Se connecter avec une clé d’accès',
  'passkey.notUsed': 'La clé d’accès n’a pas été utilisée : la fenêtre a été fermée ou a expiré. Réessayez.',
  'google.signIn': 'Se connecter avec Google',
  'google.title': 'Connexion avec Google',
  'google.notFromGoogle': 'Cette page termine un passage par Google commencé dans ce navigateur, et il n’y en a aucun à terminer : recommencez.',
  'google.connected': 'Compte Google {email} associé.',
  'google.toSettings': 'Retour aux paramètres',
  'signIn.verify': 'Vérifier',
  'signIn.failed': 'La connexion a échoué',
  'signIn.back': 'Retour à la connexion',
  'link.email': 'Votre adresse e-mail',
  'link.send': 'Envoyer le lien',
  'link.sent': 'Si {email} a un compte, le lien y est envoyé.',
  'signIn.toMagicLink': 'Recevoir un lien de connexion par e-mail',
  'signIn.toForgot': 'Mot de passe oublié ?',
  'signIn.toSignUp': 'Créer un compte',
  'nav.main': 'Principal',
  'nav.menu': 'Menu',
  'nav.group.money': 'Argent',
  'nav.group.finance': 'Finance',
  'nav.group.billing': 'Facturation',
  'nav.customers': 'Clients',
  'nav.products': 'Produits',
  'nav.subscriptions': 'Abonnements',
  'nav.invoices': 'Factures',
  'nav.group.build': 'Intégration',
  'nav.group.account': 'Compte',
  'nav.home': 'Accueil',
  'nav.signOut': 'Se déconnecter',
  'env.label': 'Environnement',
  'env.sandbox': 'Test',
  'env.live': 'Production',
  'env.sandboxBanner': 'Mode test : données de test, aucun argent réel ne bouge.',
  'language.label': 'Langue',
  'balance.currency': 'Devise',
  'balance.available': 'Disponible',
  'balance.pending': 'En attente',
  'balance.reserved': 'Réservé',
  'balance.held': 'Détenu pour des tiers',
  'nav.reports': 'Rapports',
  'nav.insights': 'Analyses',
  'nav.files': 'Fichiers',
  'nav.funding': 'Cagnottes',
  'nav.escrow': 'Séquestre',
  'nav.marketplace': 'Place de marché',
  'nav.configuration': 'Configuration',
  'nav.developers': 'Développeurs',
  'nav.payments': 'Paiements',
  'nav.paymentLinks': 'Liens de paiement',
  'nav.checkout': 'Paiement en ligne',
  'nav.automations': 'Automatisations',
  'nav.templates': 'Modèles',
  'nav.webhooks': 'Webhooks',
  'nav.team': 'Équipe',
  'nav.settings': 'Paramètres',
  'nav.help': 'Aide',
  'factor.title': 'Confirmez avec votre second facteur',
  'action.cancel': 'Annuler',
  'action.copy': 'Copier',
  'action.copied': 'Copié',
  'action.copyId': 'Copier l’identifiant',
  'object.id': 'Identifiant',
  'action.done': 'Terminé',
  'chart.figures': 'Les chiffres, jour par jour',
  'chart.legend': 'Légende',
  'chart.legendItem': '{name} : {value}',
  'keys.title': 'Clés d’API',
  'developers.reference': 'Ouvrir la référence de l’API',
  'developers.referenceIntro': 'Chaque opération de l’API avec ses exemples et des extraits de code (curl, TypeScript), et les guides : clés d’API et mise en production, erreurs, webhooks (en anglais).',
  'keys.create': 'Créer une clé',
  'keys.name': 'Nom',
  'keys.key': 'Clé',
  'keys.scopes': 'Portées',
  'keys.scopes.all': 'Toutes les portées',
  'keys.scopes.read': 'Lecture seule',
  'keys.status': 'État',
  'keys.status.active': 'Active',
  'keys.status.expiring': 'Expire bientôt',
  'keys.status.expired': 'Expirée',
  'keys.status.revoked': 'Révoquée',
  'keys.lastUsed': 'Dernière utilisation',
  'keys.actions': 'Actions',
  'keys.grace': 'L’ancien secret fonctionne',
  'keys.grace.0': 'Plus du tout',
  'keys.grace.60': 'Pendant 1 heure',
  'keys.grace.1440': 'Pendant 24 heures',
  'keys.grace.10080': 'Pendant 7 jours',
  'keys.roll': 'Renouveler',
  'keys.revoke': 'Révoquer',
  'keys.secretOnce': 'Copiez ce secret maintenant : il ne sera plus affiché. Clé :',
  'keys.forbidden': 'Seuls les propriétaires et les administrateurs gèrent les clés d’API.',
  'events.title': 'Événements',
  'events.type': 'Type d’événement',
  'events.filter': 'Filtrer',
  'events.none': 'Aucun événement ces 30 derniers jours.',
  'events.pages': 'Pages d’événements',
  'events.id': 'Identifiant de l’événement',
  'events.find': 'Trouver',
  'events.found': 'L’événement',
  'nav.payouts': 'Virements',
  'action.previous': 'Précédent',
  'action.next': 'Suivant',
  'payouts.new': 'Nouveau virement',
  'payouts.saved': 'Destination enregistrée',
  'payouts.savedNone': 'Un nouveau numéro',
  'payouts.country': 'Pays',
  'payouts.operator': 'Opérateur',
  'payouts.msisdn': 'Numéro mobile money',
  'payouts.amount': 'Montant',
  'payouts.reviewAction': 'Vérifier',
  'payouts.review': 'Vérifiez le virement',
  'payouts.recipient': 'Bénéficiaire',
  'payouts.fee': 'Frais',
  'payouts.total': 'Débité de votre solde',
  'payouts.confirm': 'Confirmer le virement',
  'payouts.created': 'Virement créé :',
  'payouts.list': 'Virements',
  'payouts.id': 'Virement',
  'payouts.status': 'État',
  'payouts.status.all': 'Tous',
  'payouts.status.pending': 'En attente',
  'payouts.status.in_transit': 'En cours',
  'payouts.status.paid': 'Payé',
  'payouts.status.failed': 'Échoué',
  'payouts.status.canceled': 'Annulé',
  'payouts.delayed': 'en retard',
  'payouts.pages': 'Pages de virements',
  'payouts.none': 'Pas encore de virement.',
  'payouts.batches': 'Payer plusieurs bénéficiaires à partir d’un fichier CSV : lots de virements',
  'payouts.cannot': 'Votre rôle permet de voir les virements mais pas d’en faire : un propriétaire, un administrateur ou un membre des finances le peut.',
  'payouts.created.at': 'Créé le',
  'failure.reason': 'Motif de l’échec',
  'payouts.available': 'Disponible pour un virement : {amount}',
  'method.card': 'Carte',
  'method.mobile_money': 'Mobile money',
  'method.bank': 'Virement bancaire',
  'choose': 'Choisir…',
  'loading': 'Chargement…',
  'error.generic': 'Une erreur est survenue',
};

const messages: Record<Language, Record<MessageKey, string>> = { en, fr };

/** The language the browser prefers, among ours. */
export function preferredLanguage(): Language {
  const saved = localStorage.getItem('sika.language');
  if (saved === 'en' || saved === 'fr') return saved;
  return navigator.language.toLowerCase().startsWith('fr') ? 'fr' : 'en';
}

export const LanguageContext = createContext<{ language: Language; setLanguage(l: Language): void }>({ language: 'en', setLanguage: () => undefined });

/** `text` with each `{name}` replaced by `values.name`. */
const fill = (text: string, values?: Record<string, string | number>) => (values ? text.replace(/\{(\w+)\}/g, (whole, name: string) => String(values[name] ?? whole)) : text);

/** `t(key)` in the current language, for the words every page shares (above); `{name}` in a message is replaced by `values.name`. */
export function useT(): (key: MessageKey, values?: Record<string, string | number>) => string {
  const { language } = useContext(LanguageContext);
  return (key, values) => fill(messages[language][key], values);
}

/** A page's own words in each language; French must have every key English has. */
export type Messages<K extends string> = { en: Record<K, string>; fr: Record<NoInfer<K>, string> };

/**
 * `t(key)` for a page's own words (declared beside the page), or the shared ones. `{name}` in a
 * message is replaced by `values.name`.
 */
export function useMessages<K extends string>(own: Messages<K>): (key: K | MessageKey, values?: Record<string, string | number>) => string {
  const { language } = useContext(LanguageContext);
  return (key, values) => {
    return fill((own[language] as Record<string, string>)[key] ?? messages[language][key as MessageKey], values);
  };
}

/** The decimals of a currency's minor unit (XOF none, GHS two). */
export function decimalsOf(currency: string): number {
  return new Intl.NumberFormat('en', { style: 'currency', currency: currency.toUpperCase() }).resolvedOptions().maximumFractionDigits ?? 0;
}

/** The locale each language formats dates, numbers and names in. */
export const LOCALES: Record<Language, string> = { en: 'en-GB', fr: 'fr-FR' };

/** An amount in minor units, in the language's format. */
export function formatAmount(language: Language, minor: number, currency: string): string {
  const format = new Intl.NumberFormat(LOCALES[language], { style: 'currency', currency: currency.toUpperCase() });
  return format.format(minor / 10 ** decimalsOf(currency));
}

const PRECISIONS = {
  date: { dateStyle: 'medium' },
  // A billing period's day, which the API counts in UTC.
  utcDate: { dateStyle: 'medium', timeZone: 'UTC' },
  minute: { dateStyle: 'medium', timeStyle: 'short' },
  // Webhook attempts a few seconds apart must read apart.
  second: { dateStyle: 'medium', timeStyle: 'medium' },
} as const;

/** A moment (ISO text, or Unix seconds as the API's `created`) in the language, to the minute, the second or the day; '—' when there is none. */
export function formatWhen(language: Language, at: string | number | null | undefined, precision: keyof typeof PRECISIONS = 'minute'): string {
  if (at == null || at === '') return '—';
  const moment = new Date(typeof at === 'number' ? at * 1000 : at);
  return moment.toLocaleString(LOCALES[language], PRECISIONS[precision]);
}

/** What a person types (5000, 12.50) in the currency's minor units, as the API takes amounts. */
export function minorUnits(major: number, currency: string): number {
  return Math.round(major * 10 ** decimalsOf(currency));
}
