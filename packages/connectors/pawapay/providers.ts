/**
 * The one table between Sika's catalog (ISO 3166-1 alpha-2 country, operator code) and pawaPay
 * (ISO alpha-3 country, provider code, calling prefix). Only the pairs pawaPay carries are here:
 * Mali and Togo are not served, nor Expresso E-Money (SN), Moov Money (CI) and Airtel Money (KE).
 * Which of these an account may use, with its currencies, limits and decimals, is its active
 * configuration's to say (configuration.ts).
 */

interface Country {
  /** pawaPay's country code (ISO 3166-1 alpha-3). */
  code: string;
  /** The calling code MSISDNs start with, without '+' (active-conf `prefix`). */
  prefix: string;
  /** Sika operator code → pawaPay provider code. */
  providers: Readonly<Record<string, string>>;
}

const COUNTRIES: Readonly<Record<string, Country>> = {
  SN: { code: 'SEN', prefix: '221', providers: { orange_money: 'ORANGE_SEN', free_money: 'FREE_SEN', wave: 'WAVE_SEN' } },
  CI: { code: 'CIV', prefix: '225', providers: { orange_money: 'ORANGE_CIV', mtn: 'MTN_MOMO_CIV', wave: 'WAVE_CIV' } },
  BF: { code: 'BFA', prefix: '226', providers: { orange_money: 'ORANGE_BFA', moov: 'MOOV_BFA' } },
  BJ: { code: 'BEN', prefix: '229', providers: { mtn: 'MTN_MOMO_BEN', moov: 'MOOV_BEN' } },
  CM: { code: 'CMR', prefix: '237', providers: { mtn: 'MTN_MOMO_CMR', orange_money: 'ORANGE_CMR' } },
  // Telecel Cash is the former Vodafone Cash: pawaPay kept the old code.
  GH: { code: 'GHA', prefix: '233', providers: { mtn: 'MTN_MOMO_GHA', telecel: 'VODAFONE_GHA', airteltigo: 'AIRTELTIGO_GHA' } },
  KE: { code: 'KEN', prefix: '254', providers: { mpesa: 'MPESA_KEN' } },
  UG: { code: 'UGA', prefix: '256', providers: { mtn: 'MTN_MOMO_UGA', airtel_money: 'AIRTEL_OAPI_UGA' } },
  RW: { code: 'RWA', prefix: '250', providers: { mtn: 'MTN_MOMO_RWA', airtel_money: 'AIRTEL_RWA' } },
};

/** A provider of the table with where it is, in both vocabularies. */
export interface ProviderEntry {
  provider: string;
  /** Sika's country (alpha-2) and operator code. */
  country: string;
  operator: string;
  /** pawaPay's country (alpha-3) and calling prefix. */
  pawapayCountry: string;
  prefix: string;
}

const ENTRIES: readonly ProviderEntry[] = Object.entries(COUNTRIES).flatMap(([country, c]) => Object.entries(c.providers).map(([operator, provider]) => ({ provider, country, operator, pawapayCountry: c.code, prefix: c.prefix })));

/** The pawaPay provider of a Sika (country, operator), any case; undefined when pawaPay does not carry it. */
export function providerFor(country: string, operator: string): ProviderEntry | undefined {
  const c = country.toUpperCase();
  const o = operator.toLowerCase();
  return ENTRIES.find((e) => e.country === c && e.operator === o);
}

/** The Sika (country, operator) of a pawaPay provider code; undefined for a provider Sika does not know. */
export function entryOfProvider(provider: string): ProviderEntry | undefined {
  return ENTRIES.find((e) => e.provider === provider);
}

/** Every provider of the table. */
export function listProviders(): readonly ProviderEntry[] {
  return ENTRIES;
}

/**
 * An MSISDN as pawaPay wants it: the calling code and the national number, digits only, no '+'
 * (`+221 77 123 45 67` → `221771234567`). Null when it is not a number of that country: Sika's
 * numbers are E.164 already (the catalog normalises them), so this only drops the '+' and checks.
 */
export function pawapayMsisdn(msisdn: string, entry: Pick<ProviderEntry, 'prefix'>): string | null {
  const digits = msisdn.startsWith('+') ? msisdn.slice(1) : msisdn;
  if (!/^[0-9]{6,15}$/.test(digits) || !digits.startsWith(entry.prefix) || digits.length <= entry.prefix.length + 4) return null;
  return digits;
}
