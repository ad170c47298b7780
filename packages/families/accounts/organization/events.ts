import type { DomainEvent } from '#packages/core/decider.js';

/** What a member may do, as the scopes API keys carry (docs/accounts.md, "Roles and scopes"). */
export const ROLES = ['owner', 'admin', 'developer', 'finance', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_SCOPES: Readonly<Record<Role, readonly string[]>> = {
  owner: ['*'],
  admin: ['*'],
  // Every member may ask support for help (POST /api/v1/support/intake/contact).
  developer: ['*.read', 'webhooks.write', 'payment_intents.write', 'support.write'],
  finance: ['*.read', 'payouts.write', 'billing.write', 'support.write'],
  viewer: ['*.read', 'support.write'],
};

/** Roles that manage the organization: create child organizations, invite. */
export const MANAGING_ROLES: readonly Role[] = ['owner', 'admin'];

export const ORGANIZATION_TYPES = ['business', 'individual', 'nonprofit', 'government'] as const;
export type OrganizationType = (typeof ORGANIZATION_TYPES)[number];

export interface OrganizationCreated {
  organizationId: string;
  displayName: string;
  /** ISO 3166-1 alpha-2. */
  country: string;
  type: OrganizationType;
  parentId: string | null;
  createdAt: string;
}

/** An invitation lives 7 days; its token (`inv_…`) is only in the e-mail, stored as a SHA-256 hash. */
export const INVITATION_TTL_MS = 7 * 86_400_000;

export interface InvitationCreated {
  organizationId: string;
  invitationId: string;
  /** Normalised (lower case). */
  email: string;
  role: Role;
  tokenHash: string;
  invitedBy: string;
  expiresAt: string;
  at: string;
}

export type OrganizationEvent =
  | DomainEvent<'organization.created', OrganizationCreated>
  | DomainEvent<'organization.merchant_added', { organizationId: string; merchantId: string; at: string }>
  | DomainEvent<'organization.member_added', { organizationId: string; userId: string; role: Role; at: string }>
  | DomainEvent<'organization.member_role_changed', { organizationId: string; userId: string; role: Role; at: string }>
  | DomainEvent<'organization.member_removed', { organizationId: string; userId: string; at: string }>
  | DomainEvent<'organization.invitation_created', InvitationCreated>
  | DomainEvent<'organization.invitation_revoked', { organizationId: string; invitationId: string; by: string; at: string }>
  | DomainEvent<'organization.invitation_accepted', { organizationId: string; invitationId: string; userId: string; at: string }>
  /** `requireMfa`: the organization's owners must keep a second factor (they cannot remove their last one). */
  | DomainEvent<'organization.settings_updated', { organizationId: string; requireMfa: boolean; by: string; at: string }>;

export const organizationStream = (organizationId: string) => `organization-${organizationId}`;
