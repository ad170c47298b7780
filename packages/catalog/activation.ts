/**
 * What a merchant's activation application must hold before the platform reviews it
 * (docs/catalog.md, "Activation requirements"): field paths of the application body, by the
 * business's country and type. Every country asks the common fields; a company also names its
 * registration number and its owners of 25 % or more; some countries ask more (below).
 */
export type BusinessType = 'individual' | 'company';
export const BUSINESS_TYPES: readonly BusinessType[] = ['individual', 'company'];

/** Asked of every business, whatever its country and type. */
const COMMON: readonly string[] = [
  'business.legal_name',
  'business.type',
  'business.country',
  'business.address',
  'business.product_description',
  'representative.name',
  'representative.date_of_birth',
  'representative.identity_document',
  'settlement_destination',
  'expected_monthly_volume',
];

const COMPANY: readonly string[] = ['business.registration_number', 'owners'];

/**
 * What a country asks beyond the common fields, per type. Senegal and Côte d'Ivoire register sole
 * traders too (NINEA, RCCM), so an individual there gives a registration number; Nigeria, Ghana and
 * Kenya ask a company's website (card acquirers' rule for online sellers).
 */
const BY_COUNTRY: Readonly<Record<string, Partial<Record<BusinessType, readonly string[]>>>> = {
  SN: { individual: ['business.registration_number'] },
  CI: { individual: ['business.registration_number'] },
  NG: { company: ['business.website'] },
  GH: { company: ['business.website'] },
  KE: { company: ['business.website'] },
};

/** The fields due for a business of `country` (ISO 3166-1 alpha-2) and `type`; unknown yet (null), the common ones. */
export function activationRequirements(country: string | null, type: BusinessType | null): string[] {
  const extra = type === null ? [] : [...(type === 'company' ? COMPANY : []), ...(BY_COUNTRY[(country ?? '').toUpperCase()]?.[type] ?? [])];
  return [...new Set([...COMMON, ...extra])];
}

/**
 * Every field path of the application body at the grain requirements name them: what the platform
 * may ask a merchant to give again (a request for information names these, or a part of one, such
 * as `business.address.city`).
 */
export const APPLICATION_FIELDS: readonly string[] = [...new Set([...COMMON, ...COMPANY, ...Object.values(BY_COUNTRY).flatMap((byType) => Object.values(byType).flat()), 'business.trading_name', 'business.website'])];

/** The parts of a field the platform may name alone: the body's own sub-fields, no other. */
const PARTS: Readonly<Record<string, readonly string[]>> = {
  'business.address': ['line1', 'line2', 'city', 'postal_code'],
  settlement_destination: ['type', 'currency', 'country', 'operator', 'msisdn', 'bank_code', 'account_number', 'account_name'],
  expected_monthly_volume: ['amount', 'currency'],
};
const KNOWN = new Set([...APPLICATION_FIELDS, ...Object.entries(PARTS).flatMap(([field, parts]) => parts.map((part) => `${field}.${part}`))]);

/** Whether `path` names a field of the application body, or a part of one (`owners.1.name`): `business.colour` is none. */
export const isApplicationField = (path: string): boolean => KNOWN.has(path) || /^owners\.[0-3](\.(name|date_of_birth|ownership_percent))?$/.test(path);
