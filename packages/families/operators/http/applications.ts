import type { Knex } from 'knex';
import { ApiError } from '#packages/core/errors.js';
import type { Actor } from '#packages/core/owner.js';
import { APPLICATION_STATUSES, type ActivationApplications, type ApplicationObject, type ApplicationStatus, type RequestedField } from '#packages/families/activation/index.js';
import type { Assets } from '#packages/families/assets/index.js';
import type { HandlerContext } from '#packages/http/context.js';
import { Reply } from '#packages/http/context.js';
import { route, type RouteGroup, type RouteAuth } from '#packages/http/routes.js';
import { findActivationApplication, listActivationApplications } from '#packages/families/activation/read/index.js';
import { findMerchantAsset } from '#packages/families/assets/read/index.js';
import { findMerchant } from '#packages/families/merchants/read/index.js';
import { paymentActivity } from '#packages/families/payments/read/index.js';
import { payoutActivity } from '#packages/families/payouts/read/index.js';
import { contentDisposition } from '#packages/families/assets/http/index.js';
import { cursorListSchema } from '#packages/http/route-kit.js';
import { merchantParams, operatorOf } from './shared.js';

const BASE = '/api/v1/operator/applications';
/** Reading applications and their identity documents: the reviewers, and the risk team who suspends (docs/operator.md, "The review"). Finance has no need of identity documents. */
const READ: RouteAuth = { scope: 'operator.applications.read', operator: ['reviewer', 'risk'] };
/** Approving, rejecting, asking for information: the reviewers'. */
const DECIDE: RouteAuth = { scope: 'operator.applications', operator: ['reviewer'] };
/** Suspending and reinstating an account: the risk team's, as limits and holds are. */
const SUSPEND: RouteAuth = { scope: 'operator.merchants.suspension', operator: ['risk'] };

const STATUS_WORDS: Record<ApplicationStatus, string> = {
  not_submitted: 'Never submitted (never listed: the queue holds submitted applications)',
  under_review: 'Submitted, waiting for a decision: the review queue',
  information_requested: 'The platform asked the merchant for more; it submits again',
  active: 'Approved (or reinstated): live is open',
  rejected: 'Rejected, for the reason the merchant was told',
  suspended: 'Suspended, for the reason the merchant was told: new live payments and payouts are refused',
};
const statusSchema = { enum: [...APPLICATION_STATUSES], description: 'Where the application stands', 'x-enumDescriptions': STATUS_WORDS };
const DECISION_WORDS = {
  approved: 'Approved: live opened',
  rejected: 'Rejected',
  information_requested: 'More information asked of the merchant',
  suspended: 'The account suspended: live closed',
  reinstated: 'A suspension lifted: live opened again',
};
const CHECK_WORDS = {
  accepted: 'The live rail takes it (for a bank account, the bank names the holder as the merchant did, or names none)',
  holder_mismatch: 'The bank names someone else as the holder: `detail` says whom',
  account_unknown: 'The bank knows no such account',
  not_payable: 'No live rail pays this destination',
  unavailable: 'The rail could not answer: ask the merchant to submit again to check it again',
};

const reason = { type: 'string', minLength: 1, maxLength: 1000, pattern: '\\S', description: 'Why, in words the merchant reads (in its e-mail and on GET /api/v1/merchant/activation)' };
/** The submission the reviewer read: a decision after the merchant submitted again is refused. */
const submission = {
  type: 'integer',
  minimum: 1,
  description:
    "The submission you read (the application's `submissions` when you opened it). When the merchant has submitted again since, the decision is refused with `IKW-ACT-004` (`param`: `submission`) rather than made on details you have not read. Left out, the decision applies to whatever is under review",
};
const time = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description });

const activitySchema = (what: string, succeeded: string) => ({
  type: 'object',
  description: `The merchant's sandbox ${what}`,
  properties: {
    total: { type: 'integer', description: `How many ${what} it made in sandbox` },
    succeeded: { type: 'integer', description: `How many ${succeeded}` },
    failed: { type: 'integer', description: 'How many failed' },
    lastCreated: time(`When it made its last sandbox ${what.replace(/s$/, '')}, or null for none`),
  },
});

