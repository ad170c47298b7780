/** The catalog: currencies, countries and their operators, MSISDN rules, and the fee schedule. */
export type { AmountLimits, Country, Currency, Direction, FeeQuote, FeeQuoteInput, FeeRule, Operator, PaymentMethodType } from './types.js';
export { formatAmount, getCurrency, listCurrencies } from './currencies.js';
export { bankPayoutLimits, DEFAULT_PAYOUT_EXPECTED_MINUTES, getCountry, getOperator, largestPayin, listCountries, takesCards } from './countries.js';
export { isIsoCountry } from './iso-countries.js';
export { normalizeMsisdn, normalizePhone } from './msisdn.js';
export { amountStep, disputeFee, FEE_SCHEDULE, MAX_AMOUNT, quoteFee, ruleSpecificity } from './fees.js';
export { activationRequirements, APPLICATION_FIELDS, BUSINESS_TYPES, isApplicationField } from './activation.js';
export type { BusinessType } from './activation.js';
