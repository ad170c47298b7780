/**
 * The one table between Sika's catalog (ISO 3166-1 alpha-2 country, operator code) and Hub2
 * (lowercase provider name, the same ISO-2 country). Hub2's names follow its samples (`orange`);
 * whether an account may use each one is the account's (docs/connectors.md, "Hub2").
 * Expresso E-Money (SN) takes pay-ins only.
 */

interface Country {
  /** The calling code MSISDNs start with, without '+'. */
  callingCode: string;
  /** The country's currency (XOF, XAF): Hub2 takes no other there. */
  currency: string;
  /** Sika operator code → Hub2 provider name. */
  providers: Readonly<Record<string, string>>;
  /** Operators Hub2 collects from but does not pay out to. */
  collectOnly?: readonly string[];
}

const COUNTRIES: Readonly<Record<string, Country>> = {
  ML: { callingCode: '223', currency: 'XOF', providers: { orange_money: 'orange', moov: 'moov', wave: 'wave' } },
  TG: { callingCode: '228', currency: 'XOF', providers: { tmoney: 'tmoney', flooz: 'moov' } },
  SN: { callingCode: '221', currency: 'XOF', providers: { orange_money: 'orange', free_money: 'free', wave: 'wave', e_money: 'expresso' }, collectOnly: ['e_money'] },
  CI: { callingCode: '225', currency: 'XOF', providers: { orange_money: 'orange', mtn: 'mtn', moov: 'moov', wave: 'wave' } },
  BF: { callingCode: '226', currency: 'XOF', providers: { orange_money: 'orange', moov: 'moov' } },
  BJ: { callingCode: '229', currency: 'XOF', providers: { mtn: 'mtn', moov: 'moov' } },
  CM: { callingCode: '237', currency: 'XAF', providers: { mtn: 'mtn', orange_money: 'orange' } },
};

/** A provider of the table with where it is, in both vocabularies. */
export interface ProviderEntry {
  /** Hub2's provider name. */
  provider: string;
  /** Sika's country (alpha-2, Hub2's too) and operator code. */
  country: string;
  operator: string;
  callingCode: string;
  currency: string;
  /** Whether Hub2 pays out to it (not only collects from it). */
  paysOut: boolean;
}

const ENTRIES: readonly ProviderEntry[] = Object.entries(COUNTRIES).flatMap(([country, c]) =>
  Object.entries(c.providers).map(([operator, provider]) => ({
    provider,
    country,
    operator,
    callingCode: c.callingCode,
    currency: c.currency,
    paysOut: !(c.collectOnly ?? []).includes(operator),
  })),
);

/** The Hub2 provider of a Sika (country, operator), any case; undefined when Hub2 does not carry it. */
export function providerFor(country: string, operator: string): ProviderEntry | undefined {
  const c = country.toUpperCase();
  const o = operator.toLowerCase();
  return ENTRIES.find((e) => e.country === c && e.operator === o);
}

/** Every provider of the table. */
export function listProviders(): readonly ProviderEntry[] {
  return ENTRIES;
}

/**
 * An MSISDN as Hub2 writes it: '+', the calling code and the national number, digits only
 * (`+225 07 12 34 56 78` → `+2250712345678`). Sika's numbers are E.164 already (the catalog
 * normalises them); this drops spaces, checks the country, and gives null for anything else.
 */
export function hub2Msisdn(msisdn: string, entry: Pick<ProviderEntry, 'callingCode'>): string | null {
  const compact = msisdn.replace(/[\s-]/g, '');
  const digits = compact.startsWith('+') ? compact.slice(1) : compact;
  if (!/^[0-9]+$/.test(digits) || !digits.startsWith(entry.callingCode)) return null;
  const national = digits.length - entry.callingCode.length;
  if (national < 6 || national > 12) return null;
  return `+${digits}`;
}
