import type { Messages } from '../../shell/i18n.js';

/** The words of the settings page (Settings.tsx). */
export const settingsMessages: Messages<
  | 'title'
  | 'factors'
  | 'totp'
  | 'totpOn'
  | 'totpOff'
  | 'totpEnable'
  | 'totpScan'
  | 'totpSecret'
  | 'totpCode'
  | 'totpConfirm'
  | 'totpDisable'
  | 'totpEnabled'
  | 'recovery'
  | 'recoveryLeft'
  | 'recoveryGenerate'
  | 'recoveryOnce'
  | 'passkeys'
  | 'passkeysNone'
  | 'passkeyName'
  | 'passkeyRename'
  | 'passkeyCreated'
  | 'passkeyRemove'
  | 'passkeyAdd'
  | 'google'
  | 'googleConnected'
  | 'googleNone'
  | 'googleConnect'
  | 'googleDisconnect'
  | 'passkeyNameHint'
  | 'password'
  | 'currentPassword'
  | 'newPassword'
  | 'changePassword'
  | 'passwordChanged'
  | 'events'
  | 'eventsNone'
  | 'when'
  | 'event'
  | 'address'
  | 'device'
  | 'payouts'
  | 'delay'
  | 'delayHelp'
  | 'delaySave'
  | 'delaySaved'
  | 'sections'
  | 'section.profile'
  | 'section.security'
  | 'section.payouts'
