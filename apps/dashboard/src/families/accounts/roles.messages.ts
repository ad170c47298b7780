import type { Messages } from '../../shell/i18n.js';

/** The roles of docs/accounts.md ("Roles and scopes"). */
export const ROLES = ['owner', 'admin', 'developer', 'finance', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Each role's name, for the pages' messages (`role.owner`, …): spread into a page's own. */
export const roleNameMessages: Messages<`role.${Role}`> = {
  en: { 'role.owner': 'Owner', 'role.admin': 'Admin', 'role.developer': 'Developer', 'role.finance': 'Finance', 'role.viewer': 'Viewer' },
  fr: { 'role.owner': 'Propriétaire', 'role.admin': 'Administrateur', 'role.developer': 'Développeur', 'role.finance': 'Finance', 'role.viewer': 'Lecteur' },
};

/** Whether `role` is one the pages name (another the API adds later shows as it is). */
export const isRole = (role: string): role is Role => (ROLES as readonly string[]).includes(role);
