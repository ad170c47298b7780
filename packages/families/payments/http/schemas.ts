import { ApiError, type ErrorCode } from '#packages/core/errors.js';
import type { ConfirmInput } from '../payment-intent/commands.js';
import type { HandlerContext } from '#packages/http/context.js';
import { route, type Route } from '#packages/http/routes.js';
import type { OperationRow } from '../read/operations.js';
import { resourceSchema, countrySchema } from '#packages/http/route-kit.js';

/**
 * The request names of a payment intent confirmation's refusals (Route.fields), for every route that
 * confirms one: its payment method as `payment_method` (snake_case within), and the intent as `id`,
 * as their answers have always named them.
 */
export const confirmationFields = { paymentIntentId: 'id', paymentMethod: 'payment_method', 'paymentMethod.mobileMoney': 'payment_method.mobile_money' };

/** `:operationId` of the hosted pages of a payment operation. */
const operationIdParams = { type: 'object', properties: { operationId: { type: 'string', pattern: '^op_[0-9A-Za-z]{24}$', description: "The operation (`op_…`): a payment intent's `latest_operation`" } }, required: ['operationId'] };

/** A payment intent as /api/v1/payment-intents answers it (billing and the customer portal create them too). */
export const paymentIntentSchema = resourceSchema(
  'payment_intent',
  [
    'created',
    'livemode',
    'amount',
    'currency',
    'status',
    'metadata',
    'description',
    'next_action',
    'customer',
    'transaction_country',
    'payer_country',
    'rail_country',
    'payment_method',
    'last_payment_error',
    'latest_operation',
    'return_url',
    'amount_received',
    'fee',
    'cancellation_reason',
    'canceled_at',
  ],
  {
    created: { type: 'integer' },
    livemode: { type: 'boolean' },
    amount: { type: 'integer', description: 'The amount to collect, in minor units of the currency' },
    currency: { type: 'string', description: 'The currency, a three-letter ISO 4217 code in lower case (`xof`)' },
    status: {
      enum: ['requires_payment_method', 'processing', 'requires_action', 'succeeded', 'failed', 'canceled'],
      description: 'Where the payment stands; `succeeded`, `failed` and `canceled` are final (docs/payments.md, "Lifecycle")',
      'x-enumDescriptions': {
        requires_payment_method: 'Created, or back after a provider call that failed: confirm it with a payment method',
        processing: 'With the operator or acquirer: the payer is approving on their phone, or the answer is awaited',
        requires_action:
          'The payer must act: open `next_action.redirect_to_url.url` (3-D Secure, a card page), follow the mobile money instructions, or give the one-time code the operator sent them (`mobile_money_otp`: `POST /api/v1/payment-intents/{id}/submit_otp`)',
        succeeded: 'Paid: the amount, less the fee, is on the balance',
        failed: 'The payment was refused or not approved in time; `last_payment_error` says why. Create a new intent to try again',
        canceled: 'Canceled before it was paid; `cancellation_reason` says why',
      },
    },
    description: { type: ['string', 'null'], description: 'Your description of the payment; null when none' },
    metadata: { type: 'object', additionalProperties: { type: 'string' } },
    next_action: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['type'],
          properties: {
            type: {
              enum: ['redirect_to_url', 'mobile_money_authorization', 'mobile_money_otp'],
              description: 'What the payer must do',
              'x-enumDescriptions': {
                redirect_to_url: "Open a page (3-D Secure, the card acquirer's page): send the payer to `redirect_to_url.url`",
                mobile_money_authorization: 'Approve the payment on their phone, as `mobile_money_authorization.instructions` say',
                mobile_money_otp: 'Give the one-time code the operator sent them by SMS: send it with `POST /api/v1/payment-intents/{id}/submit_otp`',
              },
            },
            redirect_to_url: {
              type: 'object',
              description: 'For `redirect_to_url`: the page to open',
              properties: {
                url: { type: 'string', description: 'The page the payer opens' },
                return_url: { type: 'string', description: "Where the payer comes back to afterwards: the confirmation's `return_url`, to which Sika adds `status`, `payment_intent` and `operation_id`" },
              },
            },
            mobile_money_authorization: {
              type: 'object',
              description: 'For `mobile_money_authorization`: how the payer approves',
              properties: {
                instructions: { type: 'string', description: 'What to tell the payer (dial a code, approve the prompt on their phone)' },
                expires_at: { type: 'string', format: 'date-time', description: 'When the approval lapses' },
              },
            },
            mobile_money_otp: {
              type: 'object',
              description: 'For `mobile_money_otp`: what to ask the payer for',
              properties: {
                instructions: { type: 'string', description: 'What to tell the payer (enter the code received by SMS)' },
                expires_at: { type: 'string', format: 'date-time', description: 'When the code lapses, when the operator says; absent otherwise' },
              },
            },
          },
        },
      ],
      description: 'What the customer must do next: open a URL (3-D Secure), approve on their phone, or give the one-time code the operator sent them',
    },
    customer: { type: ['string', 'null'], description: 'The customer who pays (`cus_…`), given or found by the e-mail or phone of the creation; null when none' },
    transaction_country: { type: 'string', description: 'Where the payment is made (ISO 3166 alpha-2), which sets its fees' },
    payer_country: { type: ['string', 'null'], description: "The payer's country (ISO 3166-1 alpha-2) when given at creation; null otherwise" },
    rail_country: { type: ['string', 'null'], description: 'The country of the rail that carries the payment (ISO 3166-1 alpha-2) when given at creation; null otherwise' },
    payment_method: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['type'],
          properties: {
            type: {
              enum: ['mobile_money', 'card'],
              description: 'How it is paid',
              'x-enumDescriptions': { mobile_money: 'A mobile money wallet: see `mobile_money`', card: 'A card: see `card`' },
            },
            mobile_money: {
              type: 'object',
              description: 'The wallet that pays',
              properties: {
                country: { type: 'string', description: "The wallet's country (ISO 3166-1 alpha-2)" },
                operator: { type: 'string', description: 'The operator id (`GET /api/v1/geography/countries`)' },
                msisdn: { type: 'string', description: 'The number that pays, masked to its last four digits (`••••4567`)' },
              },
            },
            card: {
              type: 'object',
              description: 'The card that pays, once known',
              properties: { brand: { type: 'string', description: 'The card network (`visa`, `mastercard`)' }, last4: { type: 'string', description: 'The last four digits of the card number' } },
            },
          },
        },
      ],
      description: 'The payment method of the latest confirmation; null before the first',
    },
    last_payment_error: {
      anyOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['code', 'message'],
          properties: { code: { type: 'string', description: "The provider's reason as a short code (`insufficient_funds`)" }, message: { type: 'string', description: 'The reason in words' } },
        },
      ],
      description: 'Why the latest attempt failed; null otherwise',
    },
    latest_operation: { type: ['string', 'null'], description: 'The operation of the latest attempt (GET /operations/status/{id})' },
    return_url: { type: ['string', 'null'], description: 'Where the payer is sent back after a page of the payment (3-D Secure, the status page); null before the first confirmation' },
    amount_received: { type: 'integer', description: 'How much was collected, in minor units: the amount once succeeded, 0 before' },
    fee: { type: ['integer', 'null'], description: "Sika's fee, once the payment succeeded" },
    cancellation_reason: {
      enum: ['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned', null],
      description: 'Why a `canceled` intent was canceled, as the cancel gave it; null otherwise',
      'x-enumDescriptions': {
        duplicate: 'Another intent pays for the same thing',
        fraudulent: 'The payment looked fraudulent',
        requested_by_customer: 'The customer asked to cancel',
        abandoned: 'The customer left without paying',
      },
    },
    canceled_at: { type: ['integer', 'null'], description: 'When it was canceled, in Unix seconds; null otherwise' },
    provider_reference: { type: 'string', description: "The operator's receipt of a succeeded payment (the reference the payer sees), when the operator gave one; absent otherwise" },
  },
);

