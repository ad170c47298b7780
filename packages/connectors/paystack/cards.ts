import type { CollectOutcome } from '../port.js';

/**
 * Paystack's card transactions in Sika's terms (docs/connectors.md, "Paystack"): what a
 * transaction's status means, and the authorization a success yields, kept so the customer's card
 * can be charged again.
 */

/** An authorization Paystack gave for a card, as Sika keeps it for the customer. */
export interface CardAuthorization {
  authorizationCode: string;
  /** Paystack's fingerprint of the card: the same card paid twice gives one saved card. */
  signature: string;
  last4: string;
  brand: string;
  expMonth: string;
  expYear: string;
  reusable: boolean;
}

/** A saved card: the token the merchant charges it by, its owner, and Paystack's authorization. */
export interface SavedCard extends CardAuthorization {
  token: string;
  merchantId: string;
  customerId: string;
  email: string;
}

/** The saved cards of customers, kept by the service (services/rail-cards.ts). */
export interface CardBook {
  /** Keeps a card for the customer (once per card: the same signature keeps its token); its token. */
  save(card: Omit<SavedCard, 'token'>): Promise<string>;
  /** The card of this token, whoever's it is (the connector checks the owner). */
  find(token: string): Promise<SavedCard | null>;
}

/**
 * A transaction's final outcome, or null while it is not conclusive (`ongoing`, `pending`,
 * `processing`, `queued`, `abandoned`: the payer has not finished, and any status Paystack adds).
 */
export function chargeOutcomeOf(status: unknown, gatewayResponse: unknown, reference?: string): CollectOutcome | null {
  const said = typeof gatewayResponse === 'string' && gatewayResponse.trim() ? gatewayResponse.trim() : undefined;
  if (status === 'success') return { status: 'succeeded', ...(reference ? { providerReference: reference } : {}) };
  if (status === 'failed') return { status: 'failed', failureCode: declineCodeOf(said), failureMessage: said ?? 'The card was declined' };
  if (status === 'reversed') return { status: 'failed', failureCode: 'payment_reversed', failureMessage: said ?? 'The payment was reversed' };
  return null;
}

/** Sika's failure code of a declined card, by the bank's words (Paystack's `gateway_response`). */
function declineCodeOf(said: string | undefined): string {
  const m = said ?? '';
  if (/insufficient funds/i.test(m)) return 'insufficient_funds';
  if (/expired/i.test(m)) return 'expired_card';
  return 'card_declined';
}

/** The authorization of a transaction record (`data.authorization`), when it is a card's. */
export function authorizationOf(value: unknown): CardAuthorization | null {
  const a = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  const text = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
  if (!text(a.authorization_code) || a.channel !== 'card') return null;
  return {
    authorizationCode: text(a.authorization_code),
    signature: text(a.signature) || text(a.authorization_code),
    last4: text(a.last4),
    brand: (text(a.brand) || text(a.card_type) || 'unknown').trim().toLowerCase(),
    expMonth: text(a.exp_month),
    expYear: text(a.exp_year),
    reusable: a.reusable === true,
  };
}
