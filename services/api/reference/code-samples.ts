/**
 * The code samples of the rendered reference (/docs): `curl` and the typed TypeScript client
 * (clients/typescript) for each operation, written from the operation itself (its path, method,
 * parameters, credential and request example) as Redoc's `x-codeSamples`, so a sample cannot say
 * anything the document does not.
 */

type Json = Record<string, unknown>;

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Json;
  example?: unknown;
}

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** A copy of the document with `x-codeSamples` on every operation; the document itself is left as it is. */
export function withCodeSamples(document: Json): Json {
  const copy = structuredClone(document) as Json & { paths: Record<string, Record<string, Json>> };
  for (const [path, item] of Object.entries(copy.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation) operation['x-codeSamples'] = codeSamples(path, method, operation);
    }
  }
  return copy;
}

export function codeSamples(path: string, method: (typeof METHODS)[number], operation: Json): CodeSample[] {
  const parameters = (operation.parameters ?? []) as Parameter[];
  const body = requestExample(operation);
  return [
    { lang: 'Shell', label: 'curl', source: curl(path, method, operation, parameters, body) },
    { lang: 'TypeScript', label: 'TypeScript (@sika/client)', source: typescript(path, method, parameters, body) },
  ];
}

/** The request body to show: the operation's first example, else one made of the required fields. */
function requestExample(operation: Json): unknown {
  const content = (operation.requestBody as { content?: Record<string, Json> } | undefined)?.content;
  const media = content?.['application/json'];
  if (!media) return undefined;
  const schema = media.schema as Json | undefined;
  const examples = media.examples as Record<string, { value?: unknown }> | undefined;
  return media.example ?? Object.values(examples ?? {})[0]?.value ?? (schema?.examples as unknown[] | undefined)?.[0] ?? skeleton(schema, 0);
}

/** A value of the schema's shape: its example, constant or first enum value, or its type's placeholder. */
function skeleton(schema: Json | undefined, depth: number): unknown {
  if (!schema || depth > 6) return undefined;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum.find((v) => v !== null);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((name) => [name, skeleton(properties[name], depth + 1)]).filter(([, v]) => v !== undefined));
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    case 'string':
      return schema.format === 'uuid' ? '00000000-0000-4000-8000-000000000000' : 'string';
    default:
      return undefined;
  }
}

/** A path parameter's placeholder: its example, else `<name>`. */
const placeholder = (p: Parameter) => String(p.example ?? (p.schema?.examples as unknown[] | undefined)?.[0] ?? `<${p.name}>`);

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

function curl(path: string, method: string, operation: Json, parameters: Parameter[], body: unknown): string {
  const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(placeholder(parameters.find((p) => p.in === 'path' && p.name === name) ?? { name, in: 'path' })));
  const query = parameters.filter((p) => p.in === 'query' && p.required).map((p) => `${p.name}=${encodeURIComponent(placeholder(p))}`);
  const lines = [`curl -X ${method.toUpperCase()} "$SIKA_API_BASE${url}${query.length > 0 ? `?${query.join('&')}` : ''}"`];
  const security = (operation.security ?? []) as Record<string, unknown>[];
  if (security.length > 0) lines.push(`-H "Authorization: Bearer $SIKA_API_KEY"`);
  const environment = parameters.find((p) => p.in === 'header' && p.name === 'X-Environment');
  if (environment) lines.push(`-H "X-Environment: sandbox"`);
  if (parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key')) lines.push(`-H "Idempotency-Key: $(uuidgen)"`);
  if (body !== undefined) {
    lines.push(`-H "Content-Type: application/json"`);
    lines.push(`-d ${shellQuote(JSON.stringify(body, null, 2))}`);
  }
  return lines.join(' \\\n  ');
}

/** `const x = { … }` as TypeScript, indented under the call. */
const literal = (value: unknown, indent: string) => JSON.stringify(value, null, 2).replaceAll('\n', `\n${indent}`);

function typescript(path: string, method: string, parameters: Parameter[], body: unknown): string {
  const init: string[] = [];
  const inPath = parameters.filter((p) => p.in === 'path');
  const inQuery = parameters.filter((p) => p.in === 'query' && p.required);
  const params: string[] = [];
  if (inPath.length > 0) params.push(`path: ${literal(Object.fromEntries(inPath.map((p) => [p.name, placeholder(p)])), '  ')}`);
  if (inQuery.length > 0) params.push(`query: ${literal(Object.fromEntries(inQuery.map((p) => [p.name, placeholder(p)])), '  ')}`);
  if (params.length > 0) init.push(`params: { ${params.join(', ')} }`);
  if (body !== undefined) init.push(`body: ${literal(body, '  ')}`);
  const call = `await sika.${method}('${path}'${init.length > 0 ? `, {\n  ${init.join(',\n  ')},\n}` : ''});`;
  return [
    "import { Sika } from '@sika/client';",
    '',
    "const sika = new Sika({ apiKey: process.env.SIKA_API_KEY ?? '', baseUrl: process.env.SIKA_API_BASE });",
    // POSTs carry an Idempotency-Key the client makes, reused by its retries (clients/typescript/README.md).
    `const answer = ${call}`,
  ].join('\n');
}
