import { declareErrorCodes } from '#packages/core/errors.js';

/** The webhooks family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `WHK`: webhook endpoints (docs/webhooks.md). */
export const webhookErrors = declareErrorCodes({
  'IKW-WHK-001': { status: 400, retryable: false, message: 'This URL cannot receive webhooks' },
  'IKW-WHK-002': { status: 400, retryable: false, message: 'Unknown event type' },
});

type WebhookErrors = typeof webhookErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends WebhookErrors {}
}
