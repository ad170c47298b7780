import type { Messages } from './i18n.js';

/** The words of the go-live checklist (Onboarding.tsx). */
export const onboardingMessages: Messages<'title' | 'progress' | 'done' | 'todo' | 'open' | 'dismiss' | 'sendCode' | 'code' | 'confirm' | 'codeSent'> = {
  en: {
    title: 'Get ready to go live',
    progress: '{completed} of {total} done',
    done: 'Done',
    todo: 'To do',
    open: 'Do it',
    dismiss: 'Hide this checklist',
    sendCode: 'E-mail me a code',
    code: 'Code from the e-mail',
    confirm: 'Confirm',
    codeSent: 'A 6-digit code is on its way to your address.',
  },
  fr: {
    title: 'Préparez votre passage en production',
    progress: '{completed} sur {total} faits',
    done: 'Fait',
    todo: 'À faire',
    open: 'Le faire',
    dismiss: 'Masquer cette liste',
    sendCode: 'M’envoyer un code par e-mail',
    code: 'Code reçu par e-mail',
    confirm: 'Confirmer',
    codeSent: 'Un code à 6 chiffres est envoyé à votre adresse.',
  },
};
