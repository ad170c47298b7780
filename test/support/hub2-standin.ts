/**
 * A stand-in for Hub2's API (docs.hub2.io; the project's reading of it, wire conventions included,
 * is Hub2's contract for Sika): a real HTTP server on 127.0.0.1 that checks every request against
 * the contract (the three headers `ApiKey`, `MerchantId`, `Environment`; JSON bodies with exact
 * fields and no others, checked by schemas written here; references of `A-Za-z0-9-_.` and space;
 * integer amounts in XOF or XAF; the country/provider pairs Sika maps to; msisdns with the
 * country's calling code; the intent's token on a payment attempt), keeps payment intents, their
 * payments and transfers, answers as Hub2 does (errors `{status, code, message, request_id}`),
 * sends webhooks signed `Hub2-Signature: s1=…[,s0=…]` and injects Hub2's faults when a test asks.
 * Every deviation from the contract is recorded in `deviations`, which a test asserts empty at its
 * end: a request Sika should never send fails the test even when the answer looked fine.
 *
 * Nothing here runs on a timer: the test settles payments and transfers and sends webhooks when it
 * decides; the list rate limit and the secret rotation window follow the injected clock.
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';
import type { Clock } from '#packages/core/clock.js';

export type Hub2Direction = 'payin' | 'payout';
export type Hub2Currency = 'XOF' | 'XAF';

/** A provider of a country as Hub2 names it, with the Sika operator that maps to it. */
export interface Hub2Provider {
  /** ISO alpha-2. */
  country: string;
  callingCode: string;
  currency: Hub2Currency;
  /** Hub2's lowercase provider name. */
  provider: string;
  /** Sika's operator name for it. */
  operator: string;
  directions: Hub2Direction[];
}

const both: Hub2Direction[] = ['payin', 'payout'];
/** The country/provider pairs of the briefing's table (hub2.md, "Providers"). */
export const DEFAULT_HUB2_PROVIDERS: Hub2Provider[] = [
  { country: 'ML', callingCode: '223', currency: 'XOF', operator: 'orange_money', provider: 'orange', directions: both },
  { country: 'ML', callingCode: '223', currency: 'XOF', operator: 'moov', provider: 'moov', directions: both },
  { country: 'ML', callingCode: '223', currency: 'XOF', operator: 'wave', provider: 'wave', directions: both },
  { country: 'TG', callingCode: '228', currency: 'XOF', operator: 'tmoney', provider: 'tmoney', directions: both },
  { country: 'TG', callingCode: '228', currency: 'XOF', operator: 'flooz', provider: 'moov', directions: both },
  { country: 'SN', callingCode: '221', currency: 'XOF', operator: 'orange_money', provider: 'orange', directions: both },
  { country: 'SN', callingCode: '221', currency: 'XOF', operator: 'free_money', provider: 'free', directions: both },
  { country: 'SN', callingCode: '221', currency: 'XOF', operator: 'wave', provider: 'wave', directions: both },
  { country: 'SN', callingCode: '221', currency: 'XOF', operator: 'e_money', provider: 'expresso', directions: ['payin'] },
  { country: 'CI', callingCode: '225', currency: 'XOF', operator: 'orange_money', provider: 'orange', directions: both },
  { country: 'CI', callingCode: '225', currency: 'XOF', operator: 'mtn', provider: 'mtn', directions: both },
  { country: 'CI', callingCode: '225', currency: 'XOF', operator: 'moov', provider: 'moov', directions: both },
  { country: 'CI', callingCode: '225', currency: 'XOF', operator: 'wave', provider: 'wave', directions: both },
  { country: 'BF', callingCode: '226', currency: 'XOF', operator: 'orange_money', provider: 'orange', directions: both },
  { country: 'BF', callingCode: '226', currency: 'XOF', operator: 'moov', provider: 'moov', directions: both },
  { country: 'BJ', callingCode: '229', currency: 'XOF', operator: 'mtn', provider: 'mtn', directions: both },
  { country: 'BJ', callingCode: '229', currency: 'XOF', operator: 'moov', provider: 'moov', directions: both },
  { country: 'CM', callingCode: '237', currency: 'XAF', operator: 'mtn', provider: 'mtn', directions: both },
  { country: 'CM', callingCode: '237', currency: 'XAF', operator: 'orange_money', provider: 'orange', directions: both },
];

/** The amount policy the stand-in assumes for every provider (hub2.md, "Amounts"). */
export const HUB2_AMOUNT_POLICY = { multipleOf: 5, min: 100, max: 1_000_000 } as const;

