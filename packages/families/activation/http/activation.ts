import { activationRequirements, APPLICATION_FIELDS, BUSINESS_TYPES, getCountry, type BusinessType } from '#packages/catalog/index.js';
import { ApiError } from '#packages/core/errors.js';
import { unixSeconds } from '#packages/core/clock.js';
import { APPLICATION_STATUSES, type ApplicationObject } from '../events.js';
import { requirementsOf, type ActivationApplications, type ApplicationInput } from '../commands.js';
import type { ApplicationState } from '../decider.js';
import { destinationSchema } from '#packages/families/payouts/index.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';

const PATH = '/api/v1/merchant/activation';
const activationRead: RouteAuth = { scope: 'activation.read', environmentHeader: 'optional' };
const activationWrite: RouteAuth = { scope: 'activation.write', environmentHeader: 'optional' };

const text = (maxLength: number, description: string) => ({ type: 'string', minLength: 1, maxLength, description });
const date = (description: string) => ({ type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });

const STATUS_WORDS = {
  not_submitted: 'No application yet: submit one with `POST /api/v1/merchant/activation`; live objects that take money are refused (`IKW-ACT-005`)',
  under_review: 'Submitted: the platform reviews it; nothing to do but wait for the e-mail of its decision',
  information_requested: 'The platform asks for more: `requirements.errors` names each field with why; correct them and submit again',
  active: 'Approved: live payments and payouts move money',
  rejected: 'Not approved, for `decision.reason`; final (write to support to contest it)',
  suspended: 'Suspended, for `decision.reason`: new live payments and payouts are refused (`IKW-ACT-006`); what was under way finishes',
};

const addressSchema = {
  type: 'object',
  description: "The business's address",
  additionalProperties: false,
  required: ['line1', 'city'],
  properties: {
    line1: text(200, 'Street and number'),
    line2: { type: 'string', maxLength: 200, description: 'More of the address (building, floor)' },
    city: text(100, 'City'),
    postal_code: { type: 'string', maxLength: 20, description: 'Postal code, where there is one' },
  },
};

const businessSchema = {
  type: 'object',
  description: 'The business that takes the money',
  additionalProperties: false,
  properties: {
    legal_name: text(200, 'The name the business is registered under (for an individual, their full name)'),
    trading_name: { type: 'string', maxLength: 200, description: 'The name customers know it by, when another' },
    type: {
      enum: [...BUSINESS_TYPES],
      description: 'An individual (a sole trader) or a company',
      'x-enumDescriptions': { individual: 'A person trading in their own name', company: 'A registered company: give its registration number and its owners of 25 % or more' },
    },
    registration_number: { type: 'string', maxLength: 100, description: "The business's registration number (RCCM, NINEA, CAC…): required of companies, and of individuals where the country registers them" },
    country: {
      type: 'string',
      pattern: '^[A-Za-z]{2}$',
      description: 'Where the business is registered (ISO 3166-1 alpha-2, any case): a country of `GET /api/v1/geography/countries`; it decides the requirements and the settlement currency',
    },
    address: addressSchema,
    product_description: text(1000, 'What the business sells, in a sentence or two'),
    website: { type: 'string', maxLength: 300, description: 'Where it sells online, if it does (required of companies in NG, GH and KE)' },
  },
};

const representativeSchema = {
  type: 'object',
  description: 'The person who acts for the business',
  additionalProperties: false,
  properties: {
    name: text(200, 'Their full name, as on their identity document'),
    date_of_birth: date('Their date of birth (YYYY-MM-DD); they must be 18 or older'),
    identity_document: text(100, 'The id of a complete asset of purpose `onboarding_document` (uploaded through `/api/v1/assets`): their identity document. Private: only you and the platform see it'),
  },
};

const ownerSchema = {
  type: 'object',
  description: 'An owner of 25 % or more of the company',
  additionalProperties: false,
  required: ['name', 'ownership_percent'],
  properties: {
    name: text(200, 'Their full name'),
    date_of_birth: date('Their date of birth (YYYY-MM-DD)'),
    ownership_percent: { type: 'number', minimum: 25, maximum: 100, description: 'The share of the company they own, in percent (25 to 100)' },
  },
};

