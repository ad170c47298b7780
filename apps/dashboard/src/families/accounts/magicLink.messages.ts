import type { Messages } from '../../shell/i18n.js';

/** The words of the sign-in link page (MagicLink.tsx). */
export const magicLinkMessages: Messages<'title' | 'intro' | 'checking'> = {
  en: {
    title: 'Sign in with a link',
    intro: 'We e-mail you a link that signs you in (valid 15 minutes, once).',
    checking: 'Signing you in…',
  },
  fr: {
    title: 'Se connecter par un lien',
    intro: 'Nous vous envoyons un lien qui vous connecte (valable 15 minutes, une fois).',
    checking: 'Connexion en cours…',
  },
};
