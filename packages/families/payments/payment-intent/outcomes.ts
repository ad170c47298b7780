import type { Fact } from '#packages/core/decider.js';
import { isRefused } from '#packages/core/refusal.js';
import type { EventMetadata } from '#packages/eventstore/port.js';
import { connectorActor, nextStatusCheck, readStatus, sendAgain, type CollectCallback } from '#packages/connectors/callbacks.js';
import type { CollectOutcome } from '#packages/connectors/port.js';
import { isOwned } from '#packages/core/aggregate.js';
import { CommandService, handleSteps, step, type StepOutcome } from '#packages/eventstore/command-handler.js';
import { ledgerStep } from '#packages/families/ledger/index.js';
import { postPayment } from './postings.js';
import { collectRequestOf, type PaymentIntentCommand, type PaymentIntentState, type ProviderOutcome } from './decider.js';
import { paymentIntentAggregate, toObject } from './render.js';
import { payinClearing, paymentIntentStream, type PaymentIntentEvent, type PaymentIntentObject } from './events.js';
import type { PaymentMoney } from './recipients.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import { payerOf, payinFee, paymentIntentConflictMessage, reserveOf, type CollectStatusCheck, type PaymentIntentDeps } from './commands.js';

/** How many times a payment's success is decided again when its holder's state moved meanwhile (parallel contributions of one campaign). */
const HOLDER_ATTEMPTS = 50;

/**
 * What the provider says of a confirmed collection: its callbacks, the status checks asked on the
 * connector's schedule or when the payer comes back from the rail's page, and the succeeded
 * payment's money committed with its outcome.
 */
export class CollectionOutcomes extends CommandService<PaymentIntentCommand, PaymentIntentState, Fact<PaymentIntentEvent>> {
  constructor(private readonly deps: Pick<PaymentIntentDeps, 'store' | 'ledger' | 'clock' | 'rails' | 'customers' | 'log' | 'recipients' | 'limits' | 'settlementDelayMs' | 'scheduleSettlement' | 'scheduleStatusCheck'>) {
    super(deps.store, paymentIntentStream, paymentIntentAggregate, { conflictMessageOf: paymentIntentConflictMessage });
  }

  /**
   * A provider's final answer (operator callback, sandbox timer, 3-D Secure page). The intent's
   * outcome and, when it is a success, the payment's money (the merchant's ledger posting, or the
   * order's split among sellers) commit together: no read shows a succeeded payment whose money is
   * not on the balance (docs/ledger.md). Idempotent: a repeated or late callback changes nothing;
   * on a store without atomic commits the steps run in order and a retry posts what a crash left.
   */
  async applyCallback(callback: CollectCallback): Promise<PaymentIntentObject | null> {
    const who = { merchantId: callback.merchantId, environment: callback.environment };
    const meta = auditMetadata(this.deps.clock, { merchantId: who.merchantId, environment: who.environment }, callback.paymentIntentId, { actor: connectorActor(callback), causationId: callback.operationId });
    const { state } = await this.load(callback.paymentIntentId);
    const intent = state.intent;
    if (!isOwned(intent, who)) return null;
    let outcome: ProviderOutcome;
    if (callback.outcome.status === 'succeeded') {
      // No payment method means no confirmation, so this callback is for nothing we started.
      if (!state.paymentMethod) return toObject(state);
      outcome = { status: 'succeeded', fee: payinFee(state, state.paymentMethod), ...(callback.outcome.providerReference ? { providerReference: callback.outcome.providerReference } : {}) };
    } else {
      outcome = callback.outcome;
    }
    const record = step({
      streamId: paymentIntentStream(intent.id),
      decider: paymentIntentAggregate,
      command: { type: 'record_outcome', owner: who, at: this.deps.clock.now(), operationId: callback.operationId, outcome } satisfies PaymentIntentCommand,
      metadata: meta,
    });
    const succeededByThis = ([recorded]: readonly StepOutcome[]): boolean => {
      const after = recorded!.state as PaymentIntentState;
      return after.status === 'succeeded' && after.confirmation?.operationId === callback.operationId;
    };
    for (let attempt = 0; ; attempt++) {
      const money = outcome.status === 'succeeded' ? await this.paymentSteps(state, outcome.fee, meta) : { steps: [], after: null };
      let recorded;
      try {
        // `contended`: the money's stream is the merchant's hot balance, which many answers at once
        // (a busy till, a batch of card payments) race for; each must land, never give up.
        [recorded] = await handleSteps(this.deps.store, [record, ...money.steps.map((s) => ({ ...s, when: succeededByThis }))], { onConflict: 'contended' });
      } catch (err) {
        // A holder's steps are decided on its state as it stood (a campaign's money version): when
        // another change moved it first, nothing was written, and they are decided again.
        if (isRefused(err, 'IKW-RES-003') && attempt < HOLDER_ATTEMPTS) continue;
        throw err;
      }
      const after = recorded!.state as PaymentIntentState;
      if (money.after && after.status === 'succeeded') await money.after();
      return toObject(after);
    }
  }

