/**
 * Hub2's amounts: integers in the currency's smallest unit, which XOF and XAF do not divide, so
 * Sika's minor units are Hub2's units as they are. Every mobile money provider takes multiples of
 * 5 only, from 100 to 1,000,000 per operation (hub2.md, "Amounts": Hub2's amount policy as this
 * project reads it until Hub2 confirms it per account). Anything else is refused before money is held.
 */

export const MIN_AMOUNT = 100;
export const MAX_AMOUNT = 1_000_000;
export const AMOUNT_STEP = 5;

const spelt = (n: number) => n.toLocaleString('en-US');

/** Why Hub2 cannot take `amount`, naming the nearest amounts it takes; null when it can. */
export function amountRefusal(amount: number): string | null {
  const rule = `Hub2 takes multiples of ${AMOUNT_STEP} from ${spelt(MIN_AMOUNT)} to ${spelt(MAX_AMOUNT)}`;
  if (!Number.isFinite(amount)) return `${rule}; got ${amount}`;
  if (amount < MIN_AMOUNT) return `${rule}; ${spelt(amount)} is below it: the nearest it takes is ${spelt(MIN_AMOUNT)}`;
  if (amount > MAX_AMOUNT) return `${rule}; ${spelt(amount)} is above it: the nearest it takes is ${spelt(MAX_AMOUNT)}`;
  if (Number.isInteger(amount) && amount % AMOUNT_STEP === 0) return null;
  const below = Math.floor(amount / AMOUNT_STEP) * AMOUNT_STEP;
  const above = below + AMOUNT_STEP;
  const nearest = [below, above].filter((n) => n >= MIN_AMOUNT && n <= MAX_AMOUNT).map(spelt);
  return `${rule}; ${amount} is not one: the nearest it takes are ${nearest.join(' and ')}`;
}
