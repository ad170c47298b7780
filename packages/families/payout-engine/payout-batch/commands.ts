import type { Fact } from '#packages/core/decider.js';
import { getCurrency } from '#packages/catalog/index.js';
import type { Clock } from '#packages/core/clock.js';
import { isRefused, Refusal, RefusedItems, refusedField, type RefusedItem } from '#packages/core/refusal.js';
import { sha256Hex } from '#packages/core/hashing.js';
import { derivedId, newId } from '#packages/core/ids.js';
import { CommandService, loadState } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import type { Enqueue } from '#packages/scheduler/scheduler.js';
import { ledgerCommand } from '#packages/families/ledger/index.js';
import type { Ledger } from '#packages/ledger/decider.js';
import { holdBatch } from './postings.js';
import { balanceStream } from '#packages/families/ledger/index.js';
import type { Destination } from '#packages/families/payouts/index.js';
import { destinationOf, type DestinationFields, type PayoutRecipients } from '../payout-recipient/commands.js';
import type { RecipientState } from '../payout-recipient/decider.js';
import type { BatchPayouts, PayoutCreation } from '#packages/families/payouts/index.js';
import { type PayoutBatchCommand, type PayoutBatchState } from './decider.js';
import { payoutBatchAggregate, toPayoutBatchObject } from './render.js';
import { payoutBatchStream, type BatchItem, type PayoutBatchCreated, type PayoutBatchEvent, type PayoutBatchObject } from './events.js';
import type { Actor, Owner, Requester } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import { payoutEngineErrors } from '../errors.js';

export interface InstructionInput extends DestinationFields {
  amount: number;
  recipient_id?: string;
  reference?: string;
  metadata?: Record<string, string>;
}

export interface CreateBatchInput {
  currency: string;
  idempotency_key?: string;
  metadata?: string;
  instructions: InstructionInput[];
}

export type PayoutBatchRef = Owner & { batchId: string };

/** What the validation of a batch has looked up already: recipients, references, what each payment method allows. */
interface Seen {
  recipients: Map<string, Promise<RecipientState | null>>;
  references: Map<string, number>;
  allowances: Map<string, Promise<(amount: number) => void>>;
}
/** A run of a batch's execution: which attempt, and which step (a new execution, a cancel, the next chunk). */
export type BatchRunRef = PayoutBatchRef & { attempt: number; step: string };

export interface PayoutBatchDeps {
  store: EventStore;
  ledger: Ledger;
  clock: Clock;
  payouts: PayoutCreation;
  batchPayouts: BatchPayouts;
  recipients: PayoutRecipients;
  /** The durable job that sends a batch's items (and stops them once it is canceled). */
  scheduleRun: Enqueue<BatchRunRef>;
}

/**
 * The creation of payout batches: many payouts validated together, each instruction checked like
 * a payout, the batch refused whole listing every invalid one (docs/payout-engine.md). Their
 * funding and sending are PayoutBatchExecution's.
 */
export class PayoutBatchCreation extends CommandService<PayoutBatchCommand, PayoutBatchState, Fact<PayoutBatchEvent>> {
  constructor(private readonly deps: PayoutBatchDeps) {
    super(deps.store, payoutBatchStream, payoutBatchAggregate);
  }

