import { isOwned } from '#packages/core/aggregate.js';
import type { Clock } from '#packages/core/clock.js';
import type { Logger } from '#packages/core/logger.js';
import { Refusal } from '#packages/core/refusal.js';
import { derivedId } from '#packages/core/ids.js';
import { assertOwned } from '#packages/core/aggregate.js';
import type { Actor, Environment, Owner } from '#packages/core/owner.js';
import { CommandService, handleSteps, loadState, step, type AnyStep } from '#packages/eventstore/command-handler.js';
import type { EventMetadata, EventStore } from '#packages/eventstore/port.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import type { DisputeEvidence, DisputeFile, DisputeNews, DisputeRail, RailDispute } from '#packages/connectors/disputes.js';
import { disputeFee } from '#packages/catalog/index.js';
import { SANDBOX_DISPUTED_CARD } from '#packages/connectors/sandbox/index.js';
import { balanceOf, type Ledger } from '#packages/ledger/decider.js';
import { balanceStream, ledgerStep } from '#packages/families/ledger/index.js';
import { payinClearing, paymentIntentAggregate, paymentIntentStream } from '#packages/families/payments/index.js';
import type { Fact } from '#packages/core/decider.js';
import { answerRefusal, type DisputeCommand, type DisputeState } from './decider.js';
import { disputeAggregate, toDisputeObject } from './render.js';
import { disputeStream, type DisputeEvent, type DisputeObject, type DisputeOpened, type Evidence } from './events.js';
import { debitDisputed, disputeCharge, holdDisputed, releaseDisputed } from './postings.js';

/** The rail carrying an environment's card disputes (Paystack's account of it), if any. */
export type DisputeRailOf = (environment: Environment) => DisputeRail | null;
/** Whether an asset is this owner's and ready (docs/assets.md): what an evidence file must be. */
export type ReadyAsset = (owner: Owner, assetId: string) => Promise<boolean>;
/** A ready asset's name, media type and bytes, from the assets' storage: what is uploaded to the rail. */
export type ReadAsset = (owner: Owner, assetId: string) => Promise<DisputeFile>;

/** Tells the merchant of a dispute that opened or closed just now (an e-mail, docs/disputes.md "E-mails"). */
export interface DisputeNotices {
  opened(dispute: DisputeObject, owner: Owner): Promise<void>;
  closed(dispute: DisputeObject, owner: Owner): Promise<void>;
}

export interface DisputeDeps {
  store: EventStore;
  ledger: Ledger;
  clock: Clock;
  log: Logger;
  railOf: DisputeRailOf;
  notices: DisputeNotices;
}

/** Sika's id of a rail's dispute: derived, so every piece of news about it lands on one dispute. */
export const disputeIdOf = (connector: string, environment: Environment, providerDisputeId: string) => derivedId('dp', `dispute|${connector}|${environment}|${providerDisputeId}`);

const RAIL: Actor = { actor: 'provider:paystack' };

/**
 * The disputes' stream and the ledger steps that commit with them: a dispute's hold with its
 * creation, its release with a win, its debit with a loss or an acceptance.
 */
class DisputeLedger extends CommandService<DisputeCommand, DisputeState, Fact<DisputeEvent>> {
  constructor(protected readonly deps: DisputeDeps) {
    super(deps.store, disputeStream, disputeAggregate, { onConflict: 'contended' });
  }

  protected meta(owner: Owner, id: string, actor: Actor): EventMetadata {
    return auditMetadata(this.deps.clock, owner, id, actor);
  }

  /** The dispute's command, then whatever its outcome moves on the ledger (each once: the ledger keeps one hold per dispute). */
  protected async decide(d: DisputeOpened, command: DisputeCommand, actor: Actor): Promise<DisputeObject> {
    const owner = { merchantId: d.merchantId, environment: d.environment };
    const meta = this.meta(owner, d.id, actor);
    const balance = { ...owner, currency: d.currency };
    const statusAfter = (earlier: readonly { state: unknown }[]) => (earlier[0]!.state as DisputeState).status;
    const steps: AnyStep[] = [
      step({ streamId: disputeStream(d.id), decider: disputeAggregate, command, metadata: meta }),
      ...(command.type === 'open' ? [ledgerStep(this.deps, balance, holdDisputed({ source: d.id, charge: d }), meta)] : []),
      { ...ledgerStep(this.deps, balance, releaseDisputed(d.id), meta), when: (earlier) => statusAfter(earlier) === 'won' },
      { ...ledgerStep(this.deps, balance, debitDisputed(d.id, d.clearing), meta), when: (earlier) => ['lost', 'accepted'].includes(statusAfter(earlier)) },
    ];
    const [changed] = await handleSteps(this.deps.store, steps, { onConflict: 'contended' });
    const dispute = toDisputeObject((await this.load(d.id)).state);
    // Told once: only the change that appended the opening or the closing tells it.
    const appended = new Set(changed!.events.map((e) => e.type));
    if (appended.has('dispute.created')) await this.tell(() => this.deps.notices.opened(dispute, owner), dispute);
    if (appended.has('dispute.closed')) await this.tell(() => this.deps.notices.closed(dispute, owner), dispute);
    return dispute;
  }

