import type { Messages } from '../../shell/i18n.js';

/** The words of the invitation page (AcceptInvitation.tsx). */
export const acceptInvitationMessages: Messages<'title' | 'intro' | 'name' | 'password' | 'newcomer' | 'accept' | 'noToken' | 'failed'> = {
  en: {
    title: 'Join a team on Sika',
    intro: 'You were invited to join an organization on Sika.',
    name: 'Your name',
    password: 'Choose a password (8 characters or more)',
    newcomer: 'New to Sika? Give your name and a password for your account. Already have an account? Leave both empty.',
    accept: 'Accept the invitation',
    noToken: 'This link has no invitation in it: open the link of the e-mail again.',
    failed: 'The invitation could not be accepted',
  },
  fr: {
    title: 'Rejoindre une équipe sur Sika',
    intro: 'Vous avez été invité à rejoindre une organisation sur Sika.',
    name: 'Votre nom',
    password: 'Choisissez un mot de passe (8 caractères ou plus)',
    newcomer: 'Nouveau sur Sika ? Donnez votre nom et un mot de passe pour votre compte. Vous avez déjà un compte ? Laissez les deux vides.',
    accept: 'Accepter l’invitation',
    noToken: 'Ce lien ne contient pas d’invitation : ouvrez à nouveau le lien de l’e-mail.',
    failed: 'L’invitation n’a pas pu être acceptée',
  },
};
