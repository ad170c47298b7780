/**
 * ISO 4217 currencies the platform knows, with their minor units. Amounts everywhere are integers
 * in units of 10^-minorUnits of the currency (docs/architecture.md): XOF 5000 is 5,000 francs,
 * GHS 5000 is 50.00 cedis.
 */
import type { Currency } from './types.js';

const DATA: readonly Currency[] = [
  // Zero-decimal currencies (ISO 4217 minor units 0; Stripe treats them as zero-decimal too).
  { code: 'XOF', minorUnits: 0, name: 'West African CFA franc' },
  { code: 'XAF', minorUnits: 0, name: 'Central African CFA franc' },
  { code: 'UGX', minorUnits: 0, name: 'Ugandan shilling' },
  { code: 'RWF', minorUnits: 0, name: 'Rwandan franc' },
  { code: 'GNF', minorUnits: 0, name: 'Guinean franc' },
  // Two-decimal currencies.
  { code: 'GHS', minorUnits: 2, name: 'Ghanaian cedi' },
  { code: 'KES', minorUnits: 2, name: 'Kenyan shilling' },
  { code: 'NGN', minorUnits: 2, name: 'Nigerian naira' },
  { code: 'TZS', minorUnits: 2, name: 'Tanzanian shilling' },
  { code: 'ZAR', minorUnits: 2, name: 'South African rand' },
  { code: 'ZMW', minorUnits: 2, name: 'Zambian kwacha' },
  { code: 'USD', minorUnits: 2, name: 'United States dollar' },
  { code: 'EUR', minorUnits: 2, name: 'Euro' },
  { code: 'GBP', minorUnits: 2, name: 'Pound sterling' },
];

const BY_CODE: ReadonlyMap<string, Currency> = new Map(DATA.map((c) => [c.code, Object.freeze({ ...c })]));

/** The currency with this ISO 4217 code, in any case (`xof`, `XOF`); undefined when unknown. */
export function getCurrency(code: string): Currency | undefined {
  if (typeof code !== 'string') return undefined;
  return BY_CODE.get(code.toUpperCase());
}

/** Every known currency, ordered by code. */
export function listCurrencies(): Currency[] {
  return [...BY_CODE.values()].sort((a, b) => a.code.localeCompare(b.code));
}

/** An amount in minor units for a reader: "25 000 F CFA" in French, "XOF 25,000" in English (the payers' pages and e-mails). */
export function formatAmount(amount: number, currency: string, lang: 'en' | 'fr'): string {
  const minor = getCurrency(currency)?.minorUnits ?? 2;
  return new Intl.NumberFormat(lang === 'fr' ? 'fr-FR' : 'en-US', { style: 'currency', currency: currency.toUpperCase(), minimumFractionDigits: minor, maximumFractionDigits: minor }).format(amount / 10 ** minor);
}
