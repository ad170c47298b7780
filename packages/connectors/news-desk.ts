import type { Clock } from '#packages/core/clock.js';
import type { Logger } from '#packages/core/logger.js';
import type { Environment } from '#packages/core/owner.js';
import type { CallbackSinks, CollectCallback, PayoutCallback, RefundCallback, StatusCheck } from './callbacks.js';
import type { DisputeNews } from './disputes.js';
import { reportedMismatch, withReceipt, type Money, type ReportedMoney } from './port.js';

/**
 * The news desk (docs/connectors.md, "Callbacks"): where every rail's verified news goes, matched on
 * id, amount and currency against the stored attempt before it reaches the callback jobs. What cannot
 * be matched moves nothing: a status check of the connector decides. The attempts are the families'
 * (payments, payouts, refunds): each registers its book of them (AttemptBooks) when the system opens,
 * so this package knows no family.
 */

/** Where the rails' news goes: the callback jobs, and the status checks of what cannot be believed as told. */
export interface RailSinks extends CallbackSinks {
  /** A refund's answer (the sandbox sends none: its refunds are the ledger's alone). */
  refund(callback: RefundCallback, at: Date): Promise<void>;
  collectStatusCheck(check: StatusCheck & { direction: 'collect' }, at: Date): Promise<void>;
  payoutStatusCheck(check: StatusCheck & { direction: 'payout' }, at: Date): Promise<void>;
  refundStatusCheck(check: StatusCheck & { direction: 'refund' }, at: Date): Promise<void>;
  /** A rail's verified news of a card dispute: the dispute is read from the rail by the job (docs/disputes.md). */
  dispute(news: DisputeNews, at: Date): Promise<void>;
}

/** An attempt still waiting for a rail's answer: Sika's id of it (a collection's current operation), and its payment for a collection. */
export interface OpenAttempt {
  merchantId: string;
  sikaId: string;
  paymentIntentId?: string;
}

/** The payments family's collections, as news about them is matched. */
export interface CollectionBook {
  /** The payment a collection's news is about, when it is the merchant's and this is its current operation. */
  stored(callback: { paymentIntentId: string; operationId: string; merchantId: string; environment: Environment }): Promise<Money | null>;
  /** A payment of this environment, whoever's (a reference names the operation alone). */
  intent(paymentIntentId: string, environment: Environment): Promise<{ merchantId: string } | null>;
  /** The payment of this environment whose current operation this is. */
  ofOperation(environment: Environment, operationId: string): Promise<{ merchantId: string; paymentIntentId: string } | null>;
  /** The payments processing or waiting for the payer, by their current operation. */
  open(environment: Environment): Promise<OpenAttempt[]>;
}

/** The payouts family's payouts, as news about them is matched. */
export interface PayoutBook {
  /** A payout, when it is the owner's (any owner of `environment` when only that is known: a reference names the payout alone). */
  stored(payoutId: string, owner: { merchantId?: string; environment: Environment }): Promise<(Money & { merchantId: string }) | null>;
  /** The payouts on their way. */
  open(environment: Environment): Promise<OpenAttempt[]>;
}

/** The refunds through a rail (every family's), as news about them is matched. */
export interface RefundBook {
  /** A refund, when it is the owner's. */
  stored(refundId: string, owner: { merchantId: string; environment: Environment }): Promise<Money | null>;
  /** The connector's pending refunds of an operation with that money. */
  pendingOf(connector: string, environment: Environment, operationId: string, money: Money): Promise<{ refundId: string; merchantId: string }[]>;
  /** The refunds pending. */
  open(environment: Environment): Promise<OpenAttempt[]>;
}

/** The books the families register (payments: collections and refunds; payouts: payouts). */
export interface AttemptBooks {
  collections: CollectionBook;
  payouts: PayoutBook;
  refunds: RefundBook;
}

/** Verified news of a rail, in Sika's terms, before it is matched against the stored attempt. */
export type RailNews = { kind: 'collect'; callback: Omit<CollectCallback, 'connector'> } | { kind: 'payout'; callback: Omit<PayoutCallback, 'connector'> } | { kind: 'refund'; refund: Omit<RefundCallback, 'connector'> };

export class NewsDesk {
  private readonly books: Partial<AttemptBooks> = {};

  constructor(private readonly deps: { clock: Clock; sinks: RailSinks }) {}

  /** A family's book of its attempts; each is registered once, before news comes. */
  register(books: Partial<AttemptBooks>): void {
    for (const [name, book] of Object.entries(books) as [keyof AttemptBooks, AttemptBooks[keyof AttemptBooks]][]) {
      if (this.books[name]) throw new Error(`the news desk's ${name} are registered twice`);
      (this.books as Record<string, unknown>)[name] = book;
    }
  }

  private book<K extends keyof AttemptBooks>(name: K): AttemptBooks[K] {
    const book = this.books[name];
    if (!book) throw new Error(`no family registered the news desk's ${name}`);
    return book;
  }

