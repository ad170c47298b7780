import type { Clock } from '../core/clock.js';
import { ApiError } from '../core/errors.js';
import type { InitiationResult } from '../domain/payment-intent/decider.js';
import type { PaymentMethodDetails } from '../domain/payment-intent/events.js';
import type { PayinCallbackSink, PayinOutcome, PayinRequest, PaymentProvider } from './port.js';

export const SANDBOX_CARD_TOKENS = ['tok_visa', 'tok_visa_declined', 'tok_3ds_required'] as const;

/** How long a customer has to approve a mobile money payment on their phone. */
const AUTHORIZATION_WINDOW_MS = 5 * 60_000;

interface Script {
  now: InitiationResult;
  /** Final outcome and when it arrives; none = the operator never calls back. */
  later?: PayinOutcome;
}

const failed = (failureCode: string, failureMessage: string): PayinOutcome => ({ status: 'failed', failureCode, failureMessage });

/**
 * The sandbox operator (ARCHITECTURE.md section 4): deterministic by the MSISDN's last two digits
 * and by card token, answering after SANDBOX_OPERATOR_DELAY_MS of the injected clock.
 */
export class SandboxProvider implements PaymentProvider {
  constructor(
    private readonly clock: Clock,
    private readonly delayMs: number,
    private readonly publicUrl: string,
    private readonly sink: PayinCallbackSink,
  ) {}

  assertCanCollect(pm: PaymentMethodDetails): void {
    if (pm.type === 'card' && !(SANDBOX_CARD_TOKENS as readonly string[]).includes(pm.token)) {
      throw new ApiError('IKW-VAL-001', `Unknown sandbox card token; use one of ${SANDBOX_CARD_TOKENS.join(', ')}`, 'payment_method.card.token');
    }
  }

  private script(req: PayinRequest): Script {
    const pm = req.paymentMethod;
    if (pm.type === 'card') {
      if (pm.token === 'tok_visa_declined') return { now: { status: 'processing' }, later: failed('card_declined', 'The card was declined') };
      if (pm.token === 'tok_3ds_required') {
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

  async initiatePayin(req: PayinRequest): Promise<InitiationResult> {
    const script = this.script(req);
    if (script.later) {
      await this.sink(
        { paymentIntentId: req.paymentIntentId, operationId: req.operationId, merchantId: req.merchantId, environment: req.environment, outcome: script.later },
        new Date(this.clock.now().getTime() + this.delayMs),
      );
    }
    return script.now;
  }
}

/** Live mode: no connector ships enabled, so every payment method is refused with a clear error. */
export class UnconfiguredLiveProvider implements PaymentProvider {
  assertCanCollect(pm: PaymentMethodDetails): never {
    const what = pm.type === 'mobile_money' ? `operator ${pm.operator} (${pm.country})` : 'cards';
    throw new ApiError('IKW-PRV-001', `Live processing is not enabled for ${what}: no connector is configured`, 'payment_method');
  }

  initiatePayin(): Promise<InitiationResult> {
    return Promise.reject(new ApiError('IKW-PRV-001'));
  }
}
