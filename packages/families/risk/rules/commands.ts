import { getCurrency, normalizePhone } from '../../../catalog/index.js';
import type { Clock } from '../../../core/clock.js';
import type { Fact } from '../../../core/decider.js';
import { newId } from '../../../core/ids.js';
import { Refusal } from '../../../core/refusal.js';
import type { Actor, Owner } from '../../../core/owner.js';
import { CommandService, handleCommand } from '../../../eventstore/command-handler.js';
import type { EventStore } from '../../../eventstore/port.js';
import { auditMetadata } from '../../../eventstore/metadata.js';
import { noRiskSettings, riskAssessmentDecider, riskSettingsDecider, type RiskSettingsCommand, type RiskSettingsState } from './decider.js';
import { riskAssessmentStream, riskSettingsId, riskSettingsStream, type RiskAssessed, type RiskSettingsEvent } from './events.js';
import {
  BLOCKLIST_KINDS, decisionOf, destinationKey, evaluate, phoneKey, RISK_ACTIONS, RISK_RULE_NAMES, rulesInForce,
  type Attempt, type AttemptCounts, type BlocklistEntry, type BlocklistKind, type RiskDecision, type RiskReason, type RiskRuleSet, type RiskSettings,
} from './rules.js';

/** What the rules count: the attempts recorded before this one (projections/risk, read.risk_assessments). */
export interface AttemptCounter {
  /** `repeatMinutes`: the repeat rule's window (0: none counted). */
  countsBefore(owner: Owner, attempt: Attempt & { subject: string }, at: Date, repeatMinutes: number): Promise<AttemptCounts>;
}

/** A payment about to be confirmed, as the rules see it. */
export interface PaymentAttempt {
  paymentIntentId: string;
  amount: number;
  currency: string;
  /** The mobile money number paying (E.164), if it is one. */
  msisdn: string | null;
  /** The e-mail of the payment's customer, if it has one. */
  email: string | null;
}

/** A payout about to be created (before its money is held), as the rules see it. */
export interface PayoutAttempt {
  payoutId: string;
  amount: number;
  currency: string;
  destination: { type: 'mobile_money'; msisdn: string } | { type: 'bank'; bank_code: string; account_number: string };
}

/** What was decided: allow and score go on; review holds a payout; block was refused (IKW-LIM-007) before this returns. */
export interface RiskVerdict {
  decision: Exclude<RiskDecision, 'block'>;
  reasons: RiskReason[];
}

/**
 * The port payments and payouts take (docs/risk.md): the merchant's rules asked about one attempt
 * before any rail is. A blocked attempt is refused with IKW-LIM-007, which names no rule: the payer
 * may read it; the merchant reads the reasons in Insights.
 */
export interface RiskGate {
  assessPayment(owner: Owner, attempt: PaymentAttempt, actor: Actor): Promise<RiskVerdict>;
  assessPayout(owner: Owner, attempt: PayoutAttempt, actor: Actor): Promise<RiskVerdict>;
}

/** A merchant's rules as the API answers them: those in force, and which of them the merchant set. */
export interface RiskRulesObject {
  object: 'risk_rules';
  rules: RiskRuleSet;
  /** The rules the merchant set; the others follow the platform's defaults. */
  customized: string[];
}

export interface BlocklistEntryObject {
  id: string;
  object: 'risk_blocklist_entry';
  kind: BlocklistKind;
  value: string;
  note: string | null;
  created: number;
}

const invalid = (message: string, field: string) => new Refusal('IKW-LIM-008', message, field);

