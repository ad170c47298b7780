import { declareErrorCodes } from '#packages/core/errors.js';

/** The templates family's error codes, its manifest's `errors` (docs/errors.md, "Who owns a code"). `TPL`: the template engine (docs/templates.md). */
export const templateErrors = declareErrorCodes({
  'IKW-TPL-001': { status: 400, retryable: false, message: 'The template does not parse as Liquid' },
  'IKW-TPL-002': { status: 400, retryable: false, message: 'The variable schema is not a JSON Schema of an object' },
  'IKW-TPL-003': { status: 422, retryable: false, message: "The data does not match the template's variable schema" },
  'IKW-TPL-004': { status: 400, retryable: false, message: 'The template has no content in this locale' },
  'IKW-TPL-005': { status: 409, retryable: false, message: 'The template has no published version' },
  'IKW-TPL-006': { status: 422, retryable: false, message: 'The rendered template is over a size limit' },
});

type TemplateErrors = typeof templateErrors;
declare module '../../core/errors.js' {
  interface ErrorCatalogue extends TemplateErrors {}
}
