/**
 * The chart of accounts (docs/ledger.md): every account a posting may name, declared once. An
 * account is a kind, or a kind and the id of what it is held for (`escrow:<contract>`). Each
 * merchant × environment × currency balance stream holds them all; every posting balances.
 */

/** Who the money on an account belongs to, as finance reads it. */
export type AccountOwner = 'merchant' | 'payers' | 'sellers' | 'platform' | 'outside';

export interface AccountKind {
  owner: AccountOwner;
  /** A posting that would take it below zero is a bug (domain refusals come first). */
  mayGoNegative: boolean;
  /** Where GET /api/v1/balance shows it. */
  shownAs: string;
  /** What is on it. */
  holds: string;
}

export const CHART = {
  available: { owner: 'merchant', mayGoNegative: false, shownAs: 'available', holds: 'settled funds the merchant may pay out or refund' },
  pending: { owner: 'merchant', mayGoNegative: false, shownAs: 'pending', holds: 'payments not yet settled (the settlement delay)' },
  reserved: { owner: 'merchant', mayGoNegative: false, shownAs: 'reserved', holds: "holds of payouts in flight and of payout batches' executions, amount + fee" },
  escrow: { owner: 'payers', mayGoNegative: false, shownAs: 'escrowed, held (escrow)', holds: "an escrow contract's funds (escrow:<contract>)" },
  campaign: { owner: 'payers', mayGoNegative: false, shownAs: 'held (campaign)', holds: "a funding campaign's contributions until release (campaign:<campaign>)" },
  seller_pending: { owner: 'sellers', mayGoNegative: false, shownAs: 'seller_funds.pending, held (seller)', holds: "a marketplace seller's shares not yet settled (seller_pending:<seller>)" },
  seller_available: { owner: 'sellers', mayGoNegative: false, shownAs: 'seller_funds.available, held (seller)', holds: "a marketplace seller's settled funds (seller_available:<seller>)" },
  seller_payouts: { owner: 'sellers', mayGoNegative: false, shownAs: 'held (seller_payouts)', holds: "holds of payouts to sellers in flight, amount + fee" },
  commission: { owner: 'merchant', mayGoNegative: true, shownAs: 'GET /api/v1/marketplace/balance', holds: "the marketplace's commission, less the processing fees it pays (may go below zero)" },
  fees: { owner: 'platform', mayGoNegative: false, shownAs: '(Sika)', holds: "Sika's fees on payments, payouts and releases" },
  card_clearing: { owner: 'outside', mayGoNegative: true, shownAs: '(none)', holds: 'money on its way from or to card networks: negative when it came in' },
  bank_clearing: { owner: 'outside', mayGoNegative: true, shownAs: '(none)', holds: 'money on its way to banks' },
  operator_clearing: { owner: 'outside', mayGoNegative: true, shownAs: '(none)', holds: 'money on its way from or to a mobile money operator (operator_clearing:<operator>)' },
  rail_refunds: {
    owner: 'payers',
    mayGoNegative: false,
    shownAs: '(none)',
    holds: "refunds sent through a rail that keeps Sika's money, not answered yet (rail_refunds:<connector>): out of the balance, not yet out of the rail's wallet",
  },
  rail_clearing: {
    owner: 'outside',
    mayGoNegative: true,
    shownAs: '(none; bin/sika ledger balance --rail)',
    holds: "what a rail that keeps Sika's money in a wallet (rail_clearing:<connector>, e.g. pawapay) holds for it: collections in, less payouts and refunds out; negative when it holds money",
  },
} as const satisfies Record<string, AccountKind>;

export type AccountKindName = keyof typeof CHART;

/** The kind of an account: the part before its id. */
export function kindOf(account: string): AccountKindName {
  const colon = account.indexOf(':');
  const kind = colon < 0 ? account : account.slice(0, colon);
  if (!(kind in CHART)) throw new Error(`Account '${account}' is not in the chart of accounts`);
  return kind as AccountKindName;
}

export const mayGoNegative = (account: string): boolean => CHART[kindOf(account)].mayGoNegative;
