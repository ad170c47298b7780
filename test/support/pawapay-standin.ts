/**
 * A stand-in for pawaPay's Merchant API v2 (docs/connectors.md, "pawaPay"): a real HTTP server on
 * 127.0.0.1 that checks every request against the contract (schemas written here from the
 * published v2 documentation: exact fields and no others, UUIDv4 ids, amounts in pawaPay's format
 * with the provider's decimals and limits, the bearer token, the request signature when the
 * account takes signed requests only), keeps the state of each operation, answers as pawaPay
 * does, and injects pawaPay's faults when a test asks. Every deviation from the contract is
 * recorded in `deviations`, which a test asserts empty at its end: a request Sika should never
 * send fails the test even when the answer looked fine.
 *
 * Nothing here runs on a timer: the test settles operations and sends callbacks when it decides.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';
import type { Clock } from '#packages/core/clock.js';
import { PAWAPAY_COMPONENTS, signMessage, verifyMessage, type DigestAlgorithm } from '#packages/connectors/pawapay/signatures.js';

export type OperationType = 'DEPOSIT' | 'PAYOUT' | 'REFUND';
export type Kind = 'deposits' | 'payouts' | 'refunds';

/** A provider of the stand-in's account, as its active configuration describes it. */
export interface StandinProvider {
  provider: string;
  /** ISO alpha-3, and the calling prefix its MSISDNs start with. */
  country: string;
  prefix: string;
  currency: string;
  decimalsInAmount: 'NONE' | 'TWO_PLACES';
  minTransactionLimit: string;
  maxTransactionLimit: string;
  authType?: 'PROVIDER_AUTH' | 'PREAUTH' | 'REDIRECT_AUTH';
  operations?: OperationType[];
}

export const DEFAULT_PROVIDERS: StandinProvider[] = [
  { provider: 'ORANGE_SEN', country: 'SEN', prefix: '221', currency: 'XOF', decimalsInAmount: 'NONE', minTransactionLimit: '100', maxTransactionLimit: '2000000' },
  { provider: 'WAVE_SEN', country: 'SEN', prefix: '221', currency: 'XOF', decimalsInAmount: 'NONE', minTransactionLimit: '100', maxTransactionLimit: '2000000', authType: 'REDIRECT_AUTH' },
  { provider: 'MTN_MOMO_GHA', country: 'GHA', prefix: '233', currency: 'GHS', decimalsInAmount: 'TWO_PLACES', minTransactionLimit: '1', maxTransactionLimit: '10000' },
  { provider: 'MPESA_KEN', country: 'KEN', prefix: '254', currency: 'KES', decimalsInAmount: 'NONE', minTransactionLimit: '1', maxTransactionLimit: '250000' },
  { provider: 'ORANGE_BFA', country: 'BFA', prefix: '226', currency: 'XOF', decimalsInAmount: 'NONE', minTransactionLimit: '100', maxTransactionLimit: '2000000', authType: 'PREAUTH' },
];

/** What the next financial request meets, instead of pawaPay's ordinary acceptance. */
export type Fault =
  /** HTTP 200, status REJECTED with this failure code; nothing is kept (no callback follows). */
  | { type: 'reject'; code: string; message?: string }
  /** HTTP 200, status DUPLICATE_IGNORED: as if the same id had been accepted before (it is kept, ACCEPTED). */
  | { type: 'duplicate' }
  /** The request is taken (kept, ACCEPTED), then the connection is destroyed without an answer. */
  | { type: 'lose_answer' }
  /** HTTP 500 UNKNOWN_ERROR; `taken`: whether pawaPay kept the operation anyway. */
  | { type: 'server_error'; taken: boolean }
  /** The request is taken and never answered: the client's timeout decides. */
  | { type: 'hang' };

export type Status = 'ACCEPTED' | 'PROCESSING' | 'ENQUEUED' | 'IN_RECONCILIATION' | 'COMPLETED' | 'FAILED';

export interface Operation {
  kind: Kind;
  id: string;
  request: Record<string, unknown>;
  status: Status;
  created: string;
  failureCode?: string;
  providerTransactionId?: string;
  provider: string;
  country: string;
}

