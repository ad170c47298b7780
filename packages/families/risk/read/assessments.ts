import type { Knex } from 'knex';
import type { Owner } from '#packages/core/owner.js';
import type { AttemptCounter } from '../rules/commands.js';
import type { RiskAssessmentEvent } from '../rules/events.js';
import type { Projection } from '#packages/read-models/projection.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';

/** Rows one INSERT carries (12 parameters each, within PostgreSQL's 65,535). */
const ROWS_PER_INSERT = 1_000;

/** The assessments' rows, each once: an event applied again (a rebuild, a retried commit) changes nothing. */
async function insertAssessments(trx: Knex.Transaction, events: readonly RecordedEvent[]): Promise<void> {
  const rows = events.map((event) => {
    const a = (event as unknown as RiskAssessmentEvent).data;
    return {
      id: a.id,
      merchant_id: a.merchantId,
      environment: a.environment,
      direction: a.direction,
      subject: a.subject,
      phone: a.phone,
      email: a.email,
      destination: a.destination,
      amount: a.amount,
      currency: a.currency,
      decision: a.decision,
      at: a.at,
    };
  });
  await trx('read.risk_assessments').insert(rows).onConflict('id').ignore();
}

/**
 * read.risk_assessments: every attempt the risk rules were asked about (docs/risk.md), with its
 * payer or destination: what the velocity and repeat rules count. Inline: the next attempt of the
 * same payer must see this one.
 */
export const riskAssessmentsProjection: Projection = {
  name: 'risk_assessments',
  tables: ['read.risk_assessments'],
  migrations: [
    {
      name: 'risk_assessments/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.risk_assessments (
          id text PRIMARY KEY,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          direction text NOT NULL,
          subject text NOT NULL,
          phone text,
          email text,
          destination text,
          amount bigint NOT NULL,
          currency text NOT NULL,
          decision text NOT NULL,
          at timestamptz NOT NULL
        );
        CREATE INDEX risk_assessments_phone ON read.risk_assessments (merchant_id, environment, phone, at) WHERE phone IS NOT NULL;
        CREATE INDEX risk_assessments_email ON read.risk_assessments (merchant_id, environment, email, at) WHERE email IS NOT NULL;
        CREATE INDEX risk_assessments_destination ON read.risk_assessments (merchant_id, environment, destination, at) WHERE destination IS NOT NULL`),
    },
  ],
  handles: ['risk.assessed'],
  async apply(trx, event) {
    await insertAssessments(trx, [event]);
  },
  // Rebuilds and multi-event commits: one INSERT per page of assessments, not one per event.
  async applyBatch(trx, events) {
    for (let i = 0; i < events.length; i += ROWS_PER_INSERT) await insertAssessments(trx, events.slice(i, i + ROWS_PER_INSERT));
  },
};

const HOUR_MS = 3_600_000;

/**
 * The attempts before this one that the rules count, other attempts of the same payment or payout
 * aside: by the payer (its number or e-mail) in the last hour and day, and the same amount within
 * the repeat window; by the destination in the last day.
 */
export function attemptCounter(knex: Knex): AttemptCounter {
  return {
    async countsBefore(owner: Owner, attempt, at, repeatMinutes) {
      const dayAgo = new Date(at.getTime() - 24 * HOUR_MS);
      const base = () =>
        knex('read.risk_assessments').where({ merchant_id: owner.merchantId, environment: owner.environment, direction: attempt.direction }).whereNot('subject', attempt.subject).where('at', '>', dayAgo).where('at', '<=', at);
      if (attempt.direction === 'payout') {
        if (!attempt.destination) return { payerLastHour: 0, payerLastDay: 0, destinationLastDay: 0, repeats: 0 };
        const row = (await base().where('destination', attempt.destination).first(knex.raw('count(DISTINCT subject)::int AS day'))) as { day: number };
        return { payerLastHour: 0, payerLastDay: 0, destinationLastDay: row.day, repeats: 0 };
      }
      if (!attempt.phone && !attempt.email) return { payerLastHour: 0, payerLastDay: 0, destinationLastDay: 0, repeats: 0 };
      const hourAgo = new Date(at.getTime() - HOUR_MS);
      const repeatSince = new Date(at.getTime() - repeatMinutes * 60_000);
      const row = (await base()
        .where((w) => {
          if (attempt.phone) w.orWhere('phone', attempt.phone);
          if (attempt.email) w.orWhere('email', attempt.email);
        })
        .first(
          knex.raw('count(DISTINCT subject) FILTER (WHERE at > ?)::int AS hour', [hourAgo]),
          knex.raw('count(DISTINCT subject)::int AS day'),
          knex.raw('count(DISTINCT subject) FILTER (WHERE at > ? AND amount = ? AND currency = ?)::int AS repeats', [repeatSince, attempt.amount, attempt.currency]),
        )) as { hour: number; day: number; repeats: number };
      return { payerLastHour: row.hour, payerLastDay: row.day, destinationLastDay: 0, repeats: repeatMinutes > 0 ? row.repeats : 0 };
    },
    // The payments' and payouts' own read models: succeeded intents, paid payouts, newest first.
    async usualAmount(owner, direction, currency, last) {
      const [table, status] = direction === 'payment' ? ['read.payment_intents', 'succeeded'] : ['read.payouts', 'paid'];
      const lastOnes = knex(table)
        .where({ merchant_id: owner.merchantId, environment: owner.environment, status })
        .whereRaw("lower(object->>'currency') = ?", [currency.toLowerCase()])
        // seq is the row's creation position: newest first along the (merchant, environment, seq)
        // index, rather than sorting every success of the merchant on each attempt.
        .orderBy('seq', 'desc')
        .limit(last)
        .select(knex.raw("(object->>'amount')::bigint AS amount"));
      const row = (await knex.from(lastOnes.as('last_ones')).first(knex.raw('count(*)::int AS count'), knex.raw('coalesce(percentile_cont(0.5) WITHIN GROUP (ORDER BY amount), 0)::float AS median'))) as { count: number; median: number };
      return { count: row.count, median: row.median };
    },
  };
}