  /**
   * Validates every instruction and creates the batch, or refuses it listing each invalid
   * instruction (index, code, field). The body's idempotency_key (or the Idempotency-Key header)
   * names the batch: the same key with the same request answers the same batch.
   */
  async create(owner: Owner, input: CreateBatchInput, format: 'json' | 'csv', by: Requester, actor: Actor, requestRef?: string): Promise<PayoutBatchObject> {
    const currency = getCurrency(input.currency);
    if (!currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${input.currency}'`, 'currency');
    const fingerprint = sha256Hex(JSON.stringify([format, input]));
    const scope = `${owner.merchantId}|${owner.environment}`;
    const id = input.idempotency_key !== undefined ? derivedId('pob', `${scope}|key|${input.idempotency_key}`) : requestRef !== undefined ? derivedId('pob', `${scope}|request|${requestRef}`) : newId('pob');
    const earlier = (await this.load(id)).state;
    if (earlier.batch) {
      if (earlier.batch.fingerprint !== fingerprint) throw new Refusal('IKW-IDM-002', 'This idempotency_key was used with a different batch', 'idempotencyKey');
      return toPayoutBatchObject(earlier);
    }
    const items = await this.validate(owner, currency.code.toLowerCase(), input.instructions, by, actor);
    const batch: PayoutBatchCreated = {
      id,
      ...owner,
      currency: currency.code.toLowerCase(),
      idempotencyKey: input.idempotency_key ?? null,
      metadata: input.metadata ?? null,
      format,
      fingerprint,
      items,
      createdAt: this.deps.clock.now().toISOString(),
    };
    const created = await this.run(id, { type: 'create', batch }, auditMetadata(this.deps.clock, owner, id, actor), 'internal');
    return toPayoutBatchObject(created.state);
  }

  private async validate(owner: Owner, currency: string, instructions: InstructionInput[], by: Requester, actor: Actor): Promise<BatchItem[]> {
    const errors: RefusedItem[] = [];
    const items: BatchItem[] = [];
    const seen: Seen = { recipients: new Map(), references: new Map(), allowances: new Map() };
    const refused = (index: number, err: unknown, field?: string) => {
      if (!isRefused(err)) throw err;
      const named = field ?? refusedField(err);
      errors.push({ index, code: err.code, message: err.message, ...(named ? { field: named } : {}) });
    };
    for (const [index, instruction] of instructions.entries()) {
      try {
        items.push(await this.item(owner, currency, index, instruction, seen));
      } catch (err) {
        refused(index, err);
      }
    }
    const invalid = () => new RefusedItems('IKW-PEN-001', `${errors.length} of ${instructions.length} instructions are invalid`, errors, 'instructions');
    if (errors.length > 0) throw invalid();
    const total = items.reduce((sum, i) => sum + i.amount + i.fee, 0);
    if (!Number.isSafeInteger(total)) throw new Refusal('IKW-VAL-001', 'The batch total is too large; split it', 'instructions');
    // The provider's check of bank accounts (their holders' names) last, and only for a batch the
    // balance covers now: its refusals tell names, and nothing is learned by a batch refused anyway.
    const banks = items.filter((i) => i.destination.type === 'bank');
    if (banks.length === 0) return items;
    await this.assertCovered(owner, currency, items);
    const verified = new Map<string, Promise<void>>();
    for (const item of banks) {
      const account = JSON.stringify(item.destination);
      if (!verified.has(account)) verified.set(account, this.deps.payouts.verifyDestination(owner, item.destination, by, actor));
      try {
        await verified.get(account)!;
      } catch (err) {
        // Over the limit of name checks: the whole request waits (429), not one instruction.
        if (isRefused(err, 'IKW-LIM-001')) throw err;
        // The provider names the payout's field (`destination.account_name`); an instruction spells it flat, or as its recipient.
        const field = isRefused(err) ? refusedField(err) : undefined;
        if (!isRefused(err) || !field?.startsWith('destination.')) throw err;
        refused(item.index, err, item.recipientId !== null ? 'recipientId' : field.slice('destination.'.length));
      }
    }
    if (errors.length > 0) throw invalid();
    return items;
  }

  /** IKW-BAL-001 when the merchant's available balance does not cover the items' total + fees now (the execution's hold decides again). */
  private async assertCovered(owner: Owner, currency: string, items: readonly BatchItem[]): Promise<void> {
    const hold = ledgerCommand(this.deps.clock, { ...owner, currency }, holdBatch({ source: 'validation', amount: items.reduce((s, i) => s + i.amount, 0), fee: items.reduce((s, i) => s + i.fee, 0) }));
    const stream = balanceStream(owner.merchantId, owner.environment, currency);
    try {
      this.deps.ledger.decider.decide(hold, (await loadState(this.deps.store, stream, this.deps.ledger.decider)).state);
    } catch (err) {
      throw isRefused(err, 'IKW-BAL-001') ? new Refusal(err.code, err.message, 'instructions') : err;
    }
  }

  /** One instruction checked like a payout: its destination (saved or inline) against the catalog, its amount against the operator's limits. */
  private async item(owner: Owner, currency: string, index: number, instruction: InstructionInput, seen: Seen): Promise<BatchItem> {
    const { recipients, references, allowances } = seen;
    const { amount, recipient_id: recipientId, reference, metadata, currency: own, ...fields } = instruction;
    if (own !== undefined && own.toLowerCase() !== currency) throw new Refusal('IKW-VAL-009', `The batch is in ${currency}`, 'currency');
    const inline = Object.values(fields).some((v) => v !== undefined);
    if (inline === (recipientId !== undefined)) {
      throw new Refusal('IKW-PAY-001', 'Give either recipient_id or the destination fields (destination_type, …), not both', inline ? 'recipientId' : 'destinationType');
    }
    let destination: Destination;
    if (recipientId !== undefined) {
      if (!recipients.has(recipientId)) recipients.set(recipientId, this.deps.recipients.usable(owner, recipientId));
      const recipient = await recipients.get(recipientId)!;
      if (!recipient) throw new Refusal('IKW-PEN-002', `No such recipient: '${recipientId}'`, 'recipientId');
      if (recipient.status === 'archived') throw new Refusal('IKW-PEN-003', payoutEngineErrors['IKW-PEN-003'].message, 'recipientId');
      destination = recipient.recipient!.destination;
      if (destination.currency !== currency) throw new Refusal('IKW-VAL-009', `This recipient is paid in ${destination.currency}`, 'recipientId');
    } else {
      destination = destinationOf(fields, currency);
    }
    const fee = this.deps.payouts.quote(owner.environment, amount, destination);
    // One look at capabilities and activations per payment method of the batch, whatever its number of lines.
    const method = destination.type === 'mobile_money' ? `${destination.country}|${destination.operator}` : `bank|${destination.currency}`;
    if (!allowances.has(method)) allowances.set(method, this.deps.payouts.allowance(owner, destination, recipientId !== undefined ? 'recipientId' : 'destinationType'));
    (await allowances.get(method)!)(amount);
    if (reference !== undefined) {
      const first = references.get(reference);
      if (first !== undefined) throw new Refusal('IKW-VAL-001', `The reference repeats instruction ${first}'s`, 'reference');
      references.set(reference, index);
    }
    return { index, amount, fee, destination, recipientId: recipientId ?? null, reference: reference ?? null, metadata: metadata ?? {} };
  }
}
