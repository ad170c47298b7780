import { activationRequirements, getCountry, getCurrency, isApplicationField, type BusinessType } from '#packages/catalog/index.js';
import type { Clock } from '#packages/core/clock.js';
import type { Actor, Environment, Owner } from '#packages/core/owner.js';
import { assertOwned } from '#packages/core/aggregate.js';
import { ItemsRefused } from '#packages/core/errors.js';
import { Refusal } from '#packages/core/refusal.js';
import { handleSteps, loadState, step, type AnyStep } from '#packages/eventstore/command-handler.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';
import type { EventStore } from '#packages/eventstore/port.js';
import type { Messenger } from '#packages/messaging/messages.js';
import { liveSwitchStep } from '#packages/families/merchants/index.js';
import { normalizeDestination, type Destination, type DestinationInput, type SettlementCheck } from '#packages/families/payouts/index.js';
import { applicationAggregate, toApplicationObject, type ApplicationCommand, type ApplicationState, type DecisionCommand } from './decider.js';
import { activationStream, type ApplicationDetails, type ApplicationObject, type Decision, type RequestedField } from './events.js';
import { decisionMail } from './mail.js';
import { activationErrors } from './errors.js';

/** The submission a decision names, when it names one (exactOptionalPropertyTypes). */
const reviewedOf = (reviewed: number | undefined) => (reviewed === undefined ? {} : { reviewed });
/** An application as the merchant's request gives it (ajv checked the shape; requirements are checked here). */
export interface ApplicationInput {
  business?: {
    legal_name?: string;
    trading_name?: string;
    type?: BusinessType;
    registration_number?: string;
    country?: string;
    address?: { line1: string; line2?: string; city: string; postal_code?: string };
    product_description?: string;
    website?: string;
  };
  representative?: { name?: string; date_of_birth?: string; identity_document?: string };
  owners?: { name: string; date_of_birth?: string; ownership_percent: number }[];
  settlement_destination?: DestinationInput;
  expected_monthly_volume?: { amount: number; currency: string };
}

/** What the application needs of an uploaded file: whose it is, what for, whether its bytes were checked. */
export interface DocumentFacts {
  merchantId: string;
  environment: Environment;
  purpose: string;
  ready: boolean;
}

export interface ActivationDeps {
  store: EventStore;
  clock: Clock;
  /** The asset of this id, unless it does not exist or was deleted. */
  document(assetId: string): Promise<DocumentFacts | null>;
  /** The live rail's check of a settlement destination (the payouts family's AccountHolderLookup.checkSettlement). */
  checkSettlement(merchantId: string, destination: Destination): Promise<SettlementCheck>;
  messenger: Messenger;
  /** Whom the merchant's decisions are e-mailed to: the owners and admins of its organization. */
  recipients(merchantId: string): Promise<string[]>;
}

/** A representative must be of age to bind the business. */
const ADULT_YEARS = 18;

/** Whether the input holds the field at this path of the requirements (an empty list or text is not holding it). */
function holds(input: ApplicationInput, path: string): boolean {
  let value: unknown = input;
  for (const part of path.split('.')) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'string') return value.trim() !== '';
  return value !== undefined && value !== null;
}

/**
 * The requirements of an application in its status, as Stripe answers them: what the merchant must
 * give now (`currentlyDue`: everything its country and type require before a first submission; the
 * fields the platform named after it asked for information), what the platform is reviewing
 * (`pendingVerification`), and the platform's message on each named field (`errors`).
 */
export function requirementsOf(state: ApplicationState): { currentlyDue: string[]; pendingVerification: string[]; errors: RequestedField[] } {
  const submitted = state.details ? activationRequirements(state.details.business.country, state.details.business.type) : [];
  switch (state.status) {
    case 'not_submitted':
      return { currentlyDue: activationRequirements(null, null), pendingVerification: [], errors: [] };
    case 'information_requested': {
      const asked = state.decisions.at(-1)?.fields ?? [];
      return { currentlyDue: asked.map((f) => f.field), pendingVerification: [], errors: asked };
    }
    case 'under_review':
      return { currentlyDue: [], pendingVerification: submitted, errors: [] };
    default:
      return { currentlyDue: [], pendingVerification: [], errors: [] };
  }
}

/**
 * A merchant's application to take live money (docs/merchants.md, "Going live"), and the
 * platform's decisions on it: the merchant submits, operators (an `Actor` `operator:<id>`, whose
 * role the HTTP edge checked) approve, reject, request information, suspend and reinstate. Approval
 * and reinstatement open live, suspension closes it, in the same commit as the decision; each
 * decision is e-mailed to the merchant's owners and admins.
 */
