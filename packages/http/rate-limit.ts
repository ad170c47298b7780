import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { PushLimits, RateLimitRule } from '#packages/core/config.js';
import { ApiError } from '#packages/core/errors.js';
import { sqlMigration, type Migration } from '#packages/core/migration.js';

export const rateLimitMigrations: Migration[] = [
  sqlMigration(
    'rate-limits/001-create',
    `CREATE TABLE rate_limit_windows (
        bucket text NOT NULL,
        window_start timestamptz NOT NULL,
        hits integer NOT NULL,
        PRIMARY KEY (bucket, window_start)
      );
      CREATE INDEX rate_limit_windows_start ON rate_limit_windows (window_start)`,
  ),
  // Windows as long as a day (invitations): each row says when it ends, so a purge keeps what still counts.
  sqlMigration(
    'rate-limits/002-expiry',
    `ALTER TABLE rate_limit_windows ADD COLUMN expires_at timestamptz;
      UPDATE rate_limit_windows SET expires_at = window_start + interval '1 hour';
      ALTER TABLE rate_limit_windows ALTER COLUMN expires_at SET NOT NULL;
      DROP INDEX rate_limit_windows_start;
      CREATE INDEX rate_limit_windows_expiry ON rate_limit_windows (expires_at)`,
  ),
];

/**
 * Fixed-window rate limits kept in PostgreSQL, so that every API process counts against the same
 * windows. One statement per request counts it in all its buckets (the client address, and the
 * credential once known). Over a limit: 429 IKW-LIM-001 with Retry-After; every limited answer
 * carries RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset of its tightest bucket.
 */
export class RateLimiter {
  private taken = 0;

  constructor(
    private readonly knex: Knex,
    private readonly clock: Clock,
  ) {}

  /** Counts one request in each bucket; returns the headers to send, or throws 429 with them. */
  async take(buckets: { key: string; rule: RateLimitRule }[]): Promise<Record<string, string>> {
    const { headers, retryAfter } = await this.count(buckets, 1);
    if (retryAfter !== null) throw new ApiError('IKW-LIM-001', undefined, undefined, { ...headers, 'Retry-After': retryAfter });
    return headers;
  }

  /**
   * Counts `hits` requests in each bucket and never refuses: what they stand for has happened (a
   * long poll's waiting), so the requests that follow meet the limit. Returns the headers to send
   * and, when a bucket is over its limit, the seconds until it resets.
   */
  async count(buckets: { key: string; rule: RateLimitRule }[], hits: number): Promise<{ headers: Record<string, string>; retryAfter: string | null }> {
    if (buckets.length === 0 || hits <= 0) return { headers: {}, retryAfter: null };
    const now = this.clock.now().getTime();
    const starts = buckets.map((b) => new Date(now - (now % b.rule.windowMs)));
    const { rows } = await this.knex.raw<{ rows: { bucket: string; hits: number }[] }>(
      `INSERT INTO rate_limit_windows (bucket, window_start, expires_at, hits)
       SELECT bucket, window_start, expires_at, ?::int FROM unnest(?::text[], ?::timestamptz[], ?::timestamptz[]) AS w(bucket, window_start, expires_at)
       ON CONFLICT (bucket, window_start) DO UPDATE SET hits = rate_limit_windows.hits + EXCLUDED.hits
       RETURNING bucket, hits`,
      [hits, buckets.map((b) => b.key), starts, starts.map((start, i) => new Date(start.getTime() + buckets[i]!.rule.windowMs))],
    );
    if (++this.taken % 1000 === 0) void this.purge().catch(() => undefined);
    // The tightest bucket: the one with the fewest requests left.
    const states = buckets.map((b, i) => {
      const hits = rows.find((r) => r.bucket === b.key)?.hits ?? 1;
      const resetMs = starts[i]!.getTime() + b.rule.windowMs - now;
      return { rule: b.rule, remaining: b.rule.limit - hits, resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)) };
    });
    const tightest = states.reduce((a, b) => (b.remaining < a.remaining ? b : a));
    const headers = {
      'RateLimit-Limit': String(tightest.rule.limit),
      'RateLimit-Remaining': String(Math.max(0, tightest.remaining)),
      'RateLimit-Reset': String(tightest.resetSeconds),
    };
    return { headers, retryAfter: tightest.remaining < 0 ? String(tightest.resetSeconds) : null };
  }

  /**
   * One attempt at something guessable, counted before it is checked (so parallel guesses cannot
   * slip past): 429 when over; the returned function, called on success, forgets the count.
   */
  async attempt(bucket: { key: string; rule: RateLimitRule }): Promise<{ succeeded(): Promise<void> }> {
    await this.take([bucket]);
    return { succeeded: () => this.clear([bucket]) };
  }

  /** Takes back one request counted in the current window of `bucket` (what it stood for turned out not to count). */
  async giveBack(bucket: { key: string; rule: RateLimitRule }): Promise<void> {
    const now = this.clock.now().getTime();
    await this.knex('rate_limit_windows')
      .where({ bucket: bucket.key, window_start: new Date(now - (now % bucket.rule.windowMs)) })
      .where('hits', '>', 0)
      .decrement('hits', 1);
  }

  /** Forgets the current window of each bucket (a success resets its failures). */
  async clear(buckets: { key: string; rule: RateLimitRule }[]): Promise<void> {
    const now = this.clock.now().getTime();
    for (const b of buckets)
      await this.knex('rate_limit_windows')
        .where({ bucket: b.key, window_start: new Date(now - (now % b.rule.windowMs)) })
        .delete();
  }

  /** Deletes the windows that have ended (now and then, from `take`). */
  async purge(): Promise<void> {
    await this.knex('rate_limit_windows').where('expires_at', '<=', this.clock.now()).delete();
  }
}

/**
 * Public pushes (docs/operations.md) counted in this limiter's windows: the number first, on its
 * own, so that pushes refused for a number do not use up the session's or the link's allowance.
 */
export function publicPushCounter(limiter: RateLimiter, rules: PushLimits): (push: { environment: string; msisdn: string; checkoutSessionId: string | null; link: string | null }) => Promise<void> {
  return async (push) => {
    if (rules.perNumber) await limiter.take([{ key: `push:number:${push.environment}:${push.msisdn}`, rule: rules.perNumber }]);
    await limiter.take([
      ...(rules.perSession && push.checkoutSessionId ? [{ key: `push:checkout_session:${push.checkoutSessionId}`, rule: rules.perSession }] : []),
      ...(rules.perLink && push.link ? [{ key: `push:${push.link}`, rule: rules.perLink }] : []),
    ]);
  };
}
