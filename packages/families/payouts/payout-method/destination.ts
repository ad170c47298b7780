import { getCountry, getCurrency, getOperator, listCountries, normalizeMsisdn } from '#packages/catalog/index.js';
import { Refusal } from '#packages/core/refusal.js';
import type { Destination } from './events.js';

/** A destination as a request gives it (ajv has checked the shape). */
export type DestinationInput = { type: 'mobile_money'; currency?: string; country: string; operator: string; msisdn: string } | { type: 'bank'; currency?: string; bank_code: string; account_number: string; account_name: string };

/**
 * Checks a destination against the catalog and normalises it: country upper case, MSISDN in
 * E.164, currency lower case and defaulting to the payout's. `prefix` prefixes field names in errors
 * ('' when the destination is the request body itself, as for saved destinations).
 */
export function normalizeDestination(input: DestinationInput, payoutCurrency: string | null, prefix = 'destination'): Destination {
  const param = (field: string) => (prefix ? `${prefix}.${field}` : field);
  const currencyCode = input.currency ?? payoutCurrency;
  if (!currencyCode) throw new Refusal('IKW-VAL-001', 'Missing required parameter: currency', param('currency'));
  const currency = getCurrency(currencyCode);
  if (!currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${currencyCode}'`, param('currency'));
  if (payoutCurrency && currency.code !== payoutCurrency.toUpperCase()) {
    throw new Refusal('IKW-VAL-009', 'The destination currency must be the payout currency (no conversion)', param('currency'));
  }
  if (input.type === 'bank') {
    return {
      type: 'bank',
      currency: currency.code.toLowerCase(),
      bank_code: input.bank_code.trim(),
      account_number: input.account_number.replace(/\s+/g, ''),
      account_name: input.account_name.trim(),
    };
  }
  const country = getCountry(input.country);
  if (!country) throw new Refusal('IKW-VAL-004', `Unsupported country '${input.country}'`, param('country'));
  const operator = getOperator(country.code, input.operator);
  if (!operator) throw new Refusal('IKW-VAL-005', `Unknown operator '${input.operator}' for ${country.code}`, param('operator'));
  if (!operator.directions.includes('payout')) {
    throw new Refusal('IKW-VAL-006', `${operator.name} (${country.code}) does not take payouts`, param('operator'));
  }
  if (country.currency !== currency.code) {
    throw new Refusal('IKW-VAL-009', `${country.code} mobile money is in ${country.currency.toLowerCase()}`, param('currency'));
  }
  const msisdn = normalizeMsisdn(input.msisdn, country.code);
  if (!msisdn) throw new Refusal('IKW-VAL-007', `Not a valid ${country.code} mobile number`, param('msisdn'));
  return { type: 'mobile_money', currency: currency.code.toLowerCase(), country: country.code, operator: operator.code, msisdn };
}

/**
 * Where a destination's money lands, as the rule of destinations paid before compares them
 * (docs/decisions.md, "Payouts"): the rail (mobile money and its operator, or a bank) and the
 * account on it (the E.164 number; the bank code and account number, letters in upper case). The
 * currency and the account name are not part of it: they do not move the money elsewhere.
 */
export function destinationKey(destination: Destination): string {
  if (destination.type === 'mobile_money') return `mobile_money:${destination.operator}:${destination.msisdn}`;
  return `bank:${destination.bank_code.toUpperCase()}:${destination.account_number.toUpperCase()}`;
}

/**
 * The country whose fee schedule prices a destination. Bank destinations name no country, so the
 * first catalog country of their currency stands in (bank fees are set per currency).
 */
export function feeCountry(destination: Destination): string {
  if (destination.type === 'mobile_money') return destination.country;
  const country = listCountries().find((c) => c.currency === destination.currency.toUpperCase());
  if (!country) throw new Refusal('IKW-VAL-009', `Bank payouts in ${destination.currency} are not supported`, 'destination.currency');
  return country.code;
}

/** JSON Schema of a destination in requests (shared by payouts and saved destinations). */
export const destinationSchema = {
  type: 'object',
  description: 'Where the money goes: a mobile money wallet (`country`, `operator`, `msisdn`) or a bank account (`bank_code`, `account_number`, `account_name`)',
  required: ['type'],
  properties: {
    type: {
      enum: ['mobile_money', 'bank'],
      description: 'The kind of destination, which decides the fields it takes',
      'x-enumDescriptions': {
        mobile_money: 'A mobile money wallet: give `country`, `operator` and `msisdn`',
        bank: 'A bank account: give `bank_code`, `account_number` and `account_name`',
      },
    },
    currency: {
      type: 'string',
      pattern: '^[A-Za-z]{3}$',
      description: "The currency the destination receives (ISO 4217, any case); the payout's when left out, and it must be the payout's: there is no conversion (`IKW-VAL-009`)",
    },
    country: { type: 'string', pattern: '^[A-Za-z]{2}$', description: "Mobile money: the wallet's country (ISO 3166-1 alpha-2, any case), one of `GET /api/v1/geography/countries`" },
    operator: { type: 'string', minLength: 1, maxLength: 64, description: 'Mobile money: the operator id, as `GET /api/v1/geography/countries` lists it for the country (`orange_money`, `mtn`); it must take payouts' },
    msisdn: { type: 'string', minLength: 4, maxLength: 32, description: "Mobile money: the wallet's phone number, local or international; stored in E.164 (`+221771234567`)" },
    bank_code: { type: 'string', minLength: 1, maxLength: 64, description: "Bank: the bank's code on the rail (for NGN and GHS, Paystack's bank code)" },
    account_number: { type: 'string', minLength: 1, maxLength: 64, description: 'Bank: the account number; spaces are removed' },
    account_name: { type: 'string', minLength: 1, maxLength: 140, description: "Bank: the account holder's name; where the rail checks it (NGN, GHS) it must match the bank's (`IKW-PRV-010`)" },
  },
  additionalProperties: false,
  allOf: [
    {
      // `required` in the condition: without a type, neither branch applies and `type` is reported missing.
      if: { properties: { type: { const: 'mobile_money', description: 'A mobile money destination' } }, required: ['type'] },
      then: {
        properties: { country: true, operator: true, msisdn: true, bank_code: false, account_number: false, account_name: false },
        required: ['country', 'operator', 'msisdn'],
      },
    },
    {
      if: { properties: { type: { const: 'bank', description: 'A bank destination' } }, required: ['type'] },
      then: {
        properties: { bank_code: true, account_number: true, account_name: true, country: false, operator: false, msisdn: false },
        required: ['bank_code', 'account_number', 'account_name'],
      },
    },
  ],
};