  /**
   * The payer is back from the rail's page (Paystack's redirect to the status page, carrying the
   * transaction's reference): a status check now, outside the schedule, of the payment's current
   * operation while it waits for the payer. Nothing is believed from the visit: the check asks the
   * provider. A declined card sends no webhook, so without it the payer would wait for the next
   * scheduled check, minutes away. Whether a check was asked for.
   */
  async payerReturned(paymentIntentId: string, operationId: string): Promise<boolean> {
    const { state } = await this.load(paymentIntentId);
    const intent = state.intent;
    if (!intent || !state.paymentMethod || state.confirmation?.operationId !== operationId || (state.status !== 'processing' && state.status !== 'requires_action')) return false;
    const checks = this.deps.rails(intent.environment).statusChecks('collect', state.paymentMethod, state.confirmation.connector);
    if (!checks) return false;
    const check: CollectStatusCheck = { merchantId: intent.merchantId, environment: intent.environment, connector: checks.connector, attempt: 0, prompted: true, direction: 'collect', paymentIntentId, operationId };
    await this.deps.scheduleStatusCheck(check, this.deps.clock.now());
    return true;
  }

  /**
   * A status check of a collection with no final answer (docs/connectors.md, "Status checks"):
   * the provider's record decides. Not found: it never arrived, and is sent again under the same
   * id. Final: applied as its callback would be, once its amount and currency match the intent.
   * Nothing final: asked again on the connector's schedule; when that runs out the payment stays
   * processing, listed for review, never failed by guess.
   */
  async checkStatus(check: CollectStatusCheck): Promise<void> {
    const who = { merchantId: check.merchantId, environment: check.environment };
    const { state } = await this.load(check.paymentIntentId);
    const intent = state.intent;
    const op = state.confirmation;
    if (!isOwned(intent, who) || !state.paymentMethod || op?.operationId !== check.operationId || (state.status !== 'processing' && state.status !== 'requires_action')) return;
    const meta = auditMetadata(this.deps.clock, { merchantId: who.merchantId, environment: who.environment }, intent.id, { actor: connectorActor(check), causationId: check.operationId });
    const rails = this.deps.rails(check.environment);
    const request = collectRequestOf(intent, op, state.paymentMethod, await payerOf(this.deps.customers, who, intent));
    const log = this.deps.log.child({ payment_intent: intent.id, operation: op.operationId, check: check.attempt });
    const checks = rails.statusChecks('collect', state.paymentMethod, op.connector);
    const answer = await rails.collectStatus(request);
    const reading = readStatus(answer, intent, { sendsAgain: checks?.sendsAgain ?? false, ...check });
    let outcome: CollectOutcome | null = null;
    if (reading.kind === 'absent') log.warn('the provider has no record of the collection and it is not sent again; the next check asks again');
    else if (reading.kind === 'resend') {
      log.warn('the provider never received the collection; sent again under the same id');
      const again = await sendAgain(
        () => rails.collect(request),
        (err) => log.warn({ err }, 'the collection sent again has no answer; the next check decides'),
      );
      if (again?.status === 'failed') outcome = { status: 'failed', failureCode: again.failureCode, failureMessage: again.failureMessage };
      else if (again && op.inFlight) await this.run(intent.id, { type: 'record_initiation', owner: who, at: this.deps.clock.now(), operationId: op.operationId, result: again }, meta, 'internal');
    } else {
      // Taken: a confirmation whose answer never came back is processing from now on.
      if (op.inFlight) await this.run(intent.id, { type: 'record_initiation', owner: who, at: this.deps.clock.now(), operationId: op.operationId, result: { status: 'processing' } }, meta, 'internal');
      if (reading.kind === 'review') {
        log.error({ reported: answer.found && answer.reported }, `the provider's record does not match the payment (${reading.mismatch}); nothing applied, left for review`);
        return;
      }
      outcome = reading.final;
    }
    if (outcome) {
      await this.applyCallback({ paymentIntentId: intent.id, operationId: op.operationId, ...who, outcome, connector: check.connector });
      return;
    }
    const next = nextStatusCheck(checks?.schedule ?? [], check, this.deps.clock.now(), reading.kind === 'resend');
    if (next) await this.deps.scheduleStatusCheck(next.check, next.at);
    else if (!check.prompted) log.error('no final answer after every status check; the payment stays processing, left for review');
  }

  /**
   * The steps that put a succeeded payment's money on the ledger: those of the recipient that
   * claims it (packages/families/payments/payment-intent/recipients.ts), or the merchant's posting. `after`:
   * the timers to set once it committed (the settlement of pending money, a contract's auto-release).
   */
  private async paymentSteps(state: PaymentIntentState, fee: number, meta: EventMetadata): Promise<PaymentMoney> {
    const intent = state.intent!;
    const clearing = payinClearing(state.paymentMethod!, state.confirmation?.connector);
    const now = this.deps.clock.now();
    const availableOn = new Date(now.getTime() + this.deps.settlementDelayMs(intent.environment));
    const claimed = await this.deps.recipients.moneyOf({ intent, fee, clearing, availableOn, escrowContract: state.escrowContract ?? null }, meta);
    if (claimed) return claimed;
    const balance = { merchantId: intent.merchantId, environment: intent.environment, currency: intent.currency };
    const reserve = reserveOf((await this.deps.limits.limitsOf(intent)).rollingReserve, intent.amount - fee, now);
    // The reserve's release is the settlement job at its date, set before the commit (durable; it finds nothing to release if the commit never happened).
    if (reserve) await this.deps.scheduleSettlement(balance, reserve.releaseOn);
    const posting = ledgerStep(this.deps, balance, postPayment({ source: intent.id, clearing, amount: intent.amount, fee, availableOn, ...(reserve ? { reserve } : {}) }), meta);
    return { steps: [posting], after: availableOn > now ? () => this.deps.scheduleSettlement(balance, availableOn) : null };
  }
}
