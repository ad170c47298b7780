import { railClearing, refundLeg } from '#packages/ledger/clearing.js';
import type { LedgerAction, LedgerReducer } from '#packages/ledger/decider.js';
import type { Line } from '#packages/ledger/entry.js';

/** A refund entry whose money waits on a rail's refunds in flight for the rail's answer: its lines, to reverse should it fail. */
interface RailRefund {
  lines: Line[];
  amount: number;
  net: number;
  /** The rail: `rail_refunds:<connector>` holds the money, `rail_clearing:<connector>` takes it when sent. */
  connector: string;
}

const ANSWERS = new Set(['rail_refund_sent', 'refund_reversal']);

/**
 * Refunds sent through a rail and not answered yet, by source (few at a time): any entry that puts
 * money on a rail's refunds in flight (a payment's, a contract's, a campaign's refund), until the
 * rail's answer is posted.
 */
export const railRefundsInFlight: LedgerReducer<ReadonlyMap<string, RailRefund>> = {
  name: 'payments.rail_refunds',
  initial: new Map(),
  evolve(inFlight, e) {
    if (ANSWERS.has(e.kind)) {
      if (!inFlight.has(e.source)) return inFlight;
      const next = new Map(inFlight);
      next.delete(e.source);
      return next;
    }
    const waiting = e.lines.find((l) => l.account.startsWith('rail_refunds:'));
    if (!waiting) return inFlight;
    return new Map(inFlight).set(e.source, { lines: e.lines, amount: e.amount, net: e.net, connector: waiting.account.slice('rail_refunds:'.length) });
  },
};

/**
 * The rail's answer to a refund sent through it, once (docs/ledger.md, "Refunds through a rail"):
 * sent, its money leaves through the rail's clearing account; returned (refused, failed), its
 * entry is reversed line by line, so the money is back on the account it came from.
 */
export function endRailRefund(answer: { source: string; outcome: 'sent' | 'returned' }): LedgerAction {
  return {
    type: 'post',
    recipe(book) {
      const refund = book.family(railRefundsInFlight).get(answer.source);
      if (!refund) return; // already answered: idempotent
      const { connector } = refund;
      if (answer.outcome === 'sent') {
        const amount = refund.lines.find((l) => l.account === refundLeg(railClearing(connector)))!.amount;
        book.post({
          kind: 'rail_refund_sent',
          source: answer.source,
          lines: [
            { account: refundLeg(railClearing(connector)), amount: -amount },
            { account: railClearing(connector), amount },
          ],
          amount,
          fee: 0,
          net: 0,
        });
        return;
      }
      book.post({ kind: 'refund_reversal', source: answer.source, lines: refund.lines.map((l) => ({ account: l.account, amount: -l.amount })), amount: -refund.amount, fee: 0, net: -refund.net });
    },
  };
}
