import { generateKeyPairSync } from 'node:crypto';
import os from 'node:os';
import t, { type Test } from '#tap';
import { ConfigError, parseDuration } from '#packages/core/config.js';
import { loadServiceConfig } from '../../services/config.js';

t.test('defaults', async (t) => {
  const c = loadServiceConfig({});
  t.equal(c.port, 3000);
  t.equal(c.databaseUrl, null);
  t.equal(c.eventStore, 'postgres');
  t.equal(c.bus, 'postgres');
  t.same(c.webhookRetryScheduleMs, [5 * 60_000, 30 * 60_000, 2 * 3_600_000, 8 * 3_600_000, 24 * 3_600_000]);
  t.equal(c.sandboxOperatorDelayMs, 2000);
  t.same(c.webhookAllowedPrivateRanges, [], 'no private address opened');
  t.equal(c.idempotencyTtlMs, 24 * 3_600_000);
  t.equal(c.publicUrl, 'http://localhost:3000');
  t.equal(c.settlementDelayMs, 24 * 3_600_000);
  t.equal(loadServiceConfig({ PUBLIC_URL: 'https://pay.example.com/' }).publicUrl, 'https://pay.example.com');
  t.equal(c.assetsMaxBytes, 25 * 1024 * 1024);
  t.equal(c.assetsS3, null);
  t.equal(c.supportEmail, null);
  t.equal(c.apiWorkers, Math.max(1, os.availableParallelism() - 1), 'one API worker per CPU but one');
  t.equal(loadServiceConfig({ API_WORKERS: '1' }).apiWorkers, 1);
  t.equal(c.kafkaTopic, 'sika.events');
  t.equal(loadServiceConfig({ KAFKA_TOPIC: 'shop-2.events' }).kafkaTopic, 'shop-2.events');
});

t.test('assets in an S3-compatible bucket, support e-mail', async (t) => {
  const c = loadServiceConfig({ ASSETS_S3_BUCKET: 'sika-assets', ASSETS_S3_ENDPOINT: 'http://127.0.0.1:9000', ASSETS_S3_ACCESS_KEY_ID: 'k', ASSETS_S3_SECRET_ACCESS_KEY: 's', SUPPORT_EMAIL: 'help@sika.example' });
  t.same(c.assetsS3, { endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', bucket: 'sika-assets', accessKeyId: 'k', secretAccessKey: 's', forcePathStyle: true });
  t.equal(c.supportEmail, 'help@sika.example');
});

t.test('durations', async (t) => {
  t.equal(parseDuration('250ms'), 250);
  t.equal(parseDuration('30s'), 30_000);
  t.equal(parseDuration('2h'), 7_200_000);
  t.equal(parseDuration('1d'), 86_400_000);
  t.equal(parseDuration('5 minutes'), null);
  t.equal(loadServiceConfig({ WEBHOOK_RETRY_SCHEDULE: '1s,2s' }).webhookRetryScheduleMs.join(), '1000,2000');
});

t.test('WEBHOOK_ALLOW_PRIVATE_URLS: CIDR ranges; true, which opened every private address, is refused with what to write', async (t) => {
  t.same(loadServiceConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: '127.0.0.0/8, ::1' }).webhookAllowedPrivateRanges, [
    { family: 4, base: 0x7f00_0000n, prefix: 8 },
    { family: 6, base: 1n, prefix: 128 },
  ]);
  for (const none of ['', 'false', '0']) t.same(loadServiceConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: none }).webhookAllowedPrivateRanges, [], `"${none}": none`);
  for (const old of ['true', '1']) {
    t.throws(
      () => loadServiceConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: old }),
      new ConfigError('WEBHOOK_ALLOW_PRIVATE_URLS', 'takes the address ranges webhooks may reach in sandbox, no longer true: e.g. 127.0.0.0/8,::1 for receivers on this machine'),
    );
  }
  t.throws(() => loadServiceConfig({ WEBHOOK_ALLOW_PRIVATE_URLS: '10.0.0.1/8' }), /WEBHOOK_ALLOW_PRIVATE_URLS: "10.0.0.1\/8" has bits set past \/8; the range is 10.0.0.0\/8/);
});

