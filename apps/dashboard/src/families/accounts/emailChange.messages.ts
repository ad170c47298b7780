import type { Messages } from '../../shell/i18n.js';

/** The words of the e-mail change confirmation page (EmailChange.tsx). */
export const emailChangeMessages: Messages<'title' | 'checking' | 'done' | 'noToken' | 'failed'> = {
  en: {
    title: 'Your new e-mail address',
    checking: 'Confirming the address…',
    done: 'Your account now uses {email}; sign in with it from now on.',
    noToken: 'This page opens from the link sent to the new address.',
    failed: 'The address was not changed',
  },
  fr: {
    title: 'Votre nouvelle adresse e-mail',
    checking: 'Confirmation de l’adresse…',
    done: 'Votre compte utilise désormais {email} ; connectez-vous avec elle.',
    noToken: 'Cette page s’ouvre depuis le lien envoyé à la nouvelle adresse.',
    failed: 'L’adresse n’a pas été changée',
  },
};
