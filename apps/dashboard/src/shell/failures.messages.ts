import type { Language } from './i18n.js';

/** What a failed payment, payout or refund is about: the same code can mean another balance (a refund's `insufficient_funds` is the merchant's). */
export type FailureSubject = 'payment' | 'payout' | 'refund';

/**
 * The failure codes the API sets (`failure_code`, a payment's `last_payment_error.code`, a refund's
 * `failure_reason`; docs/connectors.md lists them) in words, in each language. A code not here is
 * said in the API's own message.
 */
export const failureReasonWords: Record<string, Record<Language, string>> = {
  insufficient_funds: { en: 'The payer’s wallet balance is too low', fr: 'Le solde du portefeuille du payeur est insuffisant' },
  payer_not_found: { en: 'The operator has no wallet for this number', fr: 'L’opérateur n’a pas de portefeuille pour ce numéro' },
  payment_not_approved: { en: 'The payer did not approve the payment in time', fr: 'Le payeur n’a pas approuvé le paiement à temps' },
  payer_limit_reached: { en: 'The payer’s wallet has reached a limit', fr: 'Le portefeuille du payeur a atteint une limite' },
  recipient_not_found: { en: 'The operator has no account for this number', fr: 'L’opérateur n’a pas de compte pour ce numéro' },
  recipient_limit_reached: { en: 'The recipient’s wallet has reached a limit', fr: 'Le portefeuille du bénéficiaire a atteint une limite' },
  operator_unavailable: { en: 'The operator could not be reached', fr: 'L’opérateur était injoignable' },
  operator_timeout: { en: 'The operator did not confirm in time', fr: 'L’opérateur n’a pas confirmé à temps' },
  operator_not_supported: { en: 'This operator is not enabled for this', fr: 'Cet opérateur n’est pas activé pour cela' },
  invalid_phone_number: { en: 'The operator does not accept this phone number', fr: 'L’opérateur n’accepte pas ce numéro' },
  amount_out_of_limits: { en: 'The amount is outside the operator’s limits', fr: 'Le montant est hors des limites de l’opérateur' },
  invalid_amount: { en: 'The operator does not accept this amount', fr: 'L’opérateur n’accepte pas ce montant' },
  currency_not_supported: { en: 'The operator does not take this currency', fr: 'L’opérateur ne prend pas cette devise' },
  card_declined: { en: 'The card was declined', fr: 'La carte a été refusée' },
  authentication_failed: { en: 'The card’s authentication failed', fr: 'L’authentification de la carte a échoué' },
  canceled: { en: 'Canceled before the operator took it', fr: 'Annulé avant sa prise en charge par l’opérateur' },
  refund_not_supported: { en: 'This operator does not take refunds', fr: 'Cet opérateur ne prend pas de remboursements' },
  refund_not_possible: { en: 'The operator could not refund this payment', fr: 'L’opérateur n’a pas pu rembourser ce paiement' },
  provider_error: { en: 'The operator failed the transfer', fr: 'L’opérateur a fait échouer le transfert' },
};

/** Codes whose words depend on what failed. */
export const subjectFailureReasonWords: Partial<Record<FailureSubject, Record<string, Record<Language, string>>>> = {
  refund: { insufficient_funds: { en: 'Your available balance did not cover it', fr: 'Votre solde disponible ne le couvrait pas' } },
};
