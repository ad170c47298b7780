import { createPrivateKey, type KeyObject } from 'node:crypto';
import { ConfigError, oneOf, parseDuration, url, type Env } from '#packages/core/config-parsing.js';

// pawaPay's settings (docs/connectors.md, "pawaPay"): parsed here; its rail (rail.ts) hands the parser to the rails' list (packages/connectors/rails.ts).

/** One pawaPay account: its API's base URL and its token. */
export interface PawapayAccount {
  apiUrl: string;
  apiToken: string;
}

export interface PawapayConfig {
  /** PAWAPAY_API_TOKEN: live mobile money goes through pawaPay; null: live is refused (IKW-PRV-001). */
  live: PawapayAccount | null;
  /** PAWAPAY_SANDBOX_API_TOKEN: sandbox mobile money goes through pawaPay's sandbox instead of the simulator. */
  sandbox: PawapayAccount | null;
  /** PAWAPAY_SIGNING_KEY and PAWAPAY_SIGNING_KEY_ID: deposits, payouts and refunds go out signed (RFC 9421). */
  signing: { keyId: string; privateKey: KeyObject; algorithm: 'ecdsa-p256-sha256' | 'ecdsa-p384-sha384' | 'rsa-pss-sha512' } | null;
  /** PAWAPAY_CALLBACK_SIGNATURES=off: an unsigned callback is taken as a prompt for a status check instead of refused (unsafe). */
  callbackSignatures: boolean;
  /** PAWAPAY_STATUS_CHECK_AFTER: the first status check of an attempt with no final answer. */
  statusCheckAfterMs: number;
}

/** The signing key of pawaPay requests: a PEM private key (`\\n` may stand for its line breaks) and the id pawaPay knows it by. */
function pawapaySigning(env: Env): PawapayConfig['signing'] {
  const pem = env.PAWAPAY_SIGNING_KEY || null;
  const keyId = env.PAWAPAY_SIGNING_KEY_ID || null;
  if (pem === null && keyId === null) return null;
  if (pem === null) throw new ConfigError('PAWAPAY_SIGNING_KEY', 'is required when PAWAPAY_SIGNING_KEY_ID is set');
  if (keyId === null) throw new ConfigError('PAWAPAY_SIGNING_KEY_ID', 'is required when PAWAPAY_SIGNING_KEY is set (the key id shown in pawaPay’s dashboard)');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem.replace(/\\n/g, '\n'));
  } catch {
    throw new ConfigError('PAWAPAY_SIGNING_KEY', 'is not a PEM private key');
  }
  const curve = privateKey.asymmetricKeyDetails?.namedCurve;
  if (privateKey.asymmetricKeyType === 'ec' && curve === 'prime256v1') return { keyId, privateKey, algorithm: 'ecdsa-p256-sha256' };
  if (privateKey.asymmetricKeyType === 'ec' && curve === 'secp384r1') return { keyId, privateKey, algorithm: 'ecdsa-p384-sha384' };
  if (privateKey.asymmetricKeyType === 'rsa') return { keyId, privateKey, algorithm: 'rsa-pss-sha512' };
  throw new ConfigError('PAWAPAY_SIGNING_KEY', 'must be an ECDSA P-256 or P-384 key, or an RSA key');
}

function pawapayAccount(env: Env, token: string, urlName: string, fallback: string): PawapayAccount | null {
  const apiToken = env[token] || null;
  const apiUrl = (url(env, urlName, ['https:', 'http:']) ?? fallback).replace(/\/+$/, '');
  return apiToken === null ? null : { apiUrl, apiToken };
}

export function pawapayConfig(env: Env): PawapayConfig {
  const statusCheckAfter = env.PAWAPAY_STATUS_CHECK_AFTER ? parseDuration(env.PAWAPAY_STATUS_CHECK_AFTER) : 120_000;
  if (statusCheckAfter === null || statusCheckAfter <= 0) throw new ConfigError('PAWAPAY_STATUS_CHECK_AFTER', 'must be a duration like 2m');
  return {
    live: pawapayAccount(env, 'PAWAPAY_API_TOKEN', 'PAWAPAY_API_URL', 'https://api.pawapay.io'),
    sandbox: pawapayAccount(env, 'PAWAPAY_SANDBOX_API_TOKEN', 'PAWAPAY_SANDBOX_API_URL', 'https://api.sandbox.pawapay.io'),
    signing: pawapaySigning(env),
    callbackSignatures: oneOf(env, 'PAWAPAY_CALLBACK_SIGNATURES', ['on', 'off'] as const, 'on') === 'on',
    statusCheckAfterMs: statusCheckAfter,
  };
}
