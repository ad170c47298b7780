import os from 'node:os';
import path from 'node:path';
import { CidrSyntaxError, parseCidrList, type Cidr } from './cidr.js';
import { ConfigError, integer, oneOf, parseDuration, positiveDuration, UNIT_MS, url, type Env } from './config-parsing.js';

export { ConfigError, parseDuration } from './config-parsing.js';

/**
 * Every setting of the kernel, parsed once at start from environment variables. The rails' own
 * settings and the router's are the rails' list's (packages/connectors/rails.ts, `RailsConfig`);
 * the service's configuration is both (services/config.ts).
 */
export interface Config {
  port: number;
  /** HTTP worker processes of the standalone service (`make start`); 1: the one process serves. */
  apiWorkers: number;
  databaseUrl: string | null;
  /** DATA_DIR: the embedded PostgreSQL and generated secrets; by default `.data` in the project, wherever the process starts. */
  dataDir: string;
  eventStore: 'postgres' | 'esdb';
  esdbUrl: string | null;
  bus: 'postgres' | 'kafka';
  kafkaBrokers: string[];
  /** The topic that carries the event log (KAFKA_TOPIC); consumer groups are `<topic>.<consumer>`. */
  kafkaTopic: string;
  secretsKey: string | null;
  smtpUrl: string | null;
  webhookRetryScheduleMs: number[];
  /** WEBHOOK_ALLOW_PRIVATE_URLS: the otherwise refused addresses sandbox webhooks and automations may reach (none by default). */
  webhookAllowedPrivateRanges: Cidr[];
  sandboxOperatorDelayMs: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  idempotencyTtlMs: number;
  /** How long the message outbox keeps a kept message's sealed text, and its row (docs/operations.md). */
  outboxRetention: { textMs: number; rowMs: number };
  /** Base URL customers' browsers reach this service at (hosted status and test pages). */
  publicUrl: string;
  /** Live payments move from pending to available after this long (sandbox: at once). */
  settlementDelayMs: number;
  /** GET /metrics needs it as a bearer token; unset, /metrics is not served. */
  metricsToken: string | null;
  /** Requests per API key or signed-in user (null: no limit). */
  rateLimitPerCredential: RateLimitRule | null;
  /** Requests per client address, credential or not (null: no limit). */
  rateLimitPerAddress: RateLimitRule | null;
  /** Waits of the events API (`wait`) running at once per credential and per merchant, over every API process. */
  eventWaits: { perCredential: number; perMerchant: number };
  /** Sign-in attempts per e-mail address (null: no limit); code verification will share it. */
  signInLimit: RateLimitRule | null;
  /** Sign-in attempts per client address, across accounts (null: no limit). */
  signInAddressLimit: RateLimitRule | null;
  /** TRUST_PROXY: the peers whose X-Forwarded-For and X-Forwarded-Proto are believed (none by default). */
  trustedProxies: Cidr[];
  /** Answers to one user's second factor, across all their challenges (a right answer resets it). */
  secondFactorLimit: RateLimitRule | null;
  /** Messages of one merchant's automations, per environment, and to one recipient (docs/automations.md, "Sending"). */
  automationSendLimit: RateLimitRule | null;
  automationRecipientLimit: RateLimitRule | null;
  /** Customer-portal sign-in codes asked of one merchant, per environment, known addresses or not (docs/operations.md). */
  customerPortalCodeLimit: RateLimitRule | null;
  /** Bank account holder names checked for one merchant's credential, per environment; names found as given are not counted (docs/payouts.md). */
  nameCheckLimit: RateLimitRule | null;
  /** Invitations sent per organization and per inviting user, across organizations (docs/accounts.md, "Team"). */
  invitationLimits: { perOrganization: RateLimitRule | null; perInviter: RateLimitRule | null };
  /** How many organizations one user may belong to, created or joined (docs/accounts.md, "Organizations"). */
  organizationsPerUser: number;
  /** Mobile-money pushes started from public pages (docs/operations.md, "Public pushes"); null: no limit. */
  pushLimits: PushLimits;
  /** Sign-in with Google (OpenID Connect); null when GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET are unset. */
  google: GoogleConfig | null;
  /** Largest asset accepted, in bytes (docs/assets.md). */
  assetsMaxBytes: number;
  /** The S3-compatible bucket assets live in; null: the local disk under DATA_DIR/assets. */
  assetsS3: AssetsS3Config | null;
  /** Where support requests are e-mailed (docs/support.md); null: recorded, not e-mailed. */
  supportEmail: string | null;
}

