import type { Clock } from '#packages/core/clock.js';
import { ApiError } from '#packages/core/errors.js';
import type { ConnectorSinks } from '../callbacks.js';
import type {
  Availability,
  BankAccount,
  CollectInitiation,
  CollectMethod,
  CollectOutcome,
  CollectRequest,
  Connector,
  PayoutBank,
  PayoutDestination,
  PayoutInitiation,
  PayoutReport,
  PayoutRequest,
  RefundInitiation,
  StatusAnswer,
} from '../port.js';

export const SANDBOX_CARD_TOKENS = ['tok_visa', 'tok_visa_declined', 'tok_3ds_required', 'tok_visa_disputed'] as const;
/** The sandbox card whose payment succeeds, then is disputed (docs/sandbox-testing.md, "Cards"; the disputes family opens the dispute). */
export const SANDBOX_DISPUTED_CARD = 'tok_visa_disputed';

/** How long a customer has to approve a mobile money payment on their phone. */
const AUTHORIZATION_WINDOW_MS = 5 * 60_000;

interface Script {
  now: CollectInitiation;
  /** Final outcome and when it arrives; none = the operator never calls back. */
  later?: CollectOutcome;
}

const failed = (failureCode: string, failureMessage: string): CollectOutcome => ({ status: 'failed', failureCode, failureMessage });

/**
 * The sandbox operator (README, "Sandbox test numbers"): deterministic by the MSISDN's last two
 * digits and by card token, answering after SANDBOX_OPERATOR_DELAY_MS of the injected clock. It
 * carries every rail of the catalog; a status check answers what its timer will tell.
 */
/** The name the sandbox's banks give for the holder of any account they know. */
const SANDBOX_ACCOUNT_HOLDER = 'TEST ACCOUNT HOLDER';

const SANDBOX_BANKS: Readonly<Record<string, readonly PayoutBank[]>> = {
  NGN: [
    { code: '044', name: 'Access Bank' },
    { code: '011', name: 'First Bank of Nigeria' },
    { code: '058', name: 'Guaranty Trust Bank' },
    { code: '033', name: 'United Bank For Africa' },
    { code: '057', name: 'Zenith Bank' },
  ],
  GHS: [{ code: '280100', name: 'GCB Bank' }],
};

export class SandboxConnector implements Connector {
  readonly name = 'sandbox';
  /** Its timers are its own records, one per id: nothing is lost, and nothing is sent twice. */
  readonly oneRecordPerId = { collect: true, payout: true, refund: true } as const;

  constructor(
    private readonly clock: Clock,
    private readonly delayMs: number,
    private readonly publicUrl: string,
    private readonly sinks: ConnectorSinks,
  ) {}

  serves(): boolean {
    return true;
  }

  async availability(): Promise<Availability> {
    return 'available';
  }

  assertCanCollect(pm: CollectMethod): void {
    // No token: the card is typed on the sandbox's card page, as on Paystack's checkout.
    if (pm.type === 'card' && pm.token !== undefined && !(SANDBOX_CARD_TOKENS as readonly string[]).includes(pm.token)) {
      throw new ApiError('IKW-VAL-001', `Unknown sandbox card token; use one of ${SANDBOX_CARD_TOKENS.join(', ')}`, 'payment_method.card.token');
    }
  }

  private script(req: CollectRequest): Script {
    const pm = req.paymentMethod;
    if (pm.type === 'card') {
      if (pm.token === 'tok_visa_declined') return { now: { status: 'processing' }, later: failed('card_declined', 'The card was declined') };
      if (pm.token === 'tok_3ds_required' || pm.token === undefined) {
        return {
          now: {
            status: 'requires_action',
            nextAction: { type: 'redirect_to_url', redirect_to_url: { url: `${this.publicUrl}/sandbox/3ds/${req.operationId}`, return_url: req.returnUrl } },
          },
        };
      }
      return { now: { status: 'processing' }, later: { status: 'succeeded' } };
    }
    switch (pm.msisdn.slice(-2)) {
      case '01':
        return { now: { status: 'processing' }, later: failed('insufficient_funds', "The payer's wallet balance is too low") };
      case '02':
        return {
          now: {
            status: 'requires_action',
            nextAction: {
              type: 'mobile_money_authorization',
              mobile_money_authorization: {
                instructions: `Approve the payment of ${req.amount} ${req.currency.toUpperCase()} on the phone ending ${pm.msisdn.slice(-4)} with your ${pm.operator} PIN (sandbox: approved automatically)`,
                expires_at: new Date(this.clock.now().getTime() + AUTHORIZATION_WINDOW_MS).toISOString(),
              },
            },
          },
          later: { status: 'succeeded' },
        };
      case '03':
        return { now: { status: 'processing' } };
      case '04':
        return { now: { status: 'processing' }, later: failed('operator_unavailable', 'The operator is not reachable; try again later') };
      default:
        return { now: { status: 'processing' }, later: { status: 'succeeded' } };
    }
  }

