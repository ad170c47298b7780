import type { Environment } from './owner.js';

/** A mobile-money push about to start with no credential behind the request (a public page). */
export interface PublicPush {
  environment: Environment;
  /** The number that will ring, in E.164. */
  msisdn: string;
  /** The checkout session being paid, if any: its attempts are counted. */
  checkoutSessionId: string | null;
  /** `payment_link:<id>` or `funding_campaign:<id>`, if the page belongs to one: its pushes are counted, all its sessions together. */
  link: string | null;
}

/**
 * Counts a public push against its limits (docs/operations.md, "Public pushes"): a page anyone can
 * reach must not ring any number as often as it likes. Throws 429 IKW-LIM-001 with Retry-After
 * when a limit is spent; the composition root implements it over the HTTP rate limiter.
 */
export type CountPublicPush = (push: PublicPush) => Promise<void>;
