import { type FormEvent } from 'react';
import { useMessages } from './i18n.js';
import { riskRuleMessages } from './riskRules.messages.js';

/** The risk rules (docs/risk.md), as the merchant's Rules page and the console's Risk rules page show and change them. */
export const RULE_NAMES = ['payerPaymentsPerHour', 'payerPaymentsPerDay', 'payoutsPerDestinationPerDay', 'amountCeiling', 'repeatedPayment', 'amountAboveUsual', 'blocklist'] as const;
export type RuleName = (typeof RULE_NAMES)[number];
type Action = 'block' | 'review' | 'score';
const ACTIONS: readonly Action[] = ['block', 'review', 'score'];

/** One rule's threshold and action; which fields it has depends on the rule. */
export interface RuleValue {
  action: Action;
  limit?: number;
  minutes?: number;
  multiple?: number;
  minimumHistory?: number;
  amounts?: Record<string, number>;
}
/** A set of rules; null (or absent): the rule is off. */
export type RuleSet = Partial<Record<RuleName, RuleValue | null>>;

/** The fields each rule takes, besides its action. */
const FIELDS: Record<RuleName, readonly ('limit' | 'minutes' | 'multiple' | 'minimumHistory' | 'amounts')[]> = {
  payerPaymentsPerHour: ['limit'],
  payerPaymentsPerDay: ['limit'],
  payoutsPerDestinationPerDay: ['limit'],
  amountCeiling: ['amounts'],
  repeatedPayment: ['minutes'],
  amountAboveUsual: ['multiple', 'minimumHistory'],
  blocklist: [],
};

export function useRuleWords() {
  return useMessages(riskRuleMessages);
}

/** A rule in one line: its threshold and action, or "Off". */
export function ruleText(t: ReturnType<typeof useRuleWords>, rule: RuleValue | null | undefined): string {
  if (!rule) return t('off');
  const parts: string[] = [];
  if (rule.limit !== undefined) parts.push(t('text.limit', { count: rule.limit }));
  if (rule.minutes !== undefined) parts.push(t('text.minutes', { count: rule.minutes }));
  if (rule.multiple !== undefined) parts.push(t('text.usual', { multiple: rule.multiple, count: rule.minimumHistory ?? 0 }));
  if (rule.amounts) parts.push(t('text.amounts', { amounts: amountsText(rule.amounts) }));
  parts.push(t(`action.${rule.action}`));
  return parts.join(' · ');
}

const amountsText = (amounts: Record<string, number>) =>
  Object.entries(amounts)
    .map(([currency, amount]) => `${currency} ${amount}`)
    .join(', ');

/** `xof 2000000, ghs 5000000` as a map (currency in lower case → minor units); what is not a pair is left out. */
const amountsOf = (text: string) => Object.fromEntries([...text.matchAll(/([a-z]{3})\s*[:=]?\s*(\d+)/gi)].map((m) => [m[1]!.toLowerCase(), Number(m[2])]));

/**
 * A form of every rule: each with a box (`toggle`: "On" for the platform, "My own rule" for a
 * merchant), its threshold and its action. `onSave` gets every rule, null for those left unticked.
 */
export function RiskRulesForm({
  rules,
  toggle,
  submit,
  busy,
  onSave,
  describe,
}: {
  rules: RuleSet;
  toggle: string;
  submit: string;
  busy: boolean;
  onSave: (rules: Record<RuleName, RuleValue | null>) => void;
  describe?: (name: RuleName) => string | null;
}) {
  const t = useRuleWords();
  const save = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const value = (name: RuleName): RuleValue | null => {
      if (form.get(`${name}.on`) !== 'on') return null;
      const rule: RuleValue = { action: String(form.get(`${name}.action`)) as Action };
      for (const field of FIELDS[name]) {
        const raw = String(form.get(`${name}.${field}`) ?? '');
        if (field === 'amounts') rule.amounts = amountsOf(raw);
        else rule[field] = Number(raw);
      }
      return rule;
    };
    onSave(Object.fromEntries(RULE_NAMES.map((name) => [name, value(name)])) as Record<RuleName, RuleValue | null>);
  };
  return (
    <form className="risk-rules" onSubmit={save}>
      {RULE_NAMES.map((name) => {
        const rule = rules[name];
        const note = describe?.(name);
        return (
          <fieldset key={name} data-rule={name}>
            <legend>{t(`rule.${name}`)}</legend>
            {note && <p className="help">{note}</p>}
            <label>
              <input type="checkbox" name={`${name}.on`} defaultChecked={!!rule} /> {toggle}
            </label>
            {FIELDS[name].map((field) => (
              <label key={field}>
                {t(`field.${field}`)}
                {field === 'amounts' ? <input name={`${name}.amounts`} defaultValue={rule?.amounts ? amountsText(rule.amounts) : ''} /> : <input type="number" min={1} name={`${name}.${field}`} defaultValue={rule?.[field] ?? ''} />}
              </label>
            ))}
            <label>
              {t('field.action')}
              <select name={`${name}.action`} defaultValue={rule?.action ?? 'score'}>
                {ACTIONS.map((a) => (
                  <option key={a} value={a}>
                    {t(`action.${a}`)}
                  </option>
                ))}
              </select>
            </label>
          </fieldset>
        );
      })}
      <button type="submit" disabled={busy}>
        {submit}
      </button>
    </form>
  );
}
