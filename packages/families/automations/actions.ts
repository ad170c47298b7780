import { isRefused, Refusal } from '#packages/core/refusal.js';
import { derivedId } from '#packages/core/ids.js';
import { renderVersion } from '#packages/families/templates/index.js';
import { findAutomationById, versionCredential } from './read/automations.js';
import { findCustomerIdByEmail } from '#packages/families/billing/read/index.js';
import { findTemplate, findTemplateVersion } from '#packages/families/templates/read/index.js';
import type { Step } from './definition.js';
import { callUrl } from './http.js';
import type { RunRow } from './runs.js';
import type { Actor, Owner, Requester } from '#packages/core/owner.js';
import type { Knex } from 'knex';
import type { Clock } from '#packages/core/clock.js';
import type { SecretBox } from '#packages/core/secrets.js';
import type { Cidr } from '#packages/core/cidr.js';
import type { Messenger } from '#packages/messaging/messages.js';
import type { Billing } from '#packages/families/billing/index.js';
import type { PayoutCreation } from '#packages/families/payouts/index.js';

export interface StepActionDeps {
  knex: Knex;
  clock: Clock;
  box: SecretBox;
  messenger: Messenger;
  payouts: PayoutCreation;
  billing: Billing;
  allowedPrivateRanges: readonly Cidr[];
  httpTimeoutMs: number;
  /**
   * Counts one message of a merchant's automations to `to` against the sending limits (per merchant
   * and per recipient, docs/automations.md "Sending"); throws 429 IKW-LIM-001 over either.
   */
  countSend(owner: Owner, to: string): Promise<void>;
}

/**
 * What a step did: its output, or the error that failed this attempt (`final`: no attempt can do
 * better, the run fails now). A `skipped` step (test runs) did nothing on purpose.
 */
export type StepResult = { status: 'succeeded' | 'skipped'; output: Record<string, unknown> } | { status: 'failed'; error: string; final?: true };

const DAY_MS = 86_400_000;
/** A calendar day (YYYY-MM-DD) `days` after `day`. */
const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** An amount parameter after rendering: a positive whole number of minor units. */
function amountOf(value: unknown): number {
  const n = typeof value === 'number' ? value : /^\d{1,15}$/.test(String(value).trim()) ? Number(String(value).trim()) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new Refusal('IKW-VAL-001', `amount must render to a positive whole number of minor units, not '${String(value)}'`, 'amount');
  return n;
}

/** What each step's action does once its parameters are rendered: send, call, invoice, pay out, remind, tag. */
export class StepActions {
  constructor(private readonly deps: StepActionDeps) {}

