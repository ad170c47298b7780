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
  'signIn.codeHelp.passkey': 'This account signs in with a passkey, which this page does not support yet: use a recovery code.',
  'signIn.verify': 'Verify',
  'signIn.failed': 'Sign-in failed',
  'nav.main': 'Main',
  'nav.home': 'Home',
  'nav.signOut': 'Sign out',
  'env.label': 'Environment',
  'env.sandbox': 'Sandbox',
  'env.live': 'Live',
  'env.sandboxBanner': 'Sandbox: test data, no real money moves.',
  'language.label': 'Language',
  'home.title': 'Home',
  'home.balances': 'Balances',
  'home.currency': 'Currency',
  'home.available': 'Available',
  'home.pending': 'Pending',
  'home.reserved': 'Reserved',
  'home.held': 'Held for others',
  'home.empty': 'No balance yet in this environment.',
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
  'signIn.codeHelp.passkey': 'Ce compte se connecte avec une clé d’accès, que cette page ne prend pas encore en charge : utilisez un code de secours.',
  'signIn.verify': 'Vérifier',
  'signIn.failed': 'La connexion a échoué',
  'nav.main': 'Principal',
  'nav.home': 'Accueil',
  'nav.signOut': 'Se déconnecter',
  'env.label': 'Environnement',
  'env.sandbox': 'Test',
  'env.live': 'Production',
  'env.sandboxBanner': 'Mode test : données de test, aucun argent réel ne bouge.',
  'language.label': 'Langue',
  'home.title': 'Accueil',
  'home.balances': 'Soldes',
  'home.currency': 'Devise',
  'home.available': 'Disponible',
  'home.pending': 'En attente',
  'home.reserved': 'Réservé',
  'home.held': 'Détenu pour des tiers',
  'home.empty': 'Pas encore de solde dans cet environnement.',
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

/** `t(key)` in the current language. */
export function useT(): (key: MessageKey) => string {
  const { language } = useContext(LanguageContext);
  return (key) => messages[language][key];
}

/** An amount in minor units, in the language's format (XOF has none, GHS two decimals…). */
export function formatAmount(language: Language, minor: number, currency: string): string {
  const format = new Intl.NumberFormat(language === 'fr' ? 'fr-FR' : 'en-GB', { style: 'currency', currency: currency.toUpperCase() });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 0;
  return format.format(minor / 10 ** digits);
}
