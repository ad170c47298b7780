import type { Messages } from '../../shell/i18n.js';

export const CATEGORIES = ['payments', 'payouts', 'account', 'technical', 'billing', 'other'] as const;
export type Category = (typeof CATEGORIES)[number];

/** The words of the help page (Help.tsx). */
export const helpMessages: Messages<'title' | 'intro' | 'name' | 'email' | 'subject' | 'category' | 'message' | 'related' | 'relatedHelp' | 'send' | 'sent' | `category.${Category}`> = {
  en: {
    title: 'Help',
    intro: 'Ask Sika’s support team. Your organization and environment go with your message, so you do not need to say who you are.',
    name: 'Your name',
    email: 'Where to answer',
    subject: 'Subject',
    category: 'About',
    message: 'Message',
    related: 'Payment, payout or other id (optional)',
    relatedHelp: 'Such as pi_… or a payout’s id, if it is about one.',
    send: 'Send to support',
    sent: 'Sent. Your reference is {id}; the answer goes to {email}.',
    'category.payments': 'Payments',
    'category.payouts': 'Payouts',
    'category.account': 'Account',
    'category.technical': 'Technical',
    'category.billing': 'Billing',
    'category.other': 'Something else',
  },
  fr: {
    title: 'Aide',
    intro: 'Écrivez au support de Sika. Votre organisation et votre environnement accompagnent votre message : inutile de dire qui vous êtes.',
    name: 'Votre nom',
    email: 'Où répondre',
    subject: 'Objet',
    category: 'Sujet',
    message: 'Message',
    related: 'Identifiant du paiement, du virement ou autre (facultatif)',
    relatedHelp: 'Comme pi_… ou l’identifiant d’un virement, s’il s’agit de l’un d’eux.',
    send: 'Envoyer au support',
    sent: 'Envoyé. Votre référence est {id} ; la réponse ira à {email}.',
    'category.payments': 'Paiements',
    'category.payouts': 'Virements',
    'category.account': 'Compte',
    'category.technical': 'Technique',
    'category.billing': 'Facturation',
    'category.other': 'Autre chose',
  },
};
