import { declareErrorCodes } from '#packages/core/errors.js';

/** The assets family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `AST`: assets (docs/assets.md). */
export const assetErrors = declareErrorCodes({
  'IKW-AST-001': { status: 400, retryable: false, message: 'This content type is not accepted for this purpose of asset' },
  'IKW-AST-002': { status: 400, retryable: false, message: 'The asset is larger than the size limit' },
  'IKW-AST-003': { status: 413, retryable: false, message: 'The upload brings more bytes than the size declared for the asset' },
  'IKW-AST-004': { status: 409, retryable: false, message: 'The asset is not in a state that allows this operation' },
  'IKW-AST-005': { status: 422, retryable: false, message: 'The uploaded file is not the size declared for the asset' },
  'IKW-AST-006': { status: 422, retryable: false, message: 'The SHA-256 of the uploaded file is not the one declared for the asset' },
  'IKW-AST-007': { status: 422, retryable: false, message: 'The uploaded file is not of the declared content type' },
  'IKW-AST-008': { status: 403, retryable: false, message: 'The signed URL is not valid or has expired' },
  'IKW-AST-009': { status: 503, retryable: true, message: 'The file store could not be reached; retry later' },
});

type AssetErrors = typeof assetErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends AssetErrors {}
}
