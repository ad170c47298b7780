import type { PassedOverRail } from '#packages/connectors/port.js';
import type { Knex } from 'knex';
import { derivedUuid } from '#packages/core/ids.js';
import type { DelayReason, PayoutEvent } from '#packages/families/payouts/index.js';
import type { PaymentIntentEvent } from '#packages/families/payments/index.js';
import type { RiskAssessmentEvent } from '#packages/families/risk/index.js';
import type { RecordedEvent } from '#packages/eventstore/port.js';
import { cursorPage, type CursorList, type CursorQuery } from '#packages/read-models/paging.js';
import type { Projection } from '#packages/read-models/projection.js';
import type { Owner } from '#packages/core/owner.js';

export type DecisionKind = 'payment_routing' | 'payout_routing' | 'payout_delay' | 'payout_failure' | 'risk';
export const DECISION_KINDS: readonly DecisionKind[] = ['payment_routing', 'payout_routing', 'payout_delay', 'payout_failure', 'risk'];

/** A decision the service took about a payment or payout, and why, as the dashboard explains it. */
export interface Decision {
  id: string;
  object: 'intelligence.decision';
  kind: DecisionKind;
  /** The payment intent or payout it is about. */
  subject: string;
  /** What was chosen: operator, rail (method and country), delay reason… by kind. */
  outcome: Record<string, string | number | null>;
  /** Why, in a sentence. */
  reason: string;
  decidedAt: string;
}

const DELAY_REASONS: Record<DelayReason, string> = {
  operator_pending: 'the operator accepted the payout but has not confirmed it yet',
  operator_timeout: 'the operator did not answer in time',
  operator_down: 'the operator is unavailable',
  provider_action_required: 'the provider waits for an action of the platform operator (an OTP its account still requires for transfers)',
  unknown: 'the cause is not known yet',
};

const PASSED_OVER: Record<PassedOverRail['why'], string> = {
  declared_unavailable: 'its provider declared it closed',
  set_aside: 'it had been failing',
  rejected: 'it refused the first attempt, which took nothing',
  float_short: 'it could not cover the amount',
};

/** What the risk rules' decision did (docs/risk.md). */
const RISK_WORDS: Record<'score' | 'review' | 'block', string> = {
  score: 'Recorded by the risk rules, let through',
  review: 'Held for review by the risk rules until released',
  block: 'Declined by the risk rules before any rail was asked',
};

/**
 * What a merchant reads of the rails the router passed over (docs/connectors.md, "Health"): the
 * outcome's `route` (`backup`) and a sentence, no rail's name. Nothing when none was.
 */
function backupRoute(passedOver: readonly PassedOverRail[] | undefined): { outcome: { route?: string }; why: string } {
  if (!passedOver?.length) return { outcome: {}, why: '' };
  const whys = [...new Set(passedOver.map((p) => PASSED_OVER[p.why]))].join(' and ');
  return { outcome: { route: 'backup' }, why: `; its usual route was passed over (${whys}), so a backup route carried it` };
}

/** The decision an event records, if it records one. */
function decisionOf(event: RecordedEvent): Omit<Decision, 'id' | 'object'> | null {
  const e = event as unknown as PaymentIntentEvent | PayoutEvent | RiskAssessmentEvent;
  const at = event.metadata.occurred_at ?? event.recordedAt.toISOString();
  switch (e.type) {
    case 'payment_intent.confirmation_started': {
      const m = e.data.paymentMethod;
      const subject = event.streamId.slice('payment_intent-'.length);
      if (m.type === 'mobile_money') {
        const backup = backupRoute(e.data.passedOver);
        return {
          kind: 'payment_routing',
          subject,
          outcome: { method: 'mobile_money', operator: m.operator, rail_country: m.country.toUpperCase(), flow: m.preferred_flow ?? null, ...backup.outcome },
          reason: `Routed to ${m.operator} in ${m.country.toUpperCase()}: the payer's mobile money operator, on its own country's rail${backup.why}`,
          decidedAt: at,
        };
      }
      return { kind: 'payment_routing', subject, outcome: { method: 'card', operator: 'card_acquirer', rail_country: null, flow: null }, reason: 'Routed to the card acquirer: the payer paid by card', decidedAt: at };
    }
    case 'payout.created': {
      const d = e.data.destination;
      const backup = backupRoute(e.data.passedOver);
      const outcome =
        d.type === 'mobile_money'
          ? { method: 'mobile_money', operator: d.operator, rail_country: d.country, fee: e.data.fee, ...backup.outcome }
          : { method: 'bank', operator: d.bank_code, rail_country: null, fee: e.data.fee, ...backup.outcome };
      const why = d.type === 'mobile_money' ? `the destination is a ${d.operator} wallet in ${d.country}` : `the destination is an account at bank ${d.bank_code}`;
      return { kind: 'payout_routing', subject: e.data.id, outcome, reason: `Sent by ${outcome.method.replace('_', ' ')}: ${why}; fee ${e.data.fee} ${e.data.currency}${backup.why}`, decidedAt: at };
    }
    case 'payout.delayed':
      return {
        kind: 'payout_delay',
        subject: e.data.object.id,
        outcome: { delay_reason: e.data.reason, expected_by: e.data.object.expected_by },
        reason: `Marked delayed past its expected time: ${DELAY_REASONS[e.data.reason]}`,
        decidedAt: e.data.at,
      };
    case 'risk.assessed': {
      // An attempt no rule matched is no decision the merchant needs to read.
      const a = e.data;
      if (a.decision === 'allow') return null;
      const rules = [...new Set(a.reasons.map((r) => r.rule))].join(',');
      return { kind: 'risk', subject: a.subject, outcome: { decision: a.decision, direction: a.direction, rules }, reason: `${RISK_WORDS[a.decision]}: ${a.reasons.map((r) => r.reason).join('; ')}`, decidedAt: a.at };
    }
    case 'payout.failed':
      return { kind: 'payout_failure', subject: e.data.object.id, outcome: { failure_code: e.data.failureCode }, reason: `Failed: ${e.data.failureMessage}`, decidedAt: e.data.at };
    default:
      return null;
  }
}

