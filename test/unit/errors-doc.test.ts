/**
 * The error catalogue (docs/errors.md, "Who owns a code"): the kernel's codes and each family's,
 * assembled by the family list; every code the repository names is in it, declared by exactly one
 * owner, and docs/errors.md lists exactly it.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';
import { ApiError, assembleErrorCodes, KERNEL_ERROR_CODES, specOf, type ErrorCode } from '#packages/core/errors.js';
import type { AnyFamily } from '#packages/families/family.js';
import { ERROR_CODES, FAMILIES } from '#packages/families/index.js';

const root = path.resolve(import.meta.dirname, '../../..');
const CODE = /IKW-[A-Z]{3}-\d{3}/g;
/** A code spelt at run time, so that codes made up for these tests are not names this file's text gives. */
const code = (group: string, n: number) => ['IKW', group, String(n).padStart(3, '0')].join('-');

/** Each code's declarers: `the kernel` and the families whose manifest's `errors` declare it. */
function owners(): Map<string, string[]> {
  const declared = new Map<string, string[]>();
  const declare = (owner: string, codes: object) => {
    for (const c of Object.keys(codes)) declared.set(c, [...(declared.get(c) ?? []), owner]);
  };
  declare('the kernel', KERNEL_ERROR_CODES);
  for (const family of FAMILIES as readonly AnyFamily[]) declare(family.name, family.errors ?? {});
  return declared;
}

/** The codes named in the files under `dirs` (source, tests, docs), with a file naming each. */
function namedCodes(dirs: readonly string[]): Map<string, string> {
  const named = new Map<string, string>();
  for (const dir of dirs) {
    for (const file of fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })) {
      if (!/\.(ts|tsx|md)$/.test(file) || file.split(path.sep).includes('node_modules')) continue;
      const where = path.posix.join(dir, file.split(path.sep).join('/'));
      for (const [c] of fs.readFileSync(path.join(root, where), 'utf8').matchAll(CODE)) if (!named.has(c)) named.set(c, where);
    }
  }
  return named;
}

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

t.test('every code is declared by exactly one owner, the kernel or one family, and the catalogue is what they declare', async (t) => {
  const declared = owners();
  for (const [c, by] of declared) t.equal(by.length, 1, `${c} is declared by ${by.join(', ')}`);
  t.same(Object.keys(ERROR_CODES).sort(), [...declared.keys()].sort(), 'the catalogue holds every declared code, and only those');
});

t.test('every code the repository names (source, tests, dashboard, client, docs) is in the catalogue', async (t) => {
  const named = namedCodes(['packages', 'services', 'infra', 'bin', 'test', 'apps/dashboard/src', 'clients/typescript/src', 'docs']);
  t.ok(named.size > 100);
  for (const [c, where] of named) t.ok(c in ERROR_CODES, `${c} (named in ${where}) is declared`);
});

t.test("the kernel packages name only the kernel's codes: the kernel knows no family", async (t) => {
  const named = namedCodes(['packages/core', 'packages/catalog', 'packages/eventstore', 'packages/bus', 'packages/scheduler', 'packages/connectors', 'packages/read-models', 'packages/http']);
  for (const [c, where] of named) t.ok(c in KERNEL_ERROR_CODES, `${c} (named in ${where}) is the kernel's`);
});

t.test("a group of codes (its prefix) is one family's: a family's new code goes in that family's errors.ts", async (t) => {
  const families = new Map<string, Set<string>>();
  for (const [c, [owner]] of owners()) {
    if (owner === 'the kernel') continue;
    const group = c.slice(4, 7);
    families.set(group, (families.get(group) ?? new Set()).add(owner!));
  }
  for (const [group, by] of families) t.equal(by.size, 1, `${group}: ${[...by].join(', ')}`);
});

t.test('assembling refuses a code declared twice or malformed, and orders codes by group, then number', async (t) => {
  const spec = { status: 409, retryable: false, message: 'x' };
  t.throws(
    () =>
      assembleErrorCodes(
        [
          { owner: 'a', codes: { [code('BAL', 1)]: spec } },
          { owner: 'b', codes: { [code('BAL', 1)]: spec } },
        ],
        [],
      ),
    /a and b both declare the error code IKW-BAL-001/,
  );
  t.throws(() => assembleErrorCodes([{ owner: 'a', codes: { 'IKW-bal-1': spec } }], []), /a declares the error code IKW-bal-1, not of the form IKW-XXX-NNN/);
  const assembled = assembleErrorCodes(
    [
      { owner: 'kernel', codes: { [code('QQQ', 1)]: spec, [code('ZZZ', 2)]: spec } },
      { owner: 'a', codes: { [code('ZZZ', 1)]: spec, [code('YYY', 1)]: spec } },
    ],
    ['ZZZ'],
  );
  t.same(Object.keys(assembled), [code('ZZZ', 1), code('ZZZ', 2), code('QQQ', 1), code('YYY', 1)], 'frozen groups first, then the others in the order their owners come');
});

t.test("a refusal's status is the assembled catalogue's, its words the kernel's or its thrower's; a code outside the catalogue is a bug, thrown", async (t) => {
  const refused = new ApiError('IKW-ESC-003', ERROR_CODES['IKW-ESC-003'].message);
  t.same([specOf(ERROR_CODES, refused.code).status, specOf(ERROR_CODES, refused.code).retryable, refused.message], [409, false, ERROR_CODES['IKW-ESC-003'].message], "a family's code answers as its family declares it");
  t.equal(new ApiError('IKW-PRV-001').message, KERNEL_ERROR_CODES['IKW-PRV-001'].message, "a kernel's code without words has the kernel's");
  t.throws(() => specOf(ERROR_CODES, code('NOP', 1) as ErrorCode), /is in the catalogue's type but not in the catalogue/);
});

t.test('the interface fixes IKW-RES-003 as 409 and retryable', async (t) => {
  const err = new ApiError('IKW-RES-003', 'Payment intent confirmation is already in progress');
  t.equal(specOf(ERROR_CODES, err.code).status, 409);
  t.same(err.toBody(ERROR_CODES, 'req_1'), { code: 'IKW-RES-003', message: 'Payment intent confirmation is already in progress', retryable: true, request_id: 'req_1' });
});

t.test('every code has a status in the 4xx/5xx range', async (t) => {
  for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) t.ok(ERROR_CODES[code].status >= 400, code);
});