const volumeSchema = {
  type: 'object',
  description: 'How much the business expects to take a month',
  additionalProperties: false,
  required: ['amount', 'currency'],
  properties: {
    amount: { type: 'integer', minimum: 0, maximum: 1e15, description: 'In the currency’s smallest unit (an integer)' },
    currency: { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO 4217, any case' },
  },
};

const submitBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    business: businessSchema,
    representative: representativeSchema,
    owners: { type: 'array', maxItems: 4, items: ownerSchema, description: "A company's owners of 25 % or more (at most four can hold that much); ignored for an individual" },
    settlement_destination: {
      ...destinationSchema,
      description: "Where payouts of the balance go: a mobile money wallet or a bank account in the business country's currency, checked as a payout destination is (the live rail's answer is kept for the review)",
    },
    expected_monthly_volume: volumeSchema,
  },
};

const fieldList = (description: string) => ({ type: 'array', items: { type: 'string', description: 'A field path of the application body (`business.address`)' }, description });

const nullable = (description: string) => ({ type: ['string', 'null'], description });

/** What was last submitted, as the application keeps it: the body of the POST, normalised. */
const applicationSchema = {
  type: ['object', 'null'],
  description: 'What was last submitted (the body of the last `POST`, normalised: text trimmed, an optional field left out is null, codes in their case), to prefill a correction; null before',
  required: ['business', 'representative', 'owners', 'settlement_destination', 'expected_monthly_volume'],
  properties: {
    business: {
      type: 'object',
      description: 'The business that takes the money',
      required: ['legal_name', 'trading_name', 'type', 'registration_number', 'country', 'address', 'product_description', 'website'],
      properties: {
        legal_name: { type: 'string', description: 'The name the business is registered under' },
        trading_name: nullable('The name customers know it by; null when none was given'),
        type: { enum: [...BUSINESS_TYPES], description: 'An individual or a company', 'x-enumDescriptions': { individual: 'A person trading in their own name', company: 'A registered company' } },
        registration_number: nullable('Its registration number; null when none was given'),
        country: { type: 'string', description: 'Where it is registered (ISO 3166-1 alpha-2, upper case)' },
        address: {
          type: 'object',
          description: "The business's address",
          required: ['line1', 'line2', 'city', 'postal_code'],
          properties: {
            line1: { type: 'string', description: 'Street and number' },
            line2: nullable('More of the address; null when none was given'),
            city: { type: 'string', description: 'City' },
            postal_code: nullable('Postal code; null when none was given'),
          },
        },
        product_description: { type: 'string', description: 'What the business sells' },
        website: nullable('Where it sells online; null when none was given'),
      },
    },
    representative: {
      type: 'object',
      description: 'The person who acts for the business',
      required: ['name', 'date_of_birth', 'identity_document'],
      properties: {
        name: { type: 'string', description: 'Their full name' },
        date_of_birth: { type: 'string', description: 'Their date of birth (YYYY-MM-DD)' },
        identity_document: { type: 'string', description: 'The id of the `onboarding_document` asset of their identity document (private: only you and the platform read it)' },
      },
    },
    owners: {
      type: 'array',
      description: "A company's owners of 25 % or more; empty for an individual",
      items: {
        type: 'object',
        required: ['name', 'date_of_birth', 'ownership_percent'],
        properties: {
          name: { type: 'string', description: 'Their full name' },
          date_of_birth: nullable('Their date of birth (YYYY-MM-DD); null when none was given'),
          ownership_percent: { type: 'number', description: 'The share of the company they own, in percent' },
        },
      },
    },
    settlement_destination: {
      type: 'object',
      description: 'Where payouts of the balance go, normalised as a payout destination: a mobile money wallet or a bank account',
      required: ['type', 'currency'],
      properties: {
        type: {
          enum: ['mobile_money', 'bank'],
          description: 'The kind of destination',
          'x-enumDescriptions': { mobile_money: 'A mobile money wallet: `country`, `operator`, `msisdn`', bank: 'A bank account: `bank_code`, `account_number`, `account_name`' },
        },
        currency: { type: 'string', description: 'The currency it receives (ISO 4217, lower case): the business country’s' },
        country: { type: 'string', description: "Mobile money: the wallet's country (ISO 3166-1 alpha-2, upper case)" },
        operator: { type: 'string', description: 'Mobile money: the operator id (`orange_money`)' },
        msisdn: { type: 'string', description: "Mobile money: the wallet's number in E.164 (`+221771234567`)" },
        bank_code: { type: 'string', description: "Bank: the bank's code on the rail" },
        account_number: { type: 'string', description: 'Bank: the account number, spaces removed' },
        account_name: { type: 'string', description: "Bank: the account holder's name, as given" },
      },
    },
    expected_monthly_volume: {
      type: 'object',
      description: 'How much the business expects to take a month',
      required: ['amount', 'currency'],
      properties: {
        amount: { type: 'integer', description: 'In minor units of `currency`' },
        currency: { type: 'string', description: 'ISO 4217, lower case' },
      },
    },
  },
};

