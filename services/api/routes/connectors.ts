import type { Readable } from 'node:stream';
import { ApiError } from '#packages/core/errors.js';
import { route, type RouteGroup } from '#packages/http/routes.js';
import type { RailInbound } from '#packages/connectors/port.js';

/** The largest callback body read (IKW-REQ-003 beyond, as every JSON body). */
const MAX_CALLBACK_BYTES = 1024 * 1024;

/** The exact bytes of a body: its signature and Content-Digest cover them, not their JSON. */
async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > MAX_CALLBACK_BYTES) throw new ApiError('IKW-REQ-003');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

const RECEIVED = {
  type: 'object',
  additionalProperties: false,
  required: ['received'],
  properties: { received: { const: true, description: 'Always true: the news was taken, applied or left to a status check, so the rail stops sending it' } },
} as const;

/**
 * The rails' callback URLs (docs/connectors.md, "Callbacks"), entered in each provider's dashboard:
 * one route per URL a rail's inbound side declares (packages/connectors/<rail>/inbound.ts), each
 * public, the raw body kept for its signature, and only the headers its verification reads passed
 * on. Verified and matched before anything moves; what is not believed as told is left to a status
 * check, and still answered 200 so the provider stops retrying.
 */
export function connectorsRoutes(inbound: readonly RailInbound[]): RouteGroup {
  return {
    name: 'connectors',
    description: "Where the payment rails (pawaPay, Paystack, Hub2) send their news. Each is verified by the rail's signature before anything is read from it.",
    routes: inbound.flatMap((rail) =>
      rail.endpoints.map((endpoint) =>
        route({
          method: 'post',
          path: endpoint.path,
          summary: endpoint.summary,
          description: endpoint.description,
          refusals: ['IKW-PRV-003', 'IKW-PRV-004', 'IKW-REQ-003'],
          emits: endpoint.emits,
          auth: 'public',
          rawBody: true,
          response: RECEIVED,
          handler: async (ctx) => {
            const body = await bytesOf(ctx.bodyStream!);
            const headers = Object.fromEntries(endpoint.headers.map((name) => [name, ctx.header(name)]));
            await endpoint.receive({ method: 'POST', path: endpoint.path, headers, body });
            return { received: true };
          },
        }),
      ),
    ),
  };
}
