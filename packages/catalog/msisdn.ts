/**
 * Mobile numbers (MSISDNs): validated against libphonenumber's metadata, normalised to E.164.
 * The 'max' metadata is the one that knows number types, so a fixed-line number is told apart
 * from a mobile one.
 */
import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode, type PhoneNumber } from 'libphonenumber-js/max';

/** Separators people type inside phone numbers; everything else but digits and a leading '+' is refused. */
const SEPARATORS = /[\s().\-/]/g;
const DIALLABLE = /^\+?\d{4,20}$/;
const MAX_INPUT_LENGTH = 40;

/**
 * `input` as E.164 (`+221771234567`) when it is a valid mobile number of `country` (ISO alpha-2,
 * any case), otherwise null. Accepted spellings: international with `+` or `00`
 * (`+221 77 123 45 67`, `00221771234567`), the calling code without `+` (`221771234567`), and the
 * country's national format (`77 123 45 67`, `0712 345 678` in KE). Spaces, dots, dashes, slashes
 * and parentheses are ignored. Letters, extensions and surrounding text are refused, as are a
 * fixed-line number and a valid number of another country.
 */
export function normalizeMsisdn(input: string, country: string): string | null {
  const region = typeof country === 'string' ? country.toUpperCase() : '';
  if (!isSupportedCountry(region)) return null;
  const parsed = parseTyped(input, region);
  if (!parsed || parsed.country !== region || !parsed.isValid()) return null;
  const type = parsed.getType();
  if (type !== 'MOBILE' && type !== 'FIXED_LINE_OR_MOBILE') return null;
  return parsed.number;
}

/**
 * `input` as E.164 when it is any valid phone number (mobile or fixed line, any country), read in
 * `defaultCountry`'s national format when it has no calling code; otherwise null. For contact
 * numbers (a customer's phone), where only a payment method's MSISDN must be a mobile number.
 */
export function normalizePhone(input: string, defaultCountry: string): string | null {
  const region = defaultCountry.toUpperCase();
  const parsed = parseTyped(input, isSupportedCountry(region) ? region : undefined);
  return parsed?.isValid() ? parsed.number : null;
}

/** A number as people type it (spelling rules above), parsed; undefined when it is not one. */
function parseTyped(input: string, region: CountryCode | undefined): PhoneNumber | undefined {
  if (typeof input !== 'string' || input.length > MAX_INPUT_LENGTH) return undefined;
  let compact = input.replace(SEPARATORS, '');
  if (!DIALLABLE.test(compact)) return undefined;
  // `00` is the international prefix in most of Africa, but not everywhere (Kenya dials 000):
  // read it as '+' whatever the country's own prefix.
  if (compact.startsWith('00')) compact = `+${compact.slice(2)}`;
  return parsePhoneNumberFromString(compact, region);
}