const activationSchema = {
  type: 'object',
  required: ['object', 'merchantId', 'status', 'requirements', 'decision', 'submitted', 'application'],
  properties: {
    object: { const: 'activation', description: 'The kind of object: always `activation`' },
    merchantId: { type: 'string', description: 'The merchant (`acct_…`)' },
    status: { enum: [...APPLICATION_STATUSES], description: 'Where the application stands', 'x-enumDescriptions': STATUS_WORDS },
    requirements: {
      type: 'object',
      description: 'What is still due, in the manner of Stripe’s `requirements`',
      properties: {
        currently_due: fieldList(
          'The fields to give now: before a first submission, those every business gives (a company and some countries add more, refused with `IKW-ACT-001` when missing); after a request for information, the fields named',
        ),
        pending_verification: fieldList('The fields the platform is reviewing'),
        errors: {
          type: 'array',
          description: 'The platform’s message on each field it asked for again',
          items: { type: 'object', properties: { field: { type: 'string', description: 'The field path' }, message: { type: 'string', description: 'What is wrong with it, or what to give' } } },
        },
      },
    },
    decision: {
      type: ['object', 'null'],
      description: 'The platform’s last decision on the application; null before any',
      properties: {
        decision: {
          enum: ['approved', 'rejected', 'information_requested', 'suspended', 'reinstated'],
          description: 'What was decided',
          'x-enumDescriptions': { approved: 'Live opened', rejected: 'Not approved', information_requested: 'More information asked', suspended: 'The account suspended', reinstated: 'A suspension lifted' },
        },
        reason: { type: ['string', 'null'], description: 'Why, for a rejection or a suspension' },
        fields: {
          type: 'array',
          description: 'The fields asked for, with a message each (information requested)',
          items: { type: 'object', properties: { field: { type: 'string', description: 'The field path' }, message: { type: 'string', description: 'What to give' } } },
        },
        created: { type: 'integer', description: 'When it was decided, in Unix seconds' },
      },
    },
    submitted: { type: ['integer', 'null'], description: 'When the application was last submitted, in Unix seconds; null before' },
    application: applicationSchema,
  },
};

const requirementsQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['country', 'type'],
  properties: {
    country: { type: 'string', pattern: '^[A-Za-z]{2}$', description: 'The business country (ISO 3166-1 alpha-2, any case): a country of `GET /api/v1/geography/countries`' },
    type: { enum: [...BUSINESS_TYPES], description: 'The business type', 'x-enumDescriptions': { individual: 'A person trading in their own name', company: 'A registered company' } },
  },
};

const requirementsSchema = {
  type: 'object',
  required: ['object', 'country', 'type', 'required', 'optional'],
  properties: {
    object: { const: 'activation_requirements', description: 'The kind of object: always `activation_requirements`' },
    country: { type: 'string', description: 'The country asked about (ISO 3166-1 alpha-2, upper case)' },
    type: { enum: [...BUSINESS_TYPES], description: 'The business type asked about', 'x-enumDescriptions': { individual: 'A person trading in their own name', company: 'A registered company' } },
    required: fieldList('The field paths an application of this country and type must hold: one missing is refused with `IKW-ACT-001`'),
    optional: fieldList('The other fields the application takes, which this country and type may leave out'),
  },
};

/** The merchant's view: no operator's identity, no check result meant for the reviewer. */
function render(object: ApplicationObject, state: ApplicationState) {
  const r = requirementsOf(state);
  const last = object.decisions.at(-1);
  return {
    object: 'activation',
    merchantId: object.merchantId,
    status: object.status,
    requirements: { currently_due: r.currentlyDue, pending_verification: r.pendingVerification, errors: r.errors },
    decision: last ? { decision: last.decision, reason: last.reason, fields: last.fields, created: unixSeconds(new Date(last.at)) } : null,
    submitted: object.submittedAt === null ? null : unixSeconds(new Date(object.submittedAt)),
    application: object.details,
  };
}