export class ActivationApplications {
  constructor(private readonly deps: ActivationDeps) {}

  /** The merchant's application as it stands (`not_submitted` when it never applied). */
  async application(merchantId: string): Promise<{ object: ApplicationObject; state: ApplicationState }> {
    const { state } = await loadState(this.deps.store, activationStream(merchantId), applicationAggregate);
    return { object: toApplicationObject(state, merchantId), state };
  }

  /**
   * Submits (or, after a request for information, submits again) the whole application, for the
   * owner's merchant; its identity document is an asset of the same owner (merchant and environment).
   */
  async submit(owner: Owner, input: ApplicationInput, actor: Actor): Promise<ApplicationObject> {
    const merchantId = owner.merchantId;
    const details = await this.checked(owner, input);
    const destinationCheck = { ...(await this.deps.checkSettlement(merchantId, details.settlement_destination)), checkedAt: this.deps.clock.now().toISOString() };
    const command: ApplicationCommand = { type: 'submit', merchantId, details, destinationCheck, at: this.deps.clock.now() };
    const [result] = await handleSteps(this.deps.store, [this.step(merchantId, command, actor)]);
    return toApplicationObject(result!.state as ApplicationState, merchantId);
  }

  /** Approves an application under review: live opens in the same commit. */
  async approve(merchantId: string, actor: Actor, reviewed?: number): Promise<ApplicationObject> {
    return this.decide(merchantId, { type: 'approve', by: actor.actor, ...reviewedOf(reviewed), at: this.deps.clock.now() }, actor, liveSwitchStep(this.deps.clock, merchantId, true, actor));
  }

  /** Rejects an application under review (or waiting for information), for `reason`, told to the merchant. Final: the merchant cannot submit again. */
  async reject(merchantId: string, reason: string, actor: Actor, reviewed?: number): Promise<ApplicationObject> {
    return this.decide(merchantId, { type: 'reject', by: actor.actor, reason: this.reason(reason), ...reviewedOf(reviewed), at: this.deps.clock.now() }, actor);
  }

  /** Asks the merchant to give these fields again, each with a message; the merchant then submits again. */
  async requestInformation(merchantId: string, fields: readonly RequestedField[], actor: Actor, reviewed?: number): Promise<ApplicationObject> {
    const asked = fields.map((f) => ({ field: f.field.trim(), message: f.message.trim() }));
    if (asked.length === 0 || asked.some((f) => f.message === '')) throw new Refusal('IKW-ACT-007', activationErrors['IKW-ACT-007'].message, 'fields');
    // A field of the body the merchant's form can show the message beside (`business.colour` is none).
    const unknown = asked.find((f) => !isApplicationField(f.field));
    if (unknown) throw new Refusal('IKW-ACT-007', `'${unknown.field}' is no field of the application: name one of requirements (business.address) or a part of one (business.address.city)`, 'fields');
    return this.decide(merchantId, { type: 'request_information', by: actor.actor, fields: asked, ...reviewedOf(reviewed), at: this.deps.clock.now() }, actor);
  }

  /** Suspends an active account for `reason`: live closes in the same commit; new live payments and payouts are refused with IKW-ACT-006. */
  async suspend(merchantId: string, reason: string, actor: Actor): Promise<ApplicationObject> {
    return this.decide(merchantId, { type: 'suspend', by: actor.actor, reason: this.reason(reason), at: this.deps.clock.now() }, actor, liveSwitchStep(this.deps.clock, merchantId, false, actor, true));
  }

  /** Lifts a suspension: live opens again in the same commit. */
  async reinstate(merchantId: string, actor: Actor): Promise<ApplicationObject> {
    return this.decide(merchantId, { type: 'reinstate', by: actor.actor, at: this.deps.clock.now() }, actor, liveSwitchStep(this.deps.clock, merchantId, true, actor));
  }

  private reason(reason: string): string {
    const trimmed = reason.trim();
    if (trimmed === '') throw new Refusal('IKW-VAL-001', 'Give the reason, as the merchant will read it', 'reason');
    return trimmed;
  }

  private step(merchantId: string, command: ApplicationCommand, actor: Actor): AnyStep {
    return step({ streamId: activationStream(merchantId), decider: applicationAggregate, command, metadata: auditMetadata(this.deps.clock, { merchantId, environment: 'live' }, merchantId, actor) });
  }

