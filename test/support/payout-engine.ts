/**
 * Helpers of the payout engine suites and bench: requests with the payout headers, batches from
 * instruction lists or CSV text, and the sandbox wallets whose last two digits pick the outcome.
 */
import type { PayoutInitiation, PayoutRequest, Rails } from '#packages/connectors/port.js';
import { snNumber } from './payments.js';
import type { TestResponse, TestService } from './system.js';
import type { Environment } from '#packages/core/owner.js';

export const ENGINE = '/api/v1/payout-engine';

/** A request to the payout engine with X-Environment (sandbox) and, if given, an Idempotency-Key. */
export function engine(svc: TestService, key: string, method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<TestResponse> {
  return svc.request(method, `${ENGINE}${path}`, {
    key,
    ...(body !== undefined ? { body } : {}),
    headers: { 'x-environment': key.startsWith('sk_live_') ? 'live' : 'sandbox', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
  });
}

/** POST …/batches with a CSV body. */
export function postCsvBatch(svc: TestService, key: string, csv: string, idempotencyKey?: string): Promise<TestResponse> {
  return svc.request('POST', `${ENGINE}/batches`, {
    key,
    rawBody: csv,
    headers: { 'content-type': 'text/csv', 'x-environment': 'sandbox', ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
  });
}

/** An inline mobile money instruction to a Senegalese Orange Money wallet ending in `lastTwo` (sandbox outcome). */
export const walletInstruction = (amount: number, lastTwo = '67', extra: Record<string, unknown> = {}) => ({
  amount,
  destination_type: 'mobile_money',
  country: 'SN',
  operator: 'orange_money',
  msisdn: snNumber(lastTwo),
  ...extra,
});

/** A CSV batch of mobile money lines, one per amount. */
export function walletCsv(amounts: number[], lastTwo = (_i: number) => '67'): string {
  const lines = amounts.map((amount, i) => `${amount},XOF,mobile_money,SN,orange_money,${snNumber(lastTwo(i))},line-${i}`);
  return ['amount,currency,destination_type,country,operator,msisdn,reference', ...lines].join('\n') + '\n';
}

/** Drains the service until the batch is final (the sandbox operator answers after each clock step). */
export async function settle(svc: TestService, stepMs: number, rounds = 4): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await svc.system.drain();
    svc.clock.advance(stepMs);
  }
  await svc.system.drain();
}

/**
 * Wraps the sandbox connector so that payouts wait at the operator's door until `open()`: a test
 * can act while the first sends of a batch are in flight. `reached(n)` resolves once n calls wait.
 */
export class PayoutGate {
  calls: PayoutRequest[] = [];
  private opened!: () => void;
  private readonly open$ = new Promise<void>((resolve) => (this.opened = resolve));
  private readonly watchers: { n: number; resolve: () => void }[] = [];

  readonly wrap = (_environment: Environment, base: Rails): Rails => {
    const wrapped = Object.create(base) as Rails;
    wrapped.payout = async (req: PayoutRequest): Promise<PayoutInitiation> => {
      this.calls.push(req);
      for (const w of this.watchers) if (this.calls.length >= w.n) w.resolve();
      await this.open$;
      return base.payout(req);
    };
    return wrapped;
  };

  reached(n: number): Promise<void> {
    return new Promise((resolve) => (this.calls.length >= n ? resolve() : this.watchers.push({ n, resolve })));
  }

  open(): void {
    this.opened();
  }
}
