import { Refusal } from '#packages/core/refusal.js';
import { refundLeg } from '#packages/ledger/clearing.js';
import type { LedgerAction } from '#packages/ledger/decider.js';
import { assertAmounts } from '#packages/ledger/entry.js';

/**
 * One movement of a funding campaign's held funds (docs/funding.md): a contribution comes in
 * (gross, from the payment's clearing), goes back (from the campaign's account, or from
 * `available` once released), or the campaign's funds are released to the organizer.
 */
export type CampaignMove =
  | { kind: 'contribution'; source: string; clearing: string; amount: number }
  | { kind: 'refund'; source: string; clearing: string; amount: number }
  | { kind: 'refund_released'; source: string; clearing: string; amount: number }
  | { kind: 'release'; source: string; amount: number; fee: number };

/**
 * The entries of a campaign's moves, each once per source (a move already posted is skipped).
 * The campaign's decider moves only what it holds, so a campaign account running short is a bug;
 * a refund after release draws on `available` and is refused (IKW-BAL-001) when it cannot cover it.
 */
export function moveCampaignFunds(campaign: string, moves: readonly CampaignMove[]): LedgerAction {
  const held = `campaign:${campaign}`;
  const refs = { campaign };
  return {
    type: 'post',
    recipe(book) {
      for (const move of moves) {
        assertAmounts(move.amount);
        switch (move.kind) {
          case 'contribution':
            if (book.posted('campaign_contribution', move.source)) break;
            book.post({
              kind: 'campaign_contribution',
              source: move.source,
              lines: [
                { account: move.clearing, amount: -move.amount },
                { account: held, amount: move.amount },
              ],
              amount: move.amount,
              fee: 0,
              net: 0,
              refs,
            });
            break;
          case 'refund':
            if (book.posted('campaign_refund', move.source)) break;
            if (book.balance(held) < move.amount) throw new Error(`Campaign ${campaign} holds less than refund ${move.source}`);
            book.post({
              kind: 'campaign_refund',
              source: move.source,
              lines: [
                { account: held, amount: -move.amount },
                { account: refundLeg(move.clearing), amount: move.amount },
              ],
              amount: -move.amount,
              fee: 0,
              net: 0,
              refs,
            });
            break;
          case 'refund_released': {
            if (book.posted('refund', move.source)) break;
            const available = book.balance('available');
            if (available < move.amount) throw new Refusal('IKW-BAL-001', `Available balance ${available} does not cover the refund (${move.amount})`, 'contributionId');
            book.post({
              kind: 'refund',
              source: move.source,
              lines: [
                { account: 'available', amount: -move.amount },
                { account: refundLeg(move.clearing), amount: move.amount },
              ],
              amount: -move.amount,
              fee: 0,
              net: -move.amount,
              refs,
            });
            break;
          }
          case 'release': {
            if (book.posted('campaign_release', move.source)) break;
            assertAmounts(move.fee);
            if (move.fee > move.amount || book.balance(held) < move.amount) throw new Error(`Campaign ${campaign} cannot release ${move.amount}`);
            const net = move.amount - move.fee;
            book.post({
              kind: 'campaign_release',
              source: move.source,
              lines: [
                { account: held, amount: -move.amount },
                { account: 'available', amount: net },
                { account: 'fees', amount: move.fee },
              ],
              amount: move.amount,
              fee: move.fee,
              net,
              refs,
            });
            break;
          }
        }
      }
    },
  };
}
