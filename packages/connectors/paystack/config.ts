import { ConfigError, parseDuration, url, type Env } from '#packages/core/config-parsing.js';

// Paystack's settings (docs/connectors.md, "Paystack"): parsed here; its rail (rail.ts) hands the parser to the rails' list (packages/connectors/rails.ts).

/** One Paystack account: its secret key (`sk_live_…` or `sk_test_…`; the key decides the mode) and its API's base URL. */
export interface PaystackAccount {
  apiUrl: string;
  secretKey: string;
}

export interface PaystackConfig {
  /** PAYSTACK_SECRET_KEY (`sk_live_…`): live cards and bank payouts go through Paystack; null: refused (IKW-PRV-001). */
  live: PaystackAccount | null;
  /** PAYSTACK_SANDBOX_SECRET_KEY (`sk_test_…`): sandbox cards and bank payouts go through Paystack's test mode instead of the simulator. */
  sandbox: PaystackAccount | null;
  /** PAYSTACK_STATUS_CHECK_AFTER: the first status check of an attempt with no final answer. */
  statusCheckAfterMs: number;
}

/** Paystack's keys: one base URL for both modes, the key's prefix says which; a key of the other kind stops the start. */
export function paystackConfig(env: Env): PaystackConfig {
  const apiUrl = (url(env, 'PAYSTACK_API_URL', ['https:', 'http:']) ?? 'https://api.paystack.co').replace(/\/+$/, '');
  const account = (name: string, prefix: string, mode: string): PaystackAccount | null => {
    const secretKey = env[name] || null;
    if (secretKey === null) return null;
    if (!secretKey.startsWith(prefix) || secretKey.length <= prefix.length) {
      throw new ConfigError(name, `must be a Paystack ${mode} secret key (${prefix}…)${/^[sp]k_(live|test)_/.test(secretKey) ? `, not a ${secretKey.slice(0, 8)}… key` : ''}`);
    }
    return { apiUrl, secretKey };
  };
  const statusCheckAfter = env.PAYSTACK_STATUS_CHECK_AFTER ? parseDuration(env.PAYSTACK_STATUS_CHECK_AFTER) : 120_000;
  if (statusCheckAfter === null || statusCheckAfter <= 0) throw new ConfigError('PAYSTACK_STATUS_CHECK_AFTER', 'must be a duration like 2m');
  return { live: account('PAYSTACK_SECRET_KEY', 'sk_live_', 'live'), sandbox: account('PAYSTACK_SANDBOX_SECRET_KEY', 'sk_test_', 'test'), statusCheckAfterMs: statusCheckAfter };
}
