import type { Clock } from '#packages/core/clock.js';
import type { Fact } from '#packages/core/decider.js';
import type { Logger } from '#packages/core/logger.js';
import type { Actor, Environment, Owner } from '#packages/core/owner.js';
import { assertOwned } from '#packages/core/aggregate.js';
import { isRefused, Refusal } from '#packages/core/refusal.js';
import type { CollectMethod, Rails } from '#packages/connectors/port.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import { awaitsOtp, collectRequestOf, otpRefusal, type PaymentIntentCommand, type PaymentIntentState } from './decider.js';
import { paymentIntentStream, type PaymentIntentEvent, type PaymentIntentObject, type PaymentMethodDetails } from './events.js';
import { paymentIntentAggregate, toObject } from './render.js';

/** A one-time code as operators send them: 4 to 8 digits. */
export const OTP_CODE = /^[0-9]{4,8}$/;

/** Refuses what is not a one-time code (IKW-VAL-001, `param`); the code itself is never in the message. */
export function assertOtpCode(code: string, param: string): void {
  if (!OTP_CODE.test(code)) throw new Refusal('IKW-VAL-001', 'A one-time code is 4 to 8 digits', param);
}

/**
 * The payment method a collection request carries: the recorded one, with the code the payer gave
 * before paying (`payment_method.mobile_money.otp`). The code goes to the connector on this request
 * only; the recorded method, which events and read models keep, never has it.
 */
export function withPayerOtp(pm: PaymentMethodDetails, otp: string | undefined): CollectMethod {
  if (otp === undefined || pm.type !== 'mobile_money') return pm;
  assertOtpCode(otp, 'paymentMethod.mobileMoney.otp');
  return { ...pm, otp };
}

export interface PaymentIntentOtpsDeps {
  store: EventStore;
  clock: Clock;
  rails(environment: Environment): Rails;
  log: Logger;
}

/**
 * submit_otp: the one-time code the operator sent the payer after the attempt, for an intent in
 * `requires_action` with `mobile_money_otp` (docs/payments.md). The code goes to the connector
 * that carries the confirmation, and its answer is recorded: `processing` (the status check and
 * the provider's news settle it, as for any payment), `failed`, or nothing when it still waits.
 * A code the provider refuses (IKW-PRV-017) changes nothing: the payer may give another. The code
 * is kept nowhere: not in the command, an event or a log.
 */
export class PaymentIntentOtps extends CommandService<PaymentIntentCommand, PaymentIntentState, Fact<PaymentIntentEvent>> {
  constructor(private readonly deps: PaymentIntentOtpsDeps) {
    super(deps.store, paymentIntentStream, paymentIntentAggregate);
  }

  async submit(who: Owner, id: string, code: string, actor: Actor): Promise<PaymentIntentObject> {
    assertOtpCode(code, 'code');
    const { state } = await this.load(id);
    const intent = state.intent;
    assertOwned(intent, who, 'No such payment intent', 'paymentIntentId');
    const op = state.confirmation;
    if (!awaitsOtp(state) || !op || !state.paymentMethod) throw new Refusal('IKW-RES-002', otpRefusal(state.status));
    const result = await this.deps.rails(who.environment).submitOtp(collectRequestOf(intent, op, state.paymentMethod), code);
    const meta = auditMetadata(this.deps.clock, who, id, actor);
    try {
      const recorded = await this.run(id, { type: 'record_otp', owner: who, at: this.deps.clock.now(), operationId: op.operationId, result }, meta, 'internal');
      return toObject(recorded.state);
    } catch (err) {
      // The provider's news came first (a webhook settled the payment meanwhile): the intent as it stands.
      if (!isRefused(err, 'IKW-RES-002')) throw err;
      const now = (await this.load(id)).state;
      if (now.confirmation?.operationId !== op.operationId) throw err;
      this.deps.log.info({ payment_intent: id, operation: op.operationId, status: now.status }, 'the one-time code was taken after the payment had moved on');
      return toObject(now);
    }
  }
}