/** What the next money-moving request (a payment attempt or a transfer) meets, instead of Hub2's ordinary acceptance. */
export type Hub2Fault =
  /** Taken (kept), then the connection is destroyed without an answer. */
  | { type: 'lose_answer' }
  /** HTTP 500 (or 503) with Hub2's error body; `taken`: whether Hub2 kept the payment or transfer anyway. */
  | { type: 'server_error'; taken: boolean; status?: 500 | 503 }
  /** Taken (kept) and never answered: the client's timeout decides. */
  | { type: 'hang' }
  /** Refused with this HTTP status and error code; nothing is kept. */
  | { type: 'reject'; status: 400 | 402 | 403 | 409; code: string; message?: string };

export type Hub2IntentStatus = 'payment_required' | 'processing' | 'action_required' | 'successful' | 'canceled';
export type Hub2PaymentStatus = 'pending' | 'action_required' | 'successful' | 'failed';
export type Hub2TransferStatus = 'created' | 'pending' | 'successful' | 'failed';

export interface Hub2FailureCause {
  code: string;
  message: string;
}

export type Hub2NextAction = { type: 'redirection'; data: { url: string; method: 'GET'; headers: Record<string, string>; data: Record<string, unknown> } } | { type: 'otp' };

/** A payment attempt, as Hub2 answers it (inside its intent) and as webhooks carry it. */
export interface Hub2Payment {
  id: string;
  intentId: string;
  status: Hub2PaymentStatus;
  amount: number;
  currency: Hub2Currency;
  provider: string;
  country: string;
  nextAction?: Hub2NextAction;
  failureCause?: Hub2FailureCause;
}

export interface Hub2PaymentIntent {
  id: string;
  token: string;
  status: Hub2IntentStatus;
  payments: Hub2Payment[];
  amount: number;
  currency: Hub2Currency;
  purchaseReference: string;
  customerReference: string;
  merchantId: string;
  mode: 'live' | 'sandbox';
  createdAt: string;
  updatedAt: string;
}

export interface Hub2Fee {
  amount: number;
  currency: Hub2Currency;
}

export interface Hub2Transfer {
  id: string;
  merchantId: string;
  createdAt: string;
  updatedAt: string;
  reference: string;
  description: string;
  status: Hub2TransferStatus;
  amount: number;
  currency: Hub2Currency;
  mode: 'live' | 'sandbox';
  destination: { type: 'mobile_money'; country: string; recipientName: string; msisdn: string; provider: string };
  fees: Hub2Fee[];
  failureCause?: Hub2FailureCause;
}

/** One currency's accounts, as `GET /balance` answers them. */
export interface Hub2Balance {
  collection: number;
  transfer: number;
  reserved: number;
}

export type Hub2WebhookType = 'payment.pending' | 'payment.action_required' | 'payment.succeeded' | 'payment.failed' | 'payment_intent.succeeded' | 'transfer.succeeded' | 'transfer.failed';

export interface Hub2WebhookOptions {
  /** wrong_secret: signed with a secret that is not the account's; tampered: the body changed after signing; unsigned: no Hub2-Signature. */
  forge?: 'wrong_secret' | 'tampered' | 'unsigned';
  /** Fields of `data` replaced (a mismatched amount, a stale status). */
  override?: Record<string, unknown>;
}

export interface Hub2StandinOptions {
  apiKey: string;
  merchantId: string;
  environment: 'live' | 'sandbox';
  clock: Clock;
  /** Where webhooks go (Sika's `<PUBLIC_URL>/connectors/hub2/events`). */
  webhookUrl?: string;
  /** The webhook secret Hub2 returned at registration. */
  secret: string;
  /** Providers whose payments ask for an OTP (`nextAction {type:'otp'}`) unless `mobileMoney.otp` came with the attempt; none unless told. */
  otpProviders?: string[];
  /**
   * The code the operator sends the payer: another one is refused at the authentication route (400
   * `authentication_failed`, the payment still waits) and fails a payment it came with
   * (`authentication_failed`). Any code passes unless set.
   */
  payerOtp?: string;
  /** `GET /transfers` at most once per 30 s (429 beyond); on unless false. */
  listRateLimit?: boolean;
  /** A flat fee per transfer (in `fees`, taken with the amount); 0 unless told. */
  transferFee?: number;
  providers?: Hub2Provider[];
}

export interface Hub2Request {
  method: string;
  path: string;
  body: string;
  headers: http.IncomingHttpHeaders;
}