> = {
  en: {
    title: 'Settings',
    factors: 'Second factors',
    totp: 'Authenticator app',
    totpOn: 'An authenticator app protects your account.',
    totpOff: 'No authenticator app yet.',
    totpEnable: 'Set up an authenticator app',
    totpScan: 'Scan this code with your authenticator app, or type the secret, then give the code it shows.',
    totpSecret: 'Secret',
    totpCode: 'Code from the app',
    totpConfirm: 'Turn on',
    totpDisable: 'Turn off the authenticator app',
    totpEnabled: 'The authenticator app is on.',
    recovery: 'Recovery codes',
    recoveryLeft: 'Recovery codes left: {count}',
    recoveryGenerate: 'Generate new recovery codes',
    recoveryOnce: 'Keep these recovery codes somewhere safe: they are shown only now, and each works once. The old ones no longer work.',
    passkeys: 'Passkeys',
    passkeysNone: 'No passkey yet.',
    passkeyName: 'Name of the passkey',
    passkeyRename: 'Rename',
    passkeyCreated: 'Added',
    passkeyRemove: 'Remove',
    passkeyAdd: 'Add a passkey',
    google: 'Google account',
    googleConnected: 'You can sign in with the Google account {email} (connected on {when}).',
    googleNone: 'No Google account: connect one to sign in with it.',
    googleConnect: 'Connect a Google account',
    googleDisconnect: 'Disconnect',
    passkeyNameHint: 'e.g. Work laptop',
    password: 'Password',
    currentPassword: 'Current password',
    newPassword: 'New password (8 characters or more)',
    changePassword: 'Change password',
    passwordChanged: 'Password changed; your other sessions have ended.',
    events: 'Security events',
    eventsNone: 'No security event yet.',
    when: 'When',
    event: 'Event',
    address: 'Address',
    device: 'Device',
    payouts: 'Payout settings',
    delay: 'Safety delay of new saved destinations (minutes)',
    delayHelp: 'A new saved payout destination can be used only after this delay. Lowering it asks for your second factor, and the owners are told.',
    delaySave: 'Save delay',
    delaySaved: 'Safety delay saved.',
    sections: 'Settings sections',
    'section.profile': 'Profile and organizations',
    'section.security': 'Sign-in and security',
    'section.payouts': 'Payouts',
  },
  fr: {
    title: 'Paramètres',
    factors: 'Seconds facteurs',
    totp: 'Application d’authentification',
    totpOn: 'Une application d’authentification protège votre compte.',
    totpOff: 'Pas encore d’application d’authentification.',
    totpEnable: 'Configurer une application d’authentification',
    totpScan: 'Scannez ce code avec votre application d’authentification, ou saisissez le secret, puis donnez le code qu’elle affiche.',
    totpSecret: 'Secret',
    totpCode: 'Code de l’application',
    totpConfirm: 'Activer',
    totpDisable: 'Désactiver l’application d’authentification',
    totpEnabled: 'L’application d’authentification est activée.',
    recovery: 'Codes de secours',
    recoveryLeft: 'Codes de secours restants : {count}',
    recoveryGenerate: 'Générer de nouveaux codes de secours',
    recoveryOnce: 'Gardez ces codes de secours en lieu sûr : ils ne sont affichés que maintenant et chacun sert une fois. Les anciens ne fonctionnent plus.',
    passkeys: 'Clés d’accès',
    passkeysNone: 'Pas encore de clé d’accès.',
    passkeyName: 'Nom de la clé d’accès',
    passkeyRename: 'Renommer',
    passkeyCreated: 'Ajoutée le',
    passkeyRemove: 'Retirer',
    passkeyAdd: 'Ajouter une clé d’accès',
    google: 'Compte Google',
    googleConnected: 'Vous pouvez vous connecter avec le compte Google {email} (associé le {when}).',
    googleNone: 'Aucun compte Google : associez-en un pour vous connecter avec.',
    googleConnect: 'Associer un compte Google',
    googleDisconnect: 'Dissocier',
    passkeyNameHint: 'p. ex. Ordinateur du bureau',
    password: 'Mot de passe',
    currentPassword: 'Mot de passe actuel',
    newPassword: 'Nouveau mot de passe (8 caractères ou plus)',
    changePassword: 'Changer le mot de passe',
    passwordChanged: 'Mot de passe changé ; vos autres sessions ont pris fin.',
    events: 'Événements de sécurité',
    eventsNone: 'Pas encore d’événement de sécurité.',
    when: 'Quand',
    event: 'Événement',
    address: 'Adresse',
    device: 'Appareil',
    payouts: 'Paramètres des virements',
    delay: 'Délai de sécurité des nouvelles destinations enregistrées (minutes)',
    delayHelp: 'Une nouvelle destination de virement enregistrée n’est utilisable qu’après ce délai. Le réduire demande votre second facteur, et les propriétaires sont prévenus.',
    delaySave: 'Enregistrer le délai',
    delaySaved: 'Délai de sécurité enregistré.',
    sections: 'Sections des paramètres',
    'section.profile': 'Profil et organisations',
    'section.security': 'Connexion et sécurité',
    'section.payouts': 'Virements',
  },
};

/** What each security event of the account's log is, in words; one this page does not know shows as the API names it. */
export const securityEventWords = {
  session_started: { en: 'Signed in', fr: 'Connexion' },
  session_revoked: { en: 'Session ended', fr: 'Session terminée' },
  password_changed: { en: 'Password changed', fr: 'Mot de passe changé' },
  email_changed: { en: 'E-mail address changed', fr: 'Adresse e-mail changée' },
  phone_changed: { en: 'Phone number changed', fr: 'Numéro de téléphone changé' },
  totp_activated: { en: 'Authenticator app turned on', fr: 'Application d’authentification activée' },
  totp_disabled: { en: 'Authenticator app turned off', fr: 'Application d’authentification désactivée' },
  recovery_code_used: { en: 'Recovery code used', fr: 'Code de secours utilisé' },
  recovery_codes_replaced: { en: 'Recovery codes replaced', fr: 'Codes de secours remplacés' },
  passkey_added: { en: 'Passkey added', fr: 'Clé d’accès ajoutée' },
  passkey_removed: { en: 'Passkey removed', fr: 'Clé d’accès retirée' },
  google_linked: { en: 'Google account connected', fr: 'Compte Google associé' },
  google_unlinked: { en: 'Google account disconnected', fr: 'Compte Google dissocié' },
} as const;
