import type { MessageKey } from './i18n.js';
import type { PageProps } from './props.js';
import type { PageName } from './router.js';
import type { SignedInUser } from './session.js';

/** A page of a signed-in user. */
export type Page = (props: PageProps) => React.JSX.Element;

/** A page of a signed-out visitor, which signs the visitor in (or not: a link sent, a password reset). */
export type SignedOutPage = (props: { onSignedIn: (user: SignedInUser) => void }) => React.JSX.Element;

/** The groups of the main navigation, in their order (their names are the messages `nav.group.<group>`). */
export const NAVIGATION_GROUPS = ['money', 'billing', 'finance', 'build', 'account'] as const;

/** An entry of the main navigation. */
export interface NavigationEntry {
  group: (typeof NAVIGATION_GROUPS)[number];
  page: PageName;
  label: MessageKey;
  /** Pages under this entry, which mark it current (a payout's page marks Payouts). */
  under?: PageName[];
}

/**
 * What a family (apps/dashboard/src/families/<family>/index.ts) gives the dashboard: its pages by
 * name (shell/router.ts gives each name its address, so a page links to another family's page by
 * name without importing it) and its entries of the main navigation.
 */
export interface DashboardFamily {
  pages: Partial<Record<PageName, Page>>;
  /** Its entries, in the order they are shown within their group. */
  navigation?: NavigationEntry[];
  /** Pages of a signed-out visitor, by name. */
  signedOutPages?: Partial<Record<PageName, SignedOutPage>>;
  /** The page a signed-out visitor sees at any other address (one family gives it: accounts' sign-in). */
  signIn?: SignedOutPage;
}
