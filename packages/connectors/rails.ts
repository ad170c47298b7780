import { ConfigError, integer, positiveDuration, type Env } from '#packages/core/config-parsing.js';
import { hub2Rail } from './hub2/index.js';
import { pawapayRail } from './pawapay/index.js';
import { paystackRail } from './paystack/index.js';

/**
 * Every rail the service opens, in the default order of RAIL_PRECEDENCE (the simulator is always
 * last, in sandbox only). Adding a rail: its folder and its line here (docs/connectors.md,
 * "Adding a connector").
 */
export const RAILS = [pawapayRail, paystackRail, hub2Rail] as const;

type Rail = (typeof RAILS)[number];
export type RailName = Rail['name'];
export const RAIL_NAMES: readonly RailName[] = RAILS.map((rail) => rail.name);

/** Each rail's settings, under its name (`config.pawapay`, `config.paystack`, …). */
export type RailSettings = { readonly [R in Rail as R['name']]: ReturnType<R['settings']> };

/** The rails' settings and the router's, parsed once at start from environment variables; part of the service's configuration (services/config.ts). */
export type RailsConfig = RailSettings & {
  /**
   * RAIL_PRECEDENCE: the order in which the router asks the rails (docs/connectors.md, "The
   * router"); the first that serves a subject carries it. Each rail once: those it does not name
   * follow in the default order.
   */
  railPrecedence: readonly RailName[];
  /**
   * When a rail's measured health sets it aside (docs/connectors.md, "Health";
   * packages/connectors/health.ts, BreakerOptions): RAIL_HEALTH_WINDOW (the window of answers
   * counted), RAIL_HEALTH_THRESHOLD (the rail's failures in it that set it aside, when they are at
   * least half its answers), RAIL_HEALTH_LEAK_INTERVAL (how long it is aside before one probe goes).
   */
  railHealth: { windowMs: number; threshold: number; leakIntervalMs: number };
  /**
   * How often the wallets of the rails that keep Sika's money are read for routing payouts
   * (docs/connectors.md, "Float"): RAIL_FLOAT_REFRESH, 60s unless told (a provider is not asked
   * at every routing decision; the payouts sent between two readings are taken off the last one).
   */
  railFloatRefreshMs: number;
};

export function loadRailsConfig(env: Env): RailsConfig {
  // Each rail's parser in the list's order; the list's types name each section, which entries lose.
  const settings = Object.fromEntries(RAILS.map((rail) => [rail.name, rail.settings(env)])) as RailSettings;
  return {
    ...settings,
    railPrecedence: railPrecedence(env),
    railHealth: {
      windowMs: positiveDuration(env, 'RAIL_HEALTH_WINDOW', '10m'),
      threshold: integer(env, 'RAIL_HEALTH_THRESHOLD', 5, 1, 10_000),
      leakIntervalMs: positiveDuration(env, 'RAIL_HEALTH_LEAK_INTERVAL', '5m'),
    },
    railFloatRefreshMs: positiveDuration(env, 'RAIL_FLOAT_REFRESH', '60s'),
  };
}

/**
 * RAIL_PRECEDENCE: the order the router asks the rails, each named once; those it does not name
 * follow in the default order (pawaPay, Paystack, Hub2), so a setting made before a rail existed
 * still starts.
 */
function railPrecedence(env: Env): RailName[] {
  const raw = env.RAIL_PRECEDENCE?.trim();
  if (!raw) return [...RAIL_NAMES];
  const names = raw.split(',').map((n) => n.trim().toLowerCase());
  const unknown = names.filter((n) => !(RAIL_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) throw new ConfigError('RAIL_PRECEDENCE', `names no rail "${unknown.join('", "')}": list some of ${RAIL_NAMES.join(', ')}, each once, first the one that carries what several serve (e.g. ${RAIL_NAMES.join(',')})`);
  if (new Set(names).size !== names.length) throw new ConfigError('RAIL_PRECEDENCE', `names a rail twice, got "${raw}"`);
  return [...(names as RailName[]), ...RAIL_NAMES.filter((n) => !names.includes(n))];
}
