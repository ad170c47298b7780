import type { Environment } from '../../../../clients/typescript/src/index.js';

/** What every page of a signed-in user is given. */
export interface PageProps {
  /** The environment the header's switch shows: every call and every query key follows it. */
  environment: Environment;
  /** Called when the session ends under the page (its refresh refused). */
  onSignedOut: () => void;
  /** The object a page with `:id` in its path shows (router.ts). */
  id?: string | undefined;
}
