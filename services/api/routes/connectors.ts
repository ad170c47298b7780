import type { Readable } from 'node:stream';
import { ApiError } from '../../../packages/core/errors.js';
import { route, type Family } from '../../../packages/http/routes.js';
import type { CallbackKind } from '../../../packages/connectors/pawapay/index.js';
import type { RailCallbacks } from '../../rails.js';

/** The largest callback body read (IKW-REQ-003 beyond, as every JSON body). */
const MAX_CALLBACK_BYTES = 1024 * 1024;

/** The headers a pawaPay callback's verification reads (RFC 9421 and 9530). */
const SIGNED_HEADERS = ['signature', 'signature-input', 'content-digest', 'signature-date', 'content-type'] as const;

const KINDS: readonly { kind: CallbackKind; what: string }[] = [
  { kind: 'deposits', what: 'a deposit (a payment intent’s collection)' },
  { kind: 'payouts', what: 'a payout' },
  { kind: 'refunds', what: 'a refund' },
];

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

const RECEIVED = { type: 'object', additionalProperties: false, required: ['received'], properties: { received: { const: true } } } as const;

/**
 * The rails' callback URLs (docs/connectors.md, "Callbacks"), entered in each provider's dashboard:
 * public, the raw body kept for its signature. Verified and matched before anything moves; what
 * is not believed as told is left to a status check, and still answered 200 so the provider stops retrying.
 */
export function connectorsFamily(callbacks: RailCallbacks): Family {
  return {
    name: 'connectors',
    description: 'Where the payment rails (pawaPay, Paystack) send their news. Each is verified by the rail\'s signature before anything is read from it.',
    routes: [
      ...KINDS.map(({ kind, what }) =>
      route({
        method: 'post',
        path: `/connectors/pawapay/${kind}`,
        summary: `pawaPay's callback about ${what}: verified (RFC 9421 signature, Content-Digest) and matched on id, amount and currency before it moves any money`,
        auth: 'public',
        rawBody: true,
        response: RECEIVED,
        handler: async (ctx) => {
          const body = await bytesOf(ctx.bodyStream!);
          const headers = Object.fromEntries(SIGNED_HEADERS.map((name) => [name, ctx.header(name)]));
          await callbacks.pawapay(kind, { method: 'POST', path: `/connectors/pawapay/${kind}`, headers, body });
          return { received: true };
        },
      }),
      ),
      route({
        method: 'post',
        path: '/connectors/paystack/events',
        summary: "Paystack's webhook (transfer.success, transfer.failed, transfer.reversed, …): its x-paystack-signature (HMAC-SHA512 of the body with the account's secret key) checked before it is read, then matched on reference, amount and currency before it moves any money",
        auth: 'public',
        rawBody: true,
        response: RECEIVED,
        handler: async (ctx) => {
          const body = await bytesOf(ctx.bodyStream!);
          await callbacks.paystack({ method: 'POST', path: '/connectors/paystack/events', headers: { 'x-paystack-signature': ctx.header('x-paystack-signature') }, body });
          return { received: true };
        },
      }),
    ],
  };
}
