/**
 * A stand-in for Paystack's API (docs/connectors.md, "Paystack"): a real HTTP server on 127.0.0.1
 * that checks every request against the contract as this project writes it down from Paystack's
 * published API document (the bearer secret key; exact fields and no others; amounts integers in
 * the subunit; a transfer's reference lower case `[a-z0-9_-]`, at least 16 characters; a
 * recipient's type that fits its currency; bank codes of the bank list), keeps the state of
 * recipients and transfers, answers as Paystack does (`{status, message, data}`, errors
 * `{status: false, message}`), sends webhooks signed with the secret key (HMAC-SHA512, hex, in
 * `x-paystack-signature`), serves the checkout page an initialised transaction's
 * `authorization_url` names (Pay or Decline, then back to its `callback_url`, for browser tests),
 * and injects Paystack's faults when a test asks. Every deviation is
 * recorded in `deviations`, which a test asserts empty at its end.
 *
 * Nothing here runs on a timer: the test settles transfers and sends webhooks when it decides.
 */
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv, type ValidateFunction } from 'ajv';

export interface StandinBank {
  code: string;
  name: string;
  currency: string;
  /** A mobile money operator (`GET /bank?type=mobile_money` lists it; its recipients are `mobile_money`); a bank otherwise. */
  type?: 'mobile_money';
}

export const DEFAULT_BANKS: StandinBank[] = [
  { code: '058', name: 'Guaranty Trust Bank', currency: 'NGN' },
  { code: '044', name: 'Access Bank', currency: 'NGN' },
  { code: '033', name: 'United Bank For Africa', currency: 'NGN' },
  { code: '280100', name: 'GCB Bank', currency: 'GHS' },
  { code: 'MTN', name: 'MTN', currency: 'GHS', type: 'mobile_money' },
  { code: 'VOD', name: 'Vodafone', currency: 'GHS', type: 'mobile_money' },
  { code: 'ATL', name: 'AirtelTigo', currency: 'GHS', type: 'mobile_money' },
  { code: 'MPESA', name: 'M-PESA', currency: 'KES', type: 'mobile_money' },
];

/** The `type` filter of `GET /bank`, as Paystack's document spells it (`ghipps` sic). */
const BANK_LIST_TYPES = ['ghipps', 'mobile_money', 'nuban', 'kepss', 'basa'];
/** The currencies whose mobile money wallets Paystack pays (recipient type `mobile_money`). */
const MOBILE_MONEY_CURRENCIES = ['GHS', 'KES'];
/** A wallet's number as Paystack takes it: national, a leading 0 and nine digits (`0551234987`). */
const NATIONAL_WALLET_NUMBER = /^0[0-9]{9}$/;

/** What the next transfer request meets, instead of Paystack's ordinary acceptance (`pending`). */
export type TransferFault =
  /** Taken with status `otp`: the account still requires an OTP to finalise transfers. */
  | { type: 'otp' }
  /** Taken and answered `success` at once. */
  | { type: 'success' }
  /** Refused with HTTP 400 and this message (Paystack's error catalogue); nothing is kept. */
  | { type: 'refuse'; message: string }
  /** HTTP 400 "reference already exists", as for a transfer taken before (it is kept, pending). */
  | { type: 'duplicate_reference' }
  /** Taken (kept, pending), then the connection is destroyed without an answer. */
  | { type: 'lose_answer' }
  /** HTTP 500; `taken`: whether Paystack kept the transfer anyway. */
  | { type: 'server_error'; taken: boolean };

/** What the next charge of a saved authorization meets, instead of an approval. */
export type ChargeFault =
  /** The bank declines it: status `failed` with this gateway response. */
  | { type: 'decline'; message: string }
  /** The bank wants the payer on a page first (3-D Secure): `open_url` with a URL. */
  | { type: 'open_url' }
  /** The bank wants an OTP from the payer: `send_otp` (no URL: Sika waits for the verification). */
  | { type: 'send_otp' };

/** How the payer leaves Paystack's checkout page. */
export interface CheckoutOutcome {
  /** Declined with this gateway response; approved when absent. */
  declined?: string;
  /** Whether the authorization the card yields may be charged again (default true). */
  reusable?: boolean;
  last4?: string;
}

export interface Transaction {
  reference: string;
  id: number;
  request: Record<string, unknown>;
  status: 'abandoned' | 'ongoing' | 'success' | 'failed' | 'reversed';
  gatewayResponse: string;
  authorizationCode?: string;
}

export type TransferStatus = 'pending' | 'otp' | 'received' | 'success' | 'failed' | 'reversed' | 'abandoned' | 'blocked' | 'rejected';

export interface Transfer {
  reference: string;
  transferCode: string;
  request: Record<string, unknown>;
  status: TransferStatus;
  created: string;
}

export type RefundStatus = 'pending' | 'processing' | 'processed' | 'failed';

export interface Refund {
  id: number;
  /** The transaction's reference. */
  transaction: string;
  request: Record<string, unknown>;
  amount: number;
  currency: string;
  status: RefundStatus;
}

/** What the next refund request meets, instead of Paystack's ordinary acceptance (`pending`). */
export type RefundFault =
  /** Refused with HTTP 400 and this message; nothing is kept. */
  | { type: 'refuse'; message: string }
  /** Taken (kept, pending), then the connection is destroyed without an answer. */
  | { type: 'lose_answer' }
  /** HTTP 500; `taken`: whether Paystack kept the refund anyway. */
  | { type: 'server_error'; taken: boolean }
  /** Taken and answered after `ms`: until then the refund list does not show it (Paystack still working on the request). */
  | { type: 'slow'; ms: number }
  /** HTTP 429, too many requests: nothing is kept. */
  | { type: 'rate_limited' };

export type DisputeStatus = 'awaiting-merchant-feedback' | 'awaiting-bank-feedback' | 'pending' | 'resolved';

/** A dispute the card network opened on a transaction (`GET /dispute/{id}`). */
export interface Dispute {
  id: number;
  /** The transaction's reference. */
  transaction: string;
  status: DisputeStatus;
  resolution: string | null;
  /** In the subunit; 0 until Paystack sets one. */
  refundAmount: number;
  category: string;
  dueAt: string | null;
  evidence: Record<string, unknown> | null;
  /** The uploaded files its answers named. */
  attachments: string[];
}

