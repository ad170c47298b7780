import type { DelayReason, PayoutReport } from '../port.js';

/**
 * Paystack's transfers in Sika's terms (docs/connectors.md, "Paystack"): the recipient type of a
 * bank account by currency, what a transfer's status means, and the account-name check.
 */

/** The recipient `type` of a bank account in each currency Paystack pays out to. */
export const RECIPIENT_TYPES: Readonly<Record<string, string>> = { NGN: 'nuban', GHS: 'ghipss', KES: 'kepss', ZAR: 'basa' };

/**
 * Mobile money wallets Paystack pays (recipient type `mobile_money`), by Sika's country: the
 * currency, the calling code (Paystack takes the number in its national form, `0551234987`), and
 * the `bank_code` naming each operator Sika knows there, as `GET /bank?currency=…&type=mobile_money`
 * lists them. Whether the account may use one is that list's to say (a code it does not list is
 * not served). Airtel Money (KE) is not here: the contract Sika reads names no code for it, so it
 * stays refused (IKW-PRV-001).
 */
export const MOBILE_MONEY: Readonly<Record<string, { currency: string; callingCode: string; operators: Readonly<Record<string, string>> }>> = {
  GH: { currency: 'GHS', callingCode: '233', operators: { mtn: 'MTN', telecel: 'VOD', airteltigo: 'ATL' } },
  KE: { currency: 'KES', callingCode: '254', operators: { mpesa: 'MPESA' } },
};

/** The currencies whose banks answer `GET /bank/resolve` with the account's name: checked before money is held. */
export const NAME_CHECK_CURRENCIES: ReadonlySet<string> = new Set(['NGN', 'GHS']);

/** Still the account's to settle: waiting for an OTP the account requires (the operator disables it: docs/connectors.md). */
export const OTP_DELAY: DelayReason = 'provider_action_required';

const FAILED: Readonly<Record<string, { failureCode: string; failureMessage: string }>> = {
  failed: { failureCode: 'transfer_failed', failureMessage: 'The bank did not take the transfer' },
  reversed: { failureCode: 'transfer_reversed', failureMessage: 'The bank returned the transfer; the money is back' },
  abandoned: { failureCode: 'transfer_abandoned', failureMessage: 'The transfer was abandoned before it was sent' },
  blocked: { failureCode: 'transfer_blocked', failureMessage: 'Paystack blocked the transfer (the account is on a watch list)' },
  rejected: { failureCode: 'transfer_rejected', failureMessage: 'Paystack rejected the transfer' },
};

/**
 * A transfer's final report, or null while it is not conclusive (`pending`, `received`, `otp`,
 * and any status Paystack adds later: unknown is never a success, nor a failure).
 */
export function transferFinalOf(status: unknown, transferCode?: string): PayoutReport | null {
  if (status === 'success') return { type: 'paid', ...(transferCode ? { providerReference: transferCode } : {}) };
  const failed = typeof status === 'string' && Object.hasOwn(FAILED, status) ? FAILED[status] : undefined;
  return failed ? { type: 'failed', ...failed } : null;
}

/** Why a transfer that is not conclusive is held up, when Paystack says. */
export function transferDelayOf(status: unknown): DelayReason | undefined {
  return status === 'otp' ? OTP_DELAY : undefined;
}

/** The words of a name, for comparing: upper case, letters and digits only. */
function words(name: string): string[] {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .split(/[^A-Z0-9]+/)
    .filter((w) => w.length > 0);
}

/**
 * Whether the name a merchant gave is the account holder's as the bank gives it: in any order and
 * case, one name's words all among the other's (a middle name the other leaves out), sharing at
 * least two words (or the one word of a one-word name).
 */
export function sameAccountName(given: string, resolved: string): boolean {
  const a = new Set(words(given));
  const b = new Set(words(resolved));
  if (a.size === 0 || b.size === 0) return false;
  const shared = [...a].filter((w) => b.has(w)).length;
  return shared === Math.min(a.size, b.size) && shared >= Math.min(2, a.size, b.size);
}
