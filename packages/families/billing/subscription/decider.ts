import { unixSeconds } from '#packages/core/clock.js';
import { Refusal } from '#packages/core/refusal.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { Decider, Fact } from '#packages/core/decider.js';
import type { InvoiceLine } from '../invoice/events.js';
import type { Owner } from '#packages/core/owner.js';
import { addDays, addInterval } from './periods.js';
import type { PeriodInvoice, SubscriptionCreated, SubscriptionEvent, SubscriptionStatus, UsageRecord } from './events.js';

export type SubscriptionCommand =
  | { type: 'create'; subscription: SubscriptionCreated }
  | ({ owner: Owner; at: Date } &
      /** The renewal job of the period ending at `periodEnd`; `invoiceId` names the invoice it produces. */
      (
        | { type: 'renew'; periodEnd: string; invoiceId: string }
        | { type: 'cancel'; atPeriodEnd: boolean; invoiceId: string }
        /** Withdraws a cancel at period end before the period is over. */
        | { type: 'resume' }
        | { type: 'record_usage'; record: UsageRecord }
        | { type: 'invoice_overdue'; invoiceId: string }
        | { type: 'invoice_settled'; invoiceId: string }
      ));

export interface SubscriptionState {
  subscription: SubscriptionCreated | null;
  status: SubscriptionStatus;
  currentPeriodStart: string;
  currentPeriodEnd: string;
  renewals: number;
  cancelAtPeriodEnd: boolean;
  canceledAt: string | null;
  latestInvoice: string | null;
  /** Every invoice the subscription produced, so that a crashed issue can be redone. */
  invoices: ReadonlyMap<string, PeriodInvoice>;
  /** Invoices past their due date and still unpaid: the subscription is past_due while any is. */
  overdue: ReadonlySet<string>;
  /** Usage of the current period by meter, not invoiced yet. */
  usage: ReadonlyMap<string, number>;
  /** Usage records by `idem:<idempotencyKey>` and `ext:<externalId>`: recording is idempotent on both. */
  usageKeys: ReadonlyMap<string, UsageRecord>;
}

export const initialSubscriptionState: SubscriptionState = {
  subscription: null,
  status: 'active',
  currentPeriodStart: '',
  currentPeriodEnd: '',
  renewals: 0,
  cancelAtPeriodEnd: false,
  canceledAt: null,
  latestInvoice: null,
  invoices: new Map(),
  overdue: new Set(),
  usage: new Map(),
  usageKeys: new Map(),
};

export const seconds = (iso: string) => unixSeconds(new Date(iso));

/** Licensed items, billed in advance for a period: quantity × unit amount, each line named by its product (its price's id before names were kept). */
export function licensedLines(s: SubscriptionCreated): InvoiceLine[] {
  return s.items
    .filter((i) => i.usage_type === 'licensed')
    .map((i) => ({ description: `${i.quantity} × ${i.product_name ?? i.price}`, price: i.price, quantity: i.quantity, unit_amount: i.unit_amount, amount: i.quantity * i.unit_amount, meter_key: null }));
}

/** Metered usage of the period that ended, billed in arrears at the metered item's unit amount. */
function usageLines(s: SubscriptionCreated, usage: ReadonlyMap<string, number>, from: string, to: string): InvoiceLine[] {
  const metered = s.items.find((i) => i.usage_type === 'metered');
  if (!metered) return [];
  return [...usage.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([meterKey, quantity]) => ({
      description: `Usage of ${meterKey} from ${from} to ${to}`,
      price: metered.price,
      quantity,
      unit_amount: metered.unit_amount,
      amount: quantity * metered.unit_amount,
      meter_key: meterKey,
    }));
}

export function periodInvoice(s: SubscriptionCreated, id: string, issuedAt: Date, periodStart: string, periodEnd: string, lines: InvoiceLine[]): PeriodInvoice {
  return {
    id,
    periodStart,
    periodEnd,
    lines,
    amountDue: lines.reduce((sum, l) => sum + l.amount, 0),
    dueAt: addDays(issuedAt, s.daysUntilDue).toISOString(),
  };
}

function withInvoice(state: SubscriptionState, invoice: PeriodInvoice | null): Partial<SubscriptionState> {
  if (!invoice) return {};
  return { latestInvoice: invoice.id, invoices: new Map(state.invoices).set(invoice.id, invoice) };
}

/**
 * Subscriptions (docs/billing.md has the diagram):
 * trialing → active at the trial's end; active ⇄ past_due as an invoice passes its due date unpaid
 * and is settled (paid, void or uncollectible); any status → canceled, at once or at the period's
 * end. Each renewal closes the period: usage recorded before it lands on its invoice, usage after
 * it on the next, since both are decisions on this one stream.
 */
