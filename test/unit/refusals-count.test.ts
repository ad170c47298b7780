/**
 * The ratchets of issue 54, item 5 (docs/architecture.md, "Refusals"): domain and family code refuses
 * with a Refusal in domain words, never with the HTTP ApiError nor with a request's own names. Each
 * count may only go down, and each step down lowers its ceiling to the new count.
 *
 * `ApiError`s: every occurrence of the word (imports and uses).
 *
 * Request names: the field a refusal names where the source spells it out, that is the third
 * argument of `new Refusal(...)`, the last argument of `assertOwned(...)`, and the string a
 * property or parameter whose name ends in `param`, `Param`, `field` or `Field` is given (`param:
 * 'x'`, `field = 'x'`: helpers that pass a field on), when it is a string literal or a template (its
 * fixed parts), and it is a request's name rather than a domain one: it has a snake_case word
 * (`payment_method.type`, `recipient_id`), an index in brackets (`items[0].price`), or it is the
 * bare path parameter `id`. Domain fields are camelCase words joined by dots (`paymentMethod.type`,
 * `items.0.price`, `contractId`); the route maps them to its request's names (Route.fields).
 */
import fs from 'node:fs';
import path from 'node:path';
import t from '#tap';

const root = path.resolve(import.meta.dirname, '../../..');
const DIRS = ['packages/families'];
/** The most `ApiError`s domain and family code may hold; it only goes down, to 0. */
const CEILING = 0;
/** The most request names domain and family refusals may hold; it only goes down, to 0. */
const REQUEST_NAMES_CEILING = 0;

/** Each source file under DIRS with its text: the write side; a family's edge (http/: routes, schemas, pages) speaks HTTP, and its read side (read/) was never counted. */
function sources(): Map<string, string> {
  const files = new Map<string, string>();
  for (const dir of DIRS) {
    for (const file of fs.readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })) {
      if (!/\.tsx?$/.test(file) || /(^|\/)(http|read)\//.test(file.split(path.sep).join('/'))) continue;
      const where = path.posix.join(dir, file.split(path.sep).join('/'));
      files.set(where, fs.readFileSync(path.join(root, where), 'utf8'));
    }
  }
  return files;
}

/** The top-level arguments of the call whose `(` is at `open`, as source text. */
function callArguments(text: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"' || c === '`') {
      i = stringEnd(text, i);
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        args.push(text.slice(start, i).trim());
        return args.filter((a) => a !== '');
      }
    } else if (c === ',' && depth === 1) {
      args.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  return args;
}

/** The index of the quote that closes the string opening at `i` (templates: their `${...}` skipped whole). */
function stringEnd(text: string, i: number): number {
  const quote = text[i];
  for (let j = i + 1; j < text.length; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === quote) return j;
    else if (quote === '`' && text[j] === '$' && text[j + 1] === '{') {
      let depth = 0;
      for (j++; j < text.length; j++) {
        if (text[j] === '{') depth++;
        else if (text[j] === '}' && --depth === 0) break;
      }
    }
  }
  return text.length;
}