  /** An e-mail that cannot be written or sent is logged: the dispute has moved all the same. */
  private async tell(send: () => Promise<void>, dispute: DisputeObject): Promise<void> {
    try {
      await send();
    } catch (err) {
      this.deps.log.warn({ err, dispute: dispute.id }, 'dispute e-mail not sent');
    }
  }

  /** The dispute, refused as "no such" when it is not this owner's. */
  protected async owned(owner: Owner, id: string): Promise<DisputeState & { dispute: DisputeOpened }> {
    const { state } = await this.load(id);
    assertOwned(state.dispute, owner, `No such dispute: '${id}'`, 'disputeId');
    return state as DisputeState & { dispute: DisputeOpened };
  }

  protected rail(d: DisputeOpened): DisputeRail {
    if (d.connector === SANDBOX_DISPUTES.name) return SANDBOX_DISPUTES;
    const rail = this.deps.railOf(d.environment);
    if (!rail || rail.name !== d.connector) throw new Refusal('IKW-DSP-005', `The ${d.connector} account of ${d.environment} is not configured on this service`);
    return rail;
  }
}

/**
 * The sandbox's card network (docs/disputes.md, "In the sandbox"): it takes every answer and file
 * at once and is never read (its disputes are opened by `OpenSandboxDispute`, decided as answered).
 */
const SANDBOX_DISPUTES: DisputeRail = {
  name: 'sandbox',
  readDispute: async () => null,
  uploadDisputeFile: async (_disputeId, file) => `sandbox-${file.name}`,
  submitDisputeEvidence: async () => undefined,
  acceptDispute: async () => undefined,
};

/** How long the merchant has to answer a sandbox dispute, as Paystack's usual week. */
export const SANDBOX_EVIDENCE_DAYS = 7;
/** The payer's e-mail in a sandbox dispute's evidence that wins it; any other loses it. */
export const SANDBOX_WINNING_EMAIL = 'win@example.com';

/**
 * A sandbox card payment with the disputed test card (`tok_visa_disputed`) that succeeded: the
 * sandbox's card network disputes it at once, `needs_response` and due in a week, and the ledger
 * moves as for a live dispute. Any other payment opens nothing; a repeat finds the dispute there.
 */
export class OpenSandboxDispute extends DisputeLedger {
  async open(paymentIntentId: string): Promise<void> {
    const { state } = await loadState(this.deps.store, paymentIntentStream(paymentIntentId), paymentIntentAggregate);
    const { intent, confirmation, paymentMethod } = state;
    if (!intent || intent.environment !== 'sandbox' || !state.succeeded || !confirmation || paymentMethod?.type !== 'card' || paymentMethod.token !== SANDBOX_DISPUTED_CARD) return;
    const id = disputeIdOf(SANDBOX_DISPUTES.name, 'sandbox', paymentIntentId);
    if ((await this.load(id)).state.dispute) return;
    const now = this.deps.clock.now();
    const currency = intent.currency.toLowerCase();
    const { state: book } = await loadState(this.deps.store, balanceStream(intent.merchantId, 'sandbox', currency), this.deps.ledger.decider);
    const opened: DisputeOpened = {
      id,
      merchantId: intent.merchantId,
      environment: 'sandbox',
      connector: SANDBOX_DISPUTES.name,
      providerDisputeId: paymentIntentId,
      paymentIntentId,
      amount: intent.amount,
      currency,
      ...disputeCharge(balanceOf(book, 'available'), intent.amount, disputeFee(currency)),
      reason: 'fraud',
      status: 'needs_response',
      evidenceDueBy: new Date(now.getTime() + SANDBOX_EVIDENCE_DAYS * 86_400_000).toISOString(),
      clearing: payinClearing(paymentMethod, confirmation.connector),
      createdAt: now.toISOString(),
    };
    await this.decide(opened, { type: 'open', dispute: opened }, { actor: 'provider:sandbox' });
  }
}

