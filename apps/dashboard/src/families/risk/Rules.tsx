import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useContext, type FormEvent } from 'react';
import { ErrorMessage, QueryView, Scrollable, useAction, useFailureText } from '../../shell/components.js';
import { formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import type { PageProps } from '../../shell/props.js';
import { RiskRulesForm, ruleText, RULE_NAMES, useRuleWords, type RuleName, type RuleValue } from '../../shell/riskRules.js';
import { sika, withSession } from '../../shell/session.js';
import { ruleMessages } from './rules.messages.js';

const KINDS = ['phone', 'email', 'destination'] as const;

/**
 * The merchant's risk rules and blocklist in the environment shown (docs/risk.md): Sika's rules,
 * which always apply, beside the merchant's own, which it sets (PUT /api/v1/risk/rules); the
 * blocklist, added to and removed from.
 */
export function Rules({ environment, onSignedOut }: PageProps) {
  const t = useMessages(ruleMessages);
  return (
    <main className="page risk-rules">
      <h1>{t('title')}</h1>
      <p className="help">{t('intro')}</p>
      <OwnRules environment={environment} onSignedOut={onSignedOut} />
      <Blocklist environment={environment} onSignedOut={onSignedOut} />
    </main>
  );
}

function OwnRules({ environment, onSignedOut }: PageProps) {
  const t = useMessages(ruleMessages);
  const r = useRuleWords();
  const failureText = useFailureText();
  const queries = useQueryClient();
  const rules = useQuery({ queryKey: ['risk-rules', environment], queryFn: () => withSession(() => sika.get('/api/v1/risk/rules'), onSignedOut) });
  const save = useMutation({
    // A rule left unticked is left out: Sika's still applies.
    mutationFn: (set: Record<RuleName, RuleValue | null>) => withSession(() => sika.put('/api/v1/risk/rules', { body: Object.fromEntries(Object.entries(set).filter(([, rule]) => rule !== null)) }), onSignedOut),
    onSuccess: (answer) => queries.setQueryData(['risk-rules', environment], answer),
  });
  return (
    <QueryView query={rules}>
      {(set) => {
        const own = Object.fromEntries(set.customized.map((name) => [name, set.rules[name as RuleName]]));
        return (
          <>
            <section aria-labelledby="rules-platform">
              <h2 id="rules-platform">{t('platform')}</h2>
              <dl className="risk-rules">
                {RULE_NAMES.map((name) => (
                  <div key={name}>
                    <dt>{r(`rule.${name}`)}</dt>
                    <dd>{ruleText(r, set.platform[name])}</dd>
                  </div>
                ))}
              </dl>
            </section>
            <section aria-labelledby="rules-own">
              <h2 id="rules-own">{t('own')}</h2>
              <ErrorMessage text={save.isError ? failureText(save.error) : null} />
              {save.isSuccess && <p role="status">{t('own.saved')}</p>}
              <RiskRulesForm
                key={set.customized.join()}
                rules={own}
                toggle={t('own.toggle')}
                submit={t('own.save')}
                busy={save.isPending}
                describe={(name) => t('own.sika', { rule: ruleText(r, set.platform[name]) })}
                onSave={(body) => save.mutate(body)}
              />
            </section>
          </>
        );
      }}
    </QueryView>
  );
}

function Blocklist({ environment, onSignedOut }: PageProps) {
  const t = useMessages(ruleMessages);
  const { language } = useContext(LanguageContext);
  const key = ['risk-blocklist', environment];
  const list = useQuery({ queryKey: key, queryFn: () => withSession(() => sika.get('/api/v1/risk/blocklist'), onSignedOut) });
  const { action: change, submit, error } = useAction(onSignedOut, [key]);
  const add = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    submit(e.currentTarget, (data) => {
      const note = String(data.get('note') ?? '').trim();
      return sika.post('/api/v1/risk/blocklist', { body: { kind: String(data.get('kind')) as (typeof KINDS)[number], value: String(data.get('value') ?? ''), ...(note ? { note } : {}) } });
    });
  };
  return (
    <section aria-labelledby="rules-blocklist">
      <h2 id="rules-blocklist">{t('blocklist')}</h2>
      <p className="help">{t('blocklist.intro')}</p>
      <ErrorMessage text={error} />
      <form className="inline-form" onSubmit={add} aria-labelledby="rules-blocklist">
        <label>
          {t('blocklist.kind')}
          <select name="kind">
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {t(`kind.${k}`)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('blocklist.value')}
          <input name="value" required maxLength={254} />
        </label>
        <label>
          {t('blocklist.note')}
          <input name="note" maxLength={500} />
        </label>
        <button type="submit" disabled={change.isPending}>
          {t('blocklist.add')}
        </button>
      </form>
      <QueryView query={list} isEmpty={(l) => l.data.length === 0} empty={t('blocklist.empty')}>
        {(l) => (
          <Scrollable labelledBy="rules-blocklist">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('blocklist.kind')}</th>
                  <th scope="col">{t('blocklist.value')}</th>
                  <th scope="col">{t('blocklist.note')}</th>
                  <th scope="col">{t('blocklist.added')}</th>
                  <td />
                </tr>
              </thead>
              <tbody>
                {l.data.map((entry) => (
                  <tr key={entry.id}>
                    <td>{t(`kind.${entry.kind}`)}</td>
                    <th scope="row">{entry.value}</th>
                    <td className="wrap">{entry.note ?? ''}</td>
                    <td>{formatWhen(language, entry.created)}</td>
                    <td>
                      <button
                        type="button"
                        aria-label={t('blocklist.removeOne', { value: entry.value })}
                        disabled={change.isPending}
                        onClick={() => change.mutate(() => sika.delete('/api/v1/risk/blocklist/{id}', { params: { path: { id: entry.id } } }))}
                      >
                        {t('blocklist.remove')}
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scrollable>
        )}
      </QueryView>
    </section>
  );
}
