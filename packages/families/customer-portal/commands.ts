import { randomInt } from 'node:crypto';
import type { Clock } from '#packages/core/clock.js';
import { sha256Hex, type KeyedHasher } from '#packages/core/hashing.js';
import { newUuid, randomBase62 } from '#packages/core/ids.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { Messenger } from '#packages/messaging/messages.js';
import { customerPortalDecider, WRONG_CODE, type CustomerPortalCommand, type CustomerPortalState } from './decider.js';
import { customerPortalStream, type CustomerPortalEvent } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import { Refusal } from '#packages/core/refusal.js';

/** Codes are good for 10 minutes; a portal session for 1 hour. */
export const CODE_LIFETIME_MS = 10 * 60_000;
export const PORTAL_SESSION_MS = 3_600_000;
export const PORTAL_TOKEN_PREFIX = 'cps_';

export interface CustomerPortalDeps {
  store: EventStore;
  clock: Clock;
  /** The merchant's customer with this e-mail address (any case), if any. */
  customerByEmail(owner: Owner, email: string): Promise<string | undefined>;
  /** Codes are kept as keyed hashes: a copy of the event log does not give them away. */
  codes: KeyedHasher;
  messenger: Messenger;
  /**
   * Counts one code request against the merchant's quota (docs/operations.md, "Abuse limits"):
   * throws 429 IKW-LIM-001 when it is spent. Every request counts, known address or not, so the
   * answer still does not tell who is a customer.
   */
  countCodeRequest(owner: Owner): Promise<void>;
}

/**
 * The customer portal's sign-in: a six-digit code by e-mail (kept as a keyed hash), then a bearer
 * token (`cps_…`, kept only as its SHA-256) for an hour. An address the merchant does not know gets the same answer and no
 * e-mail, so the portal does not tell who is a customer.
 */
export class CustomerPortal extends CommandService<CustomerPortalCommand, CustomerPortalState, CustomerPortalEvent> {
  constructor(private readonly deps: CustomerPortalDeps) {
    super(deps.store, customerPortalStream, customerPortalDecider);
  }

  async requestCode(owner: Owner, email: string, actor: Actor): Promise<{ object: 'customer_portal.challenge'; challengeId: string; expiresAt: string }> {
    await this.deps.countCodeRequest(owner);
    const address = email.trim().toLowerCase();
    const customerId = (await this.deps.customerByEmail(owner, address)) ?? null;
    const id = newUuid();
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + CODE_LIFETIME_MS).toISOString();
    await this.run(
      id,
      { type: 'send_code', challenge: { id, merchantId: owner.merchantId, environment: owner.environment, customerId, email: address, codeHash: this.deps.codes.hash(`${id}:${code}`), expiresAt, createdAt: now.toISOString() } },
      auditMetadata(this.deps.clock, owner, id, actor),
    );
    if (customerId) {
      // The merchant's message to its customer (its customer_portal_code template, or the built-in one), under its name.
      await this.deps.messenger.send({
        channel: 'email',
        to: address,
        purpose: 'customer_portal_code',
        merchant: owner,
        template: { purpose: 'customer_portal_code', values: { code, minutes: CODE_LIFETIME_MS / 60_000 } },
      });
    }
    return { object: 'customer_portal.challenge', challengeId: id, expiresAt };
  }

  /** The code of a challenge: a portal session and its token, or 401 IKW-CPT-001 (wrong, expired, used, or too many tries). */
  async verify(challengeId: string, code: string, actor: Actor): Promise<{ token: string; expiresAt: string; customerId: string; owner: Owner }> {
    const { state } = await this.load(challengeId);
    const c = state.challenge;
    if (!c) throw new Refusal('IKW-CPT-001', WRONG_CODE, 'code');
    const owner = { merchantId: c.merchantId, environment: c.environment };
    const token = `${PORTAL_TOKEN_PREFIX}${randomBase62(32)}`;
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + PORTAL_SESSION_MS).toISOString();
    const result = await this.run(
      challengeId,
      { type: 'verify', at: now, codeMatches: c.codeHash !== '' && this.deps.codes.matches(`${challengeId}:${code}`, c.codeHash), session: { id: challengeId, tokenHash: sha256Hex(token), expiresAt } },
      auditMetadata(this.deps.clock, owner, challengeId, actor),
    );
    if (!result.state.session) throw new Refusal('IKW-CPT-001', WRONG_CODE, 'code');
    return { token, expiresAt, customerId: c.customerId!, owner };
  }

  async signOut(owner: Owner, sessionId: string, actor: Actor): Promise<void> {
    await this.run(sessionId, { type: 'sign_out', at: this.deps.clock.now(), sessionId }, auditMetadata(this.deps.clock, owner, sessionId, actor), 'internal');
  }
}
