import type { Test } from 'tap';
import type { ErrorCode } from '#packages/core/errors.js';
import { ERROR_CODES } from '#packages/families/index.js';
import type { TestResponse } from './system.js';

const REQUEST_ID = /^req_[0-9A-Za-z]{24}$/;

/**
 * A frame of a V8 stack trace: `at fn (/path/file.js:12:5)`, `at file:///path/file.js:12:5`,
 * `at node:internal/…:12:5`. A path is required: an example's time (`T10:00:00Z`) after the words
 * "at once" somewhere before it on the line is no stack trace.
 */
export const STACK_FRAME = /\bat (?:\S+ ){0,3}\(?(?:file:\/\/|node:|\/)[^\s()]*:\d+:\d+\)?/;

/** What every answer of the HTTP layer is: JSON, never HTML nor a stack trace, with a Request-Id. */
function assertWellFormed(t: Test, res: TestResponse): void {
  t.match(res.headers.get('content-type') ?? '', /^application\/json/, 'answered as JSON');
  t.notMatch(res.text, /^\s*</, 'not HTML');
  t.notMatch(res.text, STACK_FRAME, 'no stack trace');
  t.match(res.headers.get('request-id') ?? '', REQUEST_ID, 'Request-Id header');
}

/** Any answer a client can act on: well formed, and never a 5xx. */
export function assertSane(t: Test, res: TestResponse): void {
  t.ok(res.status < 500, `not a 5xx (got ${res.status})`);
  assertWellFormed(t, res);
}

/** Every error answer: the code's status and retryability, a message, the param if given (`null`: none), the request id twice. */
export function assertError(t: Test, res: TestResponse, code: ErrorCode, param?: string | null): void {
  const spec = ERROR_CODES[code];
  t.equal(res.status, spec.status, `status ${spec.status} (${res.text.slice(0, 200)})`);
  assertWellFormed(t, res);
  t.equal(res.body?.code, code, `code ${code}`);
  t.equal(res.body?.retryable, spec.retryable, `retryable ${spec.retryable}`);
  t.type(res.body?.message, 'string', 'has a message');
  if (param === null) t.notOk(res.body && 'param' in res.body, 'names no param');
  else if (param !== undefined) t.equal(res.body?.param, param, `param ${param}`);
  t.match(res.body?.request_id, REQUEST_ID, 'request_id in the body');
  t.equal(res.headers.get('request-id'), res.body?.request_id, 'Request-Id header equals the body request_id');
}

/** A success: this status, and well formed like every answer. */
export function assertOk(t: Test, res: TestResponse, status = 200): void {
  t.equal(res.status, status, `status ${status} (${res.text.slice(0, 300)})`);
  assertWellFormed(t, res);
}