t.test("TRUST_PROXY: the proxies' CIDR ranges, none by default; every peer is refused; RATE_LIMIT_SIGN_IN_ADDRESS", async (t) => {
  t.same(loadServiceConfig({}).trustedProxies, [], 'no proxy trusted');
  t.same(loadServiceConfig({ TRUST_PROXY: '10.0.0.0/8, ::1' }).trustedProxies, [
    { family: 4, base: 0x0a00_0000n, prefix: 8 },
    { family: 6, base: 1n, prefix: 128 },
  ]);
  t.throws(() => loadServiceConfig({ TRUST_PROXY: 'true' }), new ConfigError('TRUST_PROXY', 'takes the address ranges of your proxies, not every peer: e.g. 10.0.0.0/8 or 127.0.0.1,::1'));
  t.throws(() => loadServiceConfig({ TRUST_PROXY: 'loopback' }), /^TRUST_PROXY: "loopback" is not an IP address or CIDR range/);
  t.throws(() => loadServiceConfig({ TRUST_PROXY: '10.0.0.1/8' }), /TRUST_PROXY: "10.0.0.1\/8" has bits set past \/8; the range is 10.0.0.0\/8/);
  t.same(loadServiceConfig({}).signInAddressLimit, { limit: 100, windowMs: 15 * 60_000 });
  t.equal(loadServiceConfig({ RATE_LIMIT_SIGN_IN_ADDRESS: 'off' }).signInAddressLimit, null);
});

t.test('a bad value names its variable', async (t) => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ EVENT_STORE: 'mongo' }, 'EVENT_STORE'],
    [{ EVENT_STORE: 'esdb' }, 'ESDB_URL'],
    [{ BUS: 'kafka' }, 'KAFKA_BROKERS'],
    [{ KAFKA_BROKERS: 'not a broker' }, 'KAFKA_BROKERS'],
    [{ KAFKA_TOPIC: 'sika events' }, 'KAFKA_TOPIC'],
    [{ KAFKA_TOPIC: 'x'.repeat(201) }, 'KAFKA_TOPIC'],
    [{ SECRETS_KEY: 'short' }, 'SECRETS_KEY'],
    // The old compose file's default: a published key seals nothing.
    [{ SECRETS_KEY: Buffer.alloc(32).toString('base64') }, 'SECRETS_KEY'],
    [{ OUTBOX_TEXT_RETENTION: 'a week' }, 'OUTBOX_TEXT_RETENTION'],
    [{ OUTBOX_RETENTION: '0s' }, 'OUTBOX_RETENTION'],
    [{ AUTOMATION_SEND_LIMIT: 'lots' }, 'AUTOMATION_SEND_LIMIT'],
    [{ RATE_LIMIT_SECOND_FACTOR: '10' }, 'RATE_LIMIT_SECOND_FACTOR'],
    [{ RATE_LIMIT_SIGN_IN_ADDRESS: '100' }, 'RATE_LIMIT_SIGN_IN_ADDRESS'],
    [{ TRUST_PROXY: '10.0.0.0/33' }, 'TRUST_PROXY'],
    [{ TRUST_PROXY: '*' }, 'TRUST_PROXY'],
    [{ SMTP_URL: 'http://mail' }, 'SMTP_URL'],
    [{ WEBHOOK_RETRY_SCHEDULE: '5m,soon' }, 'WEBHOOK_RETRY_SCHEDULE'],
    [{ WEBHOOK_ALLOW_PRIVATE_URLS: 'yes' }, 'WEBHOOK_ALLOW_PRIVATE_URLS'],
    [{ WEBHOOK_ALLOW_PRIVATE_URLS: '10.0.0.0/8,192.168.1.1/16' }, 'WEBHOOK_ALLOW_PRIVATE_URLS'],
    [{ SANDBOX_OPERATOR_DELAY_MS: '-1' }, 'SANDBOX_OPERATOR_DELAY_MS'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ IDEMPOTENCY_TTL: 'forever' }, 'IDEMPOTENCY_TTL'],
    [{ PUBLIC_URL: 'ftp://x' }, 'PUBLIC_URL'],
    [{ SETTLEMENT_DELAY: 'later' }, 'SETTLEMENT_DELAY'],
    [{ GOOGLE_CLIENT_ID: 'id' }, 'GOOGLE_CLIENT_SECRET'],
    [{ GOOGLE_CLIENT_SECRET: 'secret' }, 'GOOGLE_CLIENT_ID'],
    [{ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'secret', GOOGLE_ISSUER: 'ftp://x' }, 'GOOGLE_ISSUER'],
    [{ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'secret', GOOGLE_RETURN_ORIGINS: 'https://dash.example.com/app' }, 'GOOGLE_RETURN_ORIGINS'],
    [{ ASSETS_MAX_BYTES: '25MB' }, 'ASSETS_MAX_BYTES'],
    [{ ASSETS_S3_ENDPOINT: 'http://127.0.0.1:9000' }, 'ASSETS_S3_BUCKET'],
    [{ ASSETS_S3_BUCKET: 'Not_A_Bucket' }, 'ASSETS_S3_BUCKET'],
    [{ ASSETS_S3_BUCKET: 'sika-assets', ASSETS_S3_ENDPOINT: 'ftp://x' }, 'ASSETS_S3_ENDPOINT'],
    [{ ASSETS_S3_BUCKET: 'sika-assets', ASSETS_S3_ACCESS_KEY_ID: 'key' }, 'ASSETS_S3_SECRET_ACCESS_KEY'],
    [{ SUPPORT_EMAIL: 'support at example' }, 'SUPPORT_EMAIL'],
    [{ API_WORKERS: '0' }, 'API_WORKERS'],
    [{ API_WORKERS: 'two' }, 'API_WORKERS'],
  ];
  for (const [env, variable] of cases) {
    try {
      loadServiceConfig(env);
      t.fail(`${JSON.stringify(env)} was accepted`);
    } catch (err) {
      t.type(err, ConfigError);
      t.equal((err as ConfigError).variable, variable, JSON.stringify(env));
    }
  }
});