  private async decide(merchantId: string, decision: DecisionCommand, actor: Actor, live?: AnyStep): Promise<ApplicationObject> {
    const [result] = await handleSteps(this.deps.store, [this.step(merchantId, { ...decision, merchantId }, actor), ...(live ? [live] : [])]);
    const state = result!.state as ApplicationState;
    await this.tell(merchantId, state.decisions.at(-1)!);
    return toApplicationObject(state, merchantId);
  }

  /** The decision in words, to each owner and admin of the merchant's organization. */
  private async tell(merchantId: string, decision: Decision): Promise<void> {
    const { subject, text } = decisionMail(decision);
    for (const to of await this.deps.recipients(merchantId)) {
      await this.deps.messenger.send({ channel: 'email', to, purpose: 'activation_decision', template: { purpose: 'activation_decision', values: { subject, text } } });
    }
  }

  /** The input as the application keeps it, or the refusal of what is missing or wrong in it. */
  private async checked(owner: Owner, input: ApplicationInput): Promise<ApplicationDetails> {
    const b = input.business;
    const country = b?.country === undefined ? null : getCountry(b.country);
    if (b?.country !== undefined && !country) throw new Refusal('IKW-VAL-004', `Sika does not serve businesses of '${b.country}'`, 'business.country');
    const type = b?.type ?? null;
    const missing = activationRequirements(country?.code ?? null, type).filter((path) => !holds(input, path));
    if (missing.length > 0) {
      // Every missing field at once, each by its path, so a form marks them all (docs/errors.md, `errors`).
      const whom = type === null ? 'every business' : `${type} businesses${country ? ` of ${country.code}` : ''}`;
      const errors = missing.map((param) => ({ code: 'IKW-ACT-001' as const, message: `${param} is required of ${whom}`, param }));
      throw new ItemsRefused('IKW-ACT-001', `The application misses ${missing.join(', ')} (required for ${type ?? 'any'} businesses${country ? ` of ${country.code}` : ''})`, errors, missing[0]);
    }
    const r = input.representative!;
    const business = b!;
    const now = this.deps.clock.now();
    const adultSince = new Date(Date.UTC(now.getUTCFullYear() - ADULT_YEARS, now.getUTCMonth(), now.getUTCDate()));
    const born = new Date(`${r.date_of_birth}T00:00:00Z`);
    if (Number.isNaN(born.getTime()) || born > adultSince) throw new Refusal('IKW-VAL-001', `The representative must be ${ADULT_YEARS} or older`, 'representative.dateOfBirth');
    const document = await this.deps.document(r.identity_document!);
    assertOwned(document, owner, `No such asset: '${r.identity_document}'`, 'representative.identityDocument');
    if (document.purpose !== 'onboarding_document' || !document.ready) throw new Refusal('IKW-ACT-003', activationErrors['IKW-ACT-003'].message, 'representative.identityDocument');
    const owners = type === 'company' ? (input.owners ?? []) : [];
    if (owners.reduce((sum, o) => sum + o.ownership_percent, 0) > 100) throw new Refusal('IKW-VAL-001', 'The owners hold more than 100 %', 'owners');
    const volume = input.expected_monthly_volume!;
    const currency = getCurrency(volume.currency);
    if (!currency) throw new Refusal('IKW-VAL-003', `Unknown currency '${volume.currency}'`, 'expectedMonthlyVolume.currency');
    // Settled in the business's own currency: a payout destination of its country's currency.
    const destination = normalizeDestination(input.settlement_destination!, country!.currency, 'settlementDestination');
    const text = (value: string | undefined) => (value === undefined || value.trim() === '' ? null : value.trim());
    return {
      business: {
        legal_name: business.legal_name!.trim(),
        trading_name: text(business.trading_name),
        type: type!,
        registration_number: text(business.registration_number),
        country: country!.code,
        address: { line1: business.address!.line1.trim(), line2: text(business.address!.line2), city: business.address!.city.trim(), postal_code: text(business.address!.postal_code) },
        product_description: business.product_description!.trim(),
        website: text(business.website),
      },
      representative: { name: r.name!.trim(), date_of_birth: r.date_of_birth!, identity_document: r.identity_document! },
      owners: owners.map((o) => ({ name: o.name.trim(), date_of_birth: o.date_of_birth ?? null, ownership_percent: o.ownership_percent })),
      settlement_destination: destination,
      expected_monthly_volume: { amount: volume.amount, currency: currency.code.toLowerCase() },
    };
  }
}
