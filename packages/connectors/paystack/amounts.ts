/**
 * Paystack's amounts (docs/connectors.md, "Paystack"): integers in the currency's subunit (kobo,
 * pesewas, cents), in requests and answers alike. The subunit of each currency Paystack carries is
 * declared here, once; Sika's own amounts are integers in the catalog's minor units, so the two
 * meet by a power of ten (the same for every currency Paystack carries today).
 */
const SUBUNIT_DIGITS: Readonly<Record<string, number>> = { NGN: 2, GHS: 2, KES: 2, ZAR: 2, USD: 2 };

/** The currencies Paystack carries for Sika. */
export const PAYSTACK_CURRENCIES: readonly string[] = Object.keys(SUBUNIT_DIGITS);

/** Sika's amount (minor units of `minorUnits` digits) in Paystack's subunit; null when Paystack has no such currency or cannot express it. */
export function toSubunits(minor: number, currency: string, minorUnits: number): number | null {
  const digits = SUBUNIT_DIGITS[currency.toUpperCase()];
  if (digits === undefined || !Number.isSafeInteger(minor) || minor <= 0) return null;
  if (digits >= minorUnits) return minor * 10 ** (digits - minorUnits);
  const step = 10 ** (minorUnits - digits);
  return minor % step === 0 ? minor / step : null;
}

/** An amount Paystack reports, in Sika's minor units; null when it is not an integer of a known currency. */
export function fromSubunits(subunits: unknown, currency: string, minorUnits: number): number | null {
  const digits = SUBUNIT_DIGITS[currency.toUpperCase()];
  if (digits === undefined || typeof subunits !== 'number' || !Number.isSafeInteger(subunits) || subunits < 0) return null;
  if (minorUnits >= digits) return subunits * 10 ** (minorUnits - digits);
  const step = 10 ** (digits - minorUnits);
  return subunits % step === 0 ? subunits / step : null;
}