/** read.intel_decisions: the routing and delay decisions the service took, one row per deciding event. */
export const intelligenceDecisionsProjection: Projection = {
  name: 'intelligence_decisions',
  // Analytics: no request reads its own writes here, and the daily sums are rows every payment of a day would contend on.
  followsLog: true,
  tables: ['read.intel_decisions'],
  migrations: [
    {
      name: 'intelligence_decisions/001-create',
      up: (knex) =>
        knex.raw(`CREATE TABLE read.intel_decisions (
          id text PRIMARY KEY,
          seq text NOT NULL,
          merchant_id text NOT NULL,
          environment text NOT NULL,
          kind text NOT NULL,
          subject text NOT NULL,
          object json NOT NULL
        );
        CREATE INDEX intel_decisions_list ON read.intel_decisions (merchant_id, environment, seq);
        CREATE INDEX intel_decisions_subject ON read.intel_decisions (merchant_id, environment, subject)`),
    },
  ],
  handles: ['payment_intent.confirmation_started', 'payout.created', 'payout.delayed', 'payout.failed', 'risk.assessed'],
  apply: (trx, event) => insertDecisions(trx, [event]),
  applyBatch: insertDecisions,
};

/** One row per deciding event, in one statement per thousand. */
async function insertDecisions(trx: Knex.Transaction, events: readonly RecordedEvent[]): Promise<void> {
  const rows = [];
  for (const event of events) {
    const decision = decisionOf(event);
    const merchantId = event.metadata.merchant_id;
    const environment = event.metadata.environment;
    if (!decision || !merchantId || !environment) continue;
    // Named from the event, so a rebuild names each decision the same.
    const id = derivedUuid(`decision:${event.eventId}`);
    const object: Decision = { id, object: 'intelligence.decision', ...decision };
    rows.push({ id, seq: event.position, merchant_id: merchantId, environment, kind: decision.kind, subject: decision.subject, object: JSON.stringify(object) });
  }
  for (let i = 0; i < rows.length; i += 1000)
    await trx('read.intel_decisions')
      .insert(rows.slice(i, i + 1000))
      .onConflict('id')
      .ignore();
}

const owned = (knex: Knex, owner: Owner) => knex('read.intel_decisions').where({ merchant_id: owner.merchantId, environment: owner.environment });

/** This owner's decisions, newest first, by kind and subject. */
export function listDecisions(knex: Knex, owner: Owner, cursor: CursorQuery, url: string, filters: { kind?: DecisionKind; subject?: string }): Promise<CursorList<Decision>> {
  const q = owned(knex, owner).select('id', 'seq', 'object');
  if (filters.kind) q.where({ kind: filters.kind });
  if (filters.subject) q.where({ subject: filters.subject });
  return cursorPage<{ seq: string; object: Decision }, Decision>(q, cursor, url, 'id', (r) => r.object);
}

export async function findDecision(knex: Knex, owner: Owner, id: string): Promise<Decision | undefined> {
  const row = await owned(knex, owner).where({ id }).first<{ object: Decision } | undefined>('object');
  return row?.object;
}