const summarySchema = {
  type: 'object',
  required: ['id', 'merchantId', 'merchantName', 'status', 'legalName', 'country', 'businessType', 'submissions', 'submittedAt', 'firstSubmittedAt'],
  properties: {
    id: { type: 'string', description: 'The merchant (`acct_…`): one application per merchant, so also the cursor of the list' },
    merchantId: { type: 'string', description: 'The merchant (`acct_…`)' },
    merchantName: { type: ['string', 'null'], description: "The merchant's account name" },
    status: statusSchema,
    legalName: { type: ['string', 'null'], description: "The business's legal name, as submitted" },
    country: { type: ['string', 'null'], description: "The business's country (ISO 3166-1 alpha-2)" },
    businessType: { type: ['string', 'null'], enum: ['individual', 'company', null], description: 'An individual or a company', 'x-enumDescriptions': { individual: 'A person trading in their own name', company: 'A registered company' } },
    submissions: { type: 'integer', description: 'How many times the merchant submitted it' },
    submittedAt: time('When it was last submitted'),
    firstSubmittedAt: time('When it was first submitted'),
  },
};

const applicationSchema = {
  type: 'object',
  properties: {
    ...summarySchema.properties,
    object: { const: 'activation_application', description: 'The kind of object: always `activation_application`' },
    application: {
      type: ['object', 'null'],
      additionalProperties: true,
      description: 'What the merchant last submitted, normalised, with the field names of its `POST /api/v1/merchant/activation` (snake_case): the paths a request for information names (`business.address`)',
    },
    documents: {
      type: 'array',
      description: 'The documents the application names, each readable at `url`',
      items: {
        type: 'object',
        properties: {
          field: { type: 'string', description: 'The field of the application that names it (`representative.identity_document`)' },
          assetId: { type: 'string', description: 'The asset' },
          name: { type: ['string', 'null'], description: 'Its file name, or null when the asset has since been deleted' },
          contentType: { type: ['string', 'null'], description: 'Its media type, checked from its bytes at upload' },
          size: { type: ['integer', 'null'], description: 'Its size in bytes' },
          url: { type: 'string', description: 'Where its bytes are (`GET …/documents/{assetId}`, with the operator session)' },
        },
      },
    },
    destinationCheck: {
      type: ['object', 'null'],
      description: "The live rail's check of the settlement destination when the application was last submitted",
      properties: {
        result: { enum: Object.keys(CHECK_WORDS), description: "The rail's answer", 'x-enumDescriptions': CHECK_WORDS },
        holderName: { type: ['string', 'null'], description: "The bank's name for the account's holder, when it gave one" },
        detail: { type: ['string', 'null'], description: 'What went wrong, in words' },
        checkedAt: { type: 'string', format: 'date-time', description: 'When it was checked' },
      },
    },
    decisions: {
      type: 'array',
      description: 'Every decision on the application, oldest first, with its operator',
      items: {
        type: 'object',
        properties: {
          decision: { enum: Object.keys(DECISION_WORDS), description: 'What was decided', 'x-enumDescriptions': DECISION_WORDS },
          by: { type: 'string', description: 'Who decided: `operator:<id>`' },
          reason: { type: ['string', 'null'], description: 'Why, for a rejection or a suspension, as the merchant reads it' },
          fields: {
            type: 'array',
            description: 'The fields asked for again, each with its message (information requested)',
            items: { type: 'object', properties: { field: { type: 'string', description: 'The field path' }, message: { type: 'string', description: 'The message to the merchant' } } },
          },
          at: { type: 'string', format: 'date-time', description: 'When it was decided' },
        },
      },
    },
    sandboxActivity: {
      type: 'object',
      description: 'What the merchant did in sandbox: how far its integration went',
      properties: {
        payments: activitySchema('payment intents', 'succeeded'),
        payouts: activitySchema('payouts', 'were paid'),
        lastActivity: time('When it last made a sandbox payment intent or payout, or null for never'),
      },
    },
  },
};

