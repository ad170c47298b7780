import { getCurrency, normalizePhone } from '#packages/catalog/index.js';
import type { Clock } from '#packages/core/clock.js';
import type { Fact } from '#packages/core/decider.js';
import { newId } from '#packages/core/ids.js';
import { Refusal } from '#packages/core/refusal.js';
import type { Actor, Owner } from '#packages/core/owner.js';
import { CommandService, handleCommand } from '#packages/eventstore/command-handler.js';
import type { EventStore } from '#packages/eventstore/port.js';
import { actorMetadata, auditMetadata } from '#packages/eventstore/metadata.js';
import { noRiskSettings, platformRiskRulesDecider, riskAssessmentDecider, riskSettingsDecider, type RiskSettingsCommand, type RiskSettingsState } from './decider.js';
import { PLATFORM_RISK_RULES_STREAM, riskAssessmentStream, riskSettingsId, riskSettingsStream, type PlatformRiskRulesEvent, type RiskAssessed, type RiskSettingsEvent } from './events.js';
import {
  BLOCKLIST_KINDS,
  decisionOf,
  destinationKey,
  evaluate,
  merchantView,
  ownRules,
  phoneKey,
  RISK_ACTIONS,
  RISK_RULE_NAMES,
  rulesInForce,
  USUAL_AMOUNT_WINDOW,
  type Attempt,
  type AttemptCounts,
  type BlocklistEntry,
  type BlocklistKind,
  type RiskDecision,
  type RiskReason,
  type RiskRuleSet,
  type RiskSettings,
} from './rules.js';

/** What the rules count: the attempts recorded before this one (packages/families/risk/read, read.risk_assessments). */
export interface AttemptCounter {
  /** `repeatMinutes`: the repeat rule's window (0: none counted). */
  countsBefore(owner: Owner, attempt: Attempt & { subject: string }, at: Date, repeatMinutes: number): Promise<Omit<AttemptCounts, 'usual'>>;
  /** The owner's last `last` successful payments (or payouts) in the currency: how many, and their median amount. */
  usualAmount(owner: Owner, direction: Attempt['direction'], currency: string, last: number): Promise<AttemptCounts['usual']>;
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

/** A merchant's rules as the API answers them: its own where it set one, the platform's otherwise, and the platform's, which always apply. */
export interface RiskRulesObject {
  object: 'risk_rules';
  rules: RiskRuleSet;
  /** The rules the merchant set; the others follow the platform's. */
  customized: string[];
  /** The platform's rules: they apply in any case; the merchant's add to them. */
  platform: RiskRuleSet;
}

/** The platform's rules as the operators' API answers them. */
export interface PlatformRiskRulesObject {
  object: 'platform_risk_rules';
  rules: RiskRuleSet;
  /** The rules the risk role changed from their starting values (DEFAULT_RISK_RULES). */
  customized: string[];
  /** When they were last changed (ISO 8601), or null. */
  updated: string | null;
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
    } else if (name === 'amountAboveUsual') {
      const u = rule as { multiple?: unknown; minimumHistory?: unknown };
      if (!whole(u.multiple, 1000) || (u.multiple as number) < 2) throw invalid('The multiple of amountAboveUsual is a whole number from 2 to 1000', name);
      if (!whole(u.minimumHistory, USUAL_AMOUNT_WINDOW)) throw invalid(`The minimum history of amountAboveUsual is 1 to ${USUAL_AMOUNT_WINDOW} successful payments or payouts`, name);
      out[name] = { multiple: u.multiple, minimumHistory: u.minimumHistory, action: r.action };
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

type PlatformState = typeof platformRiskRulesDecider.initialState;
const PLATFORM = 'platform';

/**
 * The platform's risk rules (docs/risk.md): the operators' risk role sets them; they apply to
 * every merchant in both environments, and a merchant's own rules only add to them.
 */
export class PlatformRiskRules extends CommandService<{ type: 'set_platform_rules'; overrides: Partial<RiskRuleSet>; at: Date }, PlatformState, Fact<PlatformRiskRulesEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock }) {
    super(deps.store, () => PLATFORM_RISK_RULES_STREAM, platformRiskRulesDecider, { onConflict: 'internal' });
  }

  async inForce(): Promise<RiskRuleSet> {
    return rulesInForce((await this.recall(PLATFORM)).state.overrides);
  }

  async rules(): Promise<PlatformRiskRulesObject> {
    return platformRulesObject((await this.recall(PLATFORM)).state);
  }

  /** The rules given replace those set before; a rule left out is its starting value again, null turns it off. */
  async setRules(overrides: Record<string, unknown>, actor: Actor): Promise<PlatformRiskRulesObject> {
    const at = this.deps.clock.now();
    const { state } = await this.run(
      PLATFORM,
      { type: 'set_platform_rules', overrides: checkedOverrides(overrides), at },
      { actor: actor.actor, occurred_at: at.toISOString(), correlation_id: PLATFORM_RISK_RULES_STREAM, ...actorMetadata(actor) },
    );
    return platformRulesObject(state);
  }
}