export const subscriptionDecider: Decider<SubscriptionCommand, SubscriptionState, Fact<SubscriptionEvent>> = {
  initialState: initialSubscriptionState,

  evolve(state, event) {
    switch (event.type) {
      case 'subscription.created': {
        const s = event.data;
        return {
          ...state,
          ...withInvoice(state, s.invoice),
          subscription: s,
          status: s.trialEnd ? 'trialing' : 'active',
          currentPeriodStart: s.currentPeriodStart,
          currentPeriodEnd: s.currentPeriodEnd,
          cancelAtPeriodEnd: s.cancelAtPeriodEnd,
        };
      }
      case 'subscription.renewed':
        return {
          ...state,
          ...withInvoice(state, event.data.invoice),
          status: state.status === 'trialing' ? 'active' : state.status,
          currentPeriodStart: event.data.periodStart,
          currentPeriodEnd: event.data.periodEnd,
          renewals: state.renewals + 1,
          usage: new Map(),
        };
      case 'subscription.updated': {
        const d = event.data;
        const overdue = new Set(state.overdue);
        if (d.overdueInvoice) overdue.add(d.overdueInvoice);
        if (d.settledInvoice) overdue.delete(d.settledInvoice);
        return {
          ...state,
          ...(d.status ? { status: d.status } : {}),
          ...(d.cancelAtPeriodEnd !== undefined ? { cancelAtPeriodEnd: d.cancelAtPeriodEnd } : {}),
          overdue,
        };
      }
      case 'subscription.canceled':
        return { ...state, ...withInvoice(state, event.data.invoice), status: 'canceled', canceledAt: event.data.at, usage: new Map() };
      case 'subscription.usage_recorded': {
        const r = event.data.record;
        const usageKeys = new Map(state.usageKeys);
        if (r.idempotencyKey) usageKeys.set(`idem:${r.idempotencyKey}`, r);
        if (r.externalId) usageKeys.set(`ext:${r.externalId}`, r);
        return { ...state, usage: new Map(state.usage).set(r.meterKey, (state.usage.get(r.meterKey) ?? 0) + r.quantity), usageKeys };
      }
    }
  },

  decide(command, state) {
    if (command.type === 'create') {
      if (state.subscription) throw new Refusal('IKW-RES-003', `Subscription ${command.subscription.id} already exists`);
      return [{ type: 'subscription.created', data: command.subscription }];
    }
    const s = state.subscription;
    assertOwned(s, command.owner, 'No such subscription', 'subscriptionId');
    const at = command.at.toISOString();
    switch (command.type) {
      case 'renew': {
        // A repeated or early job changes nothing: the period it was for is already closed, or not yet over.
        if (state.status === 'canceled' || command.periodEnd !== state.currentPeriodEnd) return [];
        if (command.at.getTime() < new Date(state.currentPeriodEnd).getTime()) return [];
        const closedStart = state.currentPeriodStart;
        const closedEnd = state.currentPeriodEnd;
        const usage = usageLines(s, state.usage, closedStart, closedEnd);
        if (state.cancelAtPeriodEnd) {
          const invoice = usage.length > 0 ? periodInvoice(s, command.invoiceId, new Date(closedEnd), closedStart, closedEnd, usage) : null;
          return [{ type: 'subscription.canceled', data: { invoice, at: closedEnd } }];
        }
        const periodEnd = addInterval(new Date(s.billingCycleAnchor), s.interval, s.intervalCount * (s.intervalsToFirstEnd + state.renewals + 1)).toISOString();
        // Due counted from the period's start, not from when the job ran: a late job changes no due date.
        const invoice = periodInvoice(s, command.invoiceId, new Date(closedEnd), closedEnd, periodEnd, [...licensedLines(s), ...usage]);
        return [{ type: 'subscription.renewed', data: { periodStart: closedEnd, periodEnd, invoice, at } }];
      }
      case 'cancel': {
        if (state.status === 'canceled') throw new Refusal('IKW-BIL-001', `Subscription ${s.id} is already canceled`, 'subscriptionId');
        if (command.atPeriodEnd) {
          if (state.cancelAtPeriodEnd) return [];
          return [{ type: 'subscription.updated', data: { cancelAtPeriodEnd: true, at } }];
        }
        const usage = usageLines(s, state.usage, state.currentPeriodStart, at);
        const invoice = usage.length > 0 ? periodInvoice(s, command.invoiceId, command.at, state.currentPeriodStart, at, usage) : null;
        return [{ type: 'subscription.canceled', data: { invoice, at } }];
      }
      case 'resume':
        if (state.status === 'canceled') throw new Refusal('IKW-BIL-001', `Subscription ${s.id} is already canceled`, 'subscriptionId');
        return state.cancelAtPeriodEnd ? [{ type: 'subscription.updated', data: { cancelAtPeriodEnd: false, at } }] : [];
      case 'record_usage': {
        const r = command.record;
        const seen = (r.idempotencyKey && state.usageKeys.get(`idem:${r.idempotencyKey}`)) || (r.externalId && state.usageKeys.get(`ext:${r.externalId}`));
        if (seen) {
          if (seen.meterKey !== r.meterKey || seen.quantity !== r.quantity) {
            throw new Refusal('IKW-IDM-002', `Usage record ${seen.id} was recorded with this key for ${seen.quantity} of ${seen.meterKey}`, r.idempotencyKey ? 'idempotencyKey' : 'externalId');
          }
          return []; // the caller answers with the record first stored
        }
        if (state.status === 'canceled') throw new Refusal('IKW-BIL-011', `Subscription ${s.id} is canceled`, 'subscriptionId');
        const metered = s.items.find((i) => i.usage_type === 'metered');
        if (!metered) throw new Refusal('IKW-BIL-011', `Subscription ${s.id} has no metered price`, 'subscriptionId');
        const total = (state.usage.get(r.meterKey) ?? 0) + r.quantity;
        if (!Number.isSafeInteger(total * metered.unit_amount)) throw new Refusal('IKW-VAL-001', 'The usage of this period is too large to bill', 'quantity');
        return [{ type: 'subscription.usage_recorded', data: { record: r } }];
      }
      case 'invoice_overdue': {
        if (state.status === 'canceled' || state.overdue.has(command.invoiceId)) return [];
        return [{ type: 'subscription.updated', data: { overdueInvoice: command.invoiceId, ...(state.status !== 'past_due' ? { status: 'past_due' as const } : {}), at } }];
      }
      case 'invoice_settled': {
        if (!state.overdue.has(command.invoiceId)) return [];
        const backToActive = state.status === 'past_due' && state.overdue.size === 1;
        return [{ type: 'subscription.updated', data: { settledInvoice: command.invoiceId, ...(backToActive ? { status: 'active' as const } : {}), at } }];
      }
    }
  },
};
