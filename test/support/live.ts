/**
 * Live mode through the rails for the suites: the pawaPay, Paystack and Hub2 stand-ins on
 * loopback, a service whose live (or sandbox) mobile money goes through the real PawapayConnector
 * to the first, signing its requests, whose cards and bank payouts go through the real
 * PaystackConnector to the second, and whose Mali and Togo mobile money goes through the real
 * Hub2Connector to the third; merchants ready to move live money.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Test } from 'tap';
import type { Clock } from '#packages/core/clock.js';
import type { CreatedMerchant } from '#packages/families/merchants/merchant/commands.js';
import { PawapayStandin, type StandinOptions } from './pawapay-standin.js';
import { PaystackStandin, type PaystackStandinOptions } from './paystack-standin.js';
import { Hub2Standin, type Hub2StandinOptions } from './hub2-standin.js';
import { activateLive, freePort, startService, type StartOptions, type TestService } from './system.js';

export const PAWAPAY_TOKEN = 'pawapay-live-test-token';
export const PAYSTACK_LIVE_KEY = 'sk_live_sikatest0000000000000000000000000000';
export const PAYSTACK_TEST_KEY = 'sk_test_sikatest0000000000000000000000000000';

export interface PawapayLive {
  /** The service running now: after a restart, the restarted one. */
  readonly svc: TestService;
  standin: PawapayStandin;
  /**
   * Stops the service as a crash would (requests in flight are cut off, nothing is finished) and
   * starts it again on the same database, port and pawaPay account, its clock where it stood.
   */
  restart(): Promise<TestService>;
}

/**
 * The stand-in, then the service on a port known in advance (the stand-in signs its callbacks for
 * that host), its live pawaPay account the stand-in's, every deposit, payout and refund signed
 * with a key the stand-in checks (the account takes signed requests only). The stand-in reads the
 * service's manual clock. `environment: 'sandbox'` configures pawaPay's sandbox account instead.
 */
export async function startPawapayLive(t: Test, options: { standin?: Partial<StandinOptions>; service?: StartOptions; environment?: 'live' | 'sandbox'; port?: number } = {}): Promise<PawapayLive> {
  const port = options.port ?? (await freePort());
  const publicUrl = `http://127.0.0.1:${port}`;
  let svc: TestService | undefined;
  const clock: Clock = { now: () => svc!.clock.now() };
  const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyId = 'sika-test-key-1';
  const standin = await PawapayStandin.start({
    token: PAWAPAY_TOKEN,
    clock,
    callbackBaseUrl: `${publicUrl}/connectors/pawapay`,
    signedRequests: { keyId, publicKey: signing.publicKey },
    ...options.standin,
  });
  t.teardown(() => standin.close());
  const account: Record<string, string> = options.environment === 'sandbox' ? { PAWAPAY_SANDBOX_API_TOKEN: PAWAPAY_TOKEN, PAWAPAY_SANDBOX_API_URL: standin.url } : { PAWAPAY_API_TOKEN: PAWAPAY_TOKEN, PAWAPAY_API_URL: standin.url };
  const start = (restartOf?: TestService) =>
    startService(t, {
      ...options.service,
      ...(restartOf ? { databaseUrl: restartOf.databaseUrl, clockStart: restartOf.clock.now().getTime() } : {}),
      publicOrigin: port,
      env: {
        PUBLIC_URL: publicUrl,
        ...account,
        PAWAPAY_SIGNING_KEY: signing.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        PAWAPAY_SIGNING_KEY_ID: keyId,
        ...options.service?.env,
      },
    });
  svc = await start();
  return {
    get svc() {
      return svc!;
    },
    standin,
    restart: async () => {
      const crashed = svc!;
      await crashed.stop();
      svc = await start(crashed);
      return svc;
    },
  };
}

export interface PaystackLive {
  svc: TestService;
  standin: PaystackStandin;
}

/**
 * The Paystack stand-in, then the service on a port known in advance (the stand-in posts its
 * webhooks there), its live Paystack account the stand-in's (`environment: 'sandbox'`: its test
 * mode account instead).
 */
export async function startPaystackLive(t: Test, options: { standin?: Partial<PaystackStandinOptions>; service?: StartOptions; environment?: 'live' | 'sandbox' } = {}): Promise<PaystackLive> {
  const port = await freePort();
  const secretKey = options.environment === 'sandbox' ? PAYSTACK_TEST_KEY : PAYSTACK_LIVE_KEY;
  const standin = await PaystackStandin.start({ secretKey, webhookUrl: `http://127.0.0.1:${port}/connectors/paystack/events`, ...options.standin });
  t.teardown(() => standin.close());
  const svc = await startService(t, {
    ...options.service,
    publicOrigin: port,
    env: {
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      [options.environment === 'sandbox' ? 'PAYSTACK_SANDBOX_SECRET_KEY' : 'PAYSTACK_SECRET_KEY']: secretKey,
      PAYSTACK_API_URL: standin.url,
      ...options.service?.env,
    },
  });
  return { svc, standin };
}

