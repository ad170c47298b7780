import type { Clock } from '#packages/core/clock.js';
import type { Logger } from '#packages/core/logger.js';
import type { Environment } from '#packages/core/owner.js';
import type { Connector, Money, PayoutFloat, RailSubject } from '#packages/connectors/port.js';
import type { RailFloatGate } from '#packages/connectors/router.js';

/** A rail's wallets as last read: when the reading was asked for (sends after it are not in it) and what it said. */
interface Reading {
  askedAt: number;
  wallets: PayoutFloat[];
}

/** A payout the router sent through a rail, kept until a reading asked for after it shows it. */
interface Sent {
  at: number;
  subject: RailSubject;
  money: Money;
}

/** One wallet of a rail as the operator reads it: what the last reading said, less the payouts sent since. */
export interface FloatLine {
  wallet: string;
  currency: string;
  country: string | null;
  operator: string | null;
  available: number;
  /** When the reading it comes from was asked for (ISO). */
  read_at: string;
}

const railKey = (environment: Environment, rail: string) => `${environment}/${rail}`;

/**
 * The wallet of a reading that pays a payout of this subject in this currency: the operator's own,
 * else its country's, else one of the whole currency; undefined when the rail reports none.
 */
function walletFor(wallets: readonly PayoutFloat[], subject: RailSubject, currency: string): PayoutFloat | undefined {
  const ofCurrency = wallets.filter((w) => w.currency.toLowerCase() === currency.toLowerCase());
  const currencyWide = ofCurrency.find((w) => w.country === undefined);
  if (subject.rail !== 'mobile_money') return currencyWide;
  const country = subject.country.toUpperCase();
  const operator = subject.operator.toLowerCase();
  return ofCurrency.find((w) => w.country?.toUpperCase() === country && w.operator?.toLowerCase() === operator) ?? ofCurrency.find((w) => w.country?.toUpperCase() === country && w.operator === undefined) ?? currencyWide;
}

/**
 * What the wallets of the rails that keep Sika's money hold for their payouts (docs/connectors.md,
 * "Float"), per environment and rail: the router's float gate. Each rail's provider is asked at
 * most once per `refreshMs` of the clock (`refreshIfDue`); between readings the router reads the
 * last one, less the payouts it sent through the rail since that reading was asked for (`sent`).
 * A reading that fails keeps the last one and is tried again after `refreshMs`. Knowing nothing
 * (no reading yet, no wallet of the currency) never passes a rail over: `covers` answers undefined.
 */
export class RailFloatBoard implements RailFloatGate {
  private readonly readings = new Map<string, Reading>();
  /** When each rail was last asked (successfully or not): the next ask waits `refreshMs` from it. */
  private readonly asked = new Map<string, number>();
  private readonly inFlight = new Set<string>();
  private readonly sentSince = new Map<string, Sent[]>();

  constructor(
    private readonly rails: readonly { environment: Environment; connector: Connector }[],
    private readonly deps: { clock: Clock; log: Logger },
    private readonly refreshMs: number,
  ) {}

  /** Reads every rail's wallets now (at start). A rail whose reading fails keeps its last one. */
  async refresh(): Promise<void> {
    await Promise.all(this.rails.map((r) => this.read(r.environment, r.connector)));
  }

  /** Reads the wallets of each rail last asked at least `refreshMs` ago on the clock. */
  async refreshIfDue(): Promise<void> {
    const now = this.deps.clock.now().getTime();
    await Promise.all(this.rails.filter((r) => now - (this.asked.get(railKey(r.environment, r.connector.name)) ?? -Infinity) >= this.refreshMs).map((r) => this.read(r.environment, r.connector)));
  }

  covers(environment: Environment, rail: string, subject: RailSubject, money: Money): boolean | undefined {
    const available = this.available(environment, rail, subject, money.currency);
    return available === undefined ? undefined : available >= money.amount;
  }

  sent(environment: Environment, rail: string, subject: RailSubject, money: Money): void {
    const key = railKey(environment, rail);
    if (!this.rails.some((r) => railKey(r.environment, r.connector.name) === key)) return;
    this.sentSince.set(key, [...(this.sentSince.get(key) ?? []), { at: this.deps.clock.now().getTime(), subject, money }]);
  }

  /** A rail's wallets now (the operator's Rails page); empty before its first reading. */
  lines(environment: Environment, rail: string): FloatLine[] {
    const reading = this.readings.get(railKey(environment, rail));
    if (!reading) return [];
    return reading.wallets.map((w) => ({
      wallet: w.wallet,
      currency: w.currency,
      country: w.country ?? null,
      operator: w.operator ?? null,
      available: w.amount - this.spent(environment, rail, reading, w),
      read_at: new Date(reading.askedAt).toISOString(),
    }));
  }

  private available(environment: Environment, rail: string, subject: RailSubject, currency: string): number | undefined {
    const reading = this.readings.get(railKey(environment, rail));
    const wallet = reading && walletFor(reading.wallets, subject, currency);
    return reading && wallet ? wallet.amount - this.spent(environment, rail, reading, wallet) : undefined;
  }

  /** The payouts sent through the rail since the reading was asked for that this wallet pays. */
  private spent(environment: Environment, rail: string, reading: Reading, wallet: PayoutFloat): number {
    return (this.sentSince.get(railKey(environment, rail)) ?? []).filter((s) => s.at >= reading.askedAt && walletFor(reading.wallets, s.subject, s.money.currency) === wallet).reduce((sum, s) => sum + s.money.amount, 0);
  }

  private async read(environment: Environment, connector: Connector): Promise<void> {
    const key = railKey(environment, connector.name);
    if (this.inFlight.has(key) || !connector.payoutFloat) return;
    const askedAt = this.deps.clock.now().getTime();
    this.asked.set(key, askedAt);
    this.inFlight.add(key);
    try {
      const wallets = await connector.payoutFloat();
      this.readings.set(key, { askedAt, wallets });
      // Sends the new reading was asked for after are not in it yet; the earlier ones are.
      const unseen = (this.sentSince.get(key) ?? []).filter((s) => s.at >= askedAt);
      if (unseen.length > 0) this.sentSince.set(key, unseen);
      else this.sentSince.delete(key);
    } catch (err) {
      this.deps.log.warn({ err, environment, rail: connector.name }, 'a rail’s wallets could not be read; the last reading is used until the next one');
    } finally {
      this.inFlight.delete(key);
    }
  }
}