export interface AssetsS3Config {
  endpoint: string | null;
  region: string;
  bucket: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
}

export interface GoogleConfig {
  /** The OpenID issuer (discovery at `<issuer>/.well-known/openid-configuration`). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Origins besides PUBLIC_URL's that `returnUrl` may point to (the dashboard's, when served elsewhere). */
  returnOrigins: string[];
}

/** Pushes a public page may start: per phone number (per environment), per checkout session, per payment link or funding campaign. */
export interface PushLimits {
  perNumber: RateLimitRule | null;
  perSession: RateLimitRule | null;
  perLink: RateLimitRule | null;
}

/** At most `limit` requests per `windowMs`. */
export interface RateLimitRule {
  limit: number;
  windowMs: number;
}

/**
 * The project's root (compiled, this file is dist/packages/core/config.js). DATA_DIR's default is
 * resolved against it, not the working directory, so the service and `bin/sika` started anywhere
 * share one database.
 */
export const PROJECT_ROOT = path.resolve(import.meta.dirname, '../../..');

export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '5m,30m,2h,8h,24h';

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

/** `100/1s`, `1000/1m`; `off` turns the limit off. */
function rateLimit(env: Env, name: string, fallback: string): RateLimitRule | null {
  const text = (env[name] || fallback).trim();
  if (text === 'off') return null;
  const m = /^(\d+)\/(\d+)(ms|s|m|h)$/.exec(text);
  const rule = m ? { limit: Number(m[1]), windowMs: Number(m[2]) * UNIT_MS[m[3]!]! } : null;
  if (!rule || rule.limit <= 0 || rule.windowMs <= 0) throw new ConfigError(name, `must be like 100/1s or 1000/1m, or off; got "${text}"`);
  return rule;
}

