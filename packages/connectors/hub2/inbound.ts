import { ApiError } from '#packages/core/errors.js';
import type { Logger } from '#packages/core/logger.js';
import type { Environment } from '#packages/core/owner.js';
import type { NewsDesk } from '../news-desk.js';
import type { IncomingNews, NewsEndpoint, RailInbound } from '../port.js';
import type { Hub2Connector } from './connector.js';

/**
 * Hub2's webhooks (one URL, POST /connectors/hub2/events; both accounts share the secret Hub2
 * gave when the URL was registered): `Hub2-Signature` must verify (the current secret's `s1`, or
 * the old one's `s0` during the 24 hours after a change) before the body is read: 401 and nothing
 * else otherwise. A verified webhook is never believed as told either: it names the object to read
 * again, and a status check of the Sika attempt it belongs to reads Hub2's record and matches it on
 * id, amount and currency before any money moves. A payment's webhook names Hub2's intent, whose
 * `purchaseReference` is Sika's operation (read back from Hub2, the account that knows it being
 * the environment); a transfer's names Sika's payout by its `reference`.
 */
export class Hub2Inbound implements RailInbound {
  readonly rail = 'hub2';
  readonly endpoints: readonly NewsEndpoint[] = [
    {
      path: '/connectors/hub2/events',
      headers: ['hub2-signature'],
      summary:
        "Hub2's webhook (payment.succeeded, payment.failed, transfer.succeeded, transfer.failed, …): its Hub2-Signature (HMAC-SHA256 of the body with the webhook's secret) checked before it is read, then Hub2's own record read back and matched on id, amount and currency before it moves any money",
      description: [
        'Not for integrators: the URL Sika\'s webhook is registered with at Hub2 (`$PUBLIC_URL/connectors/hub2/events`, docs/connectors.md "Hub2"). `Hub2-Signature` must carry the HMAC-SHA256 of the exact body under `HUB2_WEBHOOK_SECRET`, as `s1` (the current secret) or `s0` (the previous one, during the 24 hours after a change), checked before the body is read (`401 IKW-PRV-003` otherwise, and nothing else happens).',
        '',
        "A verified webhook is never believed as told: it names the payment intent or transfer to read again, and a status check of the Sika attempt it belongs to reads Hub2's record and matches it on id, amount and currency before it moves money. Anything else is answered 200 and logged. The outcome reaches the merchant as the object's webhooks.",
      ].join('\n'),
      emits: ['payout.paid', 'payout.failed', 'payment_intent.succeeded', 'payment_intent.payment_failed'],
      receive: (incoming) => this.receive(incoming),
    },
  ];

  constructor(
    private readonly connectors: Partial<Record<Environment, Hub2Connector>>,
    private readonly desk: NewsDesk,
    private readonly log: Logger,
  ) {}

  async receive(incoming: IncomingNews): Promise<void> {
    const accounts = (['live', 'sandbox'] as const).flatMap((environment) => (this.connectors[environment] ? [{ environment, connector: this.connectors[environment] }] : []));
    if (accounts.length === 0) throw new ApiError('IKW-PRV-004', 'Hub2 is not configured on this service');
    const header = incoming.headers['hub2-signature'];
    const signature = typeof header === 'string' ? header : undefined;
    const signers = accounts.filter(({ connector }) => connector.signed(incoming.body, signature));
    if (signers.length === 0) {
      this.log.warn({ signed: signature !== undefined }, 'Hub2 webhook refused: its Hub2-Signature does not verify');
      throw new ApiError('IKW-PRV-003', signature === undefined ? 'The webhook has no Hub2-Signature' : 'The webhook’s Hub2-Signature does not verify');
    }
    const event = signers[0]!.connector.eventOf(incoming.body);
    if (event.kind === 'ignored') {
      this.log.info({ reason: event.reason }, 'Hub2 webhook recorded in the log only');
      return;
    }
    // The account the event says it is of is asked first: a sandbox event costs no live read.
    signers.sort((a, b) => Number(b.environment === event.mode) - Number(a.environment === event.mode));
    for (const { environment, connector } of signers) {
      const log = this.log.child({ environment });
      if (event.kind === 'payout') {
        const stored = await this.desk.storedPayout(event.payoutId, { environment });
        if (stored) {
          await this.desk.recheckPayout('hub2', stored.merchantId, environment, event.payoutId);
          return;
        }
        continue;
      }
      // Hub2 is asked only now, the webhook verified: the intent tells Sika's operation and payment.
      let attempt: { operationId: string; paymentIntentId: string } | null;
      try {
        attempt = await connector.attemptOfIntent(event.hub2IntentId);
      } catch (err) {
        // Hub2 could not be read back (an outage): the attempt's own status checks settle it, on their schedule.
        log.warn({ err, hub2_intent: event.hub2IntentId }, 'Hub2 webhook of an intent Hub2 could not be read back; its status checks settle it');
        return;
      }
      const intent = attempt ? await this.desk.storedIntent(attempt.paymentIntentId, environment) : null;
      if (attempt && intent) {
        await this.desk.recheckCollection('hub2', intent.merchantId, environment, attempt.operationId, attempt.paymentIntentId);
        return;
      }
    }
    this.log.error('Hub2 webhook of no attempt of this service; nothing applied');
  }
}
