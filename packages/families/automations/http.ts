import http from 'node:http';
import https from 'node:https';
import { unixSeconds } from '#packages/core/clock.js';
import { pinnedLookup, resolveDeliveryTarget } from '#packages/webhooks/url-policy.js';
import { signatureHeader } from '#packages/webhooks/signing.js';
import type { Cidr } from '#packages/core/cidr.js';
import type { Environment } from '#packages/core/owner.js';

const RESPONSE_EXCERPT_BYTES = 4 * 1024;

export interface HttpCall {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** Sent as JSON; none for GET and DELETE without a body. */
  body: unknown;
  /** The step's idempotency key: `webhook-id` and `Idempotency-Key`, the same on every attempt. */
  key: string;
  secret: string;
  at: Date;
  environment: Environment;
  allowedPrivateRanges: readonly Cidr[];
  timeoutMs: number;
}

export type HttpOutcome = { ok: true; status: number; body: string } | { ok: false; status: number | null; body: string | null; error: string };

/**
 * One signed request of an http_request step, under the webhook URL policy: the name is resolved
 * again now and refused when any address is private (DNS rebinding), the connection goes to the
 * address that was checked, and redirects are not followed (a 3xx is a failure). Signed like a
 * webhook (Standard Webhooks) with the automation's secret.
 */
export async function callUrl(call: HttpCall): Promise<HttpOutcome> {
  const target = await resolveDeliveryTarget(call.url, { environment: call.environment, allowedPrivateRanges: call.allowedPrivateRanges }).catch((err: unknown) => ({
    ok: false as const,
    message: err instanceof Error ? err.message : String(err),
  }));
  if (!target.ok) return { ok: false, status: null, body: null, error: `refused: ${target.message}` };
  const payload = call.body === undefined ? '' : JSON.stringify(call.body);
  const timestamp = unixSeconds(call.at);
  const headers: Record<string, string> = {
    ...call.headers,
    'user-agent': 'Sika-Automations/1.0',
    'webhook-id': call.key,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader([call.secret], call.key, timestamp, payload),
    'idempotency-key': call.key,
    'content-length': String(Buffer.byteLength(payload)),
    ...(payload ? { 'content-type': 'application/json' } : {}),
  };
  const url = new URL(call.url);
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: HttpOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(outcome);
    };
    const request = (url.protocol === 'https:' ? https : http).request(url, { method: call.method, headers, lookup: pinnedLookup(target.address, target.family), agent: false });
    const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${call.timeoutMs} ms`)), call.timeoutMs);
    request.on('response', (res) => {
      const chunks: Buffer[] = [];
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        if (read < RESPONSE_EXCERPT_BYTES) chunks.push(chunk);
        read += chunk.length;
      });
      const finish = () => {
        const status = res.statusCode ?? 0;
        const body = Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT_BYTES);
        done(status >= 200 && status < 300 ? { ok: true, status, body } : { ok: false, status, body, error: `HTTP ${status}` });
      };
      res.on('end', finish);
      res.on('close', finish);
    });
    request.on('error', (err) => done({ ok: false, status: null, body: null, error: err.message }));
    request.end(payload);
  });
}
