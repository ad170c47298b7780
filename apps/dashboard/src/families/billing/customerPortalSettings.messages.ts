import type { Messages } from '../../shell/i18n.js';

/** The words of the customer portal settings (CustomerPortalSettings.tsx). */
export const customerPortalSettingsMessages: Messages<'title' | 'intro' | 'copy' | 'form' | 'subscriptionCancel' | 'customerUpdate' | 'returnUrl' | 'returnUrlHelp' | 'save' | 'saved'> = {
  en: {
    title: 'Customer portal',
    intro: 'Your customers sign in with their e-mail address to see their invoices, subscriptions and payments. Give them this link:',
    copy: 'Copy the portal’s link',
    form: 'What customers may do in the portal',
    subscriptionCancel: 'Cancel their subscriptions (at the end of the period)',
    customerUpdate: 'Change their name and phone number',
    returnUrl: 'Your site (optional)',
    returnUrlHelp: 'The portal links back to it. An address starting with https:// or http://.',
    save: 'Save the portal settings',
    saved: 'Customer portal settings saved.',
  },
  fr: {
    title: 'Espace client',
    intro: 'Vos clients s’y connectent avec leur adresse e-mail pour voir leurs factures, abonnements et paiements. Donnez-leur ce lien :',
    copy: 'Copier le lien de l’espace client',
    form: 'Ce que les clients peuvent faire dans l’espace client',
    subscriptionCancel: 'Résilier leurs abonnements (à la fin de la période)',
    customerUpdate: 'Modifier leur nom et leur numéro de téléphone',
    returnUrl: 'Votre site (facultatif)',
    returnUrlHelp: 'L’espace client y renvoie. Une adresse commençant par https:// ou http://.',
    save: 'Enregistrer les paramètres de l’espace client',
    saved: 'Paramètres de l’espace client enregistrés.',
  },
};