const LIST_INTERVAL_MS = 30_000;
const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const REFERENCE = { type: 'string', minLength: 1, pattern: '^[A-Za-z0-9._ -]+$' };
const AMOUNT = { type: 'integer', minimum: 1 };
const CURRENCY = { enum: ['XOF', 'XAF'] };
const COUNTRY = { type: 'string', pattern: '^[A-Z]{2}$' };
const PROVIDER = { type: 'string', pattern: '^[a-z_]+$' };
const MSISDN = { type: 'string', pattern: '^\\+[0-9]+$' };
const SCHEMAS = {
  intent: {
    type: 'object',
    additionalProperties: false,
    required: ['customerReference', 'purchaseReference', 'amount', 'currency'],
    properties: { customerReference: REFERENCE, purchaseReference: REFERENCE, amount: AMOUNT, currency: CURRENCY, overrideBusinessName: { type: 'string', minLength: 1 } },
  },
  payment: {
    type: 'object',
    additionalProperties: false,
    required: ['token', 'paymentMethod', 'country', 'provider', 'mobileMoney'],
    properties: {
      token: { type: 'string', minLength: 1 },
      paymentMethod: { const: 'mobile_money' },
      country: COUNTRY,
      provider: PROVIDER,
      mobileMoney: {
        type: 'object',
        additionalProperties: false,
        required: ['msisdn'],
        properties: { msisdn: MSISDN, otp: { type: 'string', minLength: 1 } },
      },
      overrideBusinessId: { type: 'string', minLength: 1 },
    },
  },
  authentication: { type: 'object', additionalProperties: false, required: ['confirmationCode'], properties: { confirmationCode: { type: 'string', minLength: 1 } } },
  transfer: {
    type: 'object',
    additionalProperties: false,
    required: ['reference', 'amount', 'currency', 'description', 'destination'],
    properties: {
      reference: REFERENCE,
      amount: AMOUNT,
      currency: CURRENCY,
      description: { type: 'string', minLength: 1 },
      destination: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'country', 'recipientName', 'msisdn', 'provider'],
        properties: { type: { const: 'mobile_money' }, country: COUNTRY, recipientName: { type: 'string', minLength: 1 }, msisdn: MSISDN, provider: PROVIDER },
      },
      overrideBusinessName: { type: 'string', minLength: 1 },
    },
  },
  transferList: {
    type: 'object',
    additionalProperties: false,
    required: ['reference'],
    properties: { reference: REFERENCE, from: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}' }, to: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}' } },
  },
};
const ERROR_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  402: 'request_failed',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  429: 'too_many_requests',
  500: 'internal_error',
  503: 'service_unavailable',
};

class Refusal {
  constructor(
    readonly status: number,
    readonly message: string,
    readonly code = ERROR_CODES[status] ?? 'error',
  ) {}
}