/** A string literal's text, a template's with each `${...}` as `*`; undefined for any other expression. */
function literalText(expression: string): string | undefined {
  const m = /^(['"])((?:\\.|(?!\1).)*)\1$/s.exec(expression) ?? /^(`)((?:\\.|[^`])*)`$/s.exec(expression);
  return m ? m[2]!.replace(/\$\{[^}]*\}/g, '*') : undefined;
}

/** Whether a field is a request's name: a snake_case word, an index in brackets, or the bare path parameter `id`. */
function isRequestName(field: string): boolean {
  return field === 'id' || field.includes('[') || /[a-z0-9]_[a-z0-9*]/i.test(field);
}

/** Every field a refusal names as a literal in `text` (the rule of the doc comment above). */
function refusalFields(text: string): string[] {
  const fields: string[] = [];
  const lastOf = (call: RegExp, at: (args: string[]) => string | undefined) => {
    for (const m of text.matchAll(call)) {
      const arg = at(callArguments(text, m.index + m[0].length - 1));
      const literal = arg === undefined ? undefined : literalText(arg);
      if (literal !== undefined) fields.push(literal);
    }
  };
  lastOf(/\bnew Refusal\(/g, (args) => args[2]);
  lastOf(/\bassertOwned\(/g, (args) => (args.length === 4 ? args[3] : undefined));
  for (const m of text.matchAll(/\b\w*(?:param|Param|field|Field)\??\s*(?::\s*(?:string\s*=\s*)?|=)\s*(['"`](?:\\.|[^'"`\\])*['"`])/g)) {
    const literal = literalText(m[1]!);
    if (literal !== undefined) fields.push(literal);
  }
  return fields;
}

t.test('the rule finds request names in refusals, and only those', async (t) => {
  const sample = [
    "throw new Refusal('IKW-RES-001', `No such thing: '${id}'`, 'id');",
    "throw new Refusal('IKW-VAL-001', 'Bad', `payment_method.${other}`);",
    "throw new Refusal('IKW-VAL-001', f('a, b'), 'items[0].price_id');",
    "throw new Refusal('IKW-VAL-001', 'Fine', 'paymentMethod.mobileMoney.msisdn');",
    "throw new Refusal('IKW-VAL-001', 'Fine', `items.${n}.price`);",
    "throw new Refusal('IKW-VAL-001', 'Computed', field);",
    "throw new Refusal('IKW-VAL-001');",
    "assertOwned(state.thing, owner, 'No such thing', 'recipient_id');",
    "assertOwned(state.thing, owner, 'No such thing', 'thingId');",
    "check(input, { param: 'transaction_country' });",
    "function check(input: X, challengeParam = 'challenge_id') {}",
    "const x = { field: 'amount' };",
  ].join('\n');
  t.same(
    refusalFields(sample).filter(isRequestName),
    ['id', 'payment_method.*', 'items[0].price_id', 'recipient_id', 'transaction_country', 'challenge_id'],
    'snake_case, brackets and the bare id, from each kind of place; domain names and computed fields pass',
  );
});

t.test('domain and family code holds no more ApiErrors than the ceiling', async (t) => {
  const counts = new Map<string, number>();
  for (const [file, text] of sources()) {
    const n = text.match(/\bApiError\b/g)?.length ?? 0;
    if (n > 0) counts.set(file, n);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const worst = [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([f, n]) => `${n} ${f}`)
    .join('\n');
  t.ok(
    total <= CEILING,
    `${total} ApiErrors under ${DIRS.join(' and ')}, above the ceiling of ${CEILING}: refuse with a Refusal (packages/core/refusal.ts) in domain words, and let the route name the request parameter (Route.fields). The most:\n${worst}`,
  );
  // A ratchet holds only if each step down is written down: a count below a ceiling above 0 fails too.
  if (CEILING > 0) t.ok(total >= CEILING, `${total} ApiErrors, below the ceiling of ${CEILING}: well done; lower CEILING in test/unit/refusals-count.test.ts to ${total}`);
});

t.test('domain and family refusals name no more request parameters than the ceiling', async (t) => {
  const found: string[] = [];
  for (const [file, text] of sources()) {
    for (const field of refusalFields(text).filter(isRequestName)) found.push(`${file}: '${field}'`);
  }
  t.ok(
    found.length <= REQUEST_NAMES_CEILING,
    `${found.length} request names in refusals under ${DIRS.join(' and ')}, above the ceiling of ${REQUEST_NAMES_CEILING}: name the domain field (camelCase: 'contractId', 'paymentMethod.type', 'items.0.price') and map it in the route's fields (packages/http/routes.ts). They are:\n${found.join('\n')}`,
  );
  if (REQUEST_NAMES_CEILING > 0)
    t.ok(found.length >= REQUEST_NAMES_CEILING, `${found.length} request names, below the ceiling of ${REQUEST_NAMES_CEILING}: well done; lower REQUEST_NAMES_CEILING in test/unit/refusals-count.test.ts to ${found.length}`);
});
