import { Refusal } from '#packages/core/refusal.js';

/**
 * Where money comes in from or goes out to the world (docs/ledger.md, "Clearing accounts"): a card
 * network's, a bank's, a mobile money operator's, or the clearing account of a rail that keeps
 * Sika's money in a wallet (`rail_clearing:<connector>`, as pawaPay does).
 */
export type RailClearing = `rail_clearing:${string}`;
export type ClearingAccount = 'bank_clearing' | 'card_clearing' | `operator_clearing:${string}` | RailClearing;
/** The clearing account of the rail a connector keeping Sika's money carries. */
export const railClearing = (connector: string): RailClearing => `rail_clearing:${connector}`;

/**
 * The clearing account of an attempt: the rail's own when the attempt records the connector that
 * carried it; else `fallback`, the operator's or network's, as attempts recorded before
 * connectors were and the sandbox simulator, which holds no money, post.
 */
export function clearingOf<C extends ClearingAccount>(connector: string | undefined, fallback: C): C | RailClearing {
  return connector === undefined ? fallback : railClearing(connector);
}

/**
 * Money sent back to payers through a rail that keeps Sika's money (docs/ledger.md, "Refunds
 * through a rail"), while the rail has not answered: out of the merchant's balance, not yet out of
 * the rail's wallet. A refund that succeeds moves it on to `rail_clearing:<connector>`; one that
 * fails goes back where it came from (`refund_reversal`).
 */
export type RailRefunds = `rail_refunds:${string}`;
export const railRefunds = (connector: string): RailRefunds => `rail_refunds:${connector}`;

/**
 * Where the money of a refund entry goes: through a rail that keeps Sika's money, first to the
 * rail's refunds in flight (the rail's answer decides whether it leaves); anywhere else straight
 * to the clearing account, as the simulator's and the operators' refunds always did.
 */
export function refundLeg(clearing: string): string {
  return clearing.startsWith('rail_clearing:') ? railRefunds(clearing.slice('rail_clearing:'.length)) : clearing;
}

/**
 * Refuses money back to a payer through a rail's clearing account (IKW-PRV-006) for the refund
 * kinds whose family does not follow a rail's answer yet (an escrow contract's, a campaign's, a
 * marketplace order's: docs/connectors.md, "Refunds through a rail"): a refund on the ledger alone
 * would say refunded while the payer gets nothing. A payment's refund goes through the rail
 * (`refundLeg`); the simulator's and the operators' clearing accounts refund as before.
 */
export function assertRefundableThrough(clearing: string): void {
  if (clearing.startsWith('rail_clearing:')) {
    throw new Refusal('IKW-PRV-006', `The payment came in through ${clearing.slice('rail_clearing:'.length)}, whose refunds Sika does not send for this kind of refund yet; nothing was refunded`, 'id');
  }
}