/** A merchant whose live environment the platform operator opened (activateLive), as every live suite needs. */
export async function goLive(svc: TestService, name = 'Live merchant'): Promise<{ merchant: CreatedMerchant; key: string }> {
  const merchant = await svc.merchant(name);
  await activateLive(svc, merchant.id);
  return { merchant, key: merchant.api_keys.live };
}

/**
 * Both live rails on one service: pawaPay's stand-in (its active configuration `pawapay`, default
 * the stand-in's) and Paystack's, the routing table in the order `RAIL_PRECEDENCE` gives (the
 * default when unset).
 */
export async function startBothLive(t: Test, options: { precedence?: string; pawapay?: Partial<StandinOptions> } = {}): Promise<PawapayLive & { paystack: PaystackStandin }> {
  const port = await freePort();
  const paystack = await PaystackStandin.start({ secretKey: PAYSTACK_LIVE_KEY, webhookUrl: `http://127.0.0.1:${port}/connectors/paystack/events` });
  t.teardown(() => paystack.close());
  const env: Record<string, string> = { PAYSTACK_SECRET_KEY: PAYSTACK_LIVE_KEY, PAYSTACK_API_URL: paystack.url, ...(options.precedence ? { RAIL_PRECEDENCE: options.precedence } : {}) };
  const live = await startPawapayLive(t, { port, service: { env }, ...(options.pawapay ? { standin: options.pawapay } : {}) });
  return { ...live, paystack };
}

export const HUB2_KEY = 'hub2-live-test-key';
export const HUB2_MERCHANT = 'hub2-merchant-sika';
export const HUB2_SECRET = 'hub2-webhook-secret-1';

export interface Hub2Live {
  /** The service running now: after a restart, the restarted one. */
  readonly svc: TestService;
  standin: Hub2Standin;
  /** pawaPay's stand-in, when pawaPay is configured beside Hub2. */
  pawapay: PawapayStandin | null;
  /** Stops the service as a crash would and starts it again on the same database, port and accounts, its clock where it stood. */
  restart(): Promise<TestService>;
}

/**
 * Hub2's stand-in, then the service on a port known in advance (the stand-in posts its webhooks
 * there), its live Hub2 account the stand-in's (`environment: 'sandbox'`: its sandbox account).
 * `pawapay`: pawaPay's stand-in and live account too, pawaPay first (RAIL_PRECEDENCE's default),
 * so that the operators both carry have Hub2 as their second rail.
 */
export async function startHub2Live(t: Test, options: { standin?: Partial<Hub2StandinOptions>; service?: StartOptions; environment?: 'live' | 'sandbox'; pawapay?: boolean | Partial<StandinOptions> } = {}): Promise<Hub2Live> {
  const port = await freePort();
  const environment = options.environment ?? 'live';
  let current: TestService | undefined;
  let pawapayLive: PawapayLive | null = null;
  const clock: Clock = { now: () => (pawapayLive ? pawapayLive.svc : current!).clock.now() };
  const standin = await Hub2Standin.start({ apiKey: HUB2_KEY, merchantId: HUB2_MERCHANT, environment, clock, webhookUrl: `http://127.0.0.1:${port}/connectors/hub2/events`, secret: HUB2_SECRET, ...options.standin });
  t.teardown(() => standin.close());
  const account: Record<string, string> = environment === 'sandbox' ? { HUB2_SANDBOX_API_KEY: HUB2_KEY, HUB2_SANDBOX_MERCHANT_ID: HUB2_MERCHANT } : { HUB2_API_KEY: HUB2_KEY, HUB2_MERCHANT_ID: HUB2_MERCHANT };
  const env = { ...account, HUB2_API_URL: standin.url, HUB2_WEBHOOK_SECRET: HUB2_SECRET, ...options.service?.env };
  if (options.pawapay) {
    pawapayLive = await startPawapayLive(t, { port, service: { ...options.service, env }, ...(options.pawapay === true ? {} : { standin: options.pawapay }) });
    const both = pawapayLive;
    return {
      get svc() {
        return both.svc;
      },
      standin,
      pawapay: both.standin,
      restart: () => both.restart(),
    };
  }
  const start = (restartOf?: TestService) =>
    startService(t, {
      ...options.service,
      ...(restartOf ? { databaseUrl: restartOf.databaseUrl, clockStart: restartOf.clock.now().getTime() } : {}),
      publicOrigin: port,
      env: { PUBLIC_URL: `http://127.0.0.1:${port}`, ...env },
    });
  current = await start();
  return {
    get svc() {
      return current!;
    },
    standin,
    pawapay: null,
    restart: async () => {
      const crashed = current!;
      await crashed.stop();
      current = await start(crashed);
      return current;
    },
  };
}