/** A rule's overrides checked (IKW-LIM-008 otherwise): limits and minutes whole and positive, known actions and currencies. */
function checkedOverrides(input: Record<string, unknown>): Partial<RiskRuleSet> {
  const out: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(input)) {
    if (!(RISK_RULE_NAMES as readonly string[]).includes(name)) throw invalid(`Unknown rule '${name}'`, name);
    if (rule === null) {
      out[name] = null;
      continue;
    }
    const r = rule as { action?: unknown; limit?: unknown; minutes?: unknown; amounts?: Record<string, unknown> };
    if (!RISK_ACTIONS.includes(r.action as never)) throw invalid(`The action of ${name} is one of ${RISK_ACTIONS.join(', ')}`, name);
    const whole = (v: unknown, max: number) => Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= max;
    if (name === 'amountCeiling') {
      const amounts: Record<string, number> = {};
      for (const [currency, amount] of Object.entries(r.amounts ?? {})) {
        if (!getCurrency(currency)) throw invalid(`Unknown currency '${currency}'`, name);
        if (!whole(amount, Number.MAX_SAFE_INTEGER)) throw invalid(`The ${currency.toLowerCase()} ceiling must be a positive whole amount in the currency's minor unit`, name);
        amounts[currency.toLowerCase()] = amount as number;
      }
      out[name] = { amounts, action: r.action };
    } else if (name === 'repeatedPayment') {
      if (!whole(r.minutes, 1440)) throw invalid('The repeat window is 1 to 1440 minutes', name);
      out[name] = { minutes: r.minutes, action: r.action };
    } else if (name === 'blocklist') {
      out[name] = { action: r.action };
    } else {
      if (!whole(r.limit, 100_000)) throw invalid(`The limit of ${name} is a whole number from 1 to 100000`, name);
      out[name] = { limit: r.limit, action: r.action };
    }
  }
  return out as Partial<RiskRuleSet>;
}

/** A blocked value in the form attempts are compared in (IKW-LIM-008 when it is not one). */
function blockedValue(kind: BlocklistKind, value: string): string {
  const v = value.trim();
  switch (kind) {
    case 'phone': {
      const phone = normalizePhone(v, 'ZZ');
      if (!phone) throw invalid('A blocked phone is an international number (+221…)', 'value');
      return phoneKey(phone);
    }
    case 'email':
      if (!/^[^\s@]+@[^\s@]+$/.test(v) || v.length > 254) throw invalid('A blocked e-mail is an address (name@example.com)', 'value');
      return v.toLowerCase();
    case 'destination': {
      const bank = /^([A-Za-z0-9-]{1,20})\/([A-Za-z0-9]{4,34})$/.exec(v);
      if (bank) return `${bank[1]}/${bank[2]}`.toLowerCase();
      const phone = normalizePhone(v, 'ZZ');
      if (!phone) throw invalid('A blocked destination is an international mobile money number (+221…) or a bank account as bank_code/account_number', 'value');
      return phoneKey(phone);
    }
  }
}

export const toBlocklistEntryObject = (e: BlocklistEntry): BlocklistEntryObject => ({
  id: e.id,
  object: 'risk_blocklist_entry',
  kind: e.kind,
  value: e.value,
  note: e.note,
  created: Math.floor(new Date(e.createdAt).getTime() / 1000),
});

/**
 * A merchant's risk rules and blocklist in one environment (docs/risk.md): what it reads and sets,
 * each change recorded with who made it.
 */