/** How a callback is sent: signed as pawaPay does (raw or DER ECDSA), or one of the forgeries. */
export interface CallbackOptions {
  encoding?: 'raw' | 'der';
  digest?: DigestAlgorithm;
  /** other_key: signed with a key that is not pawaPay's, under pawaPay's key id; tampered: the body changed after signing; unsigned: no signature headers. */
  forge?: 'other_key' | 'tampered' | 'unsigned';
  /** Fields of the body replaced (a stale status, a mismatched amount); a field set to undefined is left out (no metadata). */
  override?: Record<string, unknown>;
  /** What the signature covers (pawaPay's components unless told), when it was made (now unless told) and for how long (60 s). */
  components?: readonly string[];
  created?: Date;
  expiresInSeconds?: number;
  /** Headers replaced after signing (a Signature-Input that is not what was signed). */
  headers?: Record<string, string>;
}

export interface StandinOptions {
  token: string;
  clock: Clock;
  /** Where callbacks go: `${callbackBaseUrl}/deposits`, `/payouts`, `/refunds`. */
  callbackBaseUrl?: string;
  providers?: StandinProvider[];
  signedCallbacks?: boolean;
  /** The merchant's public key when the account takes signed requests only. */
  signedRequests?: { keyId: string; publicKey: KeyObject };
}

const UUID_V4 = '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$';
const AMOUNT = '^(0|[1-9][0-9]{0,17})(\\.[0-9]{1,2})?$';
const party = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'accountDetails'],
  properties: {
    type: { const: 'MMO' },
    accountDetails: {
      type: 'object',
      additionalProperties: false,
      required: ['phoneNumber', 'provider'],
      properties: { phoneNumber: { type: 'string', pattern: '^[0-9]{6,15}$' }, provider: { type: 'string', pattern: '^[A-Z0-9_]+$' } },
    },
  },
};
const common = {
  amount: { type: 'string', minLength: 1, maxLength: 23, pattern: AMOUNT },
  currency: { type: 'string', pattern: '^[A-Z]{3}$' },
  clientReferenceId: { type: 'string', minLength: 1, maxLength: 36 },
  customerMessage: { type: 'string', minLength: 4, maxLength: 22 },
  metadata: { type: 'array', items: { type: 'object', minProperties: 1, properties: { isPII: { type: 'boolean' } }, additionalProperties: { type: 'string' } } },
};
const id = { type: 'string', pattern: UUID_V4 };
const SCHEMAS = {
  deposits: {
    type: 'object',
    additionalProperties: false,
    required: ['depositId', 'amount', 'currency', 'payer'],
    properties: { depositId: id, payer: party, preAuthorisationCode: { type: 'string', minLength: 1, maxLength: 36 }, ...common },
  },
  payouts: { type: 'object', additionalProperties: false, required: ['payoutId', 'amount', 'currency', 'recipient'], properties: { payoutId: id, recipient: party, ...common } },
  refunds: {
    type: 'object',
    additionalProperties: false,
    required: ['refundId', 'depositId'],
    properties: { refundId: id, depositId: id, amount: common.amount, currency: common.currency, clientReferenceId: common.clientReferenceId, metadata: common.metadata },
  },
};
const ID_FIELD = { deposits: 'depositId', payouts: 'payoutId', refunds: 'refundId' } as const;
const OPERATION_OF: Record<Kind, OperationType> = { deposits: 'DEPOSIT', payouts: 'PAYOUT', refunds: 'REFUND' };

