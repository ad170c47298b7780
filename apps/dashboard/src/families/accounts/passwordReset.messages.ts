import type { Messages } from '../../shell/i18n.js';

/** The words of the password reset pages (PasswordReset.tsx). */
export const passwordResetMessages: Messages<'forgotTitle' | 'forgotIntro' | 'resetTitle' | 'newPassword' | 'reset' | 'done' | 'signIn' | 'noToken'> = {
  en: {
    forgotTitle: 'Forgot your password?',
    forgotIntro: 'We e-mail you a link to choose a new one (valid 30 minutes).',
    resetTitle: 'Choose a new password',
    newPassword: 'New password (8 characters or more)',
    reset: 'Save the new password',
    done: 'Your password is changed, and every session of your account has ended.',
    signIn: 'Sign in with it',
    noToken: 'This page opens from the link in the e-mail.',
  },
  fr: {
    forgotTitle: 'Mot de passe oublié ?',
    forgotIntro: 'Nous vous envoyons un lien pour en choisir un nouveau (valable 30 minutes).',
    resetTitle: 'Choisissez un nouveau mot de passe',
    newPassword: 'Nouveau mot de passe (8 caractères ou plus)',
    reset: 'Enregistrer le mot de passe',
    done: 'Votre mot de passe est changé, et toutes les sessions de votre compte ont pris fin.',
    signIn: 'Se connecter avec',
    noToken: 'Cette page s’ouvre depuis le lien de l’e-mail.',
  },
};
