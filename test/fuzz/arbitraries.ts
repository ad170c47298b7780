/**
 * fast-check arbitraries for the fuzz sweep (operations.test.ts): values that fit an operation's
 * JSON Schema (so requests get past validation into the domain and the database), the values and
 * texts that have broken servers before, and ways to break a JSON body, a path, a query and headers.
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';

/** A JSON Schema as the OpenAPI document holds it. */
export type Schema = Record<string, unknown>;

// --- Values that have broken servers -------------------------------------------------------------

/** Any UTF-16 code unit, unpaired surrogates and NUL included (fc's own units never give those). */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    'x\ud83d',
    '\ude00x',
    '\ud83d\ude00',
    '\u202e',
    '\ufeff',
    '\u2028',
    '\r\n',
    "' OR '1'='1",
    '%00',
    '%',
    '../../etc/passwd',
    '${jndi:ldap://x}',
    '{{7*7}}',
    '<script>alert(1)</script>',
    '',
    ' ',
    '\t',
    'null',
    'NaN',
    '-1',
    '1e400',
    '__proto__',
    'constructor',
    '\\',
    '"',
    'İ',
    '𝟘',
  ),
  fc.string({ unit: anyCodeUnit, maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  // Long and very long: past every maxLength, and (repeated) past the 1 MiB body limit.
  fc.integer({ min: 256, max: 400_000 }).map((n) => 'x'.repeat(n)),
);

export const nastyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(0, -0, -1, 0.5, 1e-7, 5e-324, 2 ** 31, 2 ** 32, 2 ** 53, 2 ** 53 + 2, -(2 ** 53) - 2, 2 ** 63, 1e21, 1e308, -1e308, 999_999_999_999, 1_000_000_000_000),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** `depth` objects or arrays inside each other. */
function nested(depth: number, arrays: boolean): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
}

export const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: nastyString, weight: 4 },
  { arbitrary: nastyNumber, weight: 3 },
  fc.constantFrom(null, true, false, {}, [], [null], { '': '' }),
  fc.tuple(fc.integer({ min: 2, max: 300 }), fc.boolean()).map(([d, arrays]) => nested(d, arrays)),
  fc.integer({ min: 0, max: 50_000 }).map((n) => new Array<number>(n).fill(1)),
  fc.jsonValue({ maxDepth: 3 }),
);

/** Object keys: ordinary, reserved by JavaScript, and unstorable. */
export const nastyKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', '', ' ', 'a.b', 'a\u0000', '\ud800', 'k'.repeat(300)),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: anyCodeUnit, maxLength: 8 }),
);

// --- Values that fit a schema --------------------------------------------------------------------

const MAX_DEPTH = 6;

function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

/** allOf members merged into one object schema (their properties and required lists). */
function mergeAllOf(schema: Schema): Schema {
  const parts = [schema, ...((schema.allOf as Schema[] | undefined) ?? [])];
  const properties: Record<string, Schema> = {};
  const required = new Set<string>();
  for (const p of parts) {
    Object.assign(properties, (p.properties as Record<string, Schema> | undefined) ?? {});
    for (const r of (p.required as string[] | undefined) ?? []) required.add(r);
  }
  const { allOf: _allOf, ...rest } = schema;
  return { ...rest, type: rest.type ?? 'object', properties, required: [...required] };
}

function stringFor(schema: Schema): fc.Arbitrary<string> {
  const minLength = num(schema.minLength) ?? 0;
  const maxLength = Math.max(minLength, Math.min(num(schema.maxLength) ?? 40, 40));
  switch (schema.format) {
    case 'email':
      return fc.emailAddress();
    case 'uuid':
      return fc.uuid();
    case 'date':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  }
  if (typeof schema.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(schema.pattern), { size: 'xsmall' });
    } catch {
      // A pattern fast-check cannot invert: any short string.
    }
  }
  return fc.string({ minLength, maxLength });
}

