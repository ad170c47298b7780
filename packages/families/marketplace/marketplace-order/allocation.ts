/**
 * Splits a refund of `amount` among parties in proportion to what each has not had refunded
 * (`remaining`; their sum is at least `amount`). Each gets the floor of its exact part; the units
 * left go one each to the largest remainders, the earlier party first on a tie. No party gets more
 * than it has left, and a refund of everything that remains gives each party all it has left, so
 * a series of partial refunds that ends in a full one reverses every share exactly.
 */
export function allocateRefund(remaining: readonly number[], amount: number): number[] {
  const total = remaining.reduce((s, r) => s + r, 0);
  if (amount > total) throw new Error(`A refund of ${amount} is above what remains (${total})`);
  if (total === 0) return remaining.map(() => 0);
  const big = BigInt(amount);
  const whole = BigInt(total);
  const parts = remaining.map((r, index) => {
    const exact = big * BigInt(r);
    return { index, floor: Number(exact / whole), remainder: exact % whole };
  });
  let left = amount - parts.reduce((s, p) => s + p.floor, 0);
  const byRemainder = [...parts].sort((a, b) => (a.remainder === b.remainder ? a.index - b.index : a.remainder > b.remainder ? -1 : 1));
  for (const p of byRemainder) {
    if (left === 0) break;
    if (p.remainder > 0n) {
      p.floor += 1;
      left -= 1;
    }
  }
  return parts.map((p) => p.floor);
}