function platformRulesObject(state: PlatformState): PlatformRiskRulesObject {
  return { object: 'platform_risk_rules', rules: rulesInForce(state.overrides), customized: Object.keys(state.overrides), updated: state.updated };
}

/**
 * A merchant's risk rules and blocklist in one environment (docs/risk.md): what it reads and sets,
 * each change recorded with who made it.
 */
export class RiskRules extends CommandService<RiskSettingsCommand, RiskSettingsState, Fact<RiskSettingsEvent>> {
  constructor(private readonly deps: { store: EventStore; clock: Clock; platform: PlatformRiskRules }) {
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
    return rulesObject(await this.deps.platform.inForce(), await this.settingsOf(owner));
  }

  /** The merchant's rules: what is given replaces what it set before; a rule left out or null is the merchant's no more (the platform's still applies). */
  async setRules(owner: Owner, overrides: Record<string, unknown>, actor: Actor): Promise<RiskRulesObject> {
    const settings = await this.decide(owner, { type: 'set_rules', ...this.about(owner), overrides: checkedOverrides(overrides) }, actor);
    return rulesObject(await this.deps.platform.inForce(), settings);
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

function rulesObject(platform: RiskRuleSet, settings: RiskSettings): RiskRulesObject {
  return { object: 'risk_rules', rules: merchantView(platform, settings.overrides), customized: Object.keys(settings.overrides), platform };
}

/**
 * The risk gate (RiskGate): the platform's rules and the merchant's own, asked about each
 * payment before it is confirmed on a rail and each payout before its money is held. Every
 * attempt is recorded (`risk.assessed`) with what was decided and why.
 */
export class RiskAssessments implements RiskGate {
  constructor(private readonly deps: { store: EventStore; clock: Clock; platform: PlatformRiskRules; rules: RiskRules; counter: AttemptCounter }) {}

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
    const platform = await this.deps.platform.inForce();
    const own = ownRules(settings.overrides);
    const at = this.deps.clock.now();
    const countsFor = async (minutes: number) => this.deps.counter.countsBefore(owner, { ...attempt, subject }, at, minutes);
    const platformCounts = await countsFor(platform.repeatedPayment?.minutes ?? 0);
    const ownCounts = own.repeatedPayment && own.repeatedPayment.minutes !== platform.repeatedPayment?.minutes ? await countsFor(own.repeatedPayment.minutes) : platformCounts;
    const usual = platform.amountAboveUsual || own.amountAboveUsual ? await this.deps.counter.usualAmount(owner, attempt.direction, attempt.currency, USUAL_AMOUNT_WINDOW) : { count: 0, median: 0 };
    // The platform's rules always apply; the merchant's own add to them (the strictest action decides).
    const reasons = [...evaluate(platform, settings.blocklist, attempt, { ...platformCounts, usual }), ...evaluate(own, settings.blocklist, attempt, { ...ownCounts, usual })];
    const decision = decisionOf(attempt.direction, reasons);
    const id = newId('ra');
    const assessment: RiskAssessed = { id, merchantId: owner.merchantId, environment: owner.environment, subject, ...attempt, decision, reasons, at: at.toISOString() };
    await handleCommand(this.deps.store, riskAssessmentStream(id), riskAssessmentDecider, { type: 'record', assessment }, auditMetadata(this.deps.clock, owner, subject, actor), { onConflict: 'internal' });
    // The payer may read this refusal: it names no rule (the merchant reads the reasons).
    if (decision === 'block') throw new Refusal('IKW-LIM-007', undefined, attempt.direction === 'payment' ? 'paymentMethod' : 'destination');
    return { decision, reasons };
  }
}
