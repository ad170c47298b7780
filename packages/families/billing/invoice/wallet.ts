import type { Fact } from '#packages/core/decider.js';
import { derivedUuid, newUuid } from '#packages/core/ids.js';
import { Refusal } from '#packages/core/refusal.js';
import type { EventMetadata } from '#packages/eventstore/port.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { amountRemaining, PAYABLE, type InvoiceCommand, type InvoiceState } from './decider.js';
import { invoiceAggregate, toInvoiceObject } from './render.js';
import { invoiceStream, type InvoiceEvent, type InvoiceObject } from './events.js';
import { followUpInvoiceChange, ownedInvoice, type InvoiceDeps, type WalletApplicationRef } from './commands.js';

/** When the mend of a wallet application left half-done by a crash runs. */
const RECONCILE_AFTER_MS = 60_000;

/** Invoices paid from the customer's wallet, and the mend of such a payment a crash left half done. */
export class InvoiceWalletPayments extends CommandService<InvoiceCommand, InvoiceState, Fact<InvoiceEvent>> {
  constructor(private readonly deps: Pick<InvoiceDeps, 'store' | 'clock' | 'customers' | 'scheduleWalletApplication' | 'onSettled'>) {
    super(deps.store, invoiceStream, invoiceAggregate);
  }

  /**
   * POST /api/v1/merchant/billing/wallet/invoices/{invoiceId}/apply. Two streams, no shared
   * transaction: the wallet's balance check and debit is one decision on the customer stream
   * (`customer.balance_applied`, naming an application id); the invoice then records the
   * application by that id, once, taking at most what remains; whatever it did not take (it was
   * paid or voided meanwhile) goes back to the wallet. A scheduled job redoes the last two steps
   * should the process die between them, so money is never lost or counted twice. `requestRef`
   * (the Idempotency-Key with the body's fingerprint) names the application: a request retried
   * after a crash answers the invoice its first attempt paid, and takes nothing more.
   */
  async applyWallet(who: Owner, invoiceId: string, input: { amount?: number }, actor: Actor, requestRef?: string): Promise<InvoiceObject> {
    const state = await ownedInvoice(this, who, invoiceId, 'invoiceId');
    const i = state.invoice!;
    const applicationId = `wapp_${requestRef === undefined ? newUuid() : derivedUuid(`wallet_application|${who.merchantId}|${who.environment}|${invoiceId}|${requestRef}`)}`;
    // Before the status check: the first attempt's application may have paid the invoice in full.
    if (state.payments.has(applicationId)) return toInvoiceObject(state);
    if (!PAYABLE.includes(state.status)) throw new Refusal('IKW-BIL-009', `Invoice ${invoiceId} is ${state.status}, not open for payment`, 'invoiceId');
    const remaining = amountRemaining(state);
    if (input.amount !== undefined && input.amount > remaining) {
      throw new Refusal('IKW-VAL-001', `The amount is above what remains to pay on the invoice (${remaining})`, 'amount');
    }
    const meta = auditMetadata(this.deps.clock, who, invoiceId, actor);
    const job = { ...who, customerId: i.customer, applicationId, invoiceId };
    await this.deps.scheduleWalletApplication(job, new Date(this.deps.clock.now().getTime() + RECONCILE_AFTER_MS));
    await this.deps.customers.applyToInvoice(who, i.customer, { applicationId, invoiceId, currency: i.currency, maxAmount: input.amount ?? remaining }, meta);
    const after = await this.completeApplication(job, meta);
    if (!after.payments.has(applicationId)) {
      // Paid or voided between the check above and the application: the wallet got everything back.
      throw new Refusal('IKW-BIL-009', `Invoice ${invoiceId} is ${after.status}, not open for payment; nothing was taken from the wallet`, 'invoiceId');
    }
    return toInvoiceObject(after);
  }

  /** Offers a wallet application to its invoice and returns what the invoice did not take. Idempotent. */
  async completeApplication(job: WalletApplicationRef, meta: EventMetadata): Promise<InvoiceState> {
    const who = { merchantId: job.merchantId, environment: job.environment };
    const { state: customer } = await this.deps.customers.load(job.customerId);
    const application = customer.applications.get(job.applicationId);
    if (!application) return (await this.load(job.invoiceId)).state; // the debit never happened
    const result = await this.run(job.invoiceId, { type: 'record_payment', owner: who, at: this.deps.clock.now(), ref: job.applicationId, source: 'wallet', amount: application.amount }, meta, 'internal');
    const accepted = result.state.payments.get(job.applicationId)?.amount ?? 0;
    await this.deps.customers.settleApplication(who, job.customerId, job.applicationId, accepted, meta);
    await followUpInvoiceChange(this.deps, result.state, meta);
    return result.state;
  }
}