const requestInformationBody = {
  type: 'object',
  required: ['fields'],
  additionalProperties: false,
  properties: {
    submission,
    fields: {
      type: 'array',
      minItems: 1,
      maxItems: 20,
      description: 'The fields the merchant must give again, each with why',
      items: {
        type: 'object',
        required: ['field', 'message'],
        additionalProperties: false,
        properties: {
          field: { type: 'string', minLength: 1, maxLength: 100, description: 'A field path of the application body (`business.address`, `representative.identity_document`), or a part of one (`business.address.city`)' },
          message: { type: 'string', minLength: 1, maxLength: 500, pattern: '\\S', description: 'What is wrong, or what to give, in words the merchant reads beside the field' },
        },
      },
    },
  },
};

const unixToIso = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString());
const later = (a: string | null, b: string | null) => (a === null ? b : b === null || a > b ? a : b);

/** The actor of every decision: the operator, with the request's audit details. */
const operatorActor = (ctx: HandlerContext): Actor => ({ ...ctx.actor, actor: `operator:${operatorOf(ctx).operatorId}` });

/**
 * /api/v1/operator/applications and a merchant's suspension (docs/operator.md, "The review"): the
 * review queue, one application with what a reviewer decides on, its documents' bytes, and the
 * decisions, each the activation family's use case with the operator as its actor.
 */