  async collect(req: CollectRequest): Promise<CollectInitiation> {
    const script = this.script(req);
    if (script.later) {
      await this.sinks.collect({ paymentIntentId: req.paymentIntentId, operationId: req.operationId, merchantId: req.merchantId, environment: req.environment, outcome: script.later }, new Date(this.clock.now().getTime() + this.delayMs));
    }
    return script.now;
  }

  async collectStatus(req: CollectRequest): Promise<StatusAnswer<CollectOutcome>> {
    return { found: true, final: this.script(req).later ?? null };
  }

  assertCanPayOut(): void {
    // Every catalog destination can be paid out in sandbox, bank accounts included.
  }

  /** The sandbox's banks of a currency: Nigeria's and Ghana's by the codes Paystack lists in live, so an integration keeps them; one test bank elsewhere. */
  async banks(currency: string): Promise<readonly PayoutBank[]> {
    return SANDBOX_BANKS[currency.toUpperCase()] ?? [{ code: 'sandbox', name: 'Sika Sandbox Bank' }];
  }

  /** Every account is held by the test holder, but one ending in `01`, which no bank knows (its payout fails `recipient_not_found` alike). */
  async accountHolder(account: BankAccount): Promise<string | null> {
    if (account.account_number.endsWith('01')) throw new ApiError('IKW-PRV-011', `The bank does not know account ${account.account_number} (sandbox: it ends in 01)`, 'account_number');
    return SANDBOX_ACCOUNT_HOLDER;
  }

  /** The payout column of the test-number table, by the last two digits of the MSISDN or account number. */
  private payoutScript(destination: PayoutDestination): { after: number; report: PayoutReport }[] {
    const d = this.delayMs;
    const digits = destination.type === 'mobile_money' ? destination.msisdn : destination.account_number;
    switch (digits.slice(-2)) {
      case '01':
        return [{ after: d, report: { type: 'failed', failureCode: 'recipient_not_found', failureMessage: 'The operator has no account for this number' } }];
      case '02':
        return [
          { after: d, report: { type: 'delayed', reason: 'operator_pending' } },
          { after: 2 * d, report: { type: 'paid' } },
        ];
      case '03':
        return [
          { after: d, report: { type: 'delayed', reason: 'operator_timeout' } },
          { after: 2 * d, report: { type: 'failed', failureCode: 'operator_timeout', failureMessage: 'The operator did not confirm the transfer in time' } },
        ];
      case '04':
        return [{ after: d, report: { type: 'delayed', reason: 'operator_down' } }];
      default:
        return [{ after: d, report: { type: 'paid' } }];
    }
  }

  async payout(req: PayoutRequest): Promise<PayoutInitiation> {
    const now = this.clock.now().getTime();
    for (const step of this.payoutScript(req.destination)) {
      await this.sinks.payout({ payoutId: req.payoutId, merchantId: req.merchantId, environment: req.environment, report: step.report }, new Date(now + step.after));
    }
    return { status: 'accepted' };
  }

  async payoutStatus(req: PayoutRequest): Promise<StatusAnswer<PayoutReport>> {
    const last = this.payoutScript(req.destination).at(-1)!.report;
    return { found: true, final: last.type === 'delayed' ? null : last };
  }

  /** Sandbox refunds are the ledger's alone: the sandbox operator takes every one. */
  async refund(): Promise<RefundInitiation> {
    return { status: 'accepted' };
  }

  async refundStatus(): Promise<StatusAnswer<CollectOutcome>> {
    return { found: true, final: { status: 'succeeded' } };
  }
}