/** A public route about one payment operation (`:operationId`): the pages customers' browsers reach. */
export function operationRoute(
  method: 'get' | 'post',
  path: string,
  summary: string,
  answers: Pick<Route, 'answers' | 'response' | 'query'>,
  handler: (ctx: HandlerContext<unknown, unknown, { operationId: string }>) => Promise<unknown>,
): Route {
  return route<unknown, unknown, { operationId: string }>({ method, path, summary, auth: 'public', params: operationIdParams, ...answers, handler });
}

/**
 * The payment method of a confirmation: mobile money or a card token. Payment intents spell its
 * compound keys in snake_case (mobile_money, preferred_flow), the billing family in camelCase.
 */
export function paymentMethodSchema(casing: 'snake_case' | 'camelCase') {
  const [mobileMoney, preferredFlow] = casing === 'camelCase' ? ['mobileMoney', 'preferredFlow'] : ['mobile_money', 'preferred_flow'];
  return {
    type: 'object',
    required: ['type'],
    additionalProperties: false,
    description: `How the payer pays: a mobile money wallet (\`${mobileMoney}\`) or a card (\`card\`)`,
    properties: {
      type: {
        enum: ['mobile_money', 'card'],
        description: 'The kind of payment method, which decides the field that goes with it',
        'x-enumDescriptions': { mobile_money: `A mobile money wallet: give \`${mobileMoney}\``, card: 'A card: give `card`' },
      },
      [mobileMoney]: {
        type: 'object',
        description: 'The wallet that pays (with `type: mobile_money`)',
        required: ['country', 'operator', 'msisdn'],
        additionalProperties: false,
        properties: {
          country: { ...countrySchema, description: "The wallet's country (ISO 3166-1 alpha-2, any case); for a payment intent, its `transaction_country`" },
          operator: { type: 'string', minLength: 1, maxLength: 64, description: 'The operator id, as `GET /api/v1/geography/countries` lists it (`orange_money`, `wave`); it must collect payments' },
          msisdn: { type: 'string', minLength: 4, maxLength: 32, description: "The payer's phone number, local or international; it must be a valid number of the country" },
          [preferredFlow]: { type: 'string', maxLength: 64, description: 'A hint of the approval flow the payer prefers; kept with the payment method, but no rail acts on it today' },
          otp: {
            type: 'string',
            pattern: '^[0-9]{4,8}$',
            description:
              "The one-time code the operator sent the payer before paying, 4 to 8 digits, where it asks for one first (Orange in Côte d'Ivoire through Hub2); sent with the payment and kept nowhere. Rails that take no code ignore it",
          },
        },
      },
      // No token: the payer enters the card on the acquirer's page (live cards through Paystack); a token: a saved card, or a sandbox test card.
      card: {
        type: 'object',
        description: "The card (with `type: card`): `{}` to let the payer enter it on the acquirer's page, or a `token`",
        additionalProperties: false,
        properties: { token: { type: 'string', minLength: 1, maxLength: 255, description: "A saved card of the intent's customer (`card_…`) or, in sandbox, a test card (`tok_visa`, `tok_3ds_required`; docs/sandbox-testing.md)" } },
      },
    },
    allOf: [
      // `required` in each `if`: without it a missing type matches the first `if`, and the error names mobile_money, not type.
      { if: { properties: { type: { const: 'mobile_money', description: 'A mobile money payment' } }, required: ['type'] }, then: { properties: { [mobileMoney]: true }, required: [mobileMoney] } },
      { if: { properties: { type: { const: 'card', description: 'A card payment' } }, required: ['type'] }, then: { properties: { card: true }, required: ['card'] } },
    ],
  };
}

