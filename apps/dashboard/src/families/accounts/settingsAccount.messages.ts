import type { Messages } from '../../shell/i18n.js';
import { roleNameMessages, type Role } from './roles.messages.js';

/** The settings page's account sections: the profile, the user's organizations, where the user is signed in, and moving the account's e-mail address or phone number. */
export const settingsAccountMessages: Messages<
  | 'sessions'
  | 'sessionsNone'
  | 'thisSession'
  | 'started'
  | 'lastActive'
  | 'address'
  | 'device'
  | 'actions'
  | 'endSession'
  | 'endOthers'
  | 'othersEnded'
  | 'endAll'
  | 'endAllConfirm'
  | 'contact'
  | 'email'
  | 'phone'
  | 'noPhone'
  | 'newEmail'
  | 'changeEmail'
  | 'emailPending'
  | 'cancelEmail'
  | 'newPhone'
  | 'changePhone'
  | 'smsCode'
  | 'confirmPhone'
  | 'phoneChanged'
  | 'profile'
  | 'name'
  | 'secondaryEmail'
  | 'profileLanguage'
  | 'profileLanguageHelp'
  | 'profileLanguageNone'
  | 'saveProfile'
  | 'profileSaved'
  | 'organizations'
  | 'organization'
  | 'country'
  | 'type'
  | 'role'
  | 'current'
  | 'moveTo'
  | 'startHere'
  | 'newOrganization'
  | 'createOrganization'
  | 'countryHelp'
  | 'type.business'
  | 'type.individual'
  | 'type.nonprofit'
  | 'type.government'
  | `role.${Role}`
> = {
  en: {
    ...roleNameMessages.en,
    sessions: 'Where you are signed in',
    sessionsNone: 'No session.',
    thisSession: 'This session',
    started: 'Started',
    lastActive: 'Last active',
    address: 'Address',
    device: 'Device',
    actions: 'Actions',
    endSession: 'End session',
    endOthers: 'Sign out every other session',
    othersEnded: 'Other sessions ended: {count}',
    endAll: 'End every session',
    endAllConfirm: 'End every session, this one too? You will be signed out.',
    contact: 'E-mail address and phone number',
    email: 'E-mail address',
    phone: 'Phone number',
    noPhone: 'none',
    newEmail: 'New e-mail address',
    changeEmail: 'Change e-mail address',
    emailPending: 'A link was sent to {email}; the address changes when it is opened (before {time}).',
    cancelEmail: 'Cancel the change',
    newPhone: 'New phone number (with its country code)',
    changePhone: 'Send a code to this number',
    smsCode: 'Code received by SMS',
    confirmPhone: 'Confirm the number',
    phoneChanged: 'Phone number changed.',
    profile: 'Profile',
    name: 'Name',
    secondaryEmail: 'Second e-mail address (optional)',
    profileLanguage: 'Language of your e-mails (optional)',
    profileLanguageHelp: 'The language of the e-mails Sika sends you.',
    profileLanguageNone: 'The organization’s',
    saveProfile: 'Save profile',
    profileSaved: 'Profile saved.',
    organizations: 'Your organizations',
    organization: 'Organization',
    country: 'Country',
    type: 'Type',
    role: 'Your role',
    current: 'Current',
    moveTo: 'Switch to',
    startHere: 'Start here when I sign in',
    newOrganization: 'New organization',
    createOrganization: 'Create organization',
    countryHelp: 'Where this organization is registered.',
    'type.business': 'Business',
    'type.individual': 'Individual',
    'type.nonprofit': 'Non-profit',
    'type.government': 'Government',
  },
  fr: {
    ...roleNameMessages.fr,
    sessions: 'Où vous êtes connecté',
    sessionsNone: 'Aucune session.',
    thisSession: 'Cette session',
    started: 'Début',
    lastActive: 'Dernière activité',
    address: 'Adresse',
    device: 'Appareil',
    actions: 'Actions',
    endSession: 'Terminer la session',
    endOthers: 'Déconnecter toutes les autres sessions',
    othersEnded: 'Autres sessions terminées : {count}',
    endAll: 'Terminer toutes les sessions',
    endAllConfirm: 'Terminer toutes les sessions, celle-ci comprise ? Vous serez déconnecté.',
    contact: 'Adresse e-mail et numéro de téléphone',
    email: 'Adresse e-mail',
    phone: 'Numéro de téléphone',
    noPhone: 'aucun',
    newEmail: 'Nouvelle adresse e-mail',
    changeEmail: 'Changer d’adresse e-mail',
    emailPending: 'Un lien a été envoyé à {email} ; l’adresse change quand il est ouvert (avant {time}).',
    cancelEmail: 'Annuler le changement',
    newPhone: 'Nouveau numéro de téléphone (avec l’indicatif du pays)',
    changePhone: 'Envoyer un code à ce numéro',
    smsCode: 'Code reçu par SMS',
    confirmPhone: 'Confirmer le numéro',
    phoneChanged: 'Numéro de téléphone changé.',
    profile: 'Profil',
    name: 'Nom',
    secondaryEmail: 'Seconde adresse e-mail (facultative)',
    profileLanguage: 'Langue de vos e-mails (facultative)',
    profileLanguageHelp: 'La langue des e-mails que Sika vous envoie.',
    profileLanguageNone: 'Celle de l’organisation',
    saveProfile: 'Enregistrer le profil',
    profileSaved: 'Profil enregistré.',
    organizations: 'Vos organisations',
    organization: 'Organisation',
    country: 'Pays',
    type: 'Type',
    role: 'Votre rôle',
    current: 'Actuelle',
    moveTo: 'Passer à',
    startHere: 'Commencer ici à la connexion',
    newOrganization: 'Nouvelle organisation',
    createOrganization: 'Créer l’organisation',
    countryHelp: 'Le pays où cette organisation est enregistrée.',
    'type.business': 'Entreprise',
    'type.individual': 'Particulier',
    'type.nonprofit': 'Association',
    'type.government': 'Administration',
  },
};
