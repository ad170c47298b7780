/**
 * pawaPay's amount representation, declared once (docs/connectors.md, "pawaPay"): Sika carries
 * integers in the currency's minor units; pawaPay takes and echoes decimal strings in major units
 * (`5`, `5.5`, `0.5`; never `5.`, `.5`, `00.5`) with at most the decimals the provider allows
 * (`decimalsInAmount` of its active configuration: `NONE` or `TWO_PLACES`). Conversions are done
 * on digit strings, never through floating point, and refuse what does not fit exactly.
 */

/** A conversion that either fits exactly or says why not. */
export type Converted<T> = { ok: true; value: T } | { ok: false; reason: string };

/** pawaPay's longest integer part (its amount format allows 18 digits before the point). */
const MAX_INTEGER_DIGITS = 18;
const DECIMAL = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/;

/**
 * `minor` (an integer in units of 10^-minorUnits) as pawaPay's amount string, with no more than
 * `decimals` decimals: GHS 1050 (minor units 2) is "10.5"; KES 1050 to a provider that takes no
 * decimals is refused, KES 1000 is "10".
 */
export function toPawapayAmount(minor: number, minorUnits: number, decimals: number): Converted<string> {
  if (!Number.isSafeInteger(minor) || minor <= 0) return { ok: false, reason: `the amount must be a positive integer in minor units; got ${minor}` };
  const digits = String(minor).padStart(minorUnits + 1, '0');
  const integer = digits.slice(0, digits.length - minorUnits);
  const fraction = digits.slice(digits.length - minorUnits).replace(/0+$/, '');
  if (fraction.length > decimals) {
    return { ok: false, reason: `${minor} minor units is ${integer}.${fraction}, but the provider takes ${decimals === 0 ? 'whole units only' : `at most ${decimals} decimals`}` };
  }
  if (integer.length > MAX_INTEGER_DIGITS) return { ok: false, reason: `${minor} minor units is larger than pawaPay's amounts` };
  return { ok: true, value: fraction ? `${integer}.${fraction}` : integer };
}

/**
 * A decimal string pawaPay sends (an echoed amount, "123.00"; a limit of its active
 * configuration) in minor units, exactly: extra decimals must be zeros ("123.00" in XOF is 123,
 * "123.50" in XOF is not an XOF amount).
 */
export function fromPawapayAmount(value: unknown, minorUnits: number): Converted<number> {
  const match = typeof value === 'string' ? DECIMAL.exec(value) : null;
  if (!match) return { ok: false, reason: `${JSON.stringify(value)} is not a decimal amount` };
  const fraction = match[2] ?? '';
  if (/[^0]/.test(fraction.slice(minorUnits))) return { ok: false, reason: `${value} has more decimals than the currency's ${minorUnits}` };
  const minor = Number(match[1]! + fraction.slice(0, minorUnits).padEnd(minorUnits, '0'));
  if (!Number.isSafeInteger(minor)) return { ok: false, reason: `${value} is too large` };
  return { ok: true, value: minor };
}

/** `decimalsInAmount` of the active configuration as a count; anything unknown is read as none, the strictest. */
export function decimalsOf(decimalsInAmount: unknown): number {
  return decimalsInAmount === 'TWO_PLACES' ? 2 : 0;
}
