import { declareErrorCodes } from '#packages/core/errors.js';

/** The activation family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `ACT`: going live, the activation application (docs/merchants.md, "Going live"). */
export const activationErrors = declareErrorCodes({
  'IKW-ACT-001': { status: 400, retryable: false, message: 'The application misses fields its country and business type require: see requirements.currently_due of GET /api/v1/merchant/activation' },
  'IKW-ACT-002': { status: 409, retryable: false, message: 'The application cannot be submitted in its status: only a first application, or one the platform asked more information of, is submitted' },
  'IKW-ACT-003': { status: 422, retryable: false, message: 'The identity document must be a complete asset of purpose onboarding_document (a PDF or an image uploaded through /api/v1/assets)' },
  'IKW-ACT-004': { status: 409, retryable: false, message: 'This decision does not apply to the application in its status' },
  'IKW-ACT-005': {
    status: 403,
    retryable: false,
    message: 'Live payments are not open for this account yet: submit the activation application (POST /api/v1/merchant/activation); once it is approved, live takes money. GET /api/v1/merchant/activation says where it stands',
  },
  'IKW-ACT-006': { status: 403, retryable: false, message: 'This account is suspended: new live payments and payouts are refused. GET /api/v1/merchant/activation gives the reason' },
  'IKW-ACT-007': { status: 400, retryable: false, message: 'Name at least one field of the application (a path of requirements, such as business.address), each with a message to the merchant' },
});

type ActivationErrors = typeof activationErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends ActivationErrors {}
}