export class RiskRules extends CommandService<RiskSettingsCommand, RiskSettingsState, Fact<RiskSettingsEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock }) {
    super(deps.store, riskSettingsStream, riskSettingsDecider, { onConflict: 'internal' });
  }

  private about(owner: Owner) {
    return { merchantId: owner.merchantId, environment: owner.environment, at: this.deps.clock.now() };
  }

  private async decide(owner: Owner, command: RiskSettingsCommand, actor: Actor): Promise<RiskSettings> {
    const id = riskSettingsId(owner.merchantId, owner.environment);
    const { state } = await this.run(id, command, auditMetadata(this.deps.clock, owner, id, actor));
    return state.settings ?? noRiskSettings(owner.merchantId, owner.environment);
  }

  /** The rules and blocklist as they stand (none set: the defaults, an empty list). */
  async settingsOf(owner: Owner): Promise<RiskSettings> {
    return (await this.recall(riskSettingsId(owner.merchantId, owner.environment))).state.settings ?? noRiskSettings(owner.merchantId, owner.environment);
  }

  async rules(owner: Owner): Promise<RiskRulesObject> {
    return rulesObject(await this.settingsOf(owner));
  }

  /** The merchant's rules: what is given replaces what it set before; a rule left out follows the default, a rule set to null is off. */
  async setRules(owner: Owner, overrides: Record<string, unknown>, actor: Actor): Promise<RiskRulesObject> {
    return rulesObject(await this.decide(owner, { type: 'set_rules', ...this.about(owner), overrides: checkedOverrides(overrides) }, actor));
  }

  async blocklist(owner: Owner): Promise<BlocklistEntryObject[]> {
    return (await this.settingsOf(owner)).blocklist.map(toBlocklistEntryObject);
  }

  /** Blocks a value; one blocked already answers its entry as it is. */
  async block(owner: Owner, input: { kind: BlocklistKind; value: string; note?: string }, actor: Actor): Promise<BlocklistEntryObject> {
    if (!BLOCKLIST_KINDS.includes(input.kind)) throw invalid(`The kind is one of ${BLOCKLIST_KINDS.join(', ')}`, 'kind');
    const value = blockedValue(input.kind, input.value);
    const entry: BlocklistEntry = { id: newId('rbl'), kind: input.kind, value, note: input.note?.trim() || null, createdAt: this.deps.clock.now().toISOString() };
    const settings = await this.decide(owner, { type: 'add_blocked', ...this.about(owner), entry }, actor);
    return toBlocklistEntryObject(settings.blocklist.find((e) => e.kind === input.kind && e.value === value)!);
  }

  async unblock(owner: Owner, entryId: string, actor: Actor): Promise<void> {
    await this.decide(owner, { type: 'remove_blocked', ...this.about(owner), entryId }, actor);
  }
}

function rulesObject(settings: RiskSettings): RiskRulesObject {
  return { object: 'risk_rules', rules: rulesInForce(settings.overrides), customized: Object.keys(settings.overrides) };
}

/**
 * The risk gate (RiskGate): the merchant's rules over the platform's defaults, asked about each
 * payment before it is confirmed on a rail and each payout before its money is held. Every
 * attempt is recorded (`risk.assessed`) with what was decided and why.
 */
export class RiskAssessments implements RiskGate {
  constructor(private readonly deps: { store: EventStore; clock: Clock; rules: RiskRules; counter: AttemptCounter }) {}

  assessPayment(owner: Owner, p: PaymentAttempt, actor: Actor): Promise<RiskVerdict> {
    const attempt: Attempt = { direction: 'payment', amount: p.amount, currency: p.currency.toLowerCase(), phone: p.msisdn ? phoneKey(p.msisdn) : null, email: p.email?.toLowerCase() ?? null, destination: null };
    return this.assess(owner, p.paymentIntentId, attempt, actor);
  }

  assessPayout(owner: Owner, p: PayoutAttempt, actor: Actor): Promise<RiskVerdict> {
    const attempt: Attempt = { direction: 'payout', amount: p.amount, currency: p.currency.toLowerCase(), phone: null, email: null, destination: destinationKey(p.destination) };
    return this.assess(owner, p.payoutId, attempt, actor);
  }

  private async assess(owner: Owner, subject: string, attempt: Attempt, actor: Actor): Promise<RiskVerdict> {
    const settings = await this.deps.rules.settingsOf(owner);
    const rules = rulesInForce(settings.overrides);
    const at = this.deps.clock.now();
    const counts = await this.deps.counter.countsBefore(owner, { ...attempt, subject }, at, rules.repeatedPayment?.minutes ?? 0);
    const reasons = evaluate(rules, settings.blocklist, attempt, counts);
    const decision = decisionOf(attempt.direction, reasons);
    const id = newId('ra');
    const assessment: RiskAssessed = { id, merchantId: owner.merchantId, environment: owner.environment, subject, ...attempt, decision, reasons, at: at.toISOString() };
    await handleCommand(this.deps.store, riskAssessmentStream(id), riskAssessmentDecider, { type: 'record', assessment }, auditMetadata(this.deps.clock, owner, subject, actor), { onConflict: 'internal' });
    // The payer may read this refusal: it names no rule (the merchant reads the reasons).
    if (decision === 'block') throw new Refusal('IKW-LIM-007', undefined, attempt.direction === 'payment' ? 'paymentMethod' : 'destination');
    return { decision, reasons };
  }
}