/** Values that mostly satisfy `schema`; where the schema says too little, any small JSON value. */
export function fromSchema(schema: Schema | boolean | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || schema === true || schema === false) return fc.jsonValue({ maxDepth: 1 });
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (options?.length) return fc.oneof(...options.map((o) => fromSchema({ ...schema, [key]: undefined, ...o }, depth)));
  }
  if (Array.isArray(schema.allOf)) return fromSchema(mergeAllOf(schema), depth);
  if (Array.isArray(schema.type)) return fc.oneof(...(schema.type as string[]).map((type) => fromSchema({ ...schema, type }, depth)));
  const type = schema.type ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'string':
      return stringFor(schema);
    case 'integer': {
      const min = Math.max(num(schema.minimum) ?? -1_000_000, Number.MIN_SAFE_INTEGER);
      const max = Math.min(num(schema.maximum) ?? 1_000_000_000, Number.MAX_SAFE_INTEGER);
      return fc.integer({ min, max: Math.max(min, max) });
    }
    case 'number':
      return fc.double({ min: num(schema.minimum) ?? -1e9, max: num(schema.maximum) ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case 'array': {
      if (depth >= MAX_DEPTH) return fc.constant([]);
      const minLength = num(schema.minItems) ?? 0;
      return fc.array(fromSchema(schema.items as Schema | undefined, depth + 1), { minLength, maxLength: Math.max(minLength, Math.min(num(schema.maxItems) ?? 3, 3)) });
    }
    case 'object': {
      if (depth >= MAX_DEPTH) return fc.constant({});
      const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
      const names = Object.keys(properties);
      if (names.length === 0) {
        const values = typeof schema.additionalProperties === 'object' ? fromSchema(schema.additionalProperties as Schema, depth + 1) : fc.string({ maxLength: 20 });
        return fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }), values, { maxKeys: 3 });
      }
      const required = ((schema.required as string[] | undefined) ?? []).filter((r) => names.includes(r));
      const model = Object.fromEntries(names.map((n) => [n, fromSchema(properties[n], depth + 1)]));
      return fc.record(model, { requiredKeys: required });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

// --- Breaking a JSON value -----------------------------------------------------------------------

type Mutation = { kind: 'replace'; with: unknown } | { kind: 'delete' } | { kind: 'add'; key: string; with: unknown };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  { arbitrary: nastyValue.map((v) => ({ kind: 'replace' as const, with: v })), weight: 5 },
  { arbitrary: fc.constant({ kind: 'delete' as const }), weight: 2 },
  { arbitrary: fc.tuple(nastyKey, nastyValue).map(([key, v]) => ({ kind: 'add' as const, key, with: v })), weight: 2 },
);

interface Slot {
  parent: Record<string, unknown> | unknown[] | null;
  key: string | number;
  value: unknown;
}

function slots(root: unknown): Slot[] {
  const out: Slot[] = [{ parent: null, key: '', value: root }];
  for (let i = 0; i < out.length; i++) {
    const v = out[i]!.value;
    if (Array.isArray(v)) v.forEach((child, k) => out.push({ parent: v, key: k, value: child }));
    else if (typeof v === 'object' && v !== null) for (const [k, child] of Object.entries(v)) out.push({ parent: v as Record<string, unknown>, key: k, value: child });
  }
  return out;
}

function apply(root: unknown, at: number, mutation: Mutation): unknown {
  // A copy: constant values are shared between runs, and a later mutation must not write into them.
  const m = 'with' in mutation ? { ...mutation, with: structuredClone(mutation.with) } : mutation;
  const all = slots(root);
  const slot = all[at % all.length]!;
  if (m.kind === 'add') {
    const target = typeof slot.value === 'object' && slot.value !== null && !Array.isArray(slot.value) ? (slot.value as Record<string, unknown>) : null;
    if (target) Object.defineProperty(target, m.key, { value: m.with, enumerable: true, writable: true, configurable: true });
    return root;
  }
  const replacement = m.kind === 'replace' ? m.with : undefined;
  if (slot.parent === null) return replacement ?? {};
  if (Array.isArray(slot.parent)) {
    if (m.kind === 'delete') slot.parent.splice(slot.key as number, 1);
    else slot.parent[slot.key as number] = replacement;
  } else if (m.kind === 'delete') delete slot.parent[slot.key as string];
  else slot.parent[slot.key as string] = replacement;
  return root;
}

/** `base` with one to three of its values replaced, removed, or joined by an unknown key. */
export function mutated(base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc.tuple(base, fc.array(fc.tuple(fc.nat(), mutation), { minLength: 1, maxLength: 3 })).map(([value, mutations]) => {
    let root = structuredClone(value);
    for (const [at, m] of mutations) root = apply(root, at, m);
    return root;
  });
}

// --- Breaking the bytes of a body ----------------------------------------------------------------

