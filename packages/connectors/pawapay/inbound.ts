import { ApiError } from '#packages/core/errors.js';
import type { Logger } from '#packages/core/logger.js';
import type { Environment } from '#packages/core/owner.js';
import type { NewsDesk, OpenAttempt } from '../news-desk.js';
import type { IncomingNews, NewsEndpoint, RailInbound, ReportedMoney } from '../port.js';
import { pawapayId, type CallbackKind, type PawapayConnector, type PawapayNews } from './connector.js';

/** The headers a pawaPay callback's verification reads (RFC 9421 and 9530). */
const SIGNED_HEADERS = ['signature', 'signature-input', 'content-digest', 'signature-date', 'content-type'] as const;

const KINDS: readonly { kind: CallbackKind; what: string; emits: readonly string[] }[] = [
  { kind: 'deposits', what: 'a deposit (a payment intent’s collection)', emits: ['payment_intent.succeeded', 'payment_intent.payment_failed'] },
  { kind: 'payouts', what: 'a payout', emits: ['payout.updated', 'payout.delayed', 'payout.paid', 'payout.failed'] },
  { kind: 'refunds', what: 'a refund', emits: ['refund.succeeded', 'refund.failed'] },
];

/**
 * pawaPay's callbacks (POST /connectors/pawapay/{deposits|payouts|refunds}): verified by the
 * connector of the account that signed them, then handed to the news desk. What does not verify
 * answers 401 (IKW-PRV-003); what cannot be believed or matched answers 200 (pawaPay would retry
 * otherwise) and a status check decides. Nothing unverified or unmatched moves money.
 */
export class PawapayInbound implements RailInbound {
  readonly rail = 'pawapay';
  readonly endpoints: readonly NewsEndpoint[];

  constructor(
    private readonly connectors: Partial<Record<Environment, PawapayConnector>>,
    private readonly desk: NewsDesk,
    private readonly log: Logger,
  ) {
    this.endpoints = KINDS.map(({ kind, what, emits }) => ({
      path: `/connectors/pawapay/${kind}`,
      headers: SIGNED_HEADERS,
      summary: `pawaPay's callback about ${what}: verified (RFC 9421 signature, Content-Digest) and matched on id, amount and currency before it moves any money`,
      description: [
        `Not for integrators: the URL to enter as pawaPay's ${kind} callback (\`$PUBLIC_URL/connectors/pawapay/${kind}\`, docs/connectors.md "Callback URLs"). pawaPay posts its news about ${what} here.`,
        '',
        "The exact body is verified first: its RFC 9421 signature must cover the method, Sika's host, the path, `signature-date` and `content-digest`, be fresh and made with pawaPay's key, and the `Content-Digest` must match (`401 IKW-PRV-003` otherwise, and nothing else happens). Final news is then read back from pawaPay's own record and matched on id, amount and currency before it moves any money; news not believed as told is answered 200 and left to a status check. The outcome reaches the merchant as the object's webhooks.",
      ].join('\n'),
      emits,
      receive: (incoming) => this.receive(kind, incoming),
    }));
  }

  async receive(kind: CallbackKind, incoming: IncomingNews): Promise<void> {
    const accounts = (['live', 'sandbox'] as const).flatMap((environment) => (this.connectors[environment] ? [{ environment, connector: this.connectors[environment] }] : []));
    if (accounts.length === 0) throw new ApiError('IKW-PRV-004', 'pawaPay is not configured on this service');
    const log = this.log.child({ callback: kind });
    let refusal = '';
    // One URL for both accounts: the account whose key verifies it is the one that sent it.
    for (const { environment, connector } of accounts) {
      const verdict = await connector.receiveCallback(kind, incoming);
      switch (verdict.verdict) {
        case 'unauthenticated':
          refusal = verdict.reason;
          continue;
        case 'pending':
          return;
        case 'recheck':
          log.warn({ environment, pawapay_id: verdict.pawapayId, reason: verdict.reason }, 'pawaPay callback not believed as told; a status check decides');
          if (verdict.ids) {
            if (verdict.ids.environment === environment) await this.recheck(kind, environment, verdict.ids);
          } else if (verdict.pawapayId) {
            const attempt = await this.attemptOf(kind, environment, verdict.pawapayId);
            if (attempt) await this.recheck(kind, environment, attempt);
            else log.warn({ environment, pawapay_id: verdict.pawapayId }, 'pawaPay callback of no open attempt of this environment; nothing to check');
          }
          return;
        case 'news':
          await this.apply(environment, verdict.news, verdict.reported, log);
          return;
      }
    }
    log.warn({ reason: refusal }, 'pawaPay callback refused: it does not verify');
    throw new ApiError('IKW-PRV-003', `The callback does not verify: ${refusal}`);
  }

  private async recheck(kind: CallbackKind, environment: Environment, attempt: OpenAttempt): Promise<void> {
    const { merchantId, sikaId, paymentIntentId } = attempt;
    if (kind === 'deposits' && paymentIntentId) await this.desk.recheckCollection('pawapay', merchantId, environment, sikaId, paymentIntentId);
    if (kind === 'payouts') await this.desk.recheckPayout('pawapay', merchantId, environment, sikaId);
    if (kind === 'refunds') await this.desk.recheckRefund('pawapay', merchantId, environment, sikaId);
  }

  /**
   * The open attempt whose pawaPay id is `pawapayId`, for a verified callback without Sika's ids
   * (no metadata): pawaPay's ids derive from Sika's one way (ids.ts), so the open attempts of the
   * kind are derived and compared. Only verified callbacks get here: the search costs a read.
   */
  private async attemptOf(kind: CallbackKind, environment: Environment, pawapayUuid: string): Promise<OpenAttempt | undefined> {
    const direction = kind === 'deposits' ? 'collect' : kind === 'payouts' ? 'payout' : 'refund';
    const wanted = pawapayUuid.toLowerCase();
    return (await this.desk.openAttemptsOf(direction, environment)).find((a) => pawapayId(a.sikaId) === wanted);
  }

  private async apply(environment: Environment, news: PawapayNews, reported: ReportedMoney, log: Logger): Promise<void> {
    if (news.kind === 'refund') {
      const { refundId, merchantId, outcome } = news.refund;
      await this.desk.deliver('pawapay', environment, { kind: 'refund', refund: { refundId, merchantId, environment: news.refund.environment, outcome } }, reported, log);
      return;
    }
    await this.desk.deliver('pawapay', environment, news, reported, log);
  }
}
