import type { Messages } from '../../shell/i18n.js';

/** The words of the sign-up page (SignUp.tsx). */
export const signUpMessages: Messages<'title' | 'intro' | 'countryHelp' | 'email' | 'sendCode' | 'codeSent' | 'code' | 'verify' | 'name' | 'business' | 'country' | 'password' | 'create' | 'verified'> = {
  en: {
    title: 'Create your account',
    intro: 'First we check your e-mail address with a code, then you name your business.',
    email: 'Your e-mail address',
    sendCode: 'Send me a code',
    codeSent: 'If {email} can open an account, a 6-digit code is on its way there (valid 10 minutes).',
    code: 'Code from the e-mail',
    verify: 'Check the code',
    verified: '{email} is checked.',
    name: 'Your name',
    business: 'Name of your business',
    country: 'Country of your business',
    countryHelp: 'Where your business is registered.',
    password: 'Password (8 characters or more)',
    create: 'Create the account',
  },
  fr: {
    title: 'Créez votre compte',
    intro: 'Nous vérifions d’abord votre adresse e-mail avec un code, puis vous nommez votre entreprise.',
    email: 'Votre adresse e-mail',
    sendCode: 'Envoyez-moi un code',
    codeSent: 'Si {email} peut ouvrir un compte, un code à 6 chiffres y est envoyé (valable 10 minutes).',
    code: 'Code reçu par e-mail',
    verify: 'Vérifier le code',
    verified: '{email} est vérifiée.',
    name: 'Votre nom',
    business: 'Nom de votre entreprise',
    country: 'Pays de votre entreprise',
    countryHelp: 'Le pays où votre entreprise est enregistrée.',
    password: 'Mot de passe (8 caractères ou plus)',
    create: 'Créer le compte',
  },
};
