import type { Fact } from '#packages/core/decider.js';
import { getCountry } from '#packages/catalog/index.js';
import type { Clock } from '#packages/core/clock.js';
import { Refusal } from '#packages/core/refusal.js';
import { newId } from '#packages/core/ids.js';
import { CommandService } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { assertOwned, isOwned } from '#packages/core/aggregate.js';
import { normalizeDestination, type DestinationInput } from '#packages/families/payouts/index.js';
import type { Destination } from '#packages/families/payouts/index.js';
import type { RecipientCommand, RecipientState } from './decider.js';
import { recipientAggregate, toRecipientObject } from './render.js';
import { recipientStream, type RecipientEvent, type RecipientObject } from './events.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { auditMetadata } from '#packages/eventstore/metadata.js';

/** The destination fields of a recipient (and of a payout instruction), flattened as the interface spells them. */
export interface DestinationFields {
  destination_type?: Destination['type'];
  currency?: string;
  country?: string;
  operator?: string;
  msisdn?: string;
  bank_code?: string;
  account_number?: string;
  account_name?: string;
}

export interface CreateRecipientInput extends DestinationFields {
  display_name: string;
  destination_type: Destination['type'];
}

export type UpdateRecipientInput = DestinationFields & { display_name?: string };

/**
 * Checks flattened destination fields against the catalog: a mobile money pair and MSISDN, or bank
 * fields; a mobile money currency defaults to its country's. `currency` is the payout currency the
 * destination must be in, when there is one (a batch's). Errors name the flat field.
 */
export function destinationOf(fields: DestinationFields, currency: string | null): Destination {
  const type = fields.destination_type;
  if (type === undefined) throw new Refusal('IKW-VAL-001', 'Missing required parameter: destination_type', 'destinationType');
  const need = (field: keyof DestinationFields): string => {
    const value = fields[field];
    if (value === undefined || value === '') throw new Refusal('IKW-VAL-001', `Missing required parameter: ${field}`, field);
    return value;
  };
  const refuse = (fieldsOfOther: (keyof DestinationFields)[]) => {
    const extra = fieldsOfOther.find((f) => fields[f] !== undefined && fields[f] !== '');
    if (extra) throw new Refusal('IKW-VAL-002', `${extra} does not apply to a ${type} destination`, extra);
  };
  let input: DestinationInput;
  if (type === 'mobile_money') {
    refuse(['bank_code', 'account_number', 'account_name']);
    const country = getCountry(need('country'));
    if (!country) throw new Refusal('IKW-VAL-004', `Unsupported country '${fields.country}'`, 'country');
    const own = fields.currency ?? currency ?? country.currency;
    input = { type, country: country.code, operator: need('operator'), msisdn: need('msisdn'), ...(own ? { currency: own } : {}) };
  } else {
    refuse(['country', 'operator', 'msisdn']);
    const own = fields.currency ?? currency;
    input = { type, bank_code: need('bank_code'), account_number: need('account_number'), account_name: need('account_name'), ...(own ? { currency: own } : {}) };
  }
  return normalizeDestination(input, currency, '');
}

/** The flat fields of a saved destination, to merge an update into. */
function fieldsOf(d: Destination): DestinationFields {
  return d.type === 'mobile_money'
    ? { destination_type: d.type, currency: d.currency, country: d.country, operator: d.operator, msisdn: d.msisdn }
    : { destination_type: d.type, currency: d.currency, bank_code: d.bank_code, account_number: d.account_number, account_name: d.account_name };
}

/** Saved beneficiaries of the payout engine. */
export class PayoutRecipients extends CommandService<RecipientCommand, RecipientState, Fact<RecipientEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock }) {
    super(deps.store, recipientStream, recipientAggregate);
  }

  async create(owner: Owner, input: CreateRecipientInput, actor: Actor): Promise<RecipientObject> {
    const { display_name, ...fields } = input;
    const destination = destinationOf(fields, null);
    const id = newId('rcp');
    const created = await this.run(id, { type: 'create', recipient: { id, ...owner, displayName: display_name.trim(), destination, createdAt: this.deps.clock.now().toISOString() } }, auditMetadata(this.deps.clock, owner, id, actor));
    return toRecipientObject(created.state);
  }

  /** Changes the name or the destination; a changed destination is checked again as a whole (a new type replaces the old fields). */
  async update(owner: Owner, id: string, input: UpdateRecipientInput, actor: Actor): Promise<RecipientObject> {
    const { state } = await this.load(id);
    const current = state.recipient;
    assertOwned(current, owner, `No such payout recipient: '${id}'`, 'recipientId');
    const { display_name, ...changes } = input;
    const typeChanged = changes.destination_type !== undefined && changes.destination_type !== current.destination.type;
    const merged = typeChanged ? changes : { ...fieldsOf(current.destination), ...changes };
    const destination = Object.keys(changes).length === 0 ? current.destination : destinationOf(merged, null);
    const result = await this.run(id, { type: 'update', owner, at: this.deps.clock.now(), displayName: display_name?.trim() ?? current.displayName, destination }, auditMetadata(this.deps.clock, owner, id, actor));
    return toRecipientObject(result.state);
  }

  async archive(owner: Owner, id: string, actor: Actor): Promise<RecipientObject> {
    const result = await this.run(id, { type: 'archive', owner, at: this.deps.clock.now() }, auditMetadata(this.deps.clock, owner, id, actor));
    return toRecipientObject(result.state);
  }

  /** A recipient as a batch instruction names it: this owner's, active (null when there is none). */
  async usable(owner: Owner, id: string): Promise<RecipientState | null> {
    const { state } = await this.load(id);
    return isOwned(state.recipient, owner) ? state : null;
  }
}