/**
 * /api/v1/merchant/activation (docs/merchants.md, "Going live"): the merchant's application to take
 * live money, read and submitted by the merchant. The operators' decisions are use cases
 * (ActivationApplications), behind the operator routes. Three operations.
 */
export function activationRoutes(applications: ActivationApplications): RouteGroup {
  const answer = async (merchantId: string) => {
    const { object, state } = await applications.application(merchantId);
    return render(object, state);
  };
  return {
    name: 'activation',
    description: 'Going live: the application the platform reviews before the live environment takes real money.',
    routes: [
      route({
        method: 'get',
        path: PATH,
        summary: "The merchant's activation application: its status, the requirements still due and the platform's last decision",
        description:
          "Where your application to take live money stands. Before you submit, `requirements.currently_due` lists what every business gives; after the platform asks for more information, the fields it named, each with its message in `requirements.errors`. A rejection or a suspension gives its reason in `decision.reason`. One application per merchant: either environment's key reads the same.",
        auth: activationRead,
        response: activationSchema,
        handler: (ctx) => answer(ctx.owner.merchantId),
      }),
      route<unknown, { country: string; type: BusinessType }>({
        method: 'get',
        path: `${PATH}/requirements`,
        summary: 'What an application of a country and a business type must hold, before it is submitted',
        description:
          "The catalog's requirements (docs/catalog.md, \"Activation requirements\") for a business of `country` and `type`: the fields `POST /api/v1/merchant/activation` refuses with `IKW-ACT-001` when missing, and the other fields it takes. A form asks it when the country or type change, to mark what is required before a first submission (the application's own `requirements.currently_due` is what this merchant must give now, whatever it would choose). It does not depend on the merchant's application.",
        refusals: ['IKW-VAL-004'],
        auth: activationRead,
        query: requirementsQuery,
        response: requirementsSchema,
        handler: async (ctx) => {
          const country = getCountry(ctx.query.country);
          if (!country) throw new ApiError('IKW-VAL-004', `Sika does not serve businesses of '${ctx.query.country}'`, 'country');
          const required = activationRequirements(country.code, ctx.query.type);
          return { object: 'activation_requirements', country: country.code, type: ctx.query.type, required, optional: APPLICATION_FIELDS.filter((f) => !required.includes(f)) };
        },
      }),
      route<ApplicationInput>({
        method: 'post',
        path: PATH,
        summary: 'Submit the activation application (again, after the platform asked for information); the platform reviews it and e-mails its decision',
        description:
          "Submits the whole application: the business, its representative and their identity document (an `onboarding_document` asset of the same environment as the request), a company's owners of 25 % or more, the settlement destination and the expected monthly volume. What a business must give depends on its country and type (docs/catalog.md, \"Activation requirements\"); anything missing is refused with `IKW-ACT-001`, whose `errors` lists each missing field by `param` (`GET /api/v1/merchant/activation/requirements` says beforehand what a country and type require). The settlement destination is checked as a payout destination and by the live rail (the bank's name for the holder), for the reviewer. The status becomes `under_review`; the owners and admins get an e-mail of each decision. You submit a first application, or again once the platform asked for information (`IKW-ACT-002` otherwise). An owner's or admin's dashboard session, or an API key with `activation.write`.",
        refusals: ['IKW-ACT-001', 'IKW-ACT-002', 'IKW-ACT-003', 'IKW-RES-001', 'IKW-VAL-001', 'IKW-VAL-003', 'IKW-VAL-004', 'IKW-VAL-005', 'IKW-VAL-006', 'IKW-VAL-007', 'IKW-VAL-009'],
        auth: activationWrite,
        body: submitBody,
        response: activationSchema,
        fields: {
          'representative.identityDocument': 'representative.identity_document',
          'representative.dateOfBirth': 'representative.date_of_birth',
          settlementDestination: 'settlement_destination',
          expectedMonthlyVolume: 'expected_monthly_volume',
        },
        handler: async (ctx) => {
          await applications.submit(ctx.owner, ctx.body, ctx.actor);
          return answer(ctx.owner.merchantId);
        },
      }),
    ],
  };
}
