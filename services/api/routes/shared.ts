import type { Knex } from 'knex';
import { MAX_AMOUNT } from '../../../packages/catalog/index.js';
import { sha256Hex } from '../../../packages/core/hashing.js';
import { hasScope } from '../../../packages/core/scopes.js';
import { isTimeZone } from '../../../packages/core/time-zone.js';
import { findPortalSession, type PortalSession } from '../../../projections/customer-portal/customer-portal-sessions.js';
import { ApiError, notFound, type ErrorCode } from '../../../packages/core/errors.js';
import type { CustomerRef } from '../../../packages/families/billing/customer/commands.js';
import type { ConfirmInput } from '../../../packages/families/payments/payment-intent/commands.js';
import type { CreatePayoutInput } from '../../../packages/families/payouts/payout/commands.js';
import { destinationSchema } from '../../../packages/families/payouts/payout-method/destination.js';
import { cursorListQuery, pageListQuery, type CreatedRange } from '../../../projections/paging.js';
import type { HandlerContext } from '../../../packages/http/context.js';
import { route, type Route, type RouteAuth } from '../../../packages/http/routes.js';
import type { PageQuery } from '../../../projections/paging.js';
import type { JsonSchema } from '../../../packages/http/validation.js';
import type { OperationRow } from '../../../projections/payments/operations.js';
import type { CheckoutSessionView } from '../../../projections/checkout/checkout-sessions.js';
import type { Owner, Requester } from '../../../packages/core/owner.js';

/**
 * What the route families of this folder share: scopes, schemas and the small helpers their
 * handlers use. Not a family itself: families import this module and never each other.
 */

export const billingRead: RouteAuth = { scope: 'billing.read', environmentHeader: 'optional' };
export const billingWrite: RouteAuth = { scope: 'billing.write', environmentHeader: 'optional' };
export const payoutsRead: RouteAuth = { scope: 'payouts.read', environmentHeader: 'required' };
/** The account routes: a signed-in user's own access token (docs/accounts.md). */
export const signedIn: RouteAuth = { scope: 'account', appTokenOnly: true };
export const payoutsWrite: RouteAuth = { scope: 'payouts.write', environmentHeader: 'required', idempotencyKeyInLive: 'required' };

/** Who asks for a guarded change: the signed-in user of an access token with the challenge given, or a credential with no second factor (an API key). */
export function requesterOf(ctx: Pick<HandlerContext<unknown, unknown, unknown>, 'principal'>, challengeId: string | undefined): Requester {
  const userId = ctx.principal.user?.userId ?? null;
  return { userId, challengeId: challengeId ?? null, seesHolderNames: userId !== null && hasScope(ctx.principal.scopes, payoutsWrite.scope) };
}

