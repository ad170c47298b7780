import type { Test } from 'tap';
import { ERROR_CODES, type ErrorCode } from '../../packages/core/errors.js';
import type { TestResponse } from './system.js';

/** Every error answer: JSON with the code's status and retryability, and the request id twice. */
export function assertError(t: Test, res: TestResponse, code: ErrorCode, param?: string | null): void {
  const spec = ERROR_CODES[code];
  t.equal(res.status, spec.status, `status ${spec.status} (${res.text.slice(0, 200)})`);
  t.match(res.headers.get('content-type') ?? '', /^application\/json/, 'answered as JSON');
  t.equal(res.body?.code, code, `code ${code}`);
  t.equal(res.body?.retryable, spec.retryable, `retryable ${spec.retryable}`);
  t.type(res.body?.message, 'string', 'has a message');
  if (param === null) t.notOk(res.body && 'param' in res.body, 'names no param');
  else if (param !== undefined) t.equal(res.body?.param, param, `param ${param}`);
  t.equal(res.headers.get('request-id'), res.body?.request_id, 'Request-Id header equals the body request_id');
}

export function assertOk(t: Test, res: TestResponse, status = 200): void {
  t.equal(res.status, status, `status ${status} (${res.text.slice(0, 300)})`);
}