  async act(run: RunRow, step: Step, params: Record<string, unknown>): Promise<StepResult> {
    const owner: Owner = { merchantId: run.merchant_id, environment: run.environment };
    const actor: Actor = { actor: `automation:${run.automation_id}`, causationId: run.id };
    /** The step's idempotency key: the same on every attempt of this step of this run. */
    const key = `${run.id}.${step.id}`;
    switch (step.action) {
      case 'send_email':
      case 'send_sms': {
        const channel = step.action === 'send_email' ? 'email' : 'sms';
        const template = await findTemplate(this.deps.knex, owner, params.templateId as string);
        if (!template || template.kind !== channel) return { status: 'failed', error: `No ${channel} template '${String(params.templateId)}'` };
        if (template.published_version === null) return { status: 'failed', error: `Template ${template.id} has no published version` };
        const version = (await findTemplateVersion(this.deps.knex, template.id, template.published_version))!;
        const data = (params.data as Record<string, unknown> | undefined) ?? (run.trigger_event?.data as Record<string, unknown> | undefined) ?? {};
        const out = await renderVersion(version, data, params.locale as string | undefined);
        const to = String(params.to).trim();
        // What the messenger will hold (the sandbox, outside the team) is not sent, so not counted.
        if ((await this.deps.messenger.holdOf(owner, channel, to)) === undefined) {
          try {
            await this.deps.countSend(owner, channel === 'email' ? to.toLowerCase() : to);
          } catch (err) {
            if (isRefused(err, 'IKW-LIM-001')) return { status: 'failed', error: `rate limit: too many messages from this merchant's automations, or to ${to}; tried again later` };
            throw err;
          }
        }
        const outcome = await this.deps.messenger.send({
          channel,
          to,
          subject: out.subject ?? '',
          text: out.text,
          ...(out.html !== undefined ? { html: out.html } : {}),
          ...(channel === 'email' ? { messageId: `<${key}@automations.sika.invalid>` } : {}),
          purpose: 'automation',
          merchant: owner,
        });
        if (outcome.status === 'failed') return { status: 'failed', error: `${channel} not delivered: ${outcome.error}` };
        return {
          status: 'succeeded',
          output: {
            to,
            template: template.id,
            version: version.version,
            locale: out.locale,
            ...(out.subject !== undefined ? { subject: out.subject } : {}),
            delivery: outcome.status,
            ...(outcome.status === 'held' ? { held: outcome.reason } : {}),
          },
        };
      }
      case 'http_request': {
        const secret = this.deps.box.open((await findAutomationById(this.deps.knex, run.automation_id))!.secret_sealed);
        const method = (params.method as string | undefined) ?? 'POST';
        const outcome = await callUrl({
          url: String(params.url),
          method,
          headers: (params.headers as Record<string, string> | undefined) ?? {},
          body: params.body ?? (method === 'GET' || method === 'DELETE' ? undefined : { event: run.trigger_event, run: run.id }),
          key,
          secret,
          at: this.deps.clock.now(),
          environment: run.environment,
          allowedPrivateRanges: this.deps.allowedPrivateRanges,
          timeoutMs: this.deps.httpTimeoutMs,
        });
        if (!outcome.ok) return { status: 'failed', error: outcome.error };
        let body: unknown = outcome.body;
        try {
          body = JSON.parse(outcome.body);
        } catch {
          // Not JSON: kept as text.
        }
        return { status: 'succeeded', output: { status: outcome.status, body } };
      }
      case 'create_invoice': {
        const customer = String(params.customer).trim();
        const invoice = await this.deps.billing.invoiceIssuing.create(
          owner,
          {
            id: derivedId('in', `automation|${key}`),
            customer: customer.startsWith('cus_') ? { id: customer } : { email: customer },
            currency: String(params.currency),
            amountDue: amountOf(params.amount),
            ...(params.description !== undefined ? { description: String(params.description) } : {}),
            ...(params.daysUntilDue !== undefined ? { daysUntilDue: params.daysUntilDue as number } : {}),
            metadata: { automation_id: run.automation_id, automation_run_id: run.id },
            finalize: true,
          },
          actor,
        );
        const i = invoice.invoice!;
        return { status: 'succeeded', output: { invoice: i.id, customer: i.customer, amountDue: i.amountDue, currency: i.currency, status: invoice.status } };
      }
      case 'create_payout': {
        // The payout is asked by whoever saved the version; a user is not there to give a second
        // factor, so in live their automations pay inline only destinations paid before (docs/automations.md).
        const credential = await versionCredential(this.deps.knex, run.automation_id, run.automation_version);
        const by: Requester = { userId: credential?.type === 'user' ? credential.id : null, challengeId: null };
        const payout = await this.deps.payouts.create(
          owner,
          {
            amount: amountOf(params.amount),
            currency: String(params.currency),
            ...(params.destination !== undefined ? { destination: params.destination as never } : {}),
            ...(params.payoutMethodId !== undefined ? { payout_method_id: String(params.payoutMethodId) } : {}),
            metadata: { ...((params.metadata as Record<string, string> | undefined) ?? {}), automation_id: run.automation_id, automation_run_id: run.id },
          },
          by,
          'api',
          actor,
          `automation:${key}`,
        );
        return { status: 'succeeded', output: { payout: payout.id, amount: payout.amount, currency: payout.currency, status: payout.status } };
      }
      case 'send_invoice_reminders':
        return { status: 'succeeded', output: await this.remindInvoices(run, owner, params as { daysBefore?: number; daysAfter?: number }) };
      case 'tag_customer': {
        const ref = String(params.customer).trim();
        const id = ref.startsWith('cus_') ? ref : await findCustomerIdByEmail(this.deps.knex, owner, ref);
        if (!id) return { status: 'failed', error: `No customer '${ref}'` };
        const customer = await this.deps.billing.customers.tag(owner, id, String(params.tag), actor);
        return { status: 'succeeded', output: { customer: customer.id, tags: (customer.metadata.tags ?? '').split(',').filter(Boolean) } };
      }
      case 'wait':
        // Waits are timers (see `wait`); a test run skips them before it gets here.
        return { status: 'skipped', output: { seconds: params.seconds } };
    }
  }

  /**
   * The `send_invoice_reminders` step: each open invoice of the owner with a due date and an
   * amount left is reminded `daysBefore` it (from that day until the due date, so a day the
   * schedule missed is caught up) and `daysAfter` it (from that day on), each (invoice, offset)
   * once whatever runs again: the reminder is claimed (committed) before it is sent, so a crash
   * between the two loses that reminder rather than sending it twice. Days are UTC calendar days.
   */
  private async remindInvoices(run: RunRow, owner: Owner, params: { daysBefore?: number; daysAfter?: number }): Promise<Record<string, unknown>> {
    const { knex, clock } = this.deps;
    const today = clock.now().toISOString().slice(0, 10);
    const due = (await knex('read.invoices')
      .where({ merchant_id: owner.merchantId, environment: owner.environment, status: 'open' })
      .whereRaw(`(object->>'due_date') IS NOT NULL AND (object->>'amount_remaining')::bigint > 0`)
      .orderBy('seq')
      .select('id', knex.raw(`object->>'due_date' AS due_date`))) as { id: string; due_date: string }[];
    const reminded: { invoice: string; offsetDays: number; delivery: string }[] = [];
    for (const invoice of due) {
      const dueDay = invoice.due_date.slice(0, 10);
      const offsets: number[] = [];
      if (params.daysBefore !== undefined && today >= addDays(dueDay, -params.daysBefore) && today < dueDay) offsets.push(-params.daysBefore);
      if (params.daysAfter !== undefined && today >= addDays(dueDay, params.daysAfter)) offsets.push(params.daysAfter);
      for (const offsetDays of offsets) {
        const claimed = await knex('invoice_reminders')
          .insert({ invoice_id: invoice.id, offset_days: offsetDays, merchant_id: owner.merchantId, environment: owner.environment, automation_run_id: run.id, claimed_at: clock.now() })
          .onConflict(['invoice_id', 'offset_days'])
          .ignore()
          .returning('invoice_id');
        if (claimed.length === 0) continue;
        const outcome = await this.deps.billing.invoiceIssuing.remind(owner, invoice.id, offsetDays);
        const delivery = outcome === null ? 'not_sent' : outcome.status;
        await knex('invoice_reminders').where({ invoice_id: invoice.id, offset_days: offsetDays }).update({ delivery });
        reminded.push({ invoice: invoice.id, offsetDays, delivery });
      }
    }
    return { day: today, reminded };
  }
}