/** A file for a dispute: the signed URL Paystack gave for it (`GET /dispute/{id}/upload_url`), and what was PUT there. */
export interface DisputeUpload {
  dispute: number;
  /** The `upload_filename` asked for, and the name Paystack gave it (what the answers name). */
  uploadFilename: string;
  fileName: string;
  signature: string;
  /** Null until its bytes are PUT to the signed URL. */
  bytes: Buffer | null;
  contentType: string | null;
}

export interface WebhookOptions {
  /** unsigned: no signature header; other_key: signed with a key that is not the account's; tampered: the body changed after signing. */
  forge?: 'unsigned' | 'other_key' | 'tampered';
  /** Fields of the transfer replaced (a mismatched amount, a stale status). */
  override?: Record<string, unknown>;
}

export interface PaystackStandinOptions {
  secretKey: string;
  /** Where webhooks go (the account's one webhook URL). */
  webhookUrl?: string;
  banks?: StandinBank[];
}

const REFERENCE = '^[a-z0-9_-]{16,}$';
const TRANSACTION_REFERENCE = '^[A-Za-z0-9.=-]+$';
const RECIPIENT_TYPE: Record<string, string> = { NGN: 'nuban', GHS: 'ghipss', KES: 'kepss', ZAR: 'basa' };
const SCHEMAS = {
  recipient: {
    type: 'object',
    additionalProperties: false,
    required: ['type', 'name', 'account_number', 'bank_code'],
    properties: {
      type: { enum: ['nuban', 'ghipss', 'mobile_money', 'kepss', 'basa', 'authorization'] },
      name: { type: 'string', minLength: 1 },
      account_number: { type: 'string', pattern: '^[0-9]{6,20}$' },
      bank_code: { type: 'string', minLength: 1 },
      description: { type: 'string' },
      currency: { enum: ['NGN', 'GHS', 'KES', 'ZAR'] },
      metadata: { type: 'object' },
    },
  },
  initialize: {
    type: 'object',
    additionalProperties: false,
    required: ['email', 'amount'],
    properties: {
      email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' },
      amount: { type: 'integer', minimum: 1 },
      currency: { enum: ['NGN', 'GHS', 'KES', 'ZAR', 'USD'] },
      reference: { type: 'string', pattern: TRANSACTION_REFERENCE },
      callback_url: { type: 'string', pattern: '^https?://' },
      channels: { type: 'array', items: { enum: ['card', 'bank', 'ussd', 'qr', 'eft', 'mobile_money', 'bank_transfer'] } },
      metadata: { type: 'object' },
    },
  },
  charge: {
    type: 'object',
    additionalProperties: false,
    required: ['email', 'amount', 'authorization_code'],
    properties: {
      email: { type: 'string', pattern: '^[^@\\s]+@[^@\\s]+$' },
      amount: { type: 'integer', minimum: 1 },
      authorization_code: { type: 'string', pattern: '^AUTH_[a-z0-9]+$' },
      reference: { type: 'string', pattern: TRANSACTION_REFERENCE },
      currency: { enum: ['NGN', 'GHS', 'KES', 'ZAR', 'USD'] },
      // A string of JSON here, unlike initialize's object.
      metadata: { type: 'string' },
    },
  },
  disputeEvidence: {
    type: 'object',
    additionalProperties: false,
    required: ['customer_email', 'customer_name', 'customer_phone', 'service_details'],
    properties: {
      customer_email: { type: 'string' },
      customer_name: { type: 'string' },
      customer_phone: { type: 'string' },
      service_details: { type: 'string' },
      delivery_address: { type: 'string' },
      delivery_date: { type: 'string' },
    },
  },
  // Paystack's DisputeUpdate (`PUT /dispute/{id}`): how a file uploaded for a dispute is attached to it.
  disputeUpdate: {
    type: 'object',
    additionalProperties: false,
    required: ['refund_amount'],
    properties: {
      refund_amount: { type: 'integer', minimum: 0 },
      uploaded_filename: { type: 'string' },
    },
  },
  disputeResolve: {
    type: 'object',
    additionalProperties: false,
    required: ['resolution', 'message', 'refund_amount', 'uploaded_filename'],
    properties: {
      resolution: { enum: ['merchant-accepted', 'declined'] },
      message: { type: 'string' },
      refund_amount: { type: 'integer', minimum: 0 },
      uploaded_filename: { type: 'string' },
      evidence: { type: 'integer' },
    },
  },
  refund: {
    type: 'object',
    additionalProperties: false,
    required: ['transaction'],
    properties: {
      transaction: { type: 'string', pattern: TRANSACTION_REFERENCE },
      amount: { type: 'integer', minimum: 1 },
      currency: { enum: ['NGN', 'GHS', 'KES', 'ZAR', 'USD'] },
      customer_note: { type: 'string' },
      merchant_note: { type: 'string' },
    },
  },
  transfer: {
    type: 'object',
    additionalProperties: false,
    required: ['source', 'amount', 'recipient', 'reference'],
    properties: {
      source: { const: 'balance' },
      amount: { type: 'integer', minimum: 1 },
      recipient: { type: 'string', pattern: '^RCP_[a-z0-9]+$' },
      reference: { type: 'string', pattern: REFERENCE },
      reason: { type: 'string', maxLength: 100 },
      currency: { enum: ['NGN', 'GHS', 'KES', 'ZAR'] },
    },
  },
};