/**
 * A rail's verified news of a dispute (the `dispute.read` job): the dispute is read from the rail,
 * matched to the merchant's payment by its operation (the charge's reference), payment intent,
 * amount and currency, then opened or moved. Unmatched news does nothing but a log line.
 */
export class ReadDisputeFromRail extends DisputeLedger {
  async read(news: DisputeNews): Promise<void> {
    const log = this.deps.log.child({ connector: news.connector, environment: news.environment, provider_dispute: news.disputeId });
    const rail = this.deps.railOf(news.environment);
    if (!rail || rail.name !== news.connector) {
      log.error('dispute news of a rail not configured here; nothing applied');
      return;
    }
    const read = await rail.readDispute(news.disputeId);
    if (!read) {
      log.warn('the rail knows no such dispute; nothing applied');
      return;
    }
    const id = disputeIdOf(news.connector, news.environment, read.disputeId);
    let dispute = (await this.load(id)).state.dispute;
    if (!dispute) {
      const opened = await this.match(id, news, read);
      if (!opened) {
        log.error({ operation: read.operationId, payment_intent: read.paymentIntentId, charge: read.charge }, 'dispute of no live payment of this service; nothing applied');
        return;
      }
      await this.decide(opened, { type: 'open', dispute: opened }, RAIL);
      dispute = opened;
    }
    await this.decide(dispute, { type: 'sync', reading: { status: read.stage, evidenceDueBy: read.evidenceDueBy, at: this.deps.clock.now() } }, RAIL);
  }

  /** The dispute as it opens, when the read names a succeeded payment of this rail and environment with the same money; null otherwise. */
  private async match(id: string, news: DisputeNews, read: RailDispute): Promise<DisputeOpened | null> {
    if (!read.paymentIntentId || !read.operationId) return null;
    const { state } = await loadState(this.deps.store, paymentIntentStream(read.paymentIntentId), paymentIntentAggregate);
    const { intent, confirmation } = state;
    // The news names no merchant: the payment must be its own merchant's in the news' environment.
    const ours =
      isOwned(intent, { merchantId: intent?.merchantId ?? '', environment: news.environment }) &&
      confirmation &&
      state.succeeded &&
      confirmation.operationId === read.operationId &&
      confirmation.connector === news.connector &&
      intent.amount === read.charge.amount &&
      intent.currency.toLowerCase() === read.charge.currency;
    if (!ours || !state.paymentMethod) return null;
    const currency = read.charge.currency;
    const { state: book } = await loadState(this.deps.store, balanceStream(intent.merchantId, intent.environment, currency), this.deps.ledger.decider);
    const charge = disputeCharge(balanceOf(book, 'available'), read.amount, disputeFee(currency));
    return {
      id,
      merchantId: intent.merchantId,
      environment: intent.environment,
      connector: news.connector,
      providerDisputeId: read.disputeId,
      paymentIntentId: read.paymentIntentId,
      amount: read.amount,
      currency,
      ...charge,
      reason: read.reason,
      // Opened as the merchant's to answer; the sync right after moves it on if the rail says more.
      status: 'needs_response',
      evidenceDueBy: read.evidenceDueBy,
      clearing: payinClearing(state.paymentMethod, confirmation.connector),
      createdAt: this.deps.clock.now().toISOString(),
    };
  }
}

export interface EvidenceInput {
  customer_email: string;
  customer_name: string;
  customer_phone: string;
  service_details: string;
  delivery_address?: string;
  delivery_date?: string;
  files?: string[];
}

/**
 * The merchant's evidence (POST /api/v1/disputes/{id}/evidence): refused when the dispute does not
 * await it or its due date has passed, its files must be the merchant's ready assets; sent to the
 * rail first, recorded only once the rail took it. A repeat with the same Idempotency-Key answers
 * the first request's answer (the HTTP edge keeps it).
 */
export class SubmitDisputeEvidence extends DisputeLedger {
  constructor(
    deps: DisputeDeps,
    private readonly readyAsset: ReadyAsset,
    private readonly readAsset: ReadAsset,
  ) {
    super(deps);
  }