function google(env: Env): GoogleConfig | null {
  const clientId = env.GOOGLE_CLIENT_ID || null;
  const clientSecret = env.GOOGLE_CLIENT_SECRET || null;
  if (clientId === null && clientSecret === null) return null;
  if (clientId === null) throw new ConfigError('GOOGLE_CLIENT_ID', 'is required when GOOGLE_CLIENT_SECRET is set');
  if (clientSecret === null) throw new ConfigError('GOOGLE_CLIENT_SECRET', 'is required when GOOGLE_CLIENT_ID is set');
  const issuer = (url(env, 'GOOGLE_ISSUER', ['https:', 'http:']) ?? 'https://accounts.google.com').replace(/\/+$/, '');
  const returnOrigins = (env.GOOGLE_RETURN_ORIGINS ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean)
    .map((o) => {
      let parsed: URL;
      try {
        parsed = new URL(o);
      } catch {
        throw new ConfigError('GOOGLE_RETURN_ORIGINS', `"${o}" is not an origin like https://dashboard.example.com`);
      }
      if (!['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== o.replace(/\/+$/, '')) throw new ConfigError('GOOGLE_RETURN_ORIGINS', `"${o}" is not an origin like https://dashboard.example.com`);
      return parsed.origin;
    });
  return { issuer, clientId, clientSecret, returnOrigins };
}

function assetsS3(env: Env): AssetsS3Config | null {
  const bucket = env.ASSETS_S3_BUCKET || null;
  const endpoint = url(env, 'ASSETS_S3_ENDPOINT', ['http:', 'https:']);
  const accessKeyId = env.ASSETS_S3_ACCESS_KEY_ID || null;
  const secretAccessKey = env.ASSETS_S3_SECRET_ACCESS_KEY || null;
  if (bucket === null) {
    if (endpoint !== null || accessKeyId !== null || secretAccessKey !== null) throw new ConfigError('ASSETS_S3_BUCKET', 'is required when another ASSETS_S3_* variable is set');
    return null;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new ConfigError('ASSETS_S3_BUCKET', `"${bucket}" is not a valid bucket name`);
  if ((accessKeyId === null) !== (secretAccessKey === null)) {
    throw new ConfigError(accessKeyId === null ? 'ASSETS_S3_ACCESS_KEY_ID' : 'ASSETS_S3_SECRET_ACCESS_KEY', 'is required with the other S3 key variable');
  }
  return { endpoint, region: env.ASSETS_S3_REGION || 'us-east-1', bucket, accessKeyId, secretAccessKey, forcePathStyle: boolean(env, 'ASSETS_S3_FORCE_PATH_STYLE', true) };
}

/**
 * WEBHOOK_ALLOW_PRIVATE_URLS: a list of CIDR ranges (`127.0.0.0/8,::1`). It once took `true`, which
 * opened every private address; that is refused rather than narrowed silently, so that a
 * deployment learns at start which ranges it meant. `false` and `0` still mean none.
 */
function webhookAllowedPrivateRanges(env: Env): Cidr[] {
  const name = 'WEBHOOK_ALLOW_PRIVATE_URLS';
  const raw = (env[name] ?? '').trim();
  if (raw === '' || raw === 'false' || raw === '0') return [];
  if (raw === 'true' || raw === '1') {
    throw new ConfigError(name, 'takes the address ranges webhooks may reach in sandbox, no longer true: e.g. 127.0.0.0/8,::1 for receivers on this machine');
  }
  try {
    return parseCidrList(raw);
  } catch (err) {
    if (err instanceof CidrSyntaxError) throw new ConfigError(name, `${err.message}; give a comma-separated list of CIDR ranges`);
    throw err;
  }
}

/**
 * TRUST_PROXY: the CIDR ranges of the reverse proxies in front of the service. A request from one
 * of them is taken to come from the address its X-Forwarded-For names, over the protocol of its
 * X-Forwarded-Proto. `true` (express's "trust every peer") is refused: any client could then pick
 * the address its rate limits count against.
 */
function trustedProxies(env: Env): Cidr[] {
  const name = 'TRUST_PROXY';
  const raw = (env[name] ?? '').trim();
  if (raw === 'true' || raw === '*') throw new ConfigError(name, 'takes the address ranges of your proxies, not every peer: e.g. 10.0.0.0/8 or 127.0.0.1,::1');
  try {
    return parseCidrList(raw);
  } catch (err) {
    if (err instanceof CidrSyntaxError) throw new ConfigError(name, `${err.message}; give a comma-separated list of your proxies' CIDR ranges`);
    throw err;
  }
}

function emailAddress(env: Env, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(raw)) throw new ConfigError(name, `"${raw}" is not an e-mail address`);
  return raw;
}

/**
 * API workers of `make start` unless API_WORKERS says: one per CPU but one, which is left to the
 * primary's background work and PostgreSQL. On 2 CPUs that is one process doing both, which the
 * bench measured at the same sustained payouts/s as two workers with half the p99 and no
 * background lag (docs/performance.md).
 */
export function defaultApiWorkers(): number {
  return Math.max(1, os.availableParallelism() - 1);
}

export function loadConfig(env: Env = process.env): Config {
  const eventStore = oneOf(env, 'EVENT_STORE', ['postgres', 'esdb'] as const, 'postgres');
  const esdbUrl = url(env, 'ESDB_URL', ['esdb:', 'esdb+discover:', 'kurrentdb:']);
  if (eventStore === 'esdb' && !esdbUrl) throw new ConfigError('ESDB_URL', 'is required when EVENT_STORE=esdb');
  const bus = oneOf(env, 'BUS', ['postgres', 'kafka'] as const, 'postgres');
  const kafkaBrokers = (env.KAFKA_BROKERS ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  for (const b of kafkaBrokers) {
    if (!/^[\w.-]+:\d+$/.test(b)) throw new ConfigError('KAFKA_BROKERS', `"${b}" is not host:port`);
  }
  if (bus === 'kafka' && kafkaBrokers.length === 0) throw new ConfigError('KAFKA_BROKERS', 'is required when BUS=kafka');
  const kafkaTopic = env.KAFKA_TOPIC || 'sika.events';
  // Kafka's own characters for topic names, with room left for the `.<consumer>` of group ids.
  if (!/^[a-zA-Z0-9._-]{1,200}$/.test(kafkaTopic)) throw new ConfigError('KAFKA_TOPIC', `"${kafkaTopic}" is not a topic name (letters, digits, '.', '_', '-'; at most 200)`);

  const scheduleText = env.WEBHOOK_RETRY_SCHEDULE || DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  const webhookRetryScheduleMs = scheduleText.split(',').map((part) => {
    const ms = parseDuration(part);
    if (ms === null || ms <= 0) {
      throw new ConfigError('WEBHOOK_RETRY_SCHEDULE', `"${part}" is not a duration like 5m, 30s, 2h`);
    }
    return ms;
  });

  const secretsKey = env.SECRETS_KEY || null;
  if (secretsKey !== null && Buffer.from(secretsKey, 'base64').length !== 32) {
    throw new ConfigError('SECRETS_KEY', 'must be 32 bytes, base64-encoded');
  }
  // The all-zero key is a published example (the old compose default): anyone could open what it seals.
  if (secretsKey !== null && Buffer.from(secretsKey, 'base64').every((b) => b === 0)) {
    throw new ConfigError('SECRETS_KEY', 'is all zero bytes, a published example key; make one with: openssl rand -base64 32');
  }
  const outboxTextRetention = positiveDuration(env, 'OUTBOX_TEXT_RETENTION', '7d');
  const outboxRetention = positiveDuration(env, 'OUTBOX_RETENTION', '30d');

  const idempotencyTtl = env.IDEMPOTENCY_TTL ? parseDuration(env.IDEMPOTENCY_TTL) : 24 * 3_600_000;
  if (idempotencyTtl === null || idempotencyTtl <= 0) {
    throw new ConfigError('IDEMPOTENCY_TTL', 'must be a duration like 24h');
  }

  const settlementDelay = env.SETTLEMENT_DELAY ? parseDuration(env.SETTLEMENT_DELAY) : 24 * 3_600_000;
  if (settlementDelay === null) throw new ConfigError('SETTLEMENT_DELAY', 'must be a duration like 24h (0s for none)');
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const publicUrl = (url(env, 'PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');

  return {
    port,
    apiWorkers: integer(env, 'API_WORKERS', defaultApiWorkers(), 1, 64),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    dataDir: env.DATA_DIR ? path.resolve(env.DATA_DIR) : path.join(PROJECT_ROOT, '.data'),
    eventStore,
    esdbUrl,
    bus,
    kafkaBrokers,
    kafkaTopic,
    secretsKey,
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    webhookRetryScheduleMs,
    webhookAllowedPrivateRanges: webhookAllowedPrivateRanges(env),
    sandboxOperatorDelayMs: integer(env, 'SANDBOX_OPERATOR_DELAY_MS', 2000, 0, 86_400_000),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    idempotencyTtlMs: idempotencyTtl,
    outboxRetention: { textMs: outboxTextRetention, rowMs: Math.max(outboxRetention, outboxTextRetention) },
    publicUrl,
    settlementDelayMs: settlementDelay,
    metricsToken: env.METRICS_TOKEN || null,
    rateLimitPerCredential: rateLimit(env, 'RATE_LIMIT', '100/1s'),
    rateLimitPerAddress: rateLimit(env, 'RATE_LIMIT_ADDRESS', '300/1s'),
    eventWaits: {
      perCredential: integer(env, 'EVENT_WAITS_PER_CREDENTIAL', 3, 1, 1_000),
      perMerchant: integer(env, 'EVENT_WAITS_PER_MERCHANT', 10, 1, 10_000),
    },
    signInLimit: rateLimit(env, 'RATE_LIMIT_SIGN_IN', '10/15m'),
    signInAddressLimit: rateLimit(env, 'RATE_LIMIT_SIGN_IN_ADDRESS', '100/15m'),
    trustedProxies: trustedProxies(env),
    secondFactorLimit: rateLimit(env, 'RATE_LIMIT_SECOND_FACTOR', '10/15m'),
    automationSendLimit: rateLimit(env, 'AUTOMATION_SEND_LIMIT', '500/1h'),
    automationRecipientLimit: rateLimit(env, 'AUTOMATION_RECIPIENT_LIMIT', '10/1h'),
    customerPortalCodeLimit: rateLimit(env, 'CUSTOMER_PORTAL_CODE_LIMIT', '200/1h'),
    nameCheckLimit: rateLimit(env, 'RATE_LIMIT_NAME_CHECK', '10/1h'),
    invitationLimits: {
      perOrganization: rateLimit(env, 'INVITATION_LIMIT', '50/24h'),
      perInviter: rateLimit(env, 'INVITATION_INVITER_LIMIT', '25/24h'),
    },
    organizationsPerUser: integer(env, 'ORGANIZATIONS_PER_USER', 20, 1, 10_000),
    pushLimits: {
      perNumber: rateLimit(env, 'RATE_LIMIT_PUSH_NUMBER', '3/10m'),
      perSession: rateLimit(env, 'RATE_LIMIT_PUSH_SESSION', '5/1h'),
      perLink: rateLimit(env, 'RATE_LIMIT_PUSH_LINK', '100/10m'),
    },
    google: google(env),
    assetsMaxBytes: integer(env, 'ASSETS_MAX_BYTES', 25 * 1024 * 1024, 1, 5 * 1024 * 1024 * 1024),
    assetsS3: assetsS3(env),
    supportEmail: emailAddress(env, 'SUPPORT_EMAIL'),
  };
}
