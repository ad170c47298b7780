import type { Messages } from './i18n.js';
import type { Answer } from '../../../../clients/typescript/src/index.js';

export type ActivationStatus = Answer<'get', '/api/v1/merchant/activation'>['status'];
type Key = `status.${ActivationStatus}` | `says.${ActivationStatus}` | `act.${ActivationStatus}` | 'title' | 'reason';

/** The words of the application to go live, as Home and the Go live page show it (activation.tsx). */
export const activationMessages: Messages<Key> = {
  en: {
    title: 'Going live',
    reason: 'Reason given: {reason}',
    'status.not_submitted': 'Not applied yet',
    'status.under_review': 'Under review',
    'status.information_requested': 'Information requested',
    'status.active': 'Live is open',
    'status.rejected': 'Not approved',
    'status.suspended': 'Suspended',
    'says.not_submitted': 'Live payments open once Sika approves your application: tell us about your business, who represents it and where your money goes.',
    'says.under_review': 'Sika is reviewing your application. We e-mail you its decision; there is nothing to do meanwhile.',
    'says.information_requested': 'Sika needs more from you before it decides: correct what is asked and submit again.',
    'says.active': 'Your live payments and payouts move real money.',
    'says.rejected': 'Sika did not approve your application. Write to support if you wish to contest it.',
    'says.suspended': 'Your account is suspended: new live payments and payouts are refused; what was under way finishes.',
    'act.not_submitted': 'Apply to go live',
    'act.under_review': 'See your application',
    'act.information_requested': 'See what is asked',
    'act.active': 'See your application',
    'act.rejected': 'See why',
    'act.suspended': 'See why',
  },
  fr: {
    title: 'Passage en production',
    reason: 'Motif donné : {reason}',
    'status.not_submitted': 'Pas encore de demande',
    'status.under_review': 'En cours d’examen',
    'status.information_requested': 'Informations demandées',
    'status.active': 'Production ouverte',
    'status.rejected': 'Non approuvée',
    'status.suspended': 'Suspendu',
    'says.not_submitted': 'Les paiements réels s’ouvrent dès que Sika approuve votre demande : présentez votre entreprise, qui la représente et où votre argent est versé.',
    'says.under_review': 'Sika examine votre demande. Nous vous envoyons sa décision par e-mail ; vous n’avez rien à faire d’ici là.',
    'says.information_requested': 'Sika a besoin de précisions avant de décider : corrigez ce qui est demandé et envoyez à nouveau.',
    'says.active': 'Vos paiements et virements réels déplacent de l’argent réel.',
    'says.rejected': 'Sika n’a pas approuvé votre demande. Écrivez au support si vous souhaitez la contester.',
    'says.suspended': 'Votre compte est suspendu : les nouveaux paiements et virements réels sont refusés ; ce qui était en cours se termine.',
    'act.not_submitted': 'Demander le passage en production',
    'act.under_review': 'Voir votre demande',
    'act.information_requested': 'Voir ce qui est demandé',
    'act.active': 'Voir votre demande',
    'act.rejected': 'Voir pourquoi',
    'act.suspended': 'Voir pourquoi',
  },
};