/** JSON text broken at the byte level: cut, spliced with odd tokens and bytes, or re-encoded. */
export function brokenJson(text: string): fc.Arbitrary<Buffer> {
  const bytes = Buffer.from(text, 'utf8');
  const token = fc.constantFrom(
    '1e400',
    '-1e400',
    '1' + '0'.repeat(400),
    '0.' + '1'.repeat(400),
    '-',
    'NaN',
    'Infinity',
    'undefined',
    '"\\u0000"',
    '"\\ud800"',
    '"\\udfff\\ud800"',
    '"\u0000"',
    '"\\x41"',
    '"\\u12"',
    '{"a":1,"a":2}',
    '{"__proto__":{"x":1}}',
    ',',
    ']',
    '}}',
    "'a'",
    '/* c */',
  );
  const oddBytes = fc.constantFrom(Buffer.from([0x00]), Buffer.from([0xff, 0xfe]), Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from([0xc0, 0x80]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf4, 0x90, 0x80, 0x80]), Buffer.from([0x80]));
  const at = fc.nat({ max: bytes.length });
  return fc.oneof(
    at.map((i) => bytes.subarray(0, i)),
    fc.tuple(at, token).map(([i, tok]) => Buffer.concat([bytes.subarray(0, i), Buffer.from(tok), bytes.subarray(i)])),
    fc.tuple(at, oddBytes).map(([i, b]) => Buffer.concat([bytes.subarray(0, i), b, bytes.subarray(i)])),
    token.map((tok) => Buffer.from(tok)),
    fc.constant(Buffer.from(text, 'utf16le')),
    fc.constant(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])),
    fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
  );
}

// --- Media types and content codings -------------------------------------------------------------

export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 12 },
  fc.constantFrom(
    undefined,
    'application/json; charset=utf-8',
    'application/json; charset=utf-16',
    'application/json; charset=latin1',
    'application/json; charset=nope',
    'application/json; charset',
    'application/json; charset="utf-8',
    'application/json;;;',
    'application/merge-patch+json',
    'APPLICATION/JSON',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    '*/*',
    '',
    'json',
  ),
);

/** How a body is coded on the wire: the Content-Encoding header and the bytes. */
export function encoded(body: Buffer): fc.Arbitrary<{ encoding: string | undefined; bytes: Buffer }> {
  return fc.oneof(
    { arbitrary: fc.constant({ encoding: undefined, bytes: body }), weight: 12 },
    fc.constantFrom(
      { encoding: 'gzip', bytes: gzipSync(body) },
      { encoding: 'deflate', bytes: deflateSync(body) },
      { encoding: 'br', bytes: brotliCompressSync(body) },
      { encoding: 'gzip', bytes: body },
      { encoding: 'deflate', bytes: body },
      { encoding: 'br', bytes: body },
      { encoding: 'gzip', bytes: gzipSync(body).subarray(0, 12) },
      { encoding: 'gzip', bytes: gzipSync(gzipSync(body)) },
      { encoding: 'GZIP', bytes: gzipSync(body) },
      { encoding: 'identity', bytes: body },
      { encoding: 'gzip, br', bytes: body },
      { encoding: 'compress', bytes: body },
      { encoding: 'zstd', bytes: body },
      { encoding: 'x-gzip', bytes: gzipSync(body) },
      { encoding: '', bytes: body },
      { encoding: 'chunked', bytes: body },
    ),
  );
}

// --- Paths, queries and headers ------------------------------------------------------------------

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** Percent-encodes the UTF-8 of `s` (unpaired surrogates become U+FFFD, as any client sends them). */
export function pct(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += UNRESERVED.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Path segments and query values as they appear on the wire: odd escapes, bad UTF-8, traversal. */
export const oddEncodedText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '%00',
    'po_%00',
    '%00%00',
    '%FF',
    '%C0%80',
    '%ED%A0%80',
    '%F4%90%80%80',
    '%E0%A4%A',
    '%',
    '%%',
    '%zz',
    '%2F',
    '%5C',
    '..',
    '.',
    '%2e%2e',
    '%20',
    '+',
    '%0D%0A',
    '%E2%80%AE',
    '%EF%BB%BF',
    'é',
    'ÿ',
    '*',
    '!',
    '$',
    "'",
    '(',
    ':',
    '@',
    ';',
    ',',
    '=',
  ),
  nastyString.filter((s) => s.length < 5_000).map(pct),
  fc.integer({ min: 100, max: 12_000 }).map((n) => 'a'.repeat(n)),
);

/** Text a header value may carry on the wire (Node's client refuses the rest: NUL, CR, LF). */
export function headerSafe(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    out += ch.length === 1 && (c === 9 || (c >= 0x20 && c !== 0x7f && c <= 0xff)) ? ch : '?';
  }
  return out;
}
