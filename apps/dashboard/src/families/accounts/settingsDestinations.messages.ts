import type { Messages } from '../../shell/i18n.js';

/** The words of the settings page's payout destinations (SettingsDestinations.tsx). */
export const settingsDestinationMessages: Messages<'title' | 'help' | 'none' | 'destination' | 'operator' | 'usableFrom' | 'actions' | 'remove' | 'removeConfirm' | 'add' | 'country' | 'msisdn' | 'added'> = {
  en: {
    title: 'Saved payout destinations',
    help: 'Payouts, funding and escrow pay out to these. A new one can be used once the safety delay has passed.',
    none: 'No saved destination yet.',
    destination: 'Number',
    operator: 'Operator',
    usableFrom: 'Usable from',
    actions: 'Actions',
    remove: 'Remove',
    removeConfirm: 'Remove the destination {label}?',
    add: 'Save the destination',
    country: 'Country',
    msisdn: 'Mobile money number',
    added: 'Destination saved.',
  },
  fr: {
    title: 'Destinations de virement enregistrées',
    help: 'Les virements, les cagnottes et le séquestre versent vers celles-ci. Une nouvelle est utilisable une fois le délai de sécurité passé.',
    none: 'Aucune destination enregistrée.',
    destination: 'Numéro',
    operator: 'Opérateur',
    usableFrom: 'Utilisable dès',
    actions: 'Actions',
    remove: 'Retirer',
    removeConfirm: 'Retirer la destination {label} ?',
    add: 'Enregistrer la destination',
    country: 'Pays',
    msisdn: 'Numéro mobile money',
    added: 'Destination enregistrée.',
  },
};
