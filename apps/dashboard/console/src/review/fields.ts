import type { Messages } from '../../../src/shell/i18n.js';

/**
 * The fields of an application a reviewer may ask the merchant to give again, by their path in the
 * application body: APPLICATION_FIELDS of packages/catalog/activation.ts, in the order the page shows them.
 */
export const REQUESTABLE_FIELDS = [
  'business.legal_name',
  'business.trading_name',
  'business.type',
  'business.registration_number',
  'business.country',
  'business.address',
  'business.product_description',
  'business.website',
  'representative.name',
  'representative.date_of_birth',
  'representative.identity_document',
  'owners',
  'settlement_destination',
  'expected_monthly_volume',
] as const;
export type RequestableField = (typeof REQUESTABLE_FIELDS)[number];

/** Each field's name in words (`field.<path>`). */
export const FIELD_WORDS = {
  en: {
    'field.business.legal_name': 'Legal name',
    'field.business.trading_name': 'Trading name',
    'field.business.type': 'Type of business',
    'field.business.registration_number': 'Registration number',
    'field.business.country': 'Country',
    'field.business.address': 'Address',
    'field.business.product_description': 'What it sells',
    'field.business.website': 'Website',
    'field.representative.name': 'Full name',
    'field.representative.date_of_birth': 'Date of birth',
    'field.representative.identity_document': 'Identity document',
    'field.owners': 'Owners',
    'field.settlement_destination': 'Settlement destination',
    'field.expected_monthly_volume': 'Expected monthly volume',
  },
  fr: {
    'field.business.legal_name': 'Raison sociale',
    'field.business.trading_name': 'Nom commercial',
    'field.business.type': 'Type d’entreprise',
    'field.business.registration_number': 'Numéro d’immatriculation',
    'field.business.country': 'Pays',
    'field.business.address': 'Adresse',
    'field.business.product_description': 'Ce qu’elle vend',
    'field.business.website': 'Site web',
    'field.representative.name': 'Nom complet',
    'field.representative.date_of_birth': 'Date de naissance',
    'field.representative.identity_document': 'Pièce d’identité',
    'field.owners': 'Détenteurs',
    'field.settlement_destination': 'Destination des virements',
    'field.expected_monthly_volume': 'Volume mensuel prévu',
  },
} satisfies Messages<`field.${RequestableField}`>;

/** A field's name in words by its path; a part of one (`business.address.city`, `owners.1`) is named by the field it is part of. */
export function fieldName(t: (key: `field.${RequestableField}`) => string, path: string): string {
  const field = REQUESTABLE_FIELDS.filter((f) => path === f || path.startsWith(`${f}.`)).sort((x, y) => y.length - x.length)[0];
  if (!field) return path;
  return path === field ? t(`field.${field}`) : `${t(`field.${field}`)} (${path.slice(field.length + 1)})`;
}
