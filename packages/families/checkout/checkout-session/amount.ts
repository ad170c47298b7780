import { getCountry, getCurrency, largestPayin } from '#packages/catalog/index.js';
import { Refusal } from '#packages/core/refusal.js';

/** What a payment page may collect: the amount, its currency (lower case) and the country (upper case). */
export interface Collectible {
  amount: number;
  currency: string;
  country: string;
}

/**
 * Checks what a checkout session or a payment link will collect, with this family's field names:
 * a known currency and country, the country's currency, and an amount some operator of the
 * country accepts (the payment intent made later checks the same under its own names).
 */
export function collectible(amount: number, currencyCode: string, countryCode: string): Collectible {
  const currency = getCurrency(currencyCode);
  if (!currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${currencyCode}'`, 'currency');
  const country = getCountry(countryCode);
  if (!country) throw new Refusal('IKW-VAL-004', `Unsupported country '${countryCode}'`, 'country');
  if (country.currency !== currency.code) {
    throw new Refusal('IKW-VAL-009', `${country.code} payments are in ${country.currency.toLowerCase()}, not ${currency.code.toLowerCase()}`, 'currency');
  }
  const maxPayin = largestPayin(country);
  if (amount > maxPayin) throw new Refusal('IKW-VAL-008', `The amount is above the largest payment any ${country.code} operator or card acquirer accepts (${maxPayin})`, 'amount');
  return { amount, currency: currency.code.toLowerCase(), country: country.code };
}

/** Who carries the fee: the merchant (taken from the payment) or the customer (added to what they pay). */
export type FeeMode = 'merchant' | 'customer';
export const FEE_MODES: readonly FeeMode[] = ['merchant', 'customer'];

export type CheckoutMethodType = 'mobile_money' | 'card';
export const CHECKOUT_METHOD_TYPES: readonly CheckoutMethodType[] = ['mobile_money', 'card'];