/** A camelCase payment method (billing, funding; paymentMethodSchema('camelCase')) as payment intents take it. */
export interface CamelPaymentMethod {
  type: 'mobile_money' | 'card';
  mobileMoney?: { country: string; operator: string; msisdn: string; preferredFlow?: string; otp?: string };
  card?: { token?: string };
}

export function toPaymentMethod(pm: CamelPaymentMethod): ConfirmInput['payment_method'] {
  if (pm.type === 'card') {
    if (pm.mobileMoney) throw new ApiError('IKW-VAL-002', 'paymentMethod.mobileMoney does not go with type card', 'paymentMethod.mobileMoney');
    return { type: 'card', card: pm.card!.token ? { token: pm.card!.token } : {} };
  }
  if (pm.card) throw new ApiError('IKW-VAL-002', 'paymentMethod.card does not go with type mobile_money', 'paymentMethod.card');
  const mm = pm.mobileMoney!;
  return { type: 'mobile_money', mobile_money: { country: mm.country, operator: mm.operator, msisdn: mm.msisdn, ...(mm.preferredFlow ? { preferred_flow: mm.preferredFlow } : {}), ...(mm.otp !== undefined ? { otp: mm.otp } : {}) } };
}

/** The return URL of a payment operation with the query parameters the interface fixes: status, payment_intent, operation_id. */
export function redirectUrl(op: Pick<OperationRow, 'return_url' | 'status' | 'payment_intent' | 'id'>): string {
  const url = new URL(op.return_url);
  url.searchParams.set('status', op.status);
  url.searchParams.set('payment_intent', op.payment_intent);
  url.searchParams.set('operation_id', op.id);
  return url.toString();
}

/** What confirming a payment intent may refuse (POST /api/v1/payment-intents/{id}/confirm), and every route that confirms one answers too. */
export const CONFIRM_PAYMENT_REFUSALS: readonly ErrorCode[] = [
  'IKW-VAL-005',
  'IKW-VAL-006',
  'IKW-VAL-007',
  'IKW-VAL-008',
  'IKW-VAL-010',
  'IKW-RES-002',
  'IKW-RES-003',
  'IKW-CAP-001',
  'IKW-CAP-002',
  'IKW-PRV-001',
  'IKW-PRV-002',
  'IKW-PRV-005',
  'IKW-ACT-006',
  'IKW-PRV-013',
  'IKW-PRV-014',
  'IKW-PRV-015',
  'IKW-LIM-007',
];

/** The events a confirmation may emit. */
export const CONFIRM_PAYMENT_EVENTS = ['payment_intent.processing', 'payment_intent.requires_action', 'payment_intent.succeeded', 'payment_intent.payment_failed'] as const;