/** The value of the cookie `name` in a request's Cookie header, if it sent one. */
export function cookieOf(ctx: Pick<HandlerContext<unknown, unknown, unknown>, 'header'>, name: string): string | undefined {
  for (const pair of (ctx.header('cookie') ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** Path parameters naming one object, e.g. `:id` or `:invoiceId`. */
export const idParamsOf = (name: string) => ({ type: 'object', properties: { [name]: { type: 'string', minLength: 1, maxLength: 255 } }, required: [name] });
export const idParams = idParamsOf('id');
/**
 * The request names of a payment intent confirmation's refusals (Route.fields), for every route that
 * confirms one: its payment method as `payment_method` (snake_case within), and the intent as `id`,
 * as their answers have always named them.
 */
export const confirmationFields = { paymentIntentId: 'id', paymentMethod: 'payment_method', 'paymentMethod.mobileMoney': 'payment_method.mobile_money' };
/** `:operationId` of the hosted pages of a payment operation. */
const operationIdParams = { type: 'object', properties: { operationId: { type: 'string', pattern: '^op_[0-9A-Za-z]{24}$', description: 'The operation (`op_…`): a payment intent\'s `latest_operation`' } }, required: ['operationId'] };

/**
 * The fields every API object shares, in Stripe's manner, and what each means wherever it appears:
 * an object's schema that declares one without words of its own gets these (resourceSchema).
 */
const COMMON_FIELDS: Readonly<Record<string, string>> = {
  created: 'When the object was created, in Unix seconds',
  updated: 'When the object last changed, in Unix seconds',
  livemode: '`true` for an object of the live environment, `false` for sandbox',
  metadata: 'Key–value pairs of strings the merchant attached to the object, returned as they were given',
};

/** The response schema of an API object: its `id` and `object`, then `properties`; `required` names those always present. */
export function resourceSchema(object: string, required: string[], properties: Record<string, JsonSchema>) {
  const described = Object.fromEntries(
    Object.entries(properties).map(([name, schema]) => {
      const words = COMMON_FIELDS[name];
      return [name, words !== undefined && typeof schema === 'object' && schema !== null && !('description' in schema) ? { ...schema, description: words } : schema];
    }),
  );
  return {
    type: 'object',
    required: ['id', 'object', ...required],
    properties: {
      id: { type: 'string', description: 'Unique identifier of the object, with a prefix naming its kind' },
      object: { const: object, description: `The kind of object: always \`${object}\`` },
      ...described,
    },
  };
}

/** A payment intent as /api/v1/payment-intents answers it (billing and the customer portal create them too). */
export const paymentIntentSchema = resourceSchema(
  'payment_intent',
  ['created', 'livemode', 'amount', 'currency', 'status', 'metadata', 'description', 'next_action', 'customer', 'transaction_country', 'payer_country', 'rail_country', 'payment_method', 'last_payment_error', 'latest_operation', 'return_url', 'amount_received', 'fee', 'cancellation_reason', 'canceled_at'],
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
        requires_action: 'The payer must act: open `next_action.redirect_to_url.url` (3-D Secure, a card page), follow the mobile money instructions, or give the one-time code the operator sent them (`mobile_money_otp`: `POST /api/v1/payment-intents/{id}/submit_otp`)',
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
                redirect_to_url: 'Open a page (3-D Secure, the card acquirer\'s page): send the payer to `redirect_to_url.url`',
                mobile_money_authorization: 'Approve the payment on their phone, as `mobile_money_authorization.instructions` say',
                mobile_money_otp: 'Give the one-time code the operator sent them by SMS: send it with `POST /api/v1/payment-intents/{id}/submit_otp`',
              },
            },
            redirect_to_url: {
              type: 'object',
              description: 'For `redirect_to_url`: the page to open',
              properties: {
                url: { type: 'string', description: 'The page the payer opens' },
                return_url: { type: 'string', description: 'Where the payer comes back to afterwards: the confirmation\'s `return_url`, to which Sika adds `status`, `payment_intent` and `operation_id`' },
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
    rail_country: { type: ['string', 'null'], description: "The country of the rail that carries the payment (ISO 3166-1 alpha-2) when given at creation; null otherwise" },
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

const LIST_OBJECT = { const: 'list', description: 'The kind of object: always `list`' };
const LIST_DATA = (item: JsonSchema) => ({ type: 'array', items: item, description: 'The objects of this page, newest first unless the operation says otherwise' });

/** A cursor-paged list of `item` objects (the /api/v1 lists). */
export function cursorListSchema(item: JsonSchema) {
  return {
    type: 'object',
    required: ['object', 'data', 'has_more'],
    properties: {
      object: LIST_OBJECT,
      data: LIST_DATA(item),
      has_more: { type: 'boolean', description: 'Whether more objects follow: pass the last object\'s id as `starting_after` to fetch them (docs/pagination.md)' },
      url: { type: 'string', description: 'The path of this list' },
    },
  };
}

/** An event as webhooks and the events API carry it (docs/events.md). */
export const eventSchema = {
  type: 'object',
  required: ['id', 'object', 'type', 'created', 'livemode', 'data'],
  properties: {
    id: { type: 'string', description: "The event's id (`evt_…`): the same in every delivery of it, so a receiver can drop repeats" },
    object: { const: 'event', description: 'The kind of object: always `event`' },
    type: { type: 'string', description: 'What happened, as `<object>.<change>` (docs/events.md lists every type)' },
    created: { type: 'integer', description: 'When it happened, in Unix seconds' },
    livemode: { type: 'boolean', description: '`true` for an event of the live environment, `false` for sandbox' },
    data: { type: 'object', description: 'The object the event is about, as it was right after the change' },
  },
};

/** An event of one object's history: the Event object, with who caused it. */
export const historyEventSchema = {
  ...eventSchema,
  properties: {
    ...eventSchema.properties,
    actor: { type: ['string', 'null'], description: 'Who caused it: `user:<id>` (a dashboard user), the id of an API key, or the service (`system`, `scheduler`, …); null for events kept before actors were' },
  },
};

/** A whole list of `item` objects, not paged (a user's passkeys, a team's members, the countries). */
export function listSchema(item: JsonSchema) {
  return { type: 'object', required: ['object', 'data'], properties: { object: LIST_OBJECT, data: { type: 'array', items: item, description: 'Every object of the list' } } };
}

/** A page of a page-based merchant list of `item` objects (`/api/v1/merchant/*`). */
export function pageListSchema(item: JsonSchema) {
  return {
    type: 'object',
    required: ['object', 'data', 'page', 'limit', 'total', 'has_more'],
    properties: {
      object: LIST_OBJECT,
      data: LIST_DATA(item),
      page: { type: 'integer', description: 'The number of this page, from 1' },
      limit: { type: 'integer', description: 'The most objects a page holds' },
      total: { type: 'integer', description: 'How many objects match, on every page' },
      has_more: { type: 'boolean', description: 'Whether a page follows this one' },
    },
  };
}

/** ISO 4217, any case. */
export const currencySchema = { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'A three-letter ISO 4217 currency code, in any case (`XOF`, `ngn`)' };
/** ISO 3166-1 alpha-2, any case. */
export const countrySchema = { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'A two-letter ISO 3166-1 country code, in any case (`SN`, `ci`)' };

/** A positive amount, in minor units of the currency, of a body that moves money. */
export const amountFields = {
  amount: { type: 'integer', minimum: 1, maximum: MAX_AMOUNT, description: 'The amount in minor units of the currency (XOF has none: 5000 is 5,000 F CFA; NGN has kobo: 500000 is ₦5,000)' },
  currency: currencySchema,
};

/** Merchant metadata of billing objects and payouts: string values, Stripe's limits. */
export const metadataSchema = {
  type: 'object',
  description: 'Up to 50 key–value pairs of your own (keys up to 40 characters, values up to 500), returned as given; Sika never reads them',
  maxProperties: 50,
  propertyNames: { minLength: 1, maxLength: 40 },
  additionalProperties: { type: 'string', maxLength: 500 },
};

/** The query schema of a page-based list (`/api/v1/merchant/*`) with its filters. */
export const pageQuery = (filters: Record<string, JsonSchema> = {}) => ({ ...pageListQuery, properties: { ...pageListQuery.properties, ...filters } });
/** The query schema of a cursor-paged list with its filters. */
export const cursorQuery = (filters: Record<string, JsonSchema> = {}) => ({ ...cursorListQuery, properties: { ...cursorListQuery.properties, ...filters } });

/** What a lookup found, or the IKW-RES-001 that names the `noun` and the id the caller has none of. */
export async function found<T>(noun: string, id: string, lookup: Promise<T | undefined>): Promise<T> {
  const object = await lookup;
  if (object === undefined) throw notFound(noun, id);
  return object;
}

/** GET …/:id: the caller's object that `find` gives, or 404 IKW-RES-001 naming `noun` (another merchant's object too). */
export function retrieveRoute<T>(r: {
  path: string;
  noun: string;
  summary: string;
  auth: RouteAuth;
  response: JsonSchema;
  find(owner: Owner, id: string): Promise<T | undefined>;
  /** The public object of what was found, when the row is not it already. */
  render?(found: T): unknown;
}): Route {
  return route<unknown, unknown, { id: string }>({
    method: 'get',
    path: r.path,
    summary: r.summary,
    auth: r.auth,
    params: idParams,
    response: r.response,
    handler: async (ctx) => {
      const object = await found(r.noun, ctx.params.id, r.find(ctx.owner, ctx.params.id));
      return r.render ? r.render(object) : object;
    },
  });
}

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

/** GET of a page-based list of the caller's objects (`/api/v1/merchant/*`), with its filters. */
export function pageListRoute<Filters>(r: {
  path: string;
  summary: string;
  auth: RouteAuth;
  filters?: Record<string, JsonSchema>;
  /** The schema of the listed objects, for the API reference. */
  item: JsonSchema;
  list(owner: Owner, query: PageQuery & Filters): Promise<unknown>;
}): Route {
  return route<unknown, PageQuery & Filters>({
    method: 'get',
    path: r.path,
    summary: r.summary,
    auth: r.auth,
    query: pageQuery(r.filters),
    response: pageListSchema(r.item),
    handler: (ctx) => r.list(ctx.owner, ctx.query),
  });
}

/** How merchant billing bodies name a customer: `customer` (id), or `customer_email` (found or created) with an optional `customer_name`. */
export const customerFields = {
  customer: { type: 'string', minLength: 1, maxLength: 255 },
  customer_email: { type: 'string', format: 'email', maxLength: 254 },
  customer_name: { type: 'string', minLength: 1, maxLength: 250 },
};

export interface CustomerFields {
  customer?: string;
  customer_email?: string;
  customer_name?: string;
}

export function customerRef(body: CustomerFields): CustomerRef {
  if (body.customer !== undefined && body.customer_email !== undefined) {
    throw new ApiError('IKW-VAL-002', 'Give customer or customer_email, not both', 'customer_email');
  }
  if (body.customer === undefined && body.customer_email === undefined) throw new ApiError('IKW-VAL-001', 'Missing required parameter: customer', 'customer');
  return {
    ...(body.customer !== undefined ? { id: body.customer } : {}),
    ...(body.customer_email !== undefined ? { email: body.customer_email } : {}),
    ...(body.customer_name !== undefined ? { name: body.customer_name } : {}),
  };
}

/** Prices with quantities, of merchant subscriptions and invoices. */
export const itemsSchema = {
  type: 'array',
  minItems: 1,
  maxItems: 20,
  items: {
    type: 'object',
    required: ['price'],
    additionalProperties: false,
    properties: { price: { type: 'string', minLength: 1, maxLength: 255 }, quantity: { type: 'integer', minimum: 1, maximum: 1_000_000 } },
  },
};

export const toItems = (items: { price: string; quantity?: number }[]) => items.map((i) => ({ price: i.price, quantity: i.quantity ?? 1 }));

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
          otp: { type: 'string', pattern: '^[0-9]{4,8}$', description: "The one-time code the operator sent the payer before paying, 4 to 8 digits, where it asks for one first (Orange in Côte d'Ivoire through Hub2); sent with the payment and kept nowhere. Rails that take no code ignore it" },
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
  arrival_date_estimate: { type: 'string', format: 'date-time', description: 'When the money should arrive, today the same moment as `expected_by`: the operator\'s usual time for mobile money (minutes), a day for banks' },
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
  failure_code: { type: ['string', 'null'], description: 'Why a `failed` payout failed, as a short code of the operator\'s refusal; null otherwise' },
  failure_message: { type: ['string', 'null'], description: 'Why a `failed` payout failed, in words; null otherwise' },
  payout_method_id: { type: ['string', 'null'], description: 'The saved destination it was sent to, when it was' },
  review_status: {
    enum: ['held', 'released', 'declined'],
    description: "Present only on a payout the merchant's risk rules held for review (docs/risk.md): `held` (pending, its money held, not sent) until a person releases it (`POST /api/v1/payouts/{id}/release`), then `released`, or declines it (`POST /api/v1/payouts/{id}/decline`), then `declined`",
    'x-enumDescriptions': { held: 'Waiting for a person to release or decline it; not sent', released: 'Released and sent on', declined: 'Declined: failed (`declined_in_review`) without being sent, its amount and fee back on the balance' },
  },
  fee: { type: 'integer', description: "Sika's fee, drawn from the balance with the amount" },
  created: { type: 'integer' },
  livemode: { type: 'boolean' },
  provider_reference: { type: 'string', description: "The operator's receipt of a paid payout (the reference the recipient sees), when the operator gave one; absent otherwise" },
});

/** The return URL of a payment operation with the query parameters the interface fixes: status, payment_intent, operation_id. */
export function redirectUrl(op: Pick<OperationRow, 'return_url' | 'status' | 'payment_intent' | 'id'>): string {
  const url = new URL(op.return_url);
  url.searchParams.set('status', op.status);
  url.searchParams.set('payment_intent', op.payment_intent);
  url.searchParams.set('operation_id', op.id);
  return url.toString();
}

/** Escapes text for the hosted HTML pages. */
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `:sessionId` of the checkout page and its API: public by the session's unguessable id. */
export const sessionIdParams = { type: 'object', properties: { sessionId: { type: 'string', pattern: '^cs_[0-9A-Za-z]{24}$' } }, required: ['sessionId'] };

/** `:slug` of a funding campaign's public page and API: 16 base62 characters, unguessable. */
export const campaignSlugParams = { type: 'object', properties: { slug: { type: 'string', pattern: '^[0-9A-Za-z]{16}$' } }, required: ['slug'] };

/** The payment method types a checkout session or payment link accepts. */
/** How a payer may pay, in words: the checkout's and the payment links' methods. */
export const CHECKOUT_METHOD_WORDS = { mobile_money: 'Mobile money: the customer approves on their phone', card: 'A card' };
export const checkoutMethodTypesSchema = { type: 'array', minItems: 1, maxItems: 2, items: { enum: ['mobile_money', 'card'], 'x-enumDescriptions': CHECKOUT_METHOD_WORDS } };

/** What confirming a payment intent may refuse (POST /api/v1/payment-intents/{id}/confirm), and every route that confirms one answers too. */
export const CONFIRM_PAYMENT_REFUSALS: readonly ErrorCode[] = [
  'IKW-VAL-005', 'IKW-VAL-006', 'IKW-VAL-007', 'IKW-VAL-008', 'IKW-VAL-010', 'IKW-RES-002', 'IKW-RES-003',
  'IKW-CAP-001', 'IKW-CAP-002', 'IKW-PRV-001', 'IKW-PRV-002', 'IKW-PRV-005', 'IKW-ACT-006', 'IKW-PRV-013', 'IKW-PRV-014', 'IKW-PRV-015',
  'IKW-LIM-007',
];
/** The events a confirmation may emit. */
export const CONFIRM_PAYMENT_EVENTS = ['payment_intent.processing', 'payment_intent.requires_action', 'payment_intent.succeeded', 'payment_intent.payment_failed'] as const;

/** An absolute http(s) URL the customer is sent to. */
export const returnUrlSchema = { type: 'string', maxLength: 2048, pattern: '^https?://[^\\s]+$' };

export const checkoutSessionSchema = resourceSchema('checkout.session', ['url', 'status', 'paymentStatus', 'amount', 'currency', 'country', 'expiresAt', 'livemode', 'created'], {
  url: { type: 'string' },
  status: { enum: ['open', 'complete', 'canceled', 'expired'] },
  paymentStatus: { enum: ['unpaid', 'processing', 'paid', 'failed'] },
  amount: { type: 'integer' },
  amountTotal: { type: ['integer', 'null'] },
  currency: { type: 'string' },
  country: { type: 'string' },
  description: { type: ['string', 'null'] },
  paymentMethodTypes: { type: 'array', items: { type: 'string' } },
  successUrl: { type: ['string', 'null'] },
  cancelUrl: { type: ['string', 'null'] },
  customerEmail: { type: ['string', 'null'] },
  customerPhone: { type: ['string', 'null'] },
  paymentLinkId: { type: ['string', 'null'] },
  feeMode: { enum: ['merchant', 'customer'] },
  deferPaymentIntentCreation: { type: 'boolean' },
  paymentIntentId: { type: ['string', 'null'] },
  metadata: { type: 'object' },
  expiresAt: { type: 'string', format: 'date-time' },
  livemode: { type: 'boolean' },
  created: { type: 'integer' },
});

/** The merchant's page a customer returns to, with the parameters the interface fixes: status, payment_intent, operation_id. */
export function sessionReturnUrl(url: string, status: string, intent: { id: string; latest_operation: string | null } | null): string {
  const out = new URL(url);
  out.searchParams.set('status', status);
  if (intent) out.searchParams.set('payment_intent', intent.id);
  if (intent?.latest_operation) out.searchParams.set('operation_id', intent.latest_operation);
  return out.toString();
}

/** Whether the client is a browser that asked for a page (hosted pages answer their refusals as HTML to it, as JSON to programs). */
export function wantsHtml(accept: string | undefined): boolean {
  const value = accept ?? '';
  return value.includes('text/html') && !/application\/json/.test(value.split('text/html')[0] ?? '');
}

/** Where the customer goes now: the success URL once paid, the cancel URL once canceled; null while the page has more to show. */
export function nextUrl(view: CheckoutSessionView): string | null {
  const s = view.session;
  if (s.status === 'complete' && s.successUrl) return sessionReturnUrl(s.successUrl, 'succeeded', view.intent);
  if (s.status === 'canceled' && s.cancelUrl) return sessionReturnUrl(s.cancelUrl, 'canceled', view.intent);
  return null;
}

const PORTAL_TOKEN = /^cps_[0-9A-Za-z]{32}$/;

/** The live portal session of a token (from the Authorization header, or the hosted pages' cookie), if any. */
export async function portalSessionOf(knex: Knex, now: Date, token: string | undefined): Promise<PortalSession | undefined> {
  return token && PORTAL_TOKEN.test(token) ? findPortalSession(knex, sha256Hex(token), now) : undefined;
}

/** The customer portal's caller: the live portal session of its `Authorization: Bearer cps_…` token, or 401 IKW-CPT-002. */
export async function portalCaller(knex: Knex, now: Date, authorization: string | undefined): Promise<PortalSession> {
  const session = await portalSessionOf(knex, now, /^Bearer (\S+)$/.exec(authorization ?? '')?.[1]);
  if (!session) throw new ApiError('IKW-CPT-002', undefined, 'Authorization');
  return session;
}

/** A moment as the API writes one (Unix seconds), up to the year 9999 so that every value is a date. */
export const unixTimeQuery = { type: 'integer', minimum: 0, maximum: 253_402_300_799 } as const;

/** The last millisecond of Unix second `seconds`: "at or before T" includes all of second T, as `created` floors. */
export const endOfSecond = (seconds: number): Date => new Date(seconds * 1000 + 999);

/** The `created[gt|gte|lt|lte]` filters of a list, in Unix seconds. */
export const createdQuery = {
  'created[gt]': { ...unixTimeQuery, description: 'Only objects created after this time (Unix seconds)' },
  'created[gte]': { ...unixTimeQuery, description: 'Only objects created at or after this time (Unix seconds)' },
  'created[lt]': { ...unixTimeQuery, description: 'Only objects created before this time (Unix seconds)' },
  'created[lte]': { ...unixTimeQuery, description: 'Only objects created at or before this time (Unix seconds)' },
};
export type CreatedQuery = { 'created[gt]'?: number; 'created[gte]'?: number; 'created[lt]'?: number; 'created[lte]'?: number };

/** `created[…]` in Unix seconds as instants: a bound on a second covers all of it, as `created` is floored. */
export function createdRange(q: CreatedQuery): CreatedRange {
  const range: CreatedRange = {};
  if (q['created[gt]'] !== undefined) range.gt = endOfSecond(q['created[gt]']);
  if (q['created[gte]'] !== undefined) range.gte = new Date(q['created[gte]'] * 1000);
  if (q['created[lt]'] !== undefined) range.lt = new Date(q['created[lt]'] * 1000);
  if (q['created[lte]'] !== undefined) range.lte = endOfSecond(q['created[lte]']);
  return range;
}

/** An export's `time_zone` (an IANA name such as Africa/Dakar; UTC when left out): its times are written there. */
export const timeZoneQuery = {
  time_zone: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_+/-]+$', description: 'An IANA time zone (`Africa/Dakar`) the CSV export writes its times in; UTC when absent' },
};

/** The time zone an export asked for, or UTC; one this runtime does not know is IKW-VAL-001 on `time_zone`. */
export function exportTimeZone(zone: string | undefined): string {
  if (zone === undefined) return 'UTC';
  if (!isTimeZone(zone)) throw new ApiError('IKW-VAL-001', `Unknown time zone: '${zone}'`, 'time_zone');
  return zone;
}