  async deliver(connector: string, environment: Environment, news: RailNews, reported: ReportedMoney, log: Logger): Promise<void> {
    const now = this.deps.clock.now();
    const owner = news.kind === 'refund' ? news.refund : news.callback;
    const ids = news.kind === 'collect' ? { operationId: news.callback.operationId, paymentIntentId: news.callback.paymentIntentId } : news.kind === 'payout' ? { payoutId: news.callback.payoutId } : { refundId: news.refund.refundId };
    if (owner.environment !== environment) {
      log.error({ ...ids, environment }, "callback of another environment's account; nothing applied");
      return;
    }
    const stored =
      news.kind === 'collect' ? await this.book('collections').stored(news.callback) : news.kind === 'payout' ? await this.storedPayout(news.callback.payoutId, news.callback) : await this.book('refunds').stored(news.refund.refundId, owner);
    if (!stored) {
      log.error({ ...ids }, 'callback of no attempt of this service; nothing applied');
      return;
    }
    const mismatch = reportedMismatch(stored, reported);
    if (mismatch) {
      log.error({ ...ids, reported }, `callback does not match the stored attempt (${mismatch}); nothing applied, a status check decides`);
      if (news.kind === 'collect') await this.recheckCollection(connector, owner.merchantId, environment, news.callback.operationId, news.callback.paymentIntentId);
      else if (news.kind === 'payout') await this.recheckPayout(connector, owner.merchantId, environment, news.callback.payoutId);
      else await this.recheckRefund(connector, owner.merchantId, environment, news.refund.refundId);
      return;
    }
    if (news.kind === 'collect') await this.deps.sinks.collect({ ...news.callback, outcome: withReceipt(news.callback.outcome, reported), connector }, now);
    else if (news.kind === 'payout') await this.deps.sinks.payout({ ...news.callback, report: withReceipt(news.callback.report, reported), connector }, now);
    else await this.deps.sinks.refund({ ...news.refund, outcome: withReceipt(news.refund.outcome, reported), connector }, now);
  }

  /** A payout, when it is the owner's (any owner of `environment` when only that is known: a reference names the payout alone). */
  async storedPayout(payoutId: string, owner: { merchantId?: string; environment: Environment }): Promise<{ merchantId: string; amount: number; currency: string } | null> {
    return this.book('payouts').stored(payoutId, owner);
  }

  /** A payment of this environment, whoever's (a reference names the operation alone). */
  async storedIntent(paymentIntentId: string, environment: Environment): Promise<{ merchantId: string } | null> {
    return this.book('collections').intent(paymentIntentId, environment);
  }

  /**
   * A status check now of the payment whose current operation this is, news naming the operation
   * alone (a verified webhook without Sika's metadata: the provider's reference is the operation's
   * id). Whether there was such a payment of this environment.
   */
  async recheckCollectionOf(connector: string, environment: Environment, operationId: string): Promise<boolean> {
    const payment = await this.book('collections').ofOperation(environment, operationId);
    if (!payment) return false;
    await this.recheckCollection(connector, payment.merchantId, environment, operationId, payment.paymentIntentId);
    return true;
  }

  /** A read of the dispute from its rail, prompted by verified news of it. */
  async dispute(news: DisputeNews): Promise<void> {
    await this.deps.sinks.dispute(news, this.deps.clock.now());
  }

  /** A status check now, outside the schedule, of news that could not be believed as told. */
  async recheckCollection(connector: string, merchantId: string, environment: Environment, operationId: string, paymentIntentId: string): Promise<void> {
    await this.deps.sinks.collectStatusCheck({ merchantId, environment, connector, attempt: 0, prompted: true, direction: 'collect', paymentIntentId, operationId }, this.deps.clock.now());
  }

  async recheckPayout(connector: string, merchantId: string, environment: Environment, payoutId: string): Promise<void> {
    await this.deps.sinks.payoutStatusCheck({ merchantId, environment, connector, attempt: 0, prompted: true, direction: 'payout', payoutId }, this.deps.clock.now());
  }

  async recheckRefund(connector: string, merchantId: string, environment: Environment, refundId: string): Promise<void> {
    await this.deps.sinks.refundStatusCheck({ merchantId, environment, connector, attempt: 0, prompted: true, direction: 'refund', refundId }, this.deps.clock.now());
  }

  /**
   * News of a refund that names the collection and the money, not the refund (Paystack's webhooks):
   * a status check now of each of the connector's pending refunds of that operation with that
   * amount and currency. How many were asked about.
   */
  async recheckRefundsOf(connector: string, environment: Environment, operationId: string, money: ReportedMoney): Promise<number> {
    const refunds = await this.book('refunds').pendingOf(connector, environment, operationId, money);
    for (const { refundId, merchantId } of refunds) await this.recheckRefund(connector, merchantId, environment, refundId);
    return refunds.length;
  }

  /**
   * The attempts of an environment still waiting for a rail's answer, of one direction: a payment
   * processing or waiting for the payer (its current operation), a payout on its way, a refund
   * pending. What news naming only the provider's own id may be about.
   */
  async openAttemptsOf(direction: 'collect' | 'payout' | 'refund', environment: Environment): Promise<OpenAttempt[]> {
    return this.book(direction === 'collect' ? 'collections' : direction === 'payout' ? 'payouts' : 'refunds').open(environment);
  }
}
