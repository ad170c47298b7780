import type { Readable } from 'node:stream';
import { ApiError } from '../../../packages/core/errors.js';
import { route, type Family } from '../../../packages/http/routes.js';
import type { CallbackKind } from '../../../packages/connectors/pawapay/index.js';
import type { RailCallbacks } from '../../rails.js';

/** The largest callback body read (IKW-REQ-003 beyond, as every JSON body). */
const MAX_CALLBACK_BYTES = 1024 * 1024;

/** The headers a pawaPay callback's verification reads (RFC 9421 and 9530). */
const SIGNED_HEADERS = ['signature', 'signature-input', 'content-digest', 'signature-date', 'content-type'] as const;

const KINDS: readonly { kind: CallbackKind; what: string; emits: readonly string[] }[] = [
  { kind: 'deposits', what: 'a deposit (a payment intent’s collection)', emits: ['payment_intent.succeeded', 'payment_intent.payment_failed'] },
  { kind: 'payouts', what: 'a payout', emits: ['payout.updated', 'payout.delayed', 'payout.paid', 'payout.failed'] },
  { kind: 'refunds', what: 'a refund', emits: ['refund.succeeded', 'refund.failed'] },
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

const RECEIVED = {
  type: 'object',
  additionalProperties: false,
  required: ['received'],
  properties: { received: { const: true, description: 'Always true: the news was taken, applied or left to a status check, so the rail stops sending it' } },
} as const;

/**
 * The rails' callback URLs (docs/connectors.md, "Callbacks"), entered in each provider's dashboard:
 * public, the raw body kept for its signature. Verified and matched before anything moves; what
 * is not believed as told is left to a status check, and still answered 200 so the provider stops retrying.
 */
export function connectorsFamily(callbacks: RailCallbacks): Family {
  return {
    name: 'connectors',
    description: 'Where the payment rails (pawaPay, Paystack, Hub2) send their news. Each is verified by the rail\'s signature before anything is read from it.',
    routes: [
      ...KINDS.map(({ kind, what, emits }) =>
      route({
        method: 'post',
        path: `/connectors/pawapay/${kind}`,
        summary: `pawaPay's callback about ${what}: verified (RFC 9421 signature, Content-Digest) and matched on id, amount and currency before it moves any money`,
        description: [
          `Not for integrators: the URL to enter as pawaPay's ${kind} callback (\`$PUBLIC_URL/connectors/pawapay/${kind}\`, docs/connectors.md "Callback URLs"). pawaPay posts its news about ${what} here.`,
          '',
          "The exact body is verified first: its RFC 9421 signature must cover the method, Sika's host, the path, `signature-date` and `content-digest`, be fresh and made with pawaPay's key, and the `Content-Digest` must match (`401 IKW-PRV-003` otherwise, and nothing else happens). Final news is then read back from pawaPay's own record and matched on id, amount and currency before it moves any money; news not believed as told is answered 200 and left to a status check. The outcome reaches the merchant as the object's webhooks.",
        ].join('\n'),
        refusals: ['IKW-PRV-003', 'IKW-PRV-004', 'IKW-REQ-003'],
        emits,
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
        description: [
          "Not for integrators: the webhook URL to enter in Paystack's dashboard (`$PUBLIC_URL/connectors/paystack/events`, docs/connectors.md \"Webhook\"). `x-paystack-signature` must be the HMAC-SHA512 of the exact body under a configured secret key, checked before the body is read (`401 IKW-PRV-003` otherwise, and nothing else happens).",
          '',
          'A verified `transfer.success`, `transfer.failed` or `transfer.reversed` is matched on reference, amount and currency against its payout before it moves money; `charge.success` asks for the transaction\'s verification, `refund.processed` and `refund.failed` for the refunds\' status checks. Anything else is answered 200 and logged. The outcome reaches the merchant as the object\'s webhooks.',
        ].join('\n'),
        refusals: ['IKW-PRV-003', 'IKW-PRV-004', 'IKW-REQ-003'],
        emits: ['payout.paid', 'payout.failed', 'payment_intent.succeeded', 'payment_intent.payment_failed', 'refund.succeeded', 'refund.failed'],
        auth: 'public',
        rawBody: true,
        response: RECEIVED,
        handler: async (ctx) => {
          const body = await bytesOf(ctx.bodyStream!);
          await callbacks.paystack({ method: 'POST', path: '/connectors/paystack/events', headers: { 'x-paystack-signature': ctx.header('x-paystack-signature') }, body });
          return { received: true };
        },
      }),
      route({
        method: 'post',
        path: '/connectors/hub2/events',
        summary: "Hub2's webhook (payment.succeeded, payment.failed, transfer.succeeded, transfer.failed, …): its Hub2-Signature (HMAC-SHA256 of the body with the webhook's secret) checked before it is read, then Hub2's own record read back and matched on id, amount and currency before it moves any money",
        description: [
          "Not for integrators: the URL Sika's webhook is registered with at Hub2 (`$PUBLIC_URL/connectors/hub2/events`, docs/connectors.md \"Hub2\"). `Hub2-Signature` must carry the HMAC-SHA256 of the exact body under `HUB2_WEBHOOK_SECRET`, as `s1` (the current secret) or `s0` (the previous one, during the 24 hours after a change), checked before the body is read (`401 IKW-PRV-003` otherwise, and nothing else happens).",
          '',
          "A verified webhook is never believed as told: it names the payment intent or transfer to read again, and a status check of the Sika attempt it belongs to reads Hub2's record and matches it on id, amount and currency before it moves money. Anything else is answered 200 and logged. The outcome reaches the merchant as the object's webhooks.",
        ].join('\n'),
        refusals: ['IKW-PRV-003', 'IKW-PRV-004', 'IKW-REQ-003'],
        emits: ['payout.paid', 'payout.failed', 'payment_intent.succeeded', 'payment_intent.payment_failed'],
        auth: 'public',
        rawBody: true,
        response: RECEIVED,
        handler: async (ctx) => {
          const body = await bytesOf(ctx.bodyStream!);
          await callbacks.hub2({ method: 'POST', path: '/connectors/hub2/events', headers: { 'hub2-signature': ctx.header('hub2-signature') }, body });
          return { received: true };
        },
      }),
    ],
  };
}