t.test('sign-in with Google: off without a client, Google by default, extra return origins', async (t) => {
  t.equal(loadServiceConfig({}).google, null);
  t.same(loadServiceConfig({ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'secret' }).google, { issuer: 'https://accounts.google.com', clientId: 'id', clientSecret: 'secret', returnOrigins: [] });
  t.same(loadServiceConfig({ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'secret', GOOGLE_ISSUER: 'http://127.0.0.1:9000/', GOOGLE_RETURN_ORIGINS: 'https://dash.example.com, http://localhost:5173' }).google, {
    issuer: 'http://127.0.0.1:9000',
    clientId: 'id',
    clientSecret: 'secret',
    returnOrigins: ['https://dash.example.com', 'http://localhost:5173'],
  });
});

/** Asserts that loading `env` stops with a ConfigError naming `variable`; its message. */
function refusedNaming(t: Test, env: Record<string, string>, variable: string): string {
  let thrown: unknown;
  try {
    loadServiceConfig(env);
  } catch (err) {
    thrown = err;
  }
  t.ok(thrown instanceof ConfigError && thrown.variable === variable && thrown.message.startsWith(`${variable}: `), `${Object.keys(env).join(', ')} refused, naming ${variable}: ${String(thrown)}`);
  return String(thrown);
}

t.test('pawaPay: off by default; a token turns each environment on; a bad value names its variable', async (t) => {
  const off = loadServiceConfig({}).pawapay;
  t.same(
    { live: off.live, sandbox: off.sandbox, signing: off.signing, callbackSignatures: off.callbackSignatures, statusCheckAfterMs: off.statusCheckAfterMs },
    { live: null, sandbox: null, signing: null, callbackSignatures: true, statusCheckAfterMs: 120_000 },
  );
  const on = loadServiceConfig({ PAWAPAY_API_TOKEN: 'live-token', PAWAPAY_SANDBOX_API_TOKEN: 'sb-token', PAWAPAY_SANDBOX_API_URL: 'http://127.0.0.1:9/', PAWAPAY_STATUS_CHECK_AFTER: '30s', PAWAPAY_CALLBACK_SIGNATURES: 'off' }).pawapay;
  t.same(on.live, { apiUrl: 'https://api.pawapay.io', apiToken: 'live-token' });
  t.same(on.sandbox, { apiUrl: 'http://127.0.0.1:9', apiToken: 'sb-token' });
  t.equal(on.statusCheckAfterMs, 30_000);
  t.equal(on.callbackSignatures, false);
  t.equal(loadServiceConfig({ PAWAPAY_SANDBOX_API_TOKEN: 'sb' }).pawapay.sandbox?.apiUrl, 'https://api.sandbox.pawapay.io');

  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const signing = loadServiceConfig({ PAWAPAY_SIGNING_KEY: pem.replace(/\n/g, '\\n'), PAWAPAY_SIGNING_KEY_ID: 'sika-key-1' }).pawapay.signing;
  t.equal(signing?.keyId, 'sika-key-1');
  t.equal(signing?.algorithm, 'ecdsa-p256-sha256', 'the algorithm follows the key; \\n stands for line breaks');

  const refused = (env: Record<string, string>, variable: string) => refusedNaming(t, env, variable);
  refused({ PAWAPAY_API_TOKEN: 't', PAWAPAY_API_URL: 'not a url' }, 'PAWAPAY_API_URL');
  refused({ PAWAPAY_API_URL: 'ftp://api.pawapay.io' }, 'PAWAPAY_API_URL');
  refused({ PAWAPAY_SANDBOX_API_URL: 'nope' }, 'PAWAPAY_SANDBOX_API_URL');
  refused({ PAWAPAY_STATUS_CHECK_AFTER: 'soon' }, 'PAWAPAY_STATUS_CHECK_AFTER');
  refused({ PAWAPAY_STATUS_CHECK_AFTER: '0s' }, 'PAWAPAY_STATUS_CHECK_AFTER');
  refused({ PAWAPAY_CALLBACK_SIGNATURES: 'false' }, 'PAWAPAY_CALLBACK_SIGNATURES');
  refused({ PAWAPAY_SIGNING_KEY: 'not a key', PAWAPAY_SIGNING_KEY_ID: 'k' }, 'PAWAPAY_SIGNING_KEY');
  refused({ PAWAPAY_SIGNING_KEY: pem }, 'PAWAPAY_SIGNING_KEY_ID');
  refused({ PAWAPAY_SIGNING_KEY_ID: 'k' }, 'PAWAPAY_SIGNING_KEY');
  const ed = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  refused({ PAWAPAY_SIGNING_KEY: ed, PAWAPAY_SIGNING_KEY_ID: 'k' }, 'PAWAPAY_SIGNING_KEY');
});

