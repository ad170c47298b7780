import type { Env } from '#packages/core/config-parsing.js';
import type { Clock } from '#packages/core/clock.js';
import type { Logger } from '#packages/core/logger.js';
import type { Environment } from '#packages/core/owner.js';
import type { DisputeRail } from './disputes.js';
import type { NewsDesk, RailSinks } from './news-desk.js';
import type { CardBook } from './paystack/cards.js';
import type { Connector, RailInbound } from './port.js';

/**
 * A rail, whole (docs/connectors.md, "Adding a connector"): its name, its settings parser and how
 * it opens. Each rail's folder exports one (`packages/connectors/<rail>/rail.ts`); the rails' list
 * (packages/connectors/rails.ts) is the one place that names them all.
 */
export interface RailModule<Name extends string = string, Settings = unknown> {
  /** Its name in RAIL_PRECEDENCE, in its section of the configuration and on its connectors. */
  readonly name: Name;
  /** Its settings from the environment (its `config.ts`); a bad one stops the start (ConfigError). */
  settings(env: Env): Settings;
  /**
   * Its accounts' connectors and its receiving of its provider's news, from its section of the
   * configuration (the settings `settings` parsed, under its name).
   */
  open(config: { readonly [N in Name]: Settings }, opening: RailOpening): Promise<OpenedRail>;
}

/** What a rail is opened with: the service's parts it needs, filled by the rails' assembly (services/rails.ts). */
export interface RailOpening {
  clock: Clock;
  log: Logger;
  /** Base URL customers' browsers and the providers' callbacks reach the service at (PUBLIC_URL). */
  publicUrl: string;
  /** A currency's minor units (the catalogue's), for the rails that speak decimal amounts. */
  minorUnits: (currency: string) => number | undefined;
  /** Where the rail's news goes once verified and normalised (inbound.ts). */
  desk: NewsDesk;
  /** The jobs the rail's own asynchronous news becomes (its connectors' sinks: packages/connectors/callbacks.ts). */
  sinks: RailSinks;
  /** What the service keeps of this rail's own objects, outside the event log (services/rail-recipients.ts). */
  kept: RailKeeping;
}

/** A rail's own objects the service keeps for it, per environment. */
export interface RailKeeping {
  /** Keyed records: transfer recipients, intents, claims of a money call. */
  records(environment: Environment): RailRecords;
  /** Customers' saved cards. */
  cards(environment: Environment): CardBook;
}

export interface RailRecords {
  get(key: string): Promise<string | null>;
  put(key: string, value: string): Promise<void>;
  /** Sets `key` to `value` only if it still holds `replacing` (null: nothing), in one step: true when this call set it. */
  claim(key: string, value: string, replacing: string | null): Promise<boolean>;
}

/** An opened rail: its configured accounts' connectors, by environment, and its inbound side. */
export interface OpenedRail {
  connectors: Partial<Record<Environment, Connector>>;
  inbound: RailInbound;
  /** The accounts that carry card disputes, when the rail has them (Paystack's). */
  disputes?: Partial<Record<Environment, DisputeRail>>;
}

/** After a rail's first status check (its `<RAIL>_STATUS_CHECK_AFTER`), each delay after the one before: backing off to hours, about two days in all. */
export const LATER_STATUS_CHECKS_MS = [5 * 60_000, 15 * 60_000, 3_600_000, 3 * 3_600_000, 6 * 3_600_000, 12 * 3_600_000, 24 * 3_600_000];

/** The environments a rail has an account for, in the order they are opened. */
export const RAIL_ENVIRONMENTS = ['live', 'sandbox'] as const;