export class Hub2Standin {
  /** Every way a request left the contract, in order. A test asserts it empty at its end. */
  readonly deviations: string[] = [];
  /** Every request, as it came. */
  readonly requests: Hub2Request[] = [];
  /** Balances per currency (XOF and XAF: 10,000,000 on the transfer account, 0 collected unless set). */
  readonly balances = new Map<Hub2Currency, Hub2Balance>([
    ['XOF', { collection: 0, transfer: 10_000_000, reserved: 0 }],
    ['XAF', { collection: 0, transfer: 10_000_000, reserved: 0 }],
  ]);
  /** Whether `GET /transfers` is held to once per 30 s of the stand-in's clock. */
  listRateLimit: boolean;
  /** While true, reads of one intent or transfer (`GET /payment-intents/{id}`, `GET /transfers/{id}`) answer 503: Hub2 down for reads. */
  failReads = false;
  private secret: string;
  private previousSecret?: { secret: string; until: number };
  private lastList?: number;
  private readonly intents = new Map<string, Hub2PaymentIntent>();
  private readonly payments = new Map<string, Hub2Payment>();
  private readonly transfers = new Map<string, Hub2Transfer>();
  private readonly faults: Hub2Fault[] = [];
  private readonly intentFaults: Hub2Fault[] = [];
  private readonly down = new Set<string>();
  private readonly hanging = new Set<http.ServerResponse>();
  private readonly validators: Record<keyof typeof SCHEMAS, ValidateFunction>;
  private readonly providers: Hub2Provider[];
  private counter = 0;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly options: Hub2StandinOptions,
  ) {
    const ajv = new Ajv({ allErrors: true, strict: true });
    this.validators = {
      intent: ajv.compile(SCHEMAS.intent),
      payment: ajv.compile(SCHEMAS.payment),
      authentication: ajv.compile(SCHEMAS.authentication),
      transfer: ajv.compile(SCHEMAS.transfer),
      transferList: ajv.compile(SCHEMAS.transferList),
    };
    this.providers = options.providers ?? DEFAULT_HUB2_PROVIDERS;
    this.secret = options.secret;
    this.listRateLimit = options.listRateLimit ?? true;
  }

  static async start(options: Hub2StandinOptions): Promise<Hub2Standin> {
    let standin: Hub2Standin | undefined;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => standin!.handle(req, res, Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    standin = new Hub2Standin(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, options);
    return standin;
  }

  /** The fault the next payment attempt or transfer request meets. */
  next(fault: Hub2Fault): void {
    this.faults.push(fault);
  }

  /** The fault the next `POST /payment-intents` meets (step 1 moves no money; a lost answer there may be repeated). */
  nextIntent(fault: Hub2Fault): void {
    this.intentFaults.push(fault);
  }

  /** The deviations so far, cleared (for a test that provokes one on purpose). */
  takeDeviations(): string[] {
    return this.deviations.splice(0);
  }

  intent(id: string): Hub2PaymentIntent | undefined {
    return this.intents.get(id);
  }

  /** The latest intent created with this purchaseReference (Sika's operation id); a repeated step 1 leaves older orphans. */
  intentByPurchaseReference(reference: string): Hub2PaymentIntent | undefined {
    return [...this.intents.values()].filter((i) => i.purchaseReference === reference).at(-1);
  }

  payment(id: string): Hub2Payment | undefined {
    return this.payments.get(id);
  }

  transfer(id: string): Hub2Transfer | undefined {
    return this.transfers.get(id);
  }

  transfersByReference(reference: string): Hub2Transfer[] {
    return [...this.transfers.values()].filter((t) => t.reference === reference);
  }

  /** The balance of a currency's accounts. */
  balance(currency: Hub2Currency): Hub2Balance {
    return this.balances.get(currency)!;
  }

  /** Sets (part of) a currency's balance. */
  setBalance(currency: Hub2Currency, balance: Partial<Hub2Balance>): void {
    Object.assign(this.balance(currency), balance);
  }

  /** From now on every new payment or transfer to this provider of this country fails with `service_unavailable`. */
  operatorDown(provider: string, country: string): void {
    this.down.add(`${country}/${provider}`);
  }

  operatorUp(provider: string, country: string): void {
    this.down.delete(`${country}/${provider}`);
  }

  /** Moves a payment or transfer on, as the operator would: a final status, or pending (after an OTP or a redirection). */
  settle(kind: 'payment' | 'transfer', id: string, status: 'successful' | 'failed' | 'pending', failureCode?: string): Hub2Payment | Hub2Transfer {
    const now = this.options.clock.now().toISOString();
    const failureCause = { code: failureCode ?? 'unknown_reason', message: `The provider says ${failureCode ?? 'unknown_reason'}` };
    if (kind === 'payment') {
      const payment = this.payments.get(id);
      if (!payment) throw new Error(`the stand-in has no payment ${id}`);
      if (payment.status === 'successful' || payment.status === 'failed') throw new Error(`payment ${id} is already ${payment.status}`);
      payment.status = status;
      delete payment.nextAction;
      if (status === 'failed') payment.failureCause = failureCause;
      if (status === 'successful') this.balance(payment.currency).collection += payment.amount;
      this.refreshIntent(this.intents.get(payment.intentId)!, now);
      return payment;
    }
    const transfer = this.transfers.get(id);
    if (!transfer) throw new Error(`the stand-in has no transfer ${id}`);
    if (transfer.status === 'successful' || transfer.status === 'failed') throw new Error(`transfer ${id} is already ${transfer.status}`);
    transfer.status = status;
    transfer.updatedAt = now;
    if (status === 'successful') this.balance(transfer.currency).reserved -= this.cost(transfer);
    if (status === 'failed') {
      transfer.failureCause = failureCause;
      this.release(transfer);
    }
    return transfer;
  }

  /** Changes the webhook secret, as re-registering does; the old one still signs (`s0`) for 24 h. The new secret. */
  rotateSecret(): string {
    this.previousSecret = { secret: this.secret, until: this.options.clock.now().getTime() + ROTATION_OVERLAP_MS };
    this.secret = `whsec_${randomBytes(24).toString('hex')}`;
    return this.secret;
  }

  /** The `Hub2-Signature` header for a body: `s1=<current>`, plus `,s0=<old>` within 24 h of a rotation. */
  signature(body: Buffer | string, secret = this.secret): string {
    const s1 = createHmac('sha256', secret).update(body).digest('hex');
    const old = this.previousSecret && this.options.clock.now().getTime() < this.previousSecret.until ? this.previousSecret.secret : undefined;
    return old ? `s1=${s1},s0=${createHmac('sha256', old).update(body).digest('hex')}` : `s1=${s1}`;
  }

  /** POSTs an event about a payment, intent or transfer to the webhook URL, signed (or forged); the receiver's HTTP status. */
  async sendWebhook(type: Hub2WebhookType, objectId: string, options: Hub2WebhookOptions = {}): Promise<number> {
    if (!this.options.webhookUrl) throw new Error('the stand-in has no webhook URL');
    const object = type.startsWith('payment.') ? this.payments.get(objectId) : type.startsWith('payment_intent.') ? this.intents.get(objectId) : this.transfers.get(objectId);
    if (!object) throw new Error(`the stand-in has no object ${objectId} for ${type}`);
    const event = { id: this.newId('evt'), type, createdAt: this.options.clock.now().toISOString(), mode: this.options.environment, data: { ...structuredClone(object), ...options.override } };
    let body = Buffer.from(JSON.stringify(event));
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (options.forge !== 'unsigned') headers['Hub2-Signature'] = options.forge === 'wrong_secret' ? this.signatureWith(body, `whsec_${randomBytes(24).toString('hex')}`) : this.signature(body);
    if (options.forge === 'tampered') body = Buffer.from(body.toString().replace(/"amount":\d+/, '"amount":1'));
    const response = await fetch(this.options.webhookUrl, { method: 'POST', headers, body });
    await response.arrayBuffer();
    return response.status;
  }

  /** How many requests are held unanswered (the `hang` fault). */
  get hangingCount(): number {
    return this.hanging.size;
  }

  /** Breaks the connections of the requests held unanswered, as a network failure would. */
  dropHanging(): void {
    for (const res of this.hanging) res.socket?.destroy();
    this.hanging.clear();
  }

  async close(): Promise<void> {
    this.dropHanging();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private signatureWith(body: Buffer, secret: string): string {
    return `s1=${createHmac('sha256', secret).update(body).digest('hex')}`;
  }

  private newId(prefix: string): string {
    return `${prefix}_${(++this.counter).toString(36).padStart(6, '0')}${randomBytes(6).toString('hex')}`;
  }

  private deviate(req: http.IncomingMessage, what: string): void {
    this.deviations.push(`${req.method} ${req.url}: ${what}`);
  }

  private send(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private error(res: http.ServerResponse, refusal: Refusal): void {
    this.send(res, refusal.status, { status: refusal.status, code: refusal.code, message: refusal.message, request_id: this.newId('req') });
  }

  /** Refuses a request that left the contract: recorded as a deviation, answered as Hub2 answers it. */
  private offContract(req: http.IncomingMessage, status: number, message: string): Refusal {
    this.deviate(req, message);
    return new Refusal(status, message);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer): void {
    this.requests.push({ method: req.method ?? '', path: req.url ?? '', body: raw.toString(), headers: req.headers });
    try {
      this.route(req, res, raw);
    } catch (err) {
      if (err instanceof Refusal) return this.error(res, err);
      this.error(res, new Refusal(500, String(err)));
    }
  }

  private route(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer): void {
    this.checkHeaders(req);
    const url = new URL(req.url ?? '/', this.url);
    const path = url.pathname;
    const method = req.method ?? '';
    if (url.search && !(method === 'GET' && path === '/transfers')) throw this.offContract(req, 400, `unexpected query string ${url.search}`);
    if (method === 'POST' && path === '/payment-intents') return this.createIntent(req, res, this.body(req, raw, 'intent'));
    const payments = /^\/payment-intents\/([^/]+)\/payments$/.exec(path);
    if (method === 'POST' && payments) return this.attemptPayment(req, res, this.findIntent(req, payments[1]!), this.body(req, raw, 'payment'));
    const authentication = /^\/payment-intents\/([^/]+)\/authentication$/.exec(path);
    if (method === 'POST' && authentication) {
      const intent = this.findIntent(req, authentication[1]!);
      const body = this.body(req, raw, 'authentication');
      return this.authenticate(req, res, intent, body.confirmationCode as string);
    }
    if (this.failReads && method === 'GET' && /^\/(payment-intents|transfers)\/[^/]+$/.test(path)) {
      return this.send(res, 503, { status: 503, code: 'service_unavailable', message: 'Service unavailable', request_id: this.newId('req') });
    }
    const intent = /^\/payment-intents\/([^/]+)$/.exec(path);
    if (method === 'GET' && intent) return this.send(res, 200, this.findIntent(req, intent[1]!));
    if (method === 'POST' && path === '/transfers') return this.createTransfer(req, res, this.body(req, raw, 'transfer'));
    if (method === 'GET' && path === '/transfers') return this.listTransfers(req, res, url.searchParams);
    const transfer = /^\/transfers\/([^/]+)$/.exec(path);
    if (method === 'GET' && transfer) return this.send(res, 200, this.findTransfer(req, transfer[1]!));
    if (method === 'GET' && path === '/balance') {
      return this.send(res, 200, { balances: [...this.balances].map(([currency, b]) => ({ currency, collection: { available: b.collection }, transfer: { available: b.transfer, reserved: b.reserved } })) });
    }
    throw this.offContract(req, 404, `no such endpoint in the contract: ${method} ${path}`);
  }

  private checkHeaders(req: http.IncomingMessage): void {
    const apiKey = req.headers['apikey'];
    if (apiKey !== this.options.apiKey) throw this.offContract(req, 401, apiKey === undefined ? 'no ApiKey header' : 'ApiKey is not the account key');
    const merchantId = req.headers['merchantid'];
    if (merchantId === undefined) throw this.offContract(req, 401, 'no MerchantId header');
    if (merchantId !== this.options.merchantId) throw this.offContract(req, 403, `MerchantId ${String(merchantId)} is not the key's merchant`);
    const environment = req.headers['environment'];
    if (environment !== 'live' && environment !== 'sandbox') throw this.offContract(req, 400, `Environment ${String(environment)}: live or sandbox`);
    // A key belongs to one environment: the other one does not know it.
    if (environment !== this.options.environment) throw this.offContract(req, 401, `Environment ${environment}, the key is ${this.options.environment}`);
  }

  private body(req: http.IncomingMessage, raw: Buffer, schema: keyof typeof SCHEMAS): Record<string, unknown> {
    if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) throw this.offContract(req, 400, `Content-Type ${String(req.headers['content-type'])}, not application/json`);
    let body: unknown;
    try {
      body = JSON.parse(raw.toString());
    } catch {
      throw this.offContract(req, 400, 'the body is not JSON');
    }
    return this.validate(req, schema, body);
  }

  private validate(req: http.IncomingMessage, schema: keyof typeof SCHEMAS, body: unknown): Record<string, unknown> {
    const validate = this.validators[schema];
    if (!validate(body)) {
      throw this.offContract(req, 400, `not a ${schema} request: ${validate.errors!.map((e) => `${e.instancePath || '/'} ${e.message}${e.keyword === 'additionalProperties' ? ` ${JSON.stringify(e.params)}` : ''}`).join('; ')}`);
    }
    return body as Record<string, unknown>;
  }

  private findIntent(req: http.IncomingMessage, id: string): Hub2PaymentIntent {
    if (!/^pi_[A-Za-z0-9]+$/.test(id)) throw this.offContract(req, 400, `${id} is not a payment intent id`);
    const intent = this.intents.get(id);
    if (!intent) throw new Refusal(404, `PaymentIntent ${id} not found`);
    return intent;
  }

  private findTransfer(req: http.IncomingMessage, id: string): Hub2Transfer {
    if (!/^tr_[A-Za-z0-9]+$/.test(id)) throw this.offContract(req, 400, `${id} is not a transfer id`);
    const transfer = this.transfers.get(id);
    if (!transfer) throw new Refusal(404, `Transfer ${id} not found`);
    return transfer;
  }

  /** The provider of a country/provider pair for a direction, the msisdn of its country and the currency of its country; anything else is off contract. */
  private provider(req: http.IncomingMessage, direction: Hub2Direction, country: string, providerName: string, msisdn: string, currency: string): Hub2Provider {
    const provider = this.providers.find((p) => p.country === country && p.provider === providerName);
    if (!provider) throw this.offContract(req, 400, `provider ${providerName} is not one of ${country}'s`);
    if (!provider.directions.includes(direction)) throw this.offContract(req, 400, `provider ${providerName} of ${country} takes no ${direction}s`);
    if (!new RegExp(`^\\+${provider.callingCode}[0-9]{8,10}$`).test(msisdn)) throw this.offContract(req, 400, `msisdn ${msisdn} is not a ${country} number (+${provider.callingCode} and 8 to 10 digits)`);
    if (currency !== provider.currency) throw this.offContract(req, 400, `currency ${currency} is not ${country}'s ${provider.currency}`);
    return provider;
  }

  /** Whether an amount keeps the amount policy; one that does not is a deviation (Sika refuses it before calling) that Hub2 answers with a failed object. */
  private amountKept(req: http.IncomingMessage, amount: number): boolean {
    const { multipleOf, min, max } = HUB2_AMOUNT_POLICY;
    if (amount % multipleOf === 0 && amount >= min && amount <= max) return true;
    this.deviate(req, `amount ${amount} is not a multiple of ${multipleOf} in ${min}..${max}`);
    return false;
  }

  /** Applies a fault after the checks (`take` keeps the object): true when there is none and the request is answered as usual. */
  private fault(fault: Hub2Fault | undefined, res: http.ServerResponse, take: () => void): boolean {
    if (!fault) return true;
    if (fault.type === 'reject') {
      this.error(res, new Refusal(fault.status, fault.message ?? `Refused: ${fault.code}`, fault.code));
      return false;
    }
    if (fault.type === 'server_error') {
      if (fault.taken) take();
      this.error(res, new Refusal(fault.status ?? 500, 'An internal error occurred'));
      return false;
    }
    take();
    if (fault.type === 'lose_answer') res.socket?.destroy();
    else this.hanging.add(res);
    return false;
  }

  private createIntent(req: http.IncomingMessage, res: http.ServerResponse, body: Record<string, unknown>): void {
    // Hub2 takes any positive amount here; the policy fails the payment attempt. Sika refuses before step 1.
    this.amountKept(req, body.amount as number);
    const now = this.options.clock.now().toISOString();
    const id = this.newId('pi');
    const intent: Hub2PaymentIntent = {
      id,
      token: this.token(id),
      status: 'payment_required',
      payments: [],
      amount: body.amount as number,
      currency: body.currency as Hub2Currency,
      purchaseReference: body.purchaseReference as string,
      customerReference: body.customerReference as string,
      merchantId: this.options.merchantId,
      mode: this.options.environment,
      createdAt: now,
      updatedAt: now,
    };
    if (this.fault(this.intentFaults.shift(), res, () => this.intents.set(id, intent))) {
      this.intents.set(id, intent);
      this.send(res, 201, intent);
    }
  }

  /** A JWT-looking token, as Hub2's intents carry (its claims are not checked by anyone but this stand-in, by equality). */
  private token(intentId: string): string {
    const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: intentId, mid: this.options.merchantId, iat: Math.floor(this.options.clock.now().getTime() / 1000) })}`;
    return `${unsigned}.${createHmac('sha256', this.options.apiKey).update(unsigned).digest('base64url')}`;
  }

  private attemptPayment(req: http.IncomingMessage, res: http.ServerResponse, intent: Hub2PaymentIntent, body: Record<string, unknown>): void {
    if (body.token !== intent.token) throw this.offContract(req, 401, `token is not intent ${intent.id}'s`);
    const mobileMoney = body.mobileMoney as { msisdn: string; otp?: string };
    const provider = this.provider(req, 'payin', body.country as string, body.provider as string, mobileMoney.msisdn, intent.currency);
    if (intent.status === 'successful' || intent.status === 'canceled') throw new Refusal(409, `PaymentIntent ${intent.id} is ${intent.status}`);
    if (intent.payments.some((p) => p.status === 'pending' || p.status === 'action_required')) throw new Refusal(409, `PaymentIntent ${intent.id} has a payment in progress`);
    const id = this.newId('pay');
    const payment: Hub2Payment = { id, intentId: intent.id, status: 'pending', amount: intent.amount, currency: intent.currency, provider: provider.provider, country: provider.country };
    if (!this.amountKept(req, intent.amount)) {
      payment.status = 'failed';
      payment.failureCause = { code: 'bad_parameters', message: `The amount ${intent.amount} is not accepted by ${provider.provider}` };
    } else if (this.down.has(`${provider.country}/${provider.provider}`)) {
      payment.status = 'failed';
      payment.failureCause = { code: 'service_unavailable', message: `${provider.provider} is unavailable` };
    } else if (provider.provider === 'wave') {
      payment.status = 'action_required';
      payment.nextAction = { type: 'redirection', data: { url: `https://pay.wave.example/c/${id}`, method: 'GET', headers: {}, data: {} } };
    } else if ((this.options.otpProviders ?? []).includes(provider.provider) && mobileMoney.otp === undefined) {
      payment.status = 'action_required';
      payment.nextAction = { type: 'otp' };
    } else if (mobileMoney.otp !== undefined && !this.otpKept(mobileMoney.otp)) {
      payment.status = 'failed';
      payment.failureCause = { code: 'authentication_failed', message: 'The one-time code is not the one sent to the payer' };
    }
    const take = () => {
      this.payments.set(id, payment);
      intent.payments.push(payment);
      this.refreshIntent(intent, this.options.clock.now().toISOString());
    };
    if (this.fault(this.faults.shift(), res, take)) {
      take();
      this.send(res, 201, intent);
    }
  }

  /** The OTP of a payment that asked for one: the payment goes on (pending) and the intent is answered. */
  private authenticate(req: http.IncomingMessage, res: http.ServerResponse, intent: Hub2PaymentIntent, code: string): void {
    const payment = intent.payments.find((p) => p.status === 'action_required' && p.nextAction?.type === 'otp');
    if (!payment) throw this.offContract(req, 409, `PaymentIntent ${intent.id} awaits no OTP`);
    if (!this.otpKept(code)) throw new Refusal(400, 'The confirmation code is not the one sent to the payer', 'authentication_failed');
    payment.status = 'pending';
    delete payment.nextAction;
    this.refreshIntent(intent, this.options.clock.now().toISOString());
    this.send(res, 200, intent);
  }

  /** Whether a code is the one the operator sent the payer (any, when the test set none). */
  private otpKept(code: string): boolean {
    return this.options.payerOtp === undefined || code === this.options.payerOtp;
  }

  /** An intent's status follows its latest payment. */
  private refreshIntent(intent: Hub2PaymentIntent, now: string): void {
    const latest = intent.payments.at(-1);
    const statuses = { pending: 'processing', action_required: 'action_required', failed: 'payment_required', successful: 'successful' } as const;
    intent.status = intent.payments.some((p) => p.status === 'successful') ? 'successful' : latest ? statuses[latest.status] : 'payment_required';
    intent.updatedAt = now;
  }

  private cost(transfer: Hub2Transfer): number {
    return transfer.amount + transfer.fees.reduce((sum, fee) => sum + fee.amount, 0);
  }

  private release(transfer: Hub2Transfer): void {
    const balance = this.balance(transfer.currency);
    balance.reserved -= this.cost(transfer);
    balance.transfer += this.cost(transfer);
  }

  private createTransfer(req: http.IncomingMessage, res: http.ServerResponse, body: Record<string, unknown>): void {
    const destination = body.destination as Hub2Transfer['destination'];
    const currency = body.currency as Hub2Currency;
    const provider = this.provider(req, 'payout', destination.country, destination.provider, destination.msisdn, currency);
    const now = this.options.clock.now().toISOString();
    const fee = this.options.transferFee ?? 0;
    const transfer: Hub2Transfer = {
      id: this.newId('tr'),
      merchantId: this.options.merchantId,
      createdAt: now,
      updatedAt: now,
      reference: body.reference as string,
      description: body.description as string,
      status: 'created',
      amount: body.amount as number,
      currency,
      mode: this.options.environment,
      destination: { ...destination },
      fees: fee > 0 ? [{ amount: fee, currency }] : [],
    };
    const fail = (code: string, message: string) => {
      transfer.status = 'failed';
      transfer.failureCause = { code, message };
    };
    if (!this.amountKept(req, transfer.amount)) fail('invalid_amount', `The amount ${transfer.amount} is not accepted by ${provider.provider}`);
    else if (this.down.has(`${provider.country}/${provider.provider}`)) fail('service_unavailable', `${provider.provider} is unavailable`);
    const take = () => {
      this.transfers.set(transfer.id, transfer);
      if (transfer.status === 'failed') return;
      // Hub2 checks and reserves the amount (and fees) on the transfer account before it transfers.
      const balance = this.balance(currency);
      if (balance.transfer < this.cost(transfer)) return fail('insufficient_funds', 'The transfer account has not enough funds');
      balance.transfer -= this.cost(transfer);
      balance.reserved += this.cost(transfer);
    };
    if (this.fault(this.faults.shift(), res, take)) {
      take();
      this.send(res, 201, transfer);
    }
  }

  private listTransfers(req: http.IncomingMessage, res: http.ServerResponse, query: URLSearchParams): void {
    const params = this.validate(req, 'transferList', Object.fromEntries(query));
    const now = this.options.clock.now().getTime();
    if (this.listRateLimit && this.lastList !== undefined && now - this.lastList < LIST_INTERVAL_MS) throw new Refusal(429, 'Too many requests: GET /transfers once per 30 s');
    this.lastList = now;
    const from = params.from === undefined ? -Infinity : Date.parse(params.from as string);
    const to = params.to === undefined ? Infinity : Date.parse(params.to as string);
    this.send(
      res,
      200,
      this.transfersByReference(params.reference as string).filter((t) => Date.parse(t.createdAt) >= from && Date.parse(t.createdAt) <= to),
    );
  }
}