export class PaystackStandin {
  /** Every way a request left the contract, in order. A test asserts it empty at its end. */
  readonly deviations: string[] = [];
  /** Every request, as it came. */
  readonly requests: { method: string; path: string; body: string }[] = [];
  /** The account's balance per currency `GET /balance` answers, in the subunit; NGN 10,000,000.00 unless set. */
  readonly balances = new Map<string, number>([['NGN', 1_000_000_000]]);
  /** The account holder's name `GET /bank/resolve` answers, by `bank_code/account_number`; an account not here is unknown to the bank. */
  readonly accountNames = new Map<string, string>();
  private readonly recipients = new Map<string, { code: string; request: Record<string, unknown> }>();
  private readonly transfers = new Map<string, Transfer>();
  private readonly faults: TransferFault[] = [];
  private readonly validators: Record<'recipient' | 'transfer' | 'initialize' | 'charge' | 'refund' | 'disputeEvidence' | 'disputeUpdate' | 'disputeResolve', ValidateFunction>;
  private readonly disputes = new Map<number, Dispute>();
  /** The files uploaded (or awaited) for disputes, by the token of their signed URL. */
  private readonly uploads = new Map<string, DisputeUpload>();
  private readonly refunds: Refund[] = [];
  private readonly refundFaults: RefundFault[] = [];
  private readonly transactions = new Map<string, Transaction>();
  private readonly authorizations = new Map<string, { email: string; reusable: boolean; last4: string; signature: string }>();
  private readonly chargeFaults: ChargeFault[] = [];
  /** The transaction of each checkout page (`authorization_url`), by its access code. */
  private readonly checkouts = new Map<string, string>();
  private readonly banks: StandinBank[];
  private counter = 0;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly options: PaystackStandinOptions,
  ) {
    const ajv = new Ajv({ allErrors: true, strict: true });
    this.validators = {
      recipient: ajv.compile(SCHEMAS.recipient),
      transfer: ajv.compile(SCHEMAS.transfer),
      initialize: ajv.compile(SCHEMAS.initialize),
      charge: ajv.compile(SCHEMAS.charge),
      refund: ajv.compile(SCHEMAS.refund),
      disputeEvidence: ajv.compile(SCHEMAS.disputeEvidence),
      disputeUpdate: ajv.compile(SCHEMAS.disputeUpdate),
      disputeResolve: ajv.compile(SCHEMAS.disputeResolve),
    };
    this.banks = options.banks ?? DEFAULT_BANKS;
  }

  static async start(options: PaystackStandinOptions): Promise<PaystackStandin> {
    let standin: PaystackStandin | undefined;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => standin!.handle(req, res, Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    standin = new PaystackStandin(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, options);
    return standin;
  }

  /** The fault the next transfer request meets. */
  next(fault: TransferFault): void {
    this.faults.push(fault);
  }

  /** The fault the next charge of a saved authorization meets. */
  nextCharge(fault: ChargeFault): void {
    this.chargeFaults.push(fault);
  }

  /** The fault the next refund request meets. */
  nextRefund(fault: RefundFault): void {
    this.refundFaults.push(fault);
  }

  /** The refunds of a transaction Paystack kept. */
  refundsOf(reference: string): Refund[] {
    return this.refunds.filter((r) => r.transaction === reference);
  }

  /** The requests that would start a refund. */
  get refundRequests(): Record<string, unknown>[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/refund').map((r) => JSON.parse(r.body) as Record<string, unknown>);
  }

  /** Moves a refund on, as the card network would. */
  settleRefund(refund: Refund, status: RefundStatus): Refund {
    refund.status = status;
    return refund;
  }

  /** A refund as the refund list carries it. */
  refundData(refund: Refund): Record<string, unknown> {
    const transaction = this.transactions.get(refund.transaction)!;
    return {
      integration: 1,
      transaction: transaction.id,
      dispute: null,
      settlement: null,
      id: refund.id,
      domain: 'live',
      currency: refund.currency,
      amount: refund.amount,
      status: refund.status,
      refunded_at: refund.status === 'processed' ? new Date(0).toISOString() : null,
      refunded_by: 'api',
      customer_note: refund.request.customer_note ?? '',
      merchant_note: refund.request.merchant_note ?? '',
      deducted_amount: refund.amount,
      fully_deducted: 1,
      createdAt: new Date(0).toISOString(),
      bank_reference: null,
      transaction_reference: refund.transaction,
      reason: '',
      refund_type: refund.amount === transaction.request.amount ? 'full' : 'partial',
      transaction_amount: transaction.request.amount,
      initiated_by: 'api',
      refund_channel: 'card',
      session_id: null,
      collect_account_number: false,
    };
  }

  /**
   * POSTs a refund webhook (`refund.pending|processing|processed|failed`), signed as Paystack signs
   * (or forged). As Paystack's, it carries the transaction's reference and the refund's money and
   * status (the amount a string of subunits), not the merchant note.
   */
  async sendRefundWebhook(event: string, refund: Refund, options: WebhookOptions = {}): Promise<number> {
    const data = {
      status: refund.status,
      transaction_reference: refund.transaction,
      refund_reference: null,
      amount: String(refund.amount),
      currency: refund.currency,
      processor: 'visa',
      customer: { email: this.transactions.get(refund.transaction)!.request.email },
      integration: 1,
      domain: 'live',
      id: String(refund.id),
    };
    return this.post({ event, data: { ...data, ...options.override } }, options);
  }

  transaction(reference: string): Transaction | undefined {
    return this.transactions.get(reference);
  }

  /** The requests that started a charge (`/transaction/initialize`, `/transaction/charge_authorization`). */
  get chargeRequests(): { path: string; body: Record<string, unknown> }[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/transaction/')).map((r) => ({ path: r.path, body: JSON.parse(r.body) as Record<string, unknown> }));
  }

  /** The payer on Paystack's checkout page of an initialised transaction: approved (an authorization for the card) or declined. */
  checkout(reference: string, outcome: CheckoutOutcome = {}): Transaction {
    const transaction = this.transactions.get(reference);
    if (!transaction) throw new Error(`the stand-in has no transaction ${reference}`);
    if (outcome.declined) {
      transaction.status = 'failed';
      transaction.gatewayResponse = outcome.declined;
      return transaction;
    }
    const code = `AUTH_${(++this.counter).toString(36).padStart(8, '0')}`;
    const last4 = outcome.last4 ?? '4081';
    this.authorizations.set(code, { email: transaction.request.email as string, reusable: outcome.reusable ?? true, last4, signature: `SIG_card_${last4}` });
    transaction.status = 'success';
    transaction.gatewayResponse = 'Approved';
    transaction.authorizationCode = code;
    return transaction;
  }

  /** A transaction as its verification and webhooks carry it. */
  transactionData(transaction: Transaction): Record<string, unknown> {
    const authorization = transaction.authorizationCode ? this.authorizations.get(transaction.authorizationCode) : undefined;
    return {
      id: transaction.id,
      domain: 'live',
      status: transaction.status,
      reference: transaction.reference,
      amount: transaction.request.amount,
      currency: transaction.request.currency ?? 'NGN',
      gateway_response: transaction.gatewayResponse,
      channel: 'card',
      metadata: transaction.request.metadata ?? null,
      paid_at: transaction.status === 'success' ? new Date(0).toISOString() : null,
      authorization: authorization
        ? {
            authorization_code: transaction.authorizationCode,
            bin: '408408',
            last4: authorization.last4,
            exp_month: '12',
            exp_year: '2030',
            channel: 'card',
            card_type: 'visa ',
            bank: 'TEST BANK',
            country_code: 'NG',
            brand: 'visa',
            reusable: authorization.reusable,
            signature: authorization.signature,
            account_name: null,
          }
        : {},
      customer: { id: 1, email: transaction.request.email, customer_code: 'CUS_test' },
    };
  }

  /** POSTs `charge.success` about a transaction, signed as Paystack signs (or forged); the receiver's status. */
  async sendChargeWebhook(reference: string, options: WebhookOptions = {}): Promise<number> {
    const transaction = this.transactions.get(reference);
    if (!transaction) throw new Error(`the stand-in has no transaction ${reference}`);
    return this.post({ event: 'charge.success', data: { ...this.transactionData(transaction), ...options.override } }, options);
  }

  /** The card network disputes a transaction: Paystack keeps a dispute awaiting the merchant's feedback, due in `dueInMs` (a week by default) from `now`. */
  openDispute(reference: string, options: { now: Date; dueInMs?: number; category?: string; refundAmount?: number }): Dispute {
    if (!this.transactions.has(reference)) throw new Error(`the stand-in has no transaction ${reference}`);
    const dispute: Dispute = {
      id: 1_800_000 + ++this.counter,
      transaction: reference,
      status: 'awaiting-merchant-feedback',
      resolution: null,
      refundAmount: options.refundAmount ?? 0,
      category: options.category ?? 'chargeback',
      dueAt: new Date(options.now.getTime() + (options.dueInMs ?? 7 * 86_400_000)).toISOString(),
      evidence: null,
      attachments: [],
    };
    this.disputes.set(dispute.id, dispute);
    return dispute;
  }

  /** The issuer decides: `declined` (the merchant's answer held), `auto-accepted` (lost), or `merchant-accepted`. */
  resolveDispute(dispute: Dispute, resolution: 'declined' | 'auto-accepted' | 'merchant-accepted'): Dispute {
    dispute.status = 'resolved';
    dispute.resolution = resolution;
    return dispute;
  }

  /** A dispute as `GET /dispute/{id}` and the dispute webhooks carry it. */
  disputeData(dispute: Dispute): Record<string, unknown> {
    const transaction = this.transactions.get(dispute.transaction)!;
    return {
      id: dispute.id,
      refund_amount: dispute.refundAmount,
      currency: transaction.request.currency ?? 'NGN',
      status: dispute.status,
      resolution: dispute.resolution,
      domain: 'live',
      transaction: this.transactionData(transaction),
      transaction_reference: null,
      category: dispute.category,
      customer: { id: 1, first_name: null, last_name: null, email: transaction.request.email, customer_code: 'CUS_test', phone: null, metadata: {}, risk_action: 'default' },
      bin: '408408',
      last4: '4081',
      dueAt: dispute.dueAt,
      resolvedAt: dispute.status === 'resolved' ? new Date(0).toISOString() : null,
      evidence: dispute.evidence,
      attachments: dispute.attachments.length > 0 ? dispute.attachments : null,
      note: null,
      history: [],
      messages: [],
      createdAt: new Date(0).toISOString(),
      updatedAt: new Date(0).toISOString(),
    };
  }

  /** POSTs a dispute webhook (`charge.dispute.create|remind|resolve`), signed as Paystack signs (or forged); the receiver's status. */
  async sendDisputeWebhook(event: string, dispute: Dispute, options: WebhookOptions = {}): Promise<number> {
    return this.post({ event, data: { ...this.disputeData(dispute), ...options.override } }, options);
  }

  /** The requests that answered a dispute (`POST /dispute/{id}/evidence`, `PUT /dispute/{id}/resolve`). */
  get disputeRequests(): { method: string; path: string; body: Record<string, unknown> }[] {
    return this.requests.filter((r) => r.path.startsWith('/dispute/') && r.method !== 'GET').map((r) => ({ method: r.method, path: r.path, body: JSON.parse(r.body) as Record<string, unknown> }));
  }

  /** The files uploaded to a dispute's signed URLs, in order (those whose bytes came). */
  disputeUploads(dispute: Dispute): DisputeUpload[] {
    return [...this.uploads.values()].filter((u) => u.dispute === dispute.id && u.bytes);
  }

  /** Files the dispute's answers named (`PUT /dispute/{id}` and `/resolve`'s `uploaded_filename`). */
  attachedFiles(dispute: Dispute): string[] {
    return dispute.attachments;
  }

  takeDeviations(): string[] {
    return this.deviations.splice(0);
  }

  transfer(reference: string): Transfer | undefined {
    return this.transfers.get(reference);
  }

  /** The requests that would start a transfer. */
  get transferRequests(): Record<string, unknown>[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/transfer').map((r) => JSON.parse(r.body) as Record<string, unknown>);
  }

  /** How many recipients were asked for (`POST /transferrecipient`). */
  get recipientRequests(): number {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/transferrecipient').length;
  }

  /** Moves a transfer on, as the bank would. */
  settle(reference: string, status: TransferStatus): Transfer {
    const transfer = this.transfers.get(reference);
    if (!transfer) throw new Error(`the stand-in has no transfer ${reference}`);
    transfer.status = status;
    return transfer;
  }

  /** A transfer as its verification and webhooks carry it. */
  data(transfer: Transfer): Record<string, unknown> {
    const recipient = [...this.recipients.values()].find((r) => r.code === transfer.request.recipient);
    return {
      id: Number(transfer.transferCode.replace(/\D/g, '')),
      domain: 'live',
      amount: transfer.request.amount,
      currency: transfer.request.currency ?? 'NGN',
      reference: transfer.reference,
      source: 'balance',
      reason: transfer.request.reason ?? '',
      status: transfer.status,
      transfer_code: transfer.transferCode,
      failures: null,
      titan_code: null,
      transferred_at: transfer.status === 'success' ? transfer.created : null,
      recipient: recipient ? { recipient_code: recipient.code, type: recipient.request.type, name: recipient.request.name, details: { account_number: recipient.request.account_number, bank_code: recipient.request.bank_code } } : null,
      createdAt: transfer.created,
      updatedAt: transfer.created,
    };
  }

  /** POSTs a webhook about a transfer (`transfer.success`, `transfer.failed`, `transfer.reversed`), signed as Paystack signs (or forged); the receiver's status. */
  async sendWebhook(event: string, reference: string, options: WebhookOptions = {}): Promise<number> {
    const transfer = this.transfers.get(reference);
    if (!transfer) throw new Error(`the stand-in has no transfer ${reference}`);
    if (!this.options.webhookUrl) throw new Error('the stand-in has no webhook URL');
    return this.post({ event, data: { ...this.data(transfer), ...options.override } }, options);
  }

  private async post(payload: unknown, options: WebhookOptions): Promise<number> {
    if (!this.options.webhookUrl) throw new Error('the stand-in has no webhook URL');
    let body = Buffer.from(JSON.stringify(payload));
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (options.forge !== 'unsigned') {
      const key = options.forge === 'other_key' ? 'sk_live_not_the_accounts_key' : this.options.secretKey;
      headers['x-paystack-signature'] = createHmac('sha512', key).update(body).digest('hex');
    }
    if (options.forge === 'tampered') body = Buffer.from(body.toString().replace(/"status":"[a-z-]+"/, '"status":"success"'));
    const response = await fetch(this.options.webhookUrl, { method: 'POST', headers, body });
    await response.arrayBuffer();
    return response.status;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private deviate(req: http.IncomingMessage, what: string): void {
    this.deviations.push(`${req.method} ${req.url}: ${what}`);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, raw: Buffer): void {
    this.requests.push({ method: req.method ?? '', path: new URL(req.url ?? '/', this.url).pathname, body: raw.toString() });
    const url = new URL(req.url ?? '/', this.url);
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const ok = (data: unknown, message = 'OK', status = 200) => send(status, { status: true, message, data });
    const refuse = (status: number, message: string) => send(status, { status: false, message, meta: { nextStep: 'Check the request' }, type: 'validation_error', code: 'invalid_params' });
    // Paystack's checkout page, where the payer's browser goes (no key: it is the payer's, not Sika's).
    const page = /^\/checkout\/(acc_[a-z0-9]+)$/.exec(url.pathname);
    if (page) return this.checkoutPage(req, res, page[1]!, raw);
    // A dispute file's signed upload URL: a storage bucket's in Paystack's world, with the signature in the URL and no key.
    const upload = /^\/uploads\/([a-z0-9]+)$/.exec(url.pathname);
    if (upload) return this.receiveUpload(req, res, upload[1]!, url, raw);
    if (req.headers.authorization !== `Bearer ${this.options.secretKey}`) {
      this.deviate(req, 'no valid bearer secret key');
      return refuse(401, 'Invalid key');
    }
    const path = url.pathname;
    const query = Object.fromEntries(url.searchParams);
    const allowQuery = (names: string[]) => {
      const unknown = Object.keys(query).filter((q) => !names.includes(q));
      if (unknown.length > 0) this.deviate(req, `query parameters not in the contract: ${unknown.join(', ')}`);
    };
    if (req.method === 'GET' && path === '/bank') {
      allowQuery(['currency', 'country', 'perPage', 'page', 'type', 'use_cursor', 'next']);
      if (query.type !== undefined && !BANK_LIST_TYPES.includes(query.type)) this.deviate(req, `bank list type ${query.type} is not one of ${BANK_LIST_TYPES.join(', ')}`);
      const typeOf = (b: StandinBank) => b.type ?? RECIPIENT_TYPE[b.currency];
      const banks = this.banks.filter((b) => (!query.currency || b.currency === query.currency) && (!query.type || typeOf(b) === query.type));
      const country: Record<string, string> = { NGN: 'Nigeria', GHS: 'Ghana', KES: 'Kenya', ZAR: 'South Africa' };
      return ok(
        banks.map((b, i) => ({
          id: i + 1,
          name: b.name,
          slug: b.name.toLowerCase().replace(/\W+/g, '-'),
          code: b.code,
          longcode: '',
          gateway: null,
          pay_with_bank: false,
          supports_transfer: true,
          active: true,
          is_deleted: false,
          country: country[b.currency],
          currency: b.currency,
          type: typeOf(b),
        })),
        'Banks retrieved',
      );
    }
    if (req.method === 'GET' && path === '/bank/resolve') {
      allowQuery(['account_number', 'bank_code']);
      if (!/^[0-9]+$/.test(query.account_number ?? '') || !query.bank_code) {
        this.deviate(req, 'account_number and bank_code are required, the number numeric');
        return refuse(400, 'Account number should be numeric');
      }
      if (!this.banks.some((b) => b.code === query.bank_code && !b.type)) this.deviate(req, `bank code ${query.bank_code} is not a bank of the list`);
      const name = this.accountNames.get(`${query.bank_code}/${query.account_number}`);
      if (!name) return refuse(422, 'Could not resolve account name. Check parameters or try again.');
      return ok({ account_number: query.account_number, account_name: name, bank_id: 9 }, 'Account number resolved');
    }
    if (req.method === 'GET' && path === '/refund') {
      // Paystack's document lists perPage, page, from and to; its API reference adds the transaction filter.
      allowQuery(['transaction', 'currency', 'perPage', 'page', 'from', 'to']);
      if (!query.transaction) this.deviate(req, 'a refund list without its transaction: Sika asks about one payment');
      const listed = this.refunds.filter((r) => !query.transaction || r.transaction === query.transaction || String(this.transactions.get(r.transaction)?.id) === query.transaction);
      return send(200, {
        status: true,
        message: 'Refunds retrieved',
        data: listed.map((r) => this.refundData(r)),
        meta: { total: listed.length, skipped: 0, perPage: query.perPage ?? '50', page: 1, pageCount: 1, failedRefundCount: listed.filter((r) => r.status === 'failed').length },
      });
    }
    const uploadUrl = /^\/dispute\/([0-9]+)\/upload_url$/.exec(path);
    if (uploadUrl) {
      // Paystack's reference names the file to upload in `upload_filename`; the OpenAPI document leaves it out.
      allowQuery(['upload_filename']);
      if (req.method !== 'GET') this.deviate(req, `${req.method} is not the contract's method here (GET)`);
      if (!query.upload_filename) this.deviate(req, 'upload_filename is required');
      const dispute = this.disputes.get(Number(uploadUrl[1]));
      if (!dispute) return refuse(404, 'Dispute not found');
      const token = `u${++this.counter}x${createHmac('sha256', this.options.secretKey).update(`token|${this.counter}`).digest('hex').slice(0, 12)}`;
      const signature = createHmac('sha256', this.options.secretKey).update(`upload|${token}`).digest('hex');
      const fileName = `${dispute.id}-${token}${/\.[A-Za-z0-9]{1,8}$/.exec(query.upload_filename ?? '')?.[0] ?? ''}`;
      this.uploads.set(token, { dispute: dispute.id, uploadFilename: query.upload_filename ?? '', fileName, signature, bytes: null, contentType: null });
      return ok({ signedUrl: `${this.url}/uploads/${token}?signature=${signature}`, fileName }, 'Upload url generated');
    }
    if (url.search) this.deviate(req, 'unexpected query string');
    if (req.method === 'GET' && path === '/balance')
      return ok(
        [...this.balances].map(([currency, balance]) => ({ currency, balance })),
        'Balances retrieved',
      );
    if (req.method === 'POST' && (path === '/transaction/initialize' || path === '/transaction/charge_authorization')) {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw.toString()) as Record<string, unknown>;
      } catch {
        this.deviate(req, 'the body is not JSON');
        return refuse(400, 'Invalid JSON');
      }
      return this.charge(req, path === '/transaction/initialize' ? 'initialize' : 'charge', body, ok, refuse);
    }
    if (req.method === 'POST' && path === '/refund') {
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw.toString()) as Record<string, unknown>;
      } catch {
        this.deviate(req, 'the body is not JSON');
        return refuse(400, 'Invalid JSON');
      }
      return this.refund(req, res, body, ok, refuse);
    }
    const verifyCharge = /^\/transaction\/verify\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && verifyCharge) {
      const reference = decodeURIComponent(verifyCharge[1]!);
      if (!new RegExp(TRANSACTION_REFERENCE).test(reference)) this.deviate(req, `verification of ${reference}, not a transaction reference`);
      const transaction = this.transactions.get(reference);
      return transaction ? ok(this.transactionData(transaction), 'Verification successful') : refuse(400, 'Transaction reference not found');
    }
    if (req.method === 'POST' && (path === '/transferrecipient' || path === '/transfer')) {
      if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) this.deviate(req, `Content-Type ${req.headers['content-type']}`);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(raw.toString()) as Record<string, unknown>;
      } catch {
        this.deviate(req, 'the body is not JSON');
        return refuse(400, 'Invalid JSON');
      }
      return path === '/transferrecipient' ? this.createRecipient(req, body, ok, refuse) : this.initiateTransfer(req, res, body, ok, refuse);
    }
    const verify = /^\/transfer\/verify\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && verify) {
      const reference = decodeURIComponent(verify[1]!);
      if (!new RegExp(REFERENCE).test(reference)) this.deviate(req, `verification of ${reference}, not a transfer reference`);
      const transfer = this.transfers.get(reference);
      return transfer ? ok(this.data(transfer), 'Transfer retrieved') : refuse(404, 'Transfer not found');
    }
    const dispute = /^\/dispute\/([0-9]+)(\/evidence|\/resolve)?$/.exec(path);
    if (dispute) return this.answerDispute(req, Number(dispute[1]), dispute[2] ?? '', raw, ok, refuse);
    this.deviate(req, 'no such endpoint in the contract');
    return refuse(404, 'No such endpoint');
  }

  /**
   * `GET /dispute/{id}`, `PUT /dispute/{id}` (a file attached), `POST /dispute/{id}/evidence`
   * (Paystack then awaits the bank), `PUT /dispute/{id}/resolve`. A file named must be one uploaded
   * for this dispute, its bytes PUT to its signed URL.
   */
  private answerDispute(req: http.IncomingMessage, id: number, action: string, raw: Buffer, ok: (data: unknown, message?: string, status?: number) => void, refuse: (status: number, message: string) => void): void {
    const dispute = this.disputes.get(id);
    const methods = action === '' ? ['GET', 'PUT'] : action === '/evidence' ? ['POST'] : ['PUT'];
    if (!methods.includes(req.method ?? '')) {
      this.deviate(req, `${req.method} is not the contract's method here (${methods.join(' or ')})`);
      return refuse(404, 'No such endpoint');
    }
    const method = req.method;
    if (!dispute) return refuse(404, 'Dispute not found');
    if (method === 'GET') return ok(this.disputeData(dispute), 'Dispute retrieved');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString()) as Record<string, unknown>;
    } catch {
      this.deviate(req, 'the body is not JSON');
      return refuse(400, 'Invalid JSON');
    }
    const validate = action === '/evidence' ? this.validators.disputeEvidence : action === '' ? this.validators.disputeUpdate : this.validators.disputeResolve;
    if (!validate(body)) {
      this.deviate(req, `body: ${JSON.stringify(validate.errors)}`);
      return refuse(400, 'Invalid parameters');
    }
    if (typeof body.uploaded_filename === 'string') {
      const uploaded = [...this.uploads.values()].find((u) => u.dispute === dispute.id && u.fileName === body.uploaded_filename && u.bytes);
      if (!uploaded) {
        this.deviate(req, `uploaded_filename ${JSON.stringify(body.uploaded_filename)} is no file uploaded for dispute ${dispute.id}`);
        return refuse(400, 'Invalid uploaded_filename');
      }
      dispute.attachments.push(uploaded.fileName);
    }
    if (dispute.status === 'resolved') return refuse(400, 'Dispute has already been resolved');
    if (action === '') {
      dispute.refundAmount = body.refund_amount as number;
      return ok(this.disputeData(dispute), 'Dispute updated successfully');
    }
    if (action === '/evidence') {
      dispute.evidence = body;
      dispute.status = 'awaiting-bank-feedback';
      return ok({ ...body, dispute: dispute.id, id: dispute.id + 1, createdAt: new Date(0).toISOString(), updatedAt: new Date(0).toISOString() }, 'Evidence created');
    }
    dispute.status = 'resolved';
    dispute.resolution = body.resolution as string;
    dispute.refundAmount = body.refund_amount as number;
    return ok(this.disputeData(dispute), 'Dispute successfully resolved');
  }

  /** The bytes of a dispute's file, PUT to its signed URL: the signature must be the one given, no key may come with them, and some bytes must. */
  private receiveUpload(req: http.IncomingMessage, res: http.ServerResponse, token: string, url: URL, raw: Buffer): void {
    const upload = this.uploads.get(token);
    const answer = (status: number) => {
      res.writeHead(status);
      res.end();
    };
    if (req.method !== 'PUT') this.deviate(req, 'a signed upload URL takes PUT');
    if (req.headers.authorization) this.deviate(req, 'a key was sent to the signed upload URL');
    if (!upload || url.searchParams.get('signature') !== upload.signature) {
      this.deviate(req, 'no such signed upload URL');
      return answer(403);
    }
    if (raw.length === 0) this.deviate(req, 'an upload without bytes');
    upload.bytes = raw;
    upload.contentType = req.headers['content-type'] ?? null;
    answer(200);
  }

  /**
   * The checkout page of an initialised transaction, as a payer's browser sees it: the amount, and
   * "Pay" or "Decline". Either sends the payer back to the transaction's `callback_url` with
   * `trxref` and `reference` appended, as Paystack does (the test sends `charge.success` when it decides).
   */
  private checkoutPage(req: http.IncomingMessage, res: http.ServerResponse, access: string, raw: Buffer): void {
    const reference = this.checkouts.get(access);
    const transaction = reference ? this.transactions.get(reference) : undefined;
    if (!transaction) {
      res.writeHead(404, { 'Content-Type': 'text/html; charset=utf-8' });
      return void res.end('<!doctype html><title>Not found</title><p>No such checkout</p>');
    }
    if (req.method === 'POST') {
      const outcome = new URLSearchParams(raw.toString()).get('outcome');
      this.checkout(transaction.reference, outcome === 'pay' ? {} : { declined: 'Declined' });
      const back = new URL(String(transaction.request.callback_url));
      back.searchParams.set('trxref', transaction.reference);
      back.searchParams.set('reference', transaction.reference);
      res.writeHead(302, { Location: back.toString() });
      return void res.end();
    }
    const amount = `${String(transaction.request.currency ?? 'NGN')} ${((transaction.request.amount as number) / 100).toFixed(2)}`;
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html lang="en"><title>Paystack checkout</title><main><h1>Pay ${amount}</h1><p>${String(transaction.request.email)}</p><form method="post"><button name="outcome" value="pay">Pay</button> <button name="outcome" value="decline">Decline</button></form></main></html>`,
    );
  }

  private charge(req: http.IncomingMessage, kind: 'initialize' | 'charge', body: Record<string, unknown>, ok: (data: unknown, message?: string, status?: number) => void, refuse: (status: number, message: string) => void): void {
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) this.deviate(req, `Content-Type ${req.headers['content-type']}`);
    const validate = this.validators[kind];
    if (!validate(body)) {
      this.deviate(req, `not a ${kind} request: ${validate.errors!.map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`).join('; ')}`);
      return refuse(400, 'Invalid parameters');
    }
    const reference = body.reference as string | undefined;
    if (!reference) this.deviate(req, 'no reference: Sika always chooses its own');
    const key = reference ?? `generated-${++this.counter}`;
    if (this.transactions.has(key)) return refuse(400, 'Duplicate Transaction Reference');
    if (kind === 'initialize') {
      this.transactions.set(key, { reference: key, id: ++this.counter, request: body, status: 'abandoned', gatewayResponse: 'The transaction was not completed' });
      const access = `acc_${this.counter.toString(36)}`;
      this.checkouts.set(access, key);
      return ok({ authorization_url: `${this.url}/checkout/${access}`, access_code: access, reference: key }, 'Authorization URL created');
    }
    const authorization = this.authorizations.get(body.authorization_code as string);
    if (!authorization) {
      this.deviate(req, `authorization ${String(body.authorization_code)} was never given`);
      return refuse(400, 'Invalid Authorization Code');
    }
    if (!authorization.reusable) {
      this.deviate(req, 'a single-use authorization charged again (Sika refuses it before calling)');
      return refuse(400, 'Authorization code is invalid');
    }
    if (authorization.email !== body.email) {
      this.deviate(req, 'the e-mail is not the authorization’s');
      return refuse(400, 'Email does not match Authorization code');
    }
    const fault = this.chargeFaults.shift();
    const transaction: Transaction = { reference: key, id: ++this.counter, request: body, status: 'success', gatewayResponse: 'Approved', authorizationCode: body.authorization_code as string };
    if (fault?.type === 'decline') Object.assign(transaction, { status: 'failed', gatewayResponse: fault.message });
    if (fault?.type === 'open_url' || fault?.type === 'send_otp') Object.assign(transaction, { status: 'ongoing', gatewayResponse: 'Awaiting the payer' });
    this.transactions.set(key, transaction);
    const data = this.transactionData(transaction);
    if (fault?.type === 'open_url') return ok({ ...data, status: 'open_url', url: `${this.url}/3ds/${transaction.id}` }, 'Charge attempted');
    if (fault?.type === 'send_otp') return ok({ ...data, status: 'send_otp', display_text: 'Please enter the OTP sent to your phone' }, 'Charge attempted');
    ok(data, 'Charge attempted');
  }

  /**
   * `POST /refund`: the transaction must exist and be paid; the amount (default: what remains) an
   * integer of subunits no more than what is not refunded yet (failed refunds give it back).
   */
  private refund(req: http.IncomingMessage, res: http.ServerResponse, body: Record<string, unknown>, ok: (data: unknown, message?: string, status?: number) => void, refuse: (status: number, message: string) => void): void {
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) this.deviate(req, `Content-Type ${req.headers['content-type']}`);
    if (!this.validators.refund(body)) {
      this.deviate(req, `not a refund: ${this.validators.refund.errors!.map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`).join('; ')}`);
      return refuse(400, 'Invalid parameters');
    }
    const transaction = this.transactions.get(body.transaction as string);
    if (!transaction) {
      this.deviate(req, `refund of transaction ${String(body.transaction)}, which was never made`);
      return refuse(404, 'Transaction not found');
    }
    if (transaction.status !== 'success') {
      this.deviate(req, `refund of a transaction that is ${transaction.status}`);
      return refuse(400, 'Transaction has not been paid');
    }
    const currency = (transaction.request.currency as string | undefined) ?? 'NGN';
    if (body.currency !== undefined && body.currency !== currency) this.deviate(req, `a ${String(body.currency)} refund of a ${currency} transaction`);
    const refunded = this.refunds.filter((r) => r.transaction === transaction.reference && r.status !== 'failed').reduce((sum, r) => sum + r.amount, 0);
    const remaining = (transaction.request.amount as number) - refunded;
    const amount = (body.amount as number | undefined) ?? remaining;
    if (amount > remaining) {
      this.deviate(req, `a refund of ${amount} when ${remaining} remains (Sika checks what is refundable first)`);
      return refuse(400, 'Refund amount cannot be greater than transaction amount');
    }
    const fault = this.refundFaults.shift();
    if (fault?.type === 'refuse') return refuse(400, fault.message);
    if (fault?.type === 'rate_limited') return refuse(429, 'Too many requests');
    const take = () => {
      const refund: Refund = { id: ++this.counter, transaction: transaction.reference, request: body, amount, currency, status: 'pending' };
      this.refunds.push(refund);
      return refund;
    };
    if (fault?.type === 'server_error') {
      if (fault.taken) take();
      return void (res.writeHead(500, { 'Content-Type': 'application/json' }), res.end(JSON.stringify({ status: false, message: 'An error occurred' })));
    }
    if (fault?.type === 'slow') {
      setTimeout(() => this.answerRefund(transaction, take(), ok), fault.ms);
      return;
    }
    const refund = take();
    if (fault?.type === 'lose_answer') return void res.socket?.destroy();
    this.answerRefund(transaction, refund, ok);
  }

  private answerRefund(transaction: Transaction, refund: Refund, ok: (data: unknown, message?: string, status?: number) => void): void {
    const { currency, amount } = refund;
    ok(
      {
        transaction: this.transactionData(transaction),
        integration: 1,
        deducted_amount: 0,
        channel: null,
        merchant_note: refund.request.merchant_note ?? '',
        customer_note: refund.request.customer_note ?? '',
        status: 'pending',
        refunded_by: 'api',
        expected_at: new Date(0).toISOString(),
        currency,
        domain: 'live',
        amount,
        fully_deducted: false,
        id: refund.id,
        createdAt: new Date(0).toISOString(),
      },
      'Refund has been queued for processing',
    );
  }

  private createRecipient(req: http.IncomingMessage, body: Record<string, unknown>, ok: (data: unknown, message?: string, status?: number) => void, refuse: (status: number, message: string) => void): void {
    if (!this.validators.recipient(body)) {
      this.deviate(req, `not a transfer recipient: ${this.validators.recipient.errors!.map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`).join('; ')}`);
      return refuse(400, 'Invalid recipient');
    }
    const currency = (body.currency as string | undefined) ?? 'NGN';
    const wallet = body.type === 'mobile_money';
    if (wallet) {
      // A wallet: GHS or KES, an operator of the mobile money list, the number in its national form.
      if (!MOBILE_MONEY_CURRENCIES.includes(currency)) this.deviate(req, `a mobile_money recipient in ${currency}: Paystack pays wallets in ${MOBILE_MONEY_CURRENCIES.join(', ')}`);
      if (!NATIONAL_WALLET_NUMBER.test(String(body.account_number))) this.deviate(req, `wallet number ${String(body.account_number)} is not national (0 and nine digits)`);
    } else if (RECIPIENT_TYPE[currency] !== body.type) this.deviate(req, `recipient type ${String(body.type)} does not fit ${currency}`);
    if (!this.banks.some((b) => b.code === body.bank_code && b.currency === currency && (b.type === 'mobile_money') === wallet)) {
      this.deviate(req, `bank code ${String(body.bank_code)} is not a ${currency} ${wallet ? 'mobile money operator' : 'bank'} of the list`);
      return refuse(400, 'Unknown bank code');
    }
    const key = `${currency}/${String(body.bank_code)}/${String(body.account_number)}`;
    // A duplicate account number retrieves the existing recipient.
    const known = this.recipients.get(key) ?? this.recipients.set(key, { code: `RCP_${(++this.counter).toString(36).padStart(8, '0')}`, request: body }).get(key)!;
    return ok({ active: true, currency, name: body.name, recipient_code: known.code, type: body.type, details: { account_number: body.account_number, bank_code: body.bank_code } }, 'Transfer recipient created successfully', 201);
  }

  private initiateTransfer(req: http.IncomingMessage, res: http.ServerResponse, body: Record<string, unknown>, ok: (data: unknown, message?: string, status?: number) => void, refuse: (status: number, message: string) => void): void {
    if (!this.validators.transfer(body)) {
      this.deviate(req, `not a transfer: ${this.validators.transfer.errors!.map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`).join('; ')}`);
      return refuse(400, 'Invalid entries found');
    }
    const recipient = [...this.recipients.values()].find((r) => r.code === body.recipient);
    if (!recipient) {
      this.deviate(req, `recipient ${String(body.recipient)} was never created`);
      return refuse(400, 'Recipient specified is invalid');
    }
    if ((recipient.request.currency ?? 'NGN') !== (body.currency ?? 'NGN')) this.deviate(req, `a ${String(body.currency)} transfer to a ${String(recipient.request.currency)} recipient`);
    const reference = body.reference as string;
    const known = this.transfers.get(reference);
    if (known && JSON.stringify(known.request) !== JSON.stringify(body)) this.deviate(req, `the same reference ${reference} sent again with another body`);
    const fault = this.faults.shift();
    if (fault?.type === 'refuse') return refuse(400, fault.message);
    const take = (status: TransferStatus = 'pending') =>
      known ?? this.transfers.set(reference, { reference, transferCode: `TRF_${(++this.counter).toString(36).padStart(8, '0')}`, request: body, status, created: new Date(0).toISOString() }).get(reference)!;
    if (known || fault?.type === 'duplicate_reference') {
      take();
      return refuse(400, 'Please provide a unique reference. Reference already exists on a transfer');
    }
    if (fault?.type === 'server_error') {
      if (fault.taken) take();
      return void (res.writeHead(500, { 'Content-Type': 'application/json' }), res.end(JSON.stringify({ status: false, message: 'An error occurred' })));
    }
    const transfer = take(fault?.type === 'otp' ? 'otp' : fault?.type === 'success' ? 'success' : 'pending');
    if (fault?.type === 'lose_answer') return void res.socket?.destroy();
    ok(this.data(transfer), transfer.status === 'otp' ? 'Transfer requires OTP to continue' : 'Transfer has been queued');
  }
}
