import type { Messages } from '../../shell/i18n.js';
import { roleNameMessages, type Role } from './roles.messages.js';

/** The words of the team page (Team.tsx). */
export const teamMessages: Messages<
  | 'title'
  | 'members'
  | 'member'
  | 'email'
  | 'role'
  | 'added'
  | 'actions'
  | 'changeRole'
  | 'save'
  | 'remove'
  | 'removeConfirm'
  | 'you'
  | 'readOnly'
  | 'invitations'
  | 'invite'
  | 'invited'
  | 'status'
  | 'expires'
  | 'revoke'
  | 'noInvitations'
  | 'security'
  | 'requireMfa'
  | 'requireMfaHelp'
  | 'requireMfaOn'
  | 'requireMfaOff'
  | 'saved'
  | `role.${Role}`
  | `status.${'pending' | 'accepted' | 'revoked' | 'expired'}`
> = {
  en: {
    ...roleNameMessages.en,
    title: 'Team',
    members: 'Members',
    member: 'Member',
    email: 'E-mail address',
    role: 'Role',
    added: 'Added',
    actions: 'Actions',
    changeRole: 'Role of {name}',
    save: 'Save role',
    remove: 'Remove',
    removeConfirm: 'Remove {name} from the team? Their sessions here end at once.',
    you: '(you)',
    readOnly: 'You are {role}: only owners and admins change the team. This is a read-only view.',
    invitations: 'Invitations',
    invite: 'Invite',
    invited: 'Invitation sent to {email}.',
    status: 'Status',
    expires: 'Expires',
    revoke: 'Revoke',
    noInvitations: 'No invitation yet.',
    security: 'Team security',
    requireMfa: 'Require a second factor of owners',
    requireMfaHelp: 'Owners then cannot remove their last authenticator app or passkey.',
    requireMfaOn: 'Owners must keep a second factor.',
    requireMfaOff: 'Owners are not required to keep a second factor.',
    saved: 'Saved.',
    'status.pending': 'Pending',
    'status.accepted': 'Accepted',
    'status.revoked': 'Revoked',
    'status.expired': 'Expired',
  },
  fr: {
    ...roleNameMessages.fr,
    title: 'Équipe',
    members: 'Membres',
    member: 'Membre',
    email: 'Adresse e-mail',
    role: 'Rôle',
    added: 'Ajouté le',
    actions: 'Actions',
    changeRole: 'Rôle de {name}',
    save: 'Enregistrer le rôle',
    remove: 'Retirer',
    removeConfirm: 'Retirer {name} de l’équipe ? Ses sessions ici prennent fin aussitôt.',
    you: '(vous)',
    readOnly: 'Votre rôle est {role} : seuls les propriétaires et les administrateurs modifient l’équipe. Cette vue est en lecture seule.',
    invitations: 'Invitations',
    invite: 'Inviter',
    invited: 'Invitation envoyée à {email}.',
    status: 'État',
    expires: 'Expire le',
    revoke: 'Révoquer',
    noInvitations: 'Pas encore d’invitation.',
    security: 'Sécurité de l’équipe',
    requireMfa: 'Exiger un second facteur des propriétaires',
    requireMfaHelp: 'Les propriétaires ne peuvent alors plus retirer leur dernière application d’authentification ou clé d’accès.',
    requireMfaOn: 'Les propriétaires doivent garder un second facteur.',
    requireMfaOff: 'Les propriétaires ne sont pas tenus de garder un second facteur.',
    saved: 'Enregistré.',
    'status.pending': 'En attente',
    'status.accepted': 'Acceptée',
    'status.revoked': 'Révoquée',
    'status.expired': 'Expirée',
  },
};