  async submit(owner: Owner, id: string, input: EvidenceInput, actor: Actor): Promise<DisputeObject> {
    const state = await this.owned(owner, id);
    const now = this.deps.clock.now();
    const refusal = answerRefusal(state, now);
    if (refusal) throw refusal;
    const files = [...new Set(input.files ?? [])];
    for (const file of files) if (!(await this.readyAsset(owner, file))) throw new Refusal('IKW-DSP-004', `No ready asset '${file}' of this merchant`, 'files');
    const evidence: Evidence = {
      customerEmail: input.customer_email,
      customerName: input.customer_name,
      customerPhone: input.customer_phone,
      serviceDetails: input.service_details,
      deliveryAddress: input.delivery_address ?? null,
      deliveryDate: input.delivery_date ?? null,
      files,
      submittedAt: now.toISOString(),
    };
    const sent: DisputeEvidence = {
      customerEmail: evidence.customerEmail,
      customerName: evidence.customerName,
      customerPhone: evidence.customerPhone,
      serviceDetails: evidence.serviceDetails,
      ...(input.delivery_address ? { deliveryAddress: input.delivery_address } : {}),
      ...(input.delivery_date ? { deliveryDate: input.delivery_date } : {}),
    };
    const d = state.dispute;
    const rail = this.rail(d);
    try {
      // One file at a time: its bytes are read from the assets' storage and uploaded before the next is read.
      const uploaded: string[] = [];
      for (const file of files) uploaded.push(await rail.uploadDisputeFile(d.providerDisputeId, await this.readAsset(owner, file)));
      await rail.submitDisputeEvidence(d.providerDisputeId, sent, uploaded, d);
    } catch (err) {
      if (err instanceof Refusal) throw err;
      throw new Refusal('IKW-DSP-005', `The evidence was not taken: ${(err as Error).message}`);
    }
    const answered = await this.decide(d, { type: 'submit_evidence', evidence, at: now }, actor);
    if (d.connector !== SANDBOX_DISPUTES.name) return answered;
    // The sandbox's issuer decides at once, by the payer's e-mail in the evidence.
    const outcome = evidence.customerEmail.toLowerCase() === SANDBOX_WINNING_EMAIL ? 'won' : 'lost';
    return this.decide(d, { type: 'sync', reading: { status: outcome, evidenceDueBy: state.evidenceDueBy, at: now } }, { actor: 'provider:sandbox' });
  }
}

/**
 * The merchant accepts the loss (POST /api/v1/disputes/{id}/accept): the rail is told first
 * (Paystack: resolved `merchant-accepted`, with a file, which Paystack requires: the merchant's
 * asset when one is named, else Sika's note of the acceptance), then the dispute closes as
 * accepted and its hold is debited, in one commit. Refused once closed.
 */
export class AcceptDispute extends DisputeLedger {
  constructor(
    deps: DisputeDeps,
    private readonly readyAsset: ReadyAsset,
    private readonly readAsset: ReadAsset,
  ) {
    super(deps);
  }

  async accept(owner: Owner, id: string, input: { file?: string }, actor: Actor): Promise<DisputeObject> {
    const state = await this.owned(owner, id);
    if (state.closedAt) throw new Refusal('IKW-DSP-003', `The dispute is ${state.status} already`);
    if (input.file && !(await this.readyAsset(owner, input.file))) throw new Refusal('IKW-DSP-004', `No ready asset '${input.file}' of this merchant`, 'file');
    const d = state.dispute;
    const rail = this.rail(d);
    try {
      const file = input.file ? await this.readAsset(owner, input.file) : acceptanceNote(d, this.deps.clock.now());
      await rail.acceptDispute(d.providerDisputeId, d, await rail.uploadDisputeFile(d.providerDisputeId, file));
    } catch (err) {
      if (err instanceof Refusal) throw err;
      throw new Refusal('IKW-DSP-005', `The acceptance was not taken: ${(err as Error).message}`);
    }
    return this.decide(d, { type: 'accept', at: this.deps.clock.now() }, actor);
  }
}

/** The file an acceptance names when the merchant gave none: a plain-text note of what was accepted and when. */
function acceptanceNote(d: DisputeOpened, at: Date): DisputeFile {
  const text = `The merchant accepts dispute ${d.providerDisputeId} (Sika ${d.id}) of payment ${d.paymentIntentId}: the payer keeps ${d.amount} (minor units of ${d.currency.toUpperCase()}). Accepted ${at.toISOString()}.\n`;
  return { name: `dispute-${d.providerDisputeId}-accepted.txt`, contentType: 'text/plain', bytes: Buffer.from(text) };
}