export function operatorApplicationsRoutes(knex: Knex, applications: ActivationApplications, assets: Assets): RouteGroup {
  const summary = (a: ApplicationObject, merchantName: string | null) => ({
    id: a.merchantId,
    merchantId: a.merchantId,
    merchantName,
    status: a.status,
    legalName: a.details?.business.legal_name ?? null,
    country: a.details?.business.country ?? null,
    businessType: a.details?.business.type ?? null,
    submissions: a.submissions,
    submittedAt: a.submittedAt,
    firstSubmittedAt: a.firstSubmittedAt,
  });

  /** The merchant's name; an unknown merchant is a 404. */
  const merchantName = async (merchantId: string): Promise<string> => {
    const merchant = await findMerchant(knex, merchantId);
    if (!merchant) throw new ApiError('IKW-RES-001', `No such merchant: '${merchantId}'`, 'merchantId');
    return merchant.name;
  };

  /** The asset ids the application names, by field. */
  const documentsOf = (a: ApplicationObject) => (a.details ? [{ field: 'representative.identity_document', assetId: a.details.representative.identity_document }] : []);

  const review = async (merchantId: string) => {
    const name = await merchantName(merchantId);
    const { object } = await applications.application(merchantId);
    const sandbox = { merchantId, environment: 'sandbox' as const };
    const [payments, payouts] = await Promise.all([paymentActivity(knex, sandbox), payoutActivity(knex, sandbox)]);
    const documents = await Promise.all(
      documentsOf(object).map(async ({ field, assetId }) => {
        const asset = await findMerchantAsset(knex, merchantId, assetId);
        return { field, assetId, name: asset?.name ?? null, contentType: asset?.contentType ?? null, size: asset?.size ?? null, url: `${BASE}/${merchantId}/documents/${assetId}` };
      }),
    );
    const activity = (a: typeof payments) => ({ ...a, lastCreated: unixToIso(a.lastCreated) });
    return {
      object: 'activation_application',
      ...summary(object, name),
      application: object.details,
      documents,
      destinationCheck: object.destinationCheck,
      decisions: object.decisions,
      sandboxActivity: { payments: activity(payments), payouts: activity(payouts), lastActivity: later(unixToIso(payments.lastCreated), unixToIso(payouts.lastCreated)) },
    };
  };

  /** A decision on a known merchant's application, answered with the application as the reviewer sees it. */
  const decide = async (merchantId: string, decision: () => Promise<unknown>) => {
    await merchantName(merchantId);
    await decision();
    return review(merchantId);
  };

  return {
    name: 'operator-applications',
    description: "The review of merchants' activation applications for operators: the queue, one application with its documents, the decisions, and suspensions.",
    routes: [
      route<unknown, { status: ApplicationStatus; limit: number; starting_after?: string }>({
        method: 'get',
        path: BASE,
        summary: 'The review queue: applications of one status, the longest waiting first',
        description:
          'Applications in `status` (`under_review` unless told), the one submitted longest ago first (by its last submission), so the queue is worked from the top. Cursor-paged: `starting_after` the last merchant id of a page for the next (a merchant not in the list is `IKW-VAL-001`). Reviewers and the risk team read it.',
        refusals: ['IKW-VAL-001'],
        auth: READ,
        query: {
          type: 'object',
          additionalProperties: false,
          properties: {
            status: { ...statusSchema, default: 'under_review', description: 'Only the applications in this status (default `under_review`: the queue)' },
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 10, description: 'How many applications a page holds, 1 to 100' },
            starting_after: { type: 'string', minLength: 1, maxLength: 255, description: 'A merchant id of the list: the page starts after its application (the next page: the last id of this one)' },
          },
        },
        response: cursorListSchema(summarySchema),
        fields: { startingAfter: 'starting_after' },
        handler: async (ctx) => {
          const { status, limit, starting_after } = ctx.query;
          const page = await listActivationApplications(knex, { status, limit, ...(starting_after !== undefined ? { startingAfter: starting_after } : {}) });
          const data = await Promise.all(page.data.map(async (a) => summary(a, (await findMerchant(knex, a.merchantId))?.name ?? null)));
          return { object: 'list', data, has_more: page.hasMore, url: ctx.path };
        },
      }),
      route<unknown, unknown, { merchantId: string }>({
        method: 'get',
        path: `${BASE}/:merchantId`,
        summary: "One merchant's application with what a reviewer decides on: its fields, documents, destination check, decisions and sandbox activity",
        description:
          "The application as the merchant last submitted it; the documents it names, each with the link to its bytes; the live rail's check of the settlement destination; every decision with its operator; and the merchant's sandbox payment intents and payouts (how many, how many succeeded, the last one), which show how far its integration went. A merchant that never applied answers `not_submitted` with no fields; an unknown merchant is `IKW-RES-001`.",
        refusals: ['IKW-RES-001'],
        auth: READ,
        params: merchantParams,
        response: applicationSchema,
        handler: (ctx) => review(ctx.params.merchantId),
      }),
      route<unknown, unknown, { merchantId: string; assetId: string }>({
        method: 'get',
        path: `${BASE}/:merchantId/documents/:assetId`,
        summary: 'A document the application names: its bytes, with its content type, to view in the browser',
        description:
          "The file's bytes with the media type checked at its upload, to be shown inline (`Content-Disposition: inline` with its name). Only a document the merchant's current application names: any other asset, another merchant's included, is `IKW-RES-001`.",
        refusals: ['IKW-RES-001'],
        auth: READ,
        params: {
          type: 'object',
          required: ['merchantId', 'assetId'],
          properties: { ...merchantParams.properties, assetId: { type: 'string', minLength: 1, maxLength: 255, description: 'The asset, as `documents[].assetId` gives it' } },
        },
        answers: { file: 'application/octet-stream' },
        handler: async (ctx) => {
          const { merchantId, assetId } = ctx.params;
          const application = await findActivationApplication(knex, merchantId);
          if (!application || !documentsOf(application).some((d) => d.assetId === assetId)) throw new ApiError('IKW-RES-001', `No such document: '${assetId}'`, 'assetId');
          const { body, asset } = await assets.openOf(merchantId, assetId);
          return Reply.stream(body, asset.contentType, {
            'Content-Length': String(asset.size),
            'Content-Disposition': contentDisposition(asset.name, 'inline'),
            'X-Content-Type-Options': 'nosniff',
            'Cache-Control': 'private, no-store',
          });
        },
      }),
      route<{ submission?: number }, unknown, { merchantId: string }>({
        method: 'post',
        path: `${BASE}/:merchantId/approve`,
        summary: 'Approve an application under review: live opens for the merchant, who is e-mailed',
        description:
          "Approves the application: in the same commit the merchant's live environment opens (every process sees it within a second), and its owners and admins get an e-mail. Only an application `under_review` is approved (`IKW-ACT-004` otherwise). You are the decision's actor (`operator:<id>`), in the merchant's audit trail.",
        refusals: ['IKW-ACT-004', 'IKW-RES-001'],
        auth: DECIDE,
        params: merchantParams,
        body: { type: 'object', additionalProperties: false, properties: { submission } },
        response: applicationSchema,
        handler: (ctx) => decide(ctx.params.merchantId, () => applications.approve(ctx.params.merchantId, operatorActor(ctx), ctx.body?.submission)),
      }),
      route<{ reason: string; submission?: number }, unknown, { merchantId: string }>({
        method: 'post',
        path: `${BASE}/:merchantId/reject`,
        summary: 'Reject an application, with the reason the merchant reads',
        description:
          'Rejects the application for `reason`, which the merchant reads in its e-mail and on its activation. Final for the merchant: it cannot submit again (ask for information instead when something can be fixed). An application `under_review` or waiting for information is rejected (`IKW-ACT-004` otherwise).',
        refusals: ['IKW-ACT-004', 'IKW-RES-001', 'IKW-VAL-001'],
        auth: DECIDE,
        params: merchantParams,
        body: { type: 'object', required: ['reason'], additionalProperties: false, properties: { reason, submission } },
        response: applicationSchema,
        handler: (ctx) => decide(ctx.params.merchantId, () => applications.reject(ctx.params.merchantId, ctx.body.reason, operatorActor(ctx), ctx.body.submission)),
      }),
      route<{ fields: RequestedField[]; submission?: number }, unknown, { merchantId: string }>({
        method: 'post',
        path: `${BASE}/:merchantId/request-information`,
        summary: 'Ask the merchant for more: named fields, each with a message; it corrects them and submits again',
        description:
          "Names fields of the application (paths of the body, as `requirements` names them: `business.address`, `representative.identity_document`), each with a message. The merchant's activation lists them in `requirements.currently_due` with the messages in `requirements.errors`, its form shows them, and it is e-mailed; its next submission comes back `under_review`. A field that is not one of the application is `IKW-ACT-007`; an application not `under_review`, `IKW-ACT-004`.",
        refusals: ['IKW-ACT-004', 'IKW-ACT-007', 'IKW-RES-001'],
        auth: DECIDE,
        params: merchantParams,
        body: requestInformationBody,
        response: applicationSchema,
        handler: (ctx) => decide(ctx.params.merchantId, () => applications.requestInformation(ctx.params.merchantId, ctx.body.fields, operatorActor(ctx), ctx.body.submission)),
      }),
      route<{ reason: string }, unknown, { merchantId: string }>({
        method: 'post',
        path: '/api/v1/operator/merchants/:merchantId/suspend',
        summary: 'Suspend an active account: new live payments and payouts are refused with the reason the merchant reads',
        description:
          "Closes the merchant's live environment for `reason`: new live payments and payouts are refused with `IKW-ACT-006`, while what is under way finishes; the merchant reads the reason on its activation and in its e-mail. Only an active account is suspended (`IKW-ACT-004` otherwise). The risk team's decision, as limits and holds are.",
        refusals: ['IKW-ACT-004', 'IKW-RES-001', 'IKW-VAL-001'],
        auth: SUSPEND,
        params: merchantParams,
        body: { type: 'object', required: ['reason'], additionalProperties: false, properties: { reason } },
        response: applicationSchema,
        handler: (ctx) => decide(ctx.params.merchantId, () => applications.suspend(ctx.params.merchantId, ctx.body.reason, operatorActor(ctx))),
      }),
      route<unknown, unknown, { merchantId: string }>({
        method: 'post',
        path: '/api/v1/operator/merchants/:merchantId/reinstate',
        summary: "Lift a suspension: the merchant's live environment opens again",
        description: 'Reinstates a suspended account: live opens again in the same commit and the merchant is e-mailed. Only a suspended account is reinstated (`IKW-ACT-004` otherwise).',
        refusals: ['IKW-ACT-004', 'IKW-RES-001'],
        auth: SUSPEND,
        params: merchantParams,
        response: applicationSchema,
        handler: (ctx) => decide(ctx.params.merchantId, () => applications.reinstate(ctx.params.merchantId, operatorActor(ctx))),
      }),
    ],
  };
}
