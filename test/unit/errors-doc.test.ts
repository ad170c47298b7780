import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ApiError, type ErrorCode } from '../../packages/core/errors.js';
import { ERROR_CODES } from '../../packages/families/index.js';

const root = path.resolve(import.meta.dirname, '../../..');

t.test('docs/errors.md lists exactly the codes of the catalogue, with their status and retryability', async (t) => {
  const doc = fs.readFileSync(path.join(root, 'docs/errors.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `(IKW-[A-Z]+-\d+)` \| (\d+) \| (true|false) \|/gm)].map((m) => ({
    code: m[1]!,
    status: Number(m[2]),
    retryable: m[3] === 'true',
  }));
  const catalogue = Object.entries(ERROR_CODES).map(([code, v]) => ({ code, status: v.status, retryable: v.retryable }));
  t.same(rows, catalogue);
});

t.test('the interface fixes IKW-RES-003 as 409 and retryable', async (t) => {
  const err = new ApiError('IKW-RES-003', 'Payment intent confirmation is already in progress');
  t.equal(err.status, 409);
  t.same(err.toBody('req_1'), { code: 'IKW-RES-003', message: 'Payment intent confirmation is already in progress', retryable: true, request_id: 'req_1' });
});

t.test('every code has a status in the 4xx/5xx range', async (t) => {
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) t.ok(ERROR_CODES[code].status >= 400, code);
});
