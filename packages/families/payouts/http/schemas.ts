import type { CreatePayoutInput } from '../payout/commands.js';
import { destinationSchema } from '../payout-method/destination.js';
import { resourceSchema, amountFields, metadataSchema } from '#packages/http/route-kit.js';

/** The body of a payout creation, from the API or the merchant dashboard. */
export const createPayoutBody = {
  type: 'object',
  required: ['amount', 'currency'],
  additionalProperties: false,
  properties: {
    ...amountFields,
    destination: destinationSchema,
    payout_method_id: {
      type: 'string',
      format: 'uuid',
      description: 'A saved destination (`POST /api/v1/merchant/settings/payouts/destinations`) instead of `destination`: give exactly one of them (`IKW-PAY-001`); it must be active and past its safety delay',
    },
    metadata: metadataSchema,
    // Live, a signed-in user paying an inline destination the merchant never paid: a verified
    // challenge of purpose payouts/new-destination (docs/decisions.md, "Payouts").
    challenge_id: {
      type: 'string',
      format: 'uuid',
      description:
        'Live, a signed-in user paying an inline destination this merchant never paid: the id of a verified second-factor challenge of purpose `payouts/new-destination` (`POST /api/v1/auth/mfa/challenge`), used up by the payout. An API key never sends it',
    },
  },
};

/** The request parameters of that body for the payouts' domain fields (Route.fields). */
export const createPayoutFields = { payoutMethodId: 'payout_method_id', challengeId: 'challenge_id' } as const;

/** A payout request's body: the payout, and the challenge its requester gives. */
export type CreatePayoutBody = CreatePayoutInput & { challenge_id?: string };

export const payoutSchema = resourceSchema('payout', ['amount', 'currency', 'status', 'destination', 'expected_by', 'metadata'], {
  amount: { type: 'integer', description: 'The amount sent to the destination, in minor units of the currency; the fee comes on top' },
  currency: { type: 'string', description: 'The currency, a three-letter ISO 4217 code in lower case (`xof`)' },
  status: {
    enum: ['pending', 'in_transit', 'paid', 'failed', 'canceled'],
    description: 'Where the payout stands; `paid`, `failed` and `canceled` are final (docs/payouts.md, "States")',
    'x-enumDescriptions': {
      pending: 'Made, amount and fee held on the balance; not yet accepted by the operator',
      in_transit: 'The operator accepted it and is sending the money',
      paid: 'The money reached the destination; the hold is spent',
      failed: 'The operator refused it or could not pay it; `failure_code` and `failure_message` say why, and amount and fee are back on the available balance',
      canceled: 'Canceled by its payout batch before it was handed to the operator; the hold is released',
    },
  },
  destination: {
    type: 'object',
    description: 'Where the money goes, normalised: `type` `mobile_money` with `country`, `operator` and `msisdn` (E.164), or `bank` with `bank_code`, `account_number` and `account_name`; and `currency`',
  },
  arrival_date_estimate: { type: 'string', format: 'date-time', description: "When the money should arrive, today the same moment as `expected_by`: the operator's usual time for mobile money (minutes), a day for banks" },
  expected_by: { type: 'string', format: 'date-time', description: 'When the payout is overdue: past it, a payout not final is marked delayed (`delay_state`) and Sika asks the operator' },
  delay_state: {
    enum: ['delayed', null],
    description: 'An overlay that never changes `status`: `delayed` while the payout is late and still on its way, else null',
    'x-enumDescriptions': { delayed: 'Late: the operator reported trouble or `expected_by` passed; `delay_reason` says which' },
  },
  delay_reason: {
    enum: ['operator_pending', 'operator_timeout', 'operator_down', 'provider_action_required', 'unknown', null],
    description: 'Why the payout was delayed; it stays as the record once the payout is final; null when it never was',
    'x-enumDescriptions': {
      operator_pending: 'The operator or provider has it and is still working on it (pawaPay: in reconciliation)',
      operator_timeout: 'The operator has not confirmed the transfer in time, or every status check passed without a final answer (the payout then stays open for review); it is never sent again',
      operator_down: 'The operator is unavailable; the provider holds the payout until it is back (pawaPay: enqueued)',
      provider_action_required: 'The provider waits for an action on its side before it pays (Paystack: a transfer waiting for its OTP)',
      unknown: '`expected_by` passed without news from the operator',
    },
  },
  delayed_at: { type: ['string', 'null'], description: 'When the payout was marked delayed (ISO 8601), kept once it is final; null when it never was' },
  metadata: { type: 'object', additionalProperties: { type: 'string' } },
  failure_code: { type: ['string', 'null'], description: "Why a `failed` payout failed, as a short code of the operator's refusal; null otherwise" },
  failure_message: { type: ['string', 'null'], description: 'Why a `failed` payout failed, in words; null otherwise' },
  payout_method_id: { type: ['string', 'null'], description: 'The saved destination it was sent to, when it was' },
  review_status: {
    enum: ['held', 'released', 'declined'],
    description:
      "Present only on a payout the merchant's risk rules held for review (docs/risk.md): `held` (pending, its money held, not sent) until a person releases it (`POST /api/v1/payouts/{id}/release`), then `released`, or declines it (`POST /api/v1/payouts/{id}/decline`), then `declined`",
    'x-enumDescriptions': { held: 'Waiting for a person to release or decline it; not sent', released: 'Released and sent on', declined: 'Declined: failed (`declined_in_review`) without being sent, its amount and fee back on the balance' },
  },
  fee: { type: 'integer', description: "Sika's fee, drawn from the balance with the amount" },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
  provider_reference: { type: 'string', description: "The operator's receipt of a paid payout (the reference the recipient sees), when the operator gave one; absent otherwise" },
});