export class PawapayStandin {
  /** Every way a request left the contract, in order. A test asserts it empty at its end. */
  readonly deviations: string[] = [];
  /** Every request, as it came. */
  readonly requests: { method: string; path: string; body: string; headers: http.IncomingHttpHeaders }[] = [];
  readonly keyPair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  keyId = 'HTTP_EC_P256_KEY:1';
  /** The providers' availability per operation; OPERATIONAL unless set. */
  readonly availability = new Map<string, 'OPERATIONAL' | 'DELAYED' | 'CLOSED'>();
  /** The balance `GET /v2/wallet-balances` answers for a country's wallet (ISO alpha-3), in pawaPay's decimal format; 1000000.00 unless set. */
  readonly wallets = new Map<string, string>();
  /** While true, `GET /v2/public-key/http` answers 500 (pawaPay's key endpoint down). */
  failKeyFetches = false;
  /** While true, status checks (`GET /v2/{deposits|payouts|refunds}/{id}`) answer 500. */
  failStatusReads = false;
  /** Fields a status check answers in place of an operation's own (by `${kind}/${id}`): a record that disagrees with its callback. */
  private readonly misreports = new Map<string, Record<string, unknown>>();
  private readonly operations = new Map<string, Operation>();
  private readonly faults: Fault[] = [];
  private readonly hanging = new Set<http.ServerResponse>();
  private readonly validators: Record<Kind, ValidateFunction>;
  private readonly providers: StandinProvider[];
  private transactions = 0;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly options: StandinOptions,
  ) {
    const ajv = new Ajv({ allErrors: true, strict: true });
    this.validators = { deposits: ajv.compile(SCHEMAS.deposits), payouts: ajv.compile(SCHEMAS.payouts), refunds: ajv.compile(SCHEMAS.refunds) };
    this.providers = options.providers ?? DEFAULT_PROVIDERS;
  }

  static async start(options: StandinOptions): Promise<PawapayStandin> {
    let standin: PawapayStandin | undefined;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => standin!.handle(req, res, Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    standin = new PawapayStandin(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, options);
    return standin;
  }

  /** The fault the next deposit, payout or refund request meets. */
  next(fault: Fault): void {
    this.faults.push(fault);
  }

  /** The deviations so far, cleared (for a test that provokes one on purpose). */
  takeDeviations(): string[] {
    return this.deviations.splice(0);
  }

  operation(kind: Kind, pawapayId: string): Operation | undefined {
    return this.operations.get(`${kind}/${pawapayId}`);
  }

  /** Moves an operation on, as the operator would: a final status, or ENQUEUED, IN_RECONCILIATION, PROCESSING. */
  settle(kind: Kind, pawapayId: string, status: Status, failureCode?: string): Operation {
    const op = this.operation(kind, pawapayId);
    if (!op) throw new Error(`the stand-in has no ${kind} ${pawapayId}`);
    op.status = status;
    if (status === 'COMPLETED') op.providerTransactionId = `PP${String(++this.transactions).padStart(8, '0')}`;
    if (status === 'FAILED') op.failureCode = failureCode ?? 'OTHER_ERROR';
    return op;
  }

  /** From now on the status check of this operation answers `fields` in place of its own (a callback then disagrees with pawaPay's record). */
  misreport(kind: Kind, pawapayId: string, fields: Record<string, unknown>): void {
    this.misreports.set(`${kind}/${pawapayId}`, fields);
  }

  /** pawaPay rotates its callback key: a new key under a new id; the old one is no longer listed. */
  rotateKey(): void {
    const next = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    Object.assign(this.keyPair, next);
    this.keyId = `HTTP_EC_P256_KEY:${Number(this.keyId.split(':')[1]) + 1}`;
  }

  /** The record of an operation as status checks and callbacks carry it. */
  data(op: Operation): Record<string, unknown> {
    const body = op.request;
    const amount = String(body.amount ?? this.operation('deposits', body.depositId as string)?.request.amount);
    const wallet = op.kind === 'deposits' ? { payer: body.payer } : op.kind === 'payouts' ? { recipient: body.recipient } : { recipient: this.operation('deposits', body.depositId as string)?.request.payer };
    return {
      [ID_FIELD[op.kind]]: op.id,
      ...(op.kind === 'refunds' ? { depositId: body.depositId } : {}),
      status: op.status,
      // pawaPay echoes amounts normalised to two decimals.
      amount: amount.includes('.') ? amount.padEnd(amount.indexOf('.') + 3, '0') : `${amount}.00`,
      currency: body.currency ?? this.operation('deposits', body.depositId as string)?.request.currency,
      country: op.country,
      ...wallet,
      ...(body.clientReferenceId ? { clientReferenceId: body.clientReferenceId } : {}),
      created: op.created,
      ...(op.providerTransactionId ? { providerTransactionId: op.providerTransactionId } : {}),
      ...(op.failureCode ? { failureReason: { failureCode: op.failureCode, failureMessage: `The operator says ${op.failureCode}` } } : {}),
      ...(Array.isArray(body.metadata) ? { metadata: Object.fromEntries((body.metadata as Record<string, unknown>[]).flatMap((m) => Object.entries(m).filter(([k]) => k !== 'isPII'))) } : {}),
    };
  }

  /** POSTs the operation's callback to the callback URL, signed as pawaPay signs (or forged); the receiver's status. */
  async sendCallback(kind: Kind, pawapayId: string, options: CallbackOptions = {}): Promise<number> {
    const op = this.operation(kind, pawapayId);
    if (!op) throw new Error(`the stand-in has no ${kind} ${pawapayId}`);
    if (!this.options.callbackBaseUrl) throw new Error('the stand-in has no callback URL');
    const url = new URL(`${this.options.callbackBaseUrl}/${kind}`);
    let body = Buffer.from(JSON.stringify({ ...this.data(op), ...options.override }));
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (options.forge !== 'unsigned' && this.options.signedCallbacks !== false) {
      const key = options.forge === 'other_key' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey : this.keyPair.privateKey;
      Object.assign(
        headers,
        signMessage(
          { method: 'POST', authority: url.host, path: url.pathname, headers },
          body,
          { keyId: this.keyId, privateKey: key, algorithm: 'ecdsa-p256-sha256', ecdsaEncoding: options.encoding ?? 'der' },
          {
            created: options.created ?? this.options.clock.now(),
            expiresInSeconds: options.expiresInSeconds ?? 60,
            digest: options.digest ?? 'sha-512',
            ...(options.components ? { components: options.components } : {}),
          },
        ),
        options.headers,
      );
    }
    if (options.forge === 'tampered')
      body = Buffer.from(
        body
          .toString()
          .replace(/"status":"[A-Z_]+"/, '"status":"COMPLETED"')
          .replace(/"amount":"[0-9.]+"/, '"amount":"1.00"'),
      );
    const response = await fetch(url, { method: 'POST', headers, body });
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

  private deviate(req: http.IncomingMessage, what: string): void {
    this.deviations.push(`${req.method} ${req.url}: ${what}`);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer): void {
    this.requests.push({ method: req.method ?? '', path: req.url ?? '', body: raw.toString(), headers: req.headers });
    const url = new URL(req.url ?? '/', this.url);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const failure = (status: number, failureCode: string, failureMessage: string) => send(status, { failureReason: { failureCode, failureMessage } });
    const path = url.pathname;
    // MMO availability needs no token; every other endpoint does.
    if (path !== '/v2/availability' && req.headers.authorization !== `Bearer ${this.options.token}`) {
      this.deviate(req, 'no valid bearer token');
      return failure(401, 'AUTHENTICATION_ERROR', 'The API token in the request is invalid.');
    }
    if (url.search && !['/v2/active-conf', '/v2/availability', '/v2/wallet-balances'].includes(path)) this.deviate(req, 'unexpected query string');
    const financial = /^\/v2\/(deposits|payouts|refunds)$/.exec(path);
    if (req.method === 'POST' && financial) return void this.initiate(financial[1] as Kind, req, res, raw).catch((err: unknown) => failure(500, 'UNKNOWN_ERROR', String(err)));
    const check = /^\/v2\/(deposits|payouts|refunds)\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && check) {
      if (!new RegExp(UUID_V4).test(check[2]!)) this.deviate(req, `status check of ${check[2]}, not a UUIDv4`);
      if (this.failStatusReads) return failure(500, 'UNKNOWN_ERROR', 'Unable to process request due to an unknown problem.');
      const op = this.operation(check[1] as Kind, check[2]!);
      return send(200, op ? { status: 'FOUND', data: { ...this.data(op), ...this.misreports.get(`${op.kind}/${op.id}`) } } : { status: 'NOT_FOUND' });
    }
    if (req.method === 'GET' && path === '/v2/active-conf') return send(200, this.activeConf());
    if (req.method === 'GET' && path === '/v2/availability') return send(200, this.availabilityBody());
    if (req.method === 'GET' && path === '/v2/public-key/http' && this.failKeyFetches) return failure(500, 'UNKNOWN_ERROR', 'Unable to process request due to an unknown problem.');
    if (req.method === 'GET' && path === '/v2/public-key/http') return send(200, [{ id: this.keyId, key: this.keyPair.publicKey.export({ type: 'spki', format: 'pem' }) }]);
    if (req.method === 'GET' && path === '/v2/wallet-balances') {
      return send(200, { balances: [...new Map(this.providers.map((p) => [p.country, p])).values()].map((p) => ({ country: p.country, balance: this.wallets.get(p.country) ?? '1000000.00', currency: p.currency, provider: '' })) });
    }
    this.deviate(req, 'no such endpoint in the contract');
    return failure(404, 'NOT_FOUND', 'No such endpoint');
  }

  private async initiate(kind: Kind, req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer): Promise<void> {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const reject = (status: number, id: unknown, failureCode: string, failureMessage: string) => send(status, { [ID_FIELD[kind]]: typeof id === 'string' ? id : null, status: 'REJECTED', failureReason: { failureCode, failureMessage } });
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) this.deviate(req, `Content-Type ${req.headers['content-type']}`);
    if (this.options.signedRequests) {
      const { keyId, publicKey } = this.options.signedRequests;
      const verdict = await verifyMessage({ method: req.method!, authority: req.headers.host ?? '', path: req.url!, headers: req.headers }, raw, async (id) => (id === keyId ? publicKey : undefined), {
        now: this.options.clock.now(),
        maxAgeSeconds: 300,
        clockSkewSeconds: 60,
        required: PAWAPAY_COMPONENTS,
      });
      if (!verdict.ok) {
        this.deviate(req, `signature: ${verdict.failure} (${verdict.detail})`);
        return reject(403, undefined, 'HTTP_SIGNATURE_ERROR', verdict.detail);
      }
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString()) as Record<string, unknown>;
    } catch {
      this.deviate(req, 'the body is not JSON');
      return reject(400, undefined, 'INVALID_INPUT', 'We are unable to parse the body of the request.');
    }
    const validate = this.validators[kind];
    if (!validate(body)) {
      const unsupported = validate.errors!.find((e) => e.keyword === 'additionalProperties');
      this.deviate(req, `not a ${kind} request: ${validate.errors!.map((e) => `${e.instancePath || '/'} ${e.message} ${e.keyword === 'additionalProperties' ? JSON.stringify(e.params) : ''}`).join('; ')}`);
      return unsupported
        ? reject(400, body[ID_FIELD[kind]], 'UNSUPPORTED_PARAMETER', `Request includes an unsupported parameter ${JSON.stringify(unsupported.params)}`)
        : reject(400, body[ID_FIELD[kind]], 'INVALID_PARAMETER', validate.errors!.map((e) => `${e.instancePath} ${e.message}`).join('; '));
    }
    const id = body[ID_FIELD[kind]] as string;
    const deposit = kind === 'refunds' ? this.operation('deposits', body.depositId as string) : undefined;
    const wallet = (kind === 'deposits' ? body.payer : kind === 'payouts' ? body.recipient : deposit?.request.payer) as { accountDetails: { phoneNumber: string; provider: string } } | undefined;
    const provider = wallet && this.providers.find((p) => p.provider === wallet.accountDetails.provider && (p.operations ?? ['DEPOSIT', 'PAYOUT', 'REFUND']).includes(OPERATION_OF[kind]));
    // What Sika's connector checks before sending (its table, the active configuration): any of it here is a deviation.
    if (kind === 'refunds' && !deposit) {
      this.deviate(req, `refund of deposit ${String(body.depositId)}, which pawaPay never took`);
      return reject(200, id, 'INVALID_STATE', 'The deposit to refund is not known');
    }
    if (!provider) {
      this.deviate(req, `provider ${wallet?.accountDetails.provider} is not configured for ${OPERATION_OF[kind]}`);
      return reject(200, id, 'INVALID_PROVIDER', 'The provider is not configured');
    }
    if (kind !== 'refunds' && !wallet!.accountDetails.phoneNumber.startsWith(provider.prefix)) {
      this.deviate(req, `phone number ${wallet!.accountDetails.phoneNumber} is not a ${provider.country} number`);
      return reject(200, id, 'INVALID_PHONE_NUMBER', `The phone number seems to be invalid for the provider '${provider.provider}'.`);
    }
    if ((body.currency ?? provider.currency) !== provider.currency) {
      this.deviate(req, `currency ${String(body.currency)} is not ${provider.provider}'s ${provider.currency}`);
      return reject(200, id, 'INVALID_CURRENCY', `The currency is not supported with provider '${provider.provider}'.`);
    }
    const amount = (body.amount as string | undefined) ?? (deposit?.request.amount as string);
    if (provider.decimalsInAmount === 'NONE' && amount.includes('.')) {
      this.deviate(req, `amount ${amount} has decimals, ${provider.provider} takes none`);
      return reject(200, id, 'INVALID_AMOUNT', `The provider ${provider.provider} only supports up to '0' decimal places in amount.`);
    }
    const value = Number(amount);
    const ceiling = kind === 'refunds' ? Math.min(this.refundable(deposit!, id), Number(provider.maxTransactionLimit)) : Number(provider.maxTransactionLimit);
    if (value < Number(provider.minTransactionLimit) || value > ceiling) {
      this.deviate(req, `amount ${amount} outside ${provider.minTransactionLimit}..${ceiling}`);
      return reject(200, null, 'AMOUNT_OUT_OF_BOUNDS', `The amount needs to be more than '${provider.minTransactionLimit}' and less than '${ceiling}' for provider '${provider.provider}'.`);
    }
    if (kind === 'refunds' && deposit!.status !== 'COMPLETED') return reject(200, id, 'INVALID_STATE', 'Only a completed deposit can be refunded');

    const fault = this.faults.shift();
    if (fault?.type === 'reject') return reject(200, id, fault.code, fault.message ?? `Rejected: ${fault.code}`);
    const key = `${kind}/${id}`;
    const known = this.operations.get(key);
    if (known && JSON.stringify(known.request) !== JSON.stringify(body)) this.deviate(req, `the same ${ID_FIELD[kind]} ${id} sent again with another body`);
    const created = this.options.clock.now().toISOString();
    const take = () => known ?? this.operations.set(key, { kind, id, request: body, status: 'ACCEPTED', created, provider: provider.provider, country: provider.country }).get(key)!;
    if (fault?.type === 'server_error') {
      if (fault.taken) take();
      res.writeHead(500, { 'Content-Type': 'application/json' });
      return void res.end(JSON.stringify({ [ID_FIELD[kind]]: id, failureReason: { failureCode: 'UNKNOWN_ERROR', failureMessage: 'Unable to process request due to an unknown problem.' } }));
    }
    take();
    if (fault?.type === 'lose_answer') return void res.socket?.destroy();
    if (fault?.type === 'hang') return void this.hanging.add(res);
    const status = known || fault?.type === 'duplicate' ? 'DUPLICATE_IGNORED' : 'ACCEPTED';
    const redirect = kind === 'deposits' && provider.authType === 'REDIRECT_AUTH' && status === 'ACCEPTED' ? { nextStep: 'REDIRECT_TO_AUTH_URL', authorizationUrl: `https://checkout.wave.example/pay/${id}` } : {};
    send(200, { [ID_FIELD[kind]]: id, status, created, ...redirect });
  }

  /** What remains refundable of a deposit: its amount less its other refunds that did not fail (pawaPay never refunds more than it took). */
  private refundable(deposit: Operation, refundId: string): number {
    const refunded = [...this.operations.values()]
      .filter((op) => op.kind === 'refunds' && op.id !== refundId && op.request.depositId === deposit.id && op.status !== 'FAILED')
      .reduce((sum, op) => sum + Number(op.request.amount ?? deposit.request.amount), 0);
    return Number(deposit.request.amount) - refunded;
  }

  /** pawaPay's active configuration, with its two shapes of `operationTypes` (the deposit as `{"DEPOSIT": {…}}`). */
  private activeConf(): unknown {
    const countries = [...new Set(this.providers.map((p) => p.country))];
    return {
      companyName: 'Sika test account',
      signatureConfiguration: { signedRequestsOnly: this.options.signedRequests !== undefined, signedCallbacks: this.options.signedCallbacks !== false },
      countries: countries.map((country) => ({
        country,
        prefix: this.providers.find((p) => p.country === country)!.prefix,
        providers: this.providers
          .filter((p) => p.country === country)
          .map((p) => ({
            provider: p.provider,
            currencies: [
              {
                currency: p.currency,
                operationTypes: (p.operations ?? (['DEPOSIT', 'PAYOUT', 'REFUND'] as const)).map((type) => {
                  const details = {
                    minTransactionLimit: p.minTransactionLimit,
                    maxTransactionLimit: p.maxTransactionLimit,
                    decimalsInAmount: p.decimalsInAmount,
                    status: this.availability.get(`${p.provider}/${type}`) ?? 'OPERATIONAL',
                    ...(type === 'DEPOSIT' ? { authType: p.authType ?? 'PROVIDER_AUTH' } : {}),
                    callbackUrl: `${this.options.callbackBaseUrl ?? 'https://merchant.example'}/${type.toLowerCase()}s`,
                  };
                  return type === 'DEPOSIT' ? { DEPOSIT: details } : { operationType: type, ...details };
                }),
              },
            ],
          })),
      })),
    };
  }

  private availabilityBody(): unknown {
    const countries = [...new Set(this.providers.map((p) => p.country))];
    return countries.map((country) => ({
      country,
      providers: this.providers
        .filter((p) => p.country === country)
        .map((p) => ({
          provider: p.provider,
          operationTypes: (p.operations ?? (['DEPOSIT', 'PAYOUT', 'REFUND'] as const)).map((operationType) => ({ operationType, status: this.availability.get(`${p.provider}/${operationType}`) ?? 'OPERATIONAL' })),
        })),
    }));
  }
}
