import { ConfigError, parseDuration, url, type Env } from '#packages/core/config-parsing.js';

// Hub2's settings (docs/connectors.md, "Hub2"): parsed here; its rail (rail.ts) hands the parser to the rails' list (packages/connectors/rails.ts).

/** One Hub2 account: the API's base URL (one host for both environments), its key and Hub2's id of the merchant (Sika). */
export interface Hub2Account {
  apiUrl: string;
  apiKey: string;
  merchantId: string;
}

export interface Hub2Config {
  /** HUB2_API_KEY and HUB2_MERCHANT_ID: live mobile money Hub2 carries goes through it; null: refused (IKW-PRV-001). */
  live: Hub2Account | null;
  /** HUB2_SANDBOX_API_KEY and HUB2_SANDBOX_MERCHANT_ID: the same against Hub2's sandbox (`Environment: sandbox`) instead of the simulator. */
  sandbox: Hub2Account | null;
  /** HUB2_WEBHOOK_SECRET: the secret Hub2 answered when Sika's webhook was registered; null: every webhook is refused (401). */
  webhookSecret: string | null;
  /** HUB2_STATUS_CHECK_AFTER: the first status check of an attempt with no final answer. */
  statusCheckAfterMs: number;
  /**
   * HUB2_PAYOUT_OPERATORS: the operators Hub2's accounts pay out to, as `CC:operator` (`TG:tmoney`);
   * null: every operator Hub2 pays out to (docs/connectors.md, "Hub2"). Pay-ins are not limited by it.
   */
  payoutOperators: readonly string[] | null;
}

/**
 * Hub2's accounts: one host for both environments (the `Environment` header says which), each
 * account a key and Hub2's merchant id, both or neither.
 */
export function hub2Config(env: Env): Hub2Config {
  const apiUrl = (url(env, 'HUB2_API_URL', ['https:', 'http:']) ?? 'https://api.hub2.io').replace(/\/+$/, '');
  const account = (keyName: string, merchantName: string): Hub2Account | null => {
    const apiKey = env[keyName] || null;
    const merchantId = env[merchantName] || null;
    if (apiKey === null && merchantId === null) return null;
    if (apiKey === null) throw new ConfigError(keyName, `is required when ${merchantName} is set`);
    if (merchantId === null) throw new ConfigError(merchantName, `is required when ${keyName} is set (the merchant id shown in Hub2's dashboard)`);
    return { apiUrl, apiKey, merchantId };
  };
  const statusCheckAfter = env.HUB2_STATUS_CHECK_AFTER ? parseDuration(env.HUB2_STATUS_CHECK_AFTER) : 120_000;
  if (statusCheckAfter === null || statusCheckAfter <= 0) throw new ConfigError('HUB2_STATUS_CHECK_AFTER', 'must be a duration like 2m');
  return {
    live: account('HUB2_API_KEY', 'HUB2_MERCHANT_ID'),
    sandbox: account('HUB2_SANDBOX_API_KEY', 'HUB2_SANDBOX_MERCHANT_ID'),
    webhookSecret: env.HUB2_WEBHOOK_SECRET || null,
    statusCheckAfterMs: statusCheckAfter,
    payoutOperators: hub2PayoutOperators(env),
  };
}

/**
 * HUB2_PAYOUT_OPERATORS: `CC:operator` entries (`TG:tmoney`), country upper case and operator lower
 * case; unset: null. Whether Hub2 pays out to each is checked where its connector is built.
 */
function hub2PayoutOperators(env: Env): string[] | null {
  const raw = env.HUB2_PAYOUT_OPERATORS?.trim();
  if (!raw) return null;
  return raw.split(',').map((entry) => {
    const match = /^([A-Za-z]{2}):([A-Za-z_]+)$/.exec(entry.trim());
    if (!match) throw new ConfigError('HUB2_PAYOUT_OPERATORS', `'${entry.trim()}' is not CC:operator (e.g. ML:orange_money,TG:tmoney)`);
    return `${match[1]!.toUpperCase()}:${match[2]!.toLowerCase()}`;
  });
}
