import type { Messages } from '../../../src/shell/i18n.js';

/** The words of the console's Security page (Security.tsx). */
export const securityMessages = {
  en: {
    'security.title': 'Your security',
    'security.intro': 'You sign in with your password and a code of your authenticator app. A passkey (this device’s fingerprint or face unlock, or a security key) can stand for the code.',
    'security.passkeys': 'Your passkeys',
    'security.none': 'No passkey yet: your sign-ins ask for the code of your authenticator app.',
    'security.name': 'Name',
    'security.added': 'Added',
    'security.lastUsed': 'Last used',
    'security.never': 'Never',
    'security.remove': 'Remove: {name}',
    'security.action': 'Action',
    'security.add': 'Add a passkey',
    'security.nickname': 'Name of the passkey',
    'security.code': 'Code from your authenticator app',
    'security.codeHelp': 'Adding a way in asks for the app first: a session alone cannot add one.',
  },
  fr: {
    'security.title': 'Votre sécurité',
    'security.intro': 'Vous vous connectez avec votre mot de passe et un code de votre application d’authentification. Une clé d’accès (l’empreinte ou le visage de cet appareil, ou une clé de sécurité) peut remplacer le code.',
    'security.passkeys': 'Vos clés d’accès',
    'security.none': 'Aucune clé d’accès : vos connexions demandent le code de votre application d’authentification.',
    'security.name': 'Nom',
    'security.added': 'Ajoutée',
    'security.lastUsed': 'Dernière utilisation',
    'security.never': 'Jamais',
    'security.remove': 'Retirer : {name}',
    'security.action': 'Action',
    'security.add': 'Ajouter une clé d’accès',
    'security.nickname': 'Nom de la clé d’accès',
    'security.code': 'Code de votre application d’authentification',
    'security.codeHelp': 'Ajouter un moyen de connexion demande d’abord l’application : une session seule ne peut pas en ajouter.',
  },
} satisfies Messages<string>;
