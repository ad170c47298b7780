import { ApiError } from '#packages/core/errors.js';
import type { Logger } from '#packages/core/logger.js';
import type { Environment } from '#packages/core/owner.js';
import type { NewsDesk } from '../news-desk.js';
import type { IncomingNews, NewsEndpoint, RailInbound } from '../port.js';
import type { PaystackConnector } from './connector.js';

/**
 * Paystack's webhooks (one URL per account, POST /connectors/paystack/events): the account is the
 * one whose secret key signs the exact body (x-paystack-signature, checked in constant time before
 * the body is parsed). A signature of no account answers 401 and does nothing else: its body is not
 * read, no status check is asked for and Paystack is not called (anyone could post one; a real
 * webhook mangled on the way comes again, and the schedule of checks goes on anyway). Verified
 * transfer events go to the news desk, matched on reference, amount and currency; verified news
 * that names Sika's operation by its reference only (no metadata) asks for a status check of it.
 * Verified dispute events (`charge.dispute.create|remind|resolve`) ask for a read of the dispute
 * (docs/disputes.md). Paystack retries for 72 hours, and the callback jobs apply a repeat once.
 */
export class PaystackInbound implements RailInbound {
  readonly rail = 'paystack';
  readonly endpoints: readonly NewsEndpoint[] = [
    {
      path: '/connectors/paystack/events',
      headers: ['x-paystack-signature'],
      summary:
        "Paystack's webhook (transfer.success, transfer.failed, transfer.reversed, …): its x-paystack-signature (HMAC-SHA512 of the body with the account's secret key) checked before it is read, then matched on reference, amount and currency before it moves any money",
      description: [
        'Not for integrators: the webhook URL to enter in Paystack\'s dashboard (`$PUBLIC_URL/connectors/paystack/events`, docs/connectors.md "Webhook"). `x-paystack-signature` must be the HMAC-SHA512 of the exact body under a configured secret key, checked before the body is read (`401 IKW-PRV-003` otherwise, and nothing else happens).',
        '',
        "A verified `transfer.success`, `transfer.failed` or `transfer.reversed` is matched on reference, amount and currency against its payout before it moves money; `charge.success` asks for the transaction's verification, `refund.processed` and `refund.failed` for the refunds' status checks. Anything else is answered 200 and logged. The outcome reaches the merchant as the object's webhooks.",
      ].join('\n'),
      emits: ['payout.paid', 'payout.failed', 'payment_intent.succeeded', 'payment_intent.payment_failed', 'refund.succeeded', 'refund.failed'],
      receive: (incoming) => this.receive(incoming),
    },
  ];

  constructor(
    private readonly connectors: Partial<Record<Environment, PaystackConnector>>,
    private readonly desk: NewsDesk,
    private readonly log: Logger,
  ) {}

  async receive(incoming: IncomingNews): Promise<void> {
    const accounts = (['live', 'sandbox'] as const).flatMap((environment) => (this.connectors[environment] ? [{ environment, connector: this.connectors[environment] }] : []));
    if (accounts.length === 0) throw new ApiError('IKW-PRV-004', 'Paystack is not configured on this service');
    const header = incoming.headers['x-paystack-signature'];
    const signature = typeof header === 'string' ? header : undefined;
    const signer = accounts.find(({ connector }) => connector.signed(incoming.body, signature));
    if (!signer) {
      this.log.warn({ signed: signature !== undefined }, 'Paystack webhook refused: its signature is no configured account’s');
      throw new ApiError('IKW-PRV-003', signature === undefined ? 'The webhook has no x-paystack-signature' : 'The webhook’s x-paystack-signature does not verify');
    }
    const { environment, connector } = signer;
    const event = connector.eventOf(incoming.body);
    const log = this.log.child({ environment });
    if (event.kind === 'ignored') {
      log.info({ reason: event.reason, payout_id: event.payoutId }, 'Paystack webhook recorded in the log only');
      const stored = event.payoutId ? await this.desk.storedPayout(event.payoutId, { environment }) : null;
      if (stored && event.payoutId) await this.desk.recheckPayout('paystack', stored.merchantId, environment, event.payoutId);
      return;
    }
    if (event.kind === 'charge') {
      // Never believed as told: the transaction's verification (amount, currency, reference) decides.
      const intent = event.paymentIntentId ? await this.desk.storedIntent(event.paymentIntentId, environment) : null;
      if (intent && event.paymentIntentId) await this.desk.recheckCollection('paystack', intent.merchantId, environment, event.operationId, event.paymentIntentId);
      else if (!(await this.desk.recheckCollectionOf('paystack', environment, event.operationId))) log.error({ operation: event.operationId }, 'Paystack charge of no payment of this environment; nothing applied');
      return;
    }
    if (event.kind === 'dispute') {
      // Never believed as told: the job reads the dispute from Paystack and matches it to the payment.
      await this.desk.dispute({ connector: 'paystack', environment, disputeId: event.disputeId });
      return;
    }
    if (event.kind === 'refund') {
      // Never believed as told: the refund it is about is found in the transaction's refunds by the status check.
      if ((await this.desk.recheckRefundsOf('paystack', environment, event.operationId, event.reported)) === 0)
        log.error({ operation: event.operationId, reported: event.reported }, 'Paystack refund of no pending refund of this environment; nothing applied');
      return;
    }
    const stored = await this.desk.storedPayout(event.payoutId, { environment });
    if (!stored) {
      log.error({ payout_id: event.payoutId }, 'Paystack webhook of no payout of this environment; nothing applied');
      return;
    }
    if (!event.report) return;
    await this.desk.deliver('paystack', environment, { kind: 'payout', callback: { payoutId: event.payoutId, merchantId: stored.merchantId, environment, report: event.report } }, event.reported, log);
  }
}
