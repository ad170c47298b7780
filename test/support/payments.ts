/**
 * Helpers shared by the payment intent suites: coded-error assertions, a provider probe that
 * counts (and can hold) connector calls, and shortcuts for the sandbox operator's test numbers.
 */
import type { CollectInitiation, CollectRequest, Rails } from '#packages/connectors/port.js';
import type { Test } from 'tap';
import { startPaymentsService, type TestResponse, type TestService } from './system.js';
import type { Environment } from '#packages/core/owner.js';

/** A valid Senegalese Orange number (+221 77 123 45 xx) whose last two digits pick the sandbox outcome. */
export const snNumber = (lastTwo: string) => `+2217712345${lastTwo}`;

export interface MobileMoney {
  type: 'mobile_money';
  mobile_money: { country: string; operator: string; msisdn: string; preferred_flow?: string };
}

export const mobileMoney = (msisdn: string, operator = 'orange_money', country = 'SN'): MobileMoney => ({
  type: 'mobile_money',
  mobile_money: { country, operator, msisdn },
});

export const card = (token: string) => ({ type: 'card', card: { token } });

export { assertError, assertOk } from './assertions.js';
/** `operatorAnswers(svc)`: the sandbox operator's answers fall due and are applied. */
export { advance as operatorAnswers, OPERATOR_DELAY_MS } from './system.js';

/** Creates an intent (XOF 10,000 in Senegal unless told otherwise) and returns the object. */
export async function createIntent(svc: TestService, key: string, body: Record<string, unknown> = {}) {
  const res = await svc.request('POST', '/api/v1/payment-intents', {
    key,
    body: { amount: 10_000, currency: 'xof', transaction_country: 'SN', ...body },
  });
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body;
}

export function confirm(svc: TestService, key: string, id: string, body: Record<string, unknown>): Promise<TestResponse> {
  return svc.request('POST', `/api/v1/payment-intents/${id}/confirm`, { key, body });
}

export async function retrieve(svc: TestService, key: string, id: string) {
  const res = await svc.request('GET', `/api/v1/payment-intents/${id}`, { key });
  if (res.status !== 200) throw new Error(`retrieve failed: ${res.status} ${res.text}`);
  return res.body;
}

/** An HTTP request that does not follow redirects (hosted pages answer 303 to the merchant's site). */
export async function rawRequest(svc: TestService, method: string, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${svc.baseUrl}${path}`, { method, headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * Wraps the connectors: records every `collect`, and while held, keeps each call waiting
 * until `release()`. A second call for the same intent while held releases at once, so a broken
 * lock shows up as a failed count rather than as a hung test.
 */
export class ProviderProbe {
  readonly calls: CollectRequest[] = [];
  private gate: Promise<void> | null = null;
  private open: (() => void) | null = null;
  /** Makes the next collect throw this error (a connector outage). */
  failNext: Error | null = null;

  private waiting: { id: string; resolve: () => void }[] = [];

  /** Resolves once collect has been called for this intent. */
  called(paymentIntentId: string): Promise<void> {
    if (this.callsFor(paymentIntentId) > 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.waiting.push({ id: paymentIntentId, resolve }));
  }

  callsFor(paymentIntentId: string): number {
    return this.calls.filter((c) => c.paymentIntentId === paymentIntentId).length;
  }

  hold(): void {
    this.gate = new Promise<void>((resolve) => {
      this.open = resolve;
    });
  }

  release(): void {
    this.open?.();
    this.gate = null;
    this.open = null;
  }

  /** For `startService({ rails })`: the rails themselves for everything but `collect`. */
  readonly wrap = (_environment: Environment, base: Rails): Rails => {
    const wrapped = Object.create(base) as Rails;
    wrapped.collect = async (req: CollectRequest): Promise<CollectInitiation> => {
      this.calls.push(req);
      for (const w of this.waiting.filter((x) => x.id === req.paymentIntentId)) w.resolve();
      this.waiting = this.waiting.filter((x) => x.id !== req.paymentIntentId);
      if (this.gate && this.callsFor(req.paymentIntentId) > 1) this.release();
      const gate = this.gate;
      if (gate) await gate;
      if (this.failNext) {
        const err = this.failNext;
        this.failNext = null;
        throw err;
      }
      return base.collect(req);
    };
    return wrapped;
  };
}

/**
 * `count` succeeded sandbox payments of `merchantId` (`pi_bulk000001`…, created a second apart from
 * `created`, 1,001 XOF and up) written straight into the read model as its projection writes them,
 * newest last: thousands of rows for an export in a second, where the API would take minutes.
 */
export async function bulkPayments(svc: TestService, merchantId: string, count: number, created: number): Promise<void> {
  await svc.system.knex.raw(
    `INSERT INTO read.payment_intents (id, seq, merchant_id, environment, status, customer, object)
     SELECT 'pi_bulk' || lpad(n::text, 6, '0'), 'zz' || lpad(n::text, 8, '0'), ?, 'sandbox', 'succeeded', NULL,
       json_build_object('id', 'pi_bulk' || lpad(n::text, 6, '0'), 'object', 'payment_intent', 'created', ?::bigint + n, 'livemode', false,
         'amount', 1000 + n, 'currency', 'xof', 'status', 'succeeded', 'description', 'Bulk, order ' || n, 'metadata', '{}'::json,
         'next_action', NULL, 'customer', NULL, 'transaction_country', 'SN', 'payer_country', 'SN', 'rail_country', 'SN',
         'payment_method', json_build_object('type', 'mobile_money', 'mobile_money', json_build_object('country', 'SN', 'operator', 'orange_money', 'msisdn', '••••4567')),
         'last_payment_error', NULL, 'latest_operation', NULL, 'return_url', NULL, 'amount_received', 1000 + n, 'fee', 10,
         'cancellation_reason', NULL, 'canceled_at', NULL)
     FROM generate_series(1, ?) AS n`,
    [merchantId, created, count],
  );
}

/** A payments service (startPaymentsService) whose rails record each collection they are asked to send, in order. */
export async function startRecordingCollects(t: Test): Promise<{ svc: TestService; collects: CollectRequest[] }> {
  const collects: CollectRequest[] = [];
  const svc = await startPaymentsService(t, {
    rails: (_environment, base) => {
      const rails = Object.create(base) as typeof base;
      rails.collect = async (request) => {
        collects.push(request);
        return base.collect(request);
      };
      return rails;
    },
  });
  return { svc, collects };
}
