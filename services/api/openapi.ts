import { ERROR_CODES } from '../../packages/core/errors.js';
import { route, type Family } from '../../packages/http/routes.js';

const errorSchema = {
  type: 'object',
  required: ['code', 'message', 'retryable', 'request_id'],
  properties: {
    code: { type: 'string', enum: Object.keys(ERROR_CODES) },
    message: { type: 'string' },
    retryable: { type: 'boolean' },
    param: { type: 'string' },
    request_id: { type: 'string' },
  },
};

/** Assembles the OpenAPI 3.1 document from the same route definitions (and schemas) the app serves. */
export function buildOpenApi(families: readonly Family[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const family of families) {
    for (const r of family.routes) {
      const path = r.path.replace(/:(\w+)/g, '{$1}');
      const parameters: unknown[] = [];
      for (const name of r.path.match(/:(\w+)/g) ?? []) {
        parameters.push({ name: name.slice(1), in: 'path', required: true, schema: { type: 'string' } });
      }
      const queryProps = (r.query?.properties ?? {}) as Record<string, unknown>;
      for (const [name, schema] of Object.entries(queryProps)) parameters.push({ name, in: 'query', required: false, schema });
      if (r.auth !== 'public' && r.auth.environmentHeader) {
        parameters.push({
          name: 'X-Environment',
          in: 'header',
          required: r.auth.environmentHeader === 'required',
          schema: { type: 'string', enum: ['sandbox', 'live'] },
        });
      }
      paths[path] ??= {};
      paths[path][r.method] = {
        tags: [family.name],
        summary: r.summary,
        ...(r.auth === 'public' ? { security: [] } : { security: [{ apiKey: [r.auth.scope] }] }),
        ...(parameters.length > 0 ? { parameters } : {}),
        ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: r.body } } } } : {}),
        responses: {
          [String(r.status ?? 200)]: {
            description: 'Success',
            content: { 'application/json': { schema: r.response ?? { type: 'object' } } },
          },
          default: { description: 'Error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Sika API', version: '1.0.0', description: 'Payments for African merchants: mobile money and cards in, mobile money and bank out.' },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'sk_test_… (sandbox) or sk_live_… (live)' } },
      schemas: { Error: errorSchema },
    },
  };
}

export function openApiFamily(document: () => Record<string, unknown>): Family {
  return {
    name: 'openapi',
    routes: [
      route({ method: 'get', path: '/openapi.json', summary: 'This API described as OpenAPI 3.1', auth: 'public', handler: async () => document() }),
    ],
  };
}