t.test('Paystack: off by default; a key of the right kind turns each environment on; a key of the wrong kind stops the start', async (t) => {
  t.same(loadServiceConfig({}).paystack, { live: null, sandbox: null, statusCheckAfterMs: 120_000 });
  const on = loadServiceConfig({ PAYSTACK_SECRET_KEY: 'sk_live_abc', PAYSTACK_SANDBOX_SECRET_KEY: 'sk_test_def', PAYSTACK_STATUS_CHECK_AFTER: '5s' }).paystack;
  t.same(on, { live: { apiUrl: 'https://api.paystack.co', secretKey: 'sk_live_abc' }, sandbox: { apiUrl: 'https://api.paystack.co', secretKey: 'sk_test_def' }, statusCheckAfterMs: 5_000 }, 'one URL for both modes: the key decides');
  refusedNaming(t, { PAYSTACK_STATUS_CHECK_AFTER: 'later' }, 'PAYSTACK_STATUS_CHECK_AFTER');
  t.equal(loadServiceConfig({ PAYSTACK_SECRET_KEY: 'sk_live_abc', PAYSTACK_API_URL: 'http://127.0.0.1:9/' }).paystack.live?.apiUrl, 'http://127.0.0.1:9');
  t.match(refusedNaming(t, { PAYSTACK_SECRET_KEY: 'sk_test_abc' }, 'PAYSTACK_SECRET_KEY'), /live secret key \(sk_live_…\), not a sk_test_… key/, 'a test key where the live one goes');
  t.match(refusedNaming(t, { PAYSTACK_SECRET_KEY: 'pk_live_abc' }, 'PAYSTACK_SECRET_KEY'), /not a pk_live_… key/, 'a public key');
  refusedNaming(t, { PAYSTACK_SANDBOX_SECRET_KEY: 'sk_live_abc' }, 'PAYSTACK_SANDBOX_SECRET_KEY');
  refusedNaming(t, { PAYSTACK_SECRET_KEY: 'sk_live_' }, 'PAYSTACK_SECRET_KEY');
  refusedNaming(t, { PAYSTACK_SECRET_KEY: 'sk_live_abc', PAYSTACK_API_URL: 'ftp://api.paystack.co' }, 'PAYSTACK_API_URL');
});

t.test('RAIL_PRECEDENCE: pawaPay, Paystack, Hub2 unless told; each rail once, the others after in that order', async (t) => {
  t.same(loadServiceConfig({}).railPrecedence, ['pawapay', 'paystack', 'hub2'], 'pawaPay first by default');
  t.same(loadServiceConfig({ RAIL_PRECEDENCE: ' Paystack, pawapay ' }).railPrecedence, ['paystack', 'pawapay', 'hub2'], 'any case, spaces ignored; a setting made before Hub2 still starts');
  t.same(loadServiceConfig({ RAIL_PRECEDENCE: 'hub2' }).railPrecedence, ['hub2', 'pawapay', 'paystack'], 'one rail named: the others follow in the default order');
  t.match(refusedNaming(t, { RAIL_PRECEDENCE: 'paystack,flutterwave' }, 'RAIL_PRECEDENCE'), /names no rail "flutterwave"/, 'an unknown rail');
  refusedNaming(t, { RAIL_PRECEDENCE: 'paystack,paystack' }, 'RAIL_PRECEDENCE');
});

