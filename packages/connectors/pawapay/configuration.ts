import { createPublicKey, type KeyObject } from 'node:crypto';
import type { Clock } from '#packages/core/clock.js';
import { decimalsOf } from './amounts.js';

/**
 * What pawaPay says about the account, read and cached: its active configuration (GET
 * /v2/active-conf: providers, currencies, limits, decimals, how payments are authorised, whether
 * requests and callbacks are signed), the providers' availability (GET /v2/availability) and the
 * keys its callbacks are signed with (GET /v2/public-key/http).
 */

export type OperationType = 'DEPOSIT' | 'PAYOUT' | 'REFUND';

/** One provider × currency × operation of the active configuration. */
export interface OperationConf {
  currency: string;
  decimals: number;
  /** Decimal strings, as pawaPay writes them. */
  minTransactionLimit?: string;
  maxTransactionLimit?: string;
  /** PROVIDER_AUTH (a PIN prompt), PREAUTH (an OTP the payer gets first), REDIRECT_AUTH (a page). */
  authType?: string;
}

export interface ActiveConf {
  signedRequestsOnly: boolean;
  signedCallbacks: boolean;
  /** The operation of `provider` in `currency` (any currency when none is given); undefined when the account does not have it. */
  operation(provider: string, type: OperationType, currency?: string): OperationConf | undefined;
}

/**
 * Reads the active configuration. pawaPay's own example mixes two shapes in `operationTypes`
 * (`{"DEPOSIT": {…}}` and `{"operationType": "PAYOUT", …}`): both are read. Anything that is not
 * an object is skipped, so one odd entry does not hide the rest.
 */
export function parseActiveConf(body: unknown): ActiveConf {
  const conf = object(body);
  const signatures = object(conf.signatureConfiguration);
  const operations = new Map<string, OperationConf[]>();
  for (const country of array(conf.countries)) {
    for (const provider of array(object(country).providers)) {
      const code = object(provider).provider;
      if (typeof code !== 'string') continue;
      for (const currency of array(object(provider).currencies)) {
        const currencyCode = object(currency).currency;
        if (typeof currencyCode !== 'string') continue;
        for (const entry of array(object(currency).operationTypes)) {
          const e = object(entry);
          const [type, details] = typeof e.operationType === 'string' ? [e.operationType, e] : Object.keys(e).length === 1 ? [Object.keys(e)[0]!, object(Object.values(e)[0])] : [undefined, {}];
          if (type !== 'DEPOSIT' && type !== 'PAYOUT' && type !== 'REFUND') continue;
          const key = `${code}/${type}`;
          operations.set(key, [
            ...(operations.get(key) ?? []),
            {
              currency: currencyCode.toUpperCase(),
              decimals: decimalsOf(details.decimalsInAmount),
              ...(typeof details.minTransactionLimit === 'string' ? { minTransactionLimit: details.minTransactionLimit } : {}),
              ...(typeof details.maxTransactionLimit === 'string' ? { maxTransactionLimit: details.maxTransactionLimit } : {}),
              ...(typeof details.authType === 'string' ? { authType: details.authType } : {}),
            },
          ]);
        }
      }
    }
  }
  return {
    // Unknown means signed: the strict reading.
    signedRequestsOnly: signatures.signedRequestsOnly === true,
    signedCallbacks: signatures.signedCallbacks !== false,
    operation: (provider, type, currency) => operations.get(`${provider}/${type}`)?.find((o) => currency === undefined || o.currency === currency.toUpperCase()),
  };
}

export type ProviderStatus = 'OPERATIONAL' | 'DELAYED' | 'CLOSED';

/** GET /v2/availability: each provider's status per operation, keyed `PROVIDER/OPERATION`. */
export function parseAvailability(body: unknown): ReadonlyMap<string, ProviderStatus> {
  const out = new Map<string, ProviderStatus>();
  for (const country of array(body)) {
    for (const provider of array(object(country).providers)) {
      const code = object(provider).provider;
      for (const op of array(object(provider).operationTypes)) {
        const { operationType, status } = object(op);
        if (typeof code === 'string' && typeof operationType === 'string' && (status === 'OPERATIONAL' || status === 'DELAYED' || status === 'CLOSED')) {
          out.set(`${code}/${operationType}`, status);
        }
      }
    }
  }
  return out;
}

/** GET /v2/public-key/http: the keys by id; an entry that is not a public key is skipped. */
export function parsePublicKeys(body: unknown): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  for (const entry of array(body)) {
    const { id, key } = object(entry);
    if (typeof id !== 'string' || typeof key !== 'string') continue;
    try {
      keys.set(id, createPublicKey(key));
    } catch {
      // Not a PEM public key: no callback can be verified with it.
    }
  }
  return keys;
}

/** How long the keys' endpoint is left alone after a failed fetch: doubling from `firstMs` up to `maxMs`. */
export interface KeyFetchBackoff {
  firstMs: number;
  maxMs: number;
}

/** The keys could not be fetched, now or recently: nothing can be verified until the next try. */
export class KeysUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeysUnavailable';
  }
}

/**
 * pawaPay's callback keys by id. An unknown key id reloads the set (pawaPay rotates keys), at most
 * once per `minReloadMs`, so a flood of made-up key ids costs one call per interval. A failed
 * fetch is not tried again before its back-off has passed (doubling, bounded): callbacks that come
 * meanwhile are not verified, and pawaPay's endpoint is not asked once per callback while it fails.
 */
export class PublicKeys {
  private keys = new Map<string, KeyObject>();
  private loadedAt = -Infinity;
  private loading: Promise<void> | undefined;
  /** The failures in a row and when the next fetch may go out; none since the last success. */
  private failing: { count: number; retryAt: number; reason: string } | undefined;

  constructor(
    private readonly load: () => Promise<Map<string, KeyObject>>,
    private readonly clock: Clock,
    private readonly minReloadMs: number,
    private readonly backoff: KeyFetchBackoff = { firstMs: 5_000, maxMs: 5 * 60_000 },
  ) {}

  /** The key of `keyId`; undefined when pawaPay lists none such; KeysUnavailable when the keys cannot be fetched. */
  async get(keyId: string): Promise<KeyObject | undefined> {
    const known = this.keys.get(keyId);
    if (known) return known;
    const now = this.clock.now().getTime();
    if (this.failing && now < this.failing.retryAt) {
      throw new KeysUnavailable(`pawaPay's keys could not be fetched (${this.failing.reason}); next try in ${Math.ceil((this.failing.retryAt - now) / 1000)} s`);
    }
    if (now - this.loadedAt >= this.minReloadMs || this.failing) {
      this.loading ??= this.load()
        .then(
          (keys) => {
            this.keys = keys;
            this.loadedAt = this.clock.now().getTime();
            this.failing = undefined;
          },
          (err: unknown) => {
            const count = (this.failing?.count ?? 0) + 1;
            const wait = Math.min(this.backoff.firstMs * 2 ** (count - 1), this.backoff.maxMs);
            this.failing = { count, retryAt: this.clock.now().getTime() + wait, reason: (err as Error).message };
            throw new KeysUnavailable(`pawaPay's keys could not be fetched: ${(err as Error).message}`);
          },
        )
        .finally(() => {
          this.loading = undefined;
        });
      await this.loading;
    }
    return this.keys.get(keyId);
  }
}

function object(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function array(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