t.test('Hub2: a key and a merchant id per environment, both or neither; one URL', async (t) => {
  t.same(loadServiceConfig({}).hub2, { live: null, sandbox: null, webhookSecret: null, statusCheckAfterMs: 120_000, payoutOperators: null }, 'unset: no Hub2');
  const hub2 = loadServiceConfig({
    HUB2_API_KEY: 'k-live',
    HUB2_MERCHANT_ID: 'm-1',
    HUB2_SANDBOX_API_KEY: 'k-test',
    HUB2_SANDBOX_MERCHANT_ID: 'm-1',
    HUB2_WEBHOOK_SECRET: 's',
    HUB2_API_URL: 'http://127.0.0.1:9/',
    HUB2_STATUS_CHECK_AFTER: '1m',
  }).hub2;
  t.same(hub2, {
    live: { apiUrl: 'http://127.0.0.1:9', apiKey: 'k-live', merchantId: 'm-1' },
    sandbox: { apiUrl: 'http://127.0.0.1:9', apiKey: 'k-test', merchantId: 'm-1' },
    webhookSecret: 's',
    statusCheckAfterMs: 60_000,
    payoutOperators: null,
  });
  t.same(loadServiceConfig({ HUB2_PAYOUT_OPERATORS: 'ml:Orange_Money, TG:tmoney' }).hub2.payoutOperators, ['ML:orange_money', 'TG:tmoney'], 'the operators the account pays out to, written one way');
  refusedNaming(t, { HUB2_PAYOUT_OPERATORS: 'TG-tmoney' }, 'HUB2_PAYOUT_OPERATORS');
  t.equal(loadServiceConfig({ HUB2_API_KEY: 'k', HUB2_MERCHANT_ID: 'm' }).hub2.live?.apiUrl, 'https://api.hub2.io', "Hub2's host by default");
  refusedNaming(t, { HUB2_API_KEY: 'k' }, 'HUB2_MERCHANT_ID');
  refusedNaming(t, { HUB2_SANDBOX_MERCHANT_ID: 'm' }, 'HUB2_SANDBOX_API_KEY');
  refusedNaming(t, { HUB2_API_KEY: 'k', HUB2_MERCHANT_ID: 'm', HUB2_API_URL: 'ftp://api.hub2.io' }, 'HUB2_API_URL');
  refusedNaming(t, { HUB2_STATUS_CHECK_AFTER: 'soon' }, 'HUB2_STATUS_CHECK_AFTER');
});

t.test("RAIL_HEALTH_*: when a rail's measured health sets it aside, 10m, 5 and 5m unless told", async (t) => {
  t.same(loadServiceConfig({}).railHealth, { windowMs: 600_000, threshold: 5, leakIntervalMs: 300_000 });
  t.same(loadServiceConfig({ RAIL_HEALTH_WINDOW: '30m', RAIL_HEALTH_THRESHOLD: '10', RAIL_HEALTH_LEAK_INTERVAL: '1m' }).railHealth, { windowMs: 1_800_000, threshold: 10, leakIntervalMs: 60_000 });
  refusedNaming(t, { RAIL_HEALTH_WINDOW: 'ten minutes' }, 'RAIL_HEALTH_WINDOW');
  refusedNaming(t, { RAIL_HEALTH_THRESHOLD: '0' }, 'RAIL_HEALTH_THRESHOLD');
  refusedNaming(t, { RAIL_HEALTH_LEAK_INTERVAL: '0s' }, 'RAIL_HEALTH_LEAK_INTERVAL');
});

t.test('RAIL_FLOAT_REFRESH: how often the rails’ wallets are read for routing payouts, 60s unless told', async (t) => {
  t.equal(loadServiceConfig({}).railFloatRefreshMs, 60_000);
  t.equal(loadServiceConfig({ RAIL_FLOAT_REFRESH: '5m' }).railFloatRefreshMs, 300_000);
  refusedNaming(t, { RAIL_FLOAT_REFRESH: '0s' }, 'RAIL_FLOAT_REFRESH');
  refusedNaming(t, { RAIL_FLOAT_REFRESH: 'often' }, 'RAIL_FLOAT_REFRESH');
});
