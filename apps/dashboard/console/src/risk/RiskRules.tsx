import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { ErrorMessage, QueryView } from '../../../src/shell/components.js';
import { formatWhen, LanguageContext } from '../../../src/shell/i18n.js';
import { RiskRulesForm, ruleText, RULE_NAMES, useRuleWords } from '../../../src/shell/riskRules.js';
import { useOperatorAction, type ConsolePageProps } from '../components.js';
import { api, type OperatorRole } from '../session.js';
import { useConsoleT } from '../words.js';
import { riskRuleMessages } from './riskRules.messages.js';

/** The roles that change the platform's rules (the API decides: IKW-OPR-001 otherwise); every operator reads them. */
const CHANGES: readonly OperatorRole[] = ['risk', 'admin'];
const RULES = 'operator-risk-rules';
/** The rules as the API answers them: the form's rules have these shapes, each rule's own fields (shell/riskRules.tsx). */
type RuleSet = Answer<'get', '/api/v1/operator/risk/rules'>['rules'];

/** The platform's risk rules (docs/risk.md): every operator reads them; risk and admin change them. */
export function RiskRules({ operator, onSignedOut }: ConsolePageProps) {
  const t = useConsoleT(riskRuleMessages);
  const r = useRuleWords();
  const { language } = useContext(LanguageContext);
  const rules = useQuery({ queryKey: [RULES], queryFn: () => api.get('/api/v1/operator/risk/rules') });
  const { action, error } = useOperatorAction(onSignedOut, [[RULES]]);
  return (
    <main className="page risk-rules">
      <h1>{t('riskRules.title')}</h1>
      <p className="help">{t('riskRules.intro')}</p>
      <ErrorMessage text={error} />
      {action.isSuccess && <p role="status">{t('riskRules.saved')}</p>}
      <QueryView query={rules}>
        {(set) => (
          <>
            <p>{set.updated ? t('riskRules.updated', { date: formatWhen(language, set.updated, 'minute') }) : t('riskRules.never')}</p>
            {CHANGES.includes(operator.role) ? (
              <RiskRulesForm
                key={set.updated ?? 'start'}
                rules={set.rules}
                toggle={t('riskRules.on')}
                submit={t('riskRules.save')}
                busy={action.isPending}
                onSave={(body) => action.mutate(() => api.put('/api/v1/operator/risk/rules', { body: body as RuleSet }))}
              />
            ) : (
              <dl className="risk-rules">
                {RULE_NAMES.map((name) => (
                  <div key={name}>
                    <dt>{r(`rule.${name}`)}</dt>
                    <dd>{ruleText(r, set.rules[name])}</dd>
                  </div>
                ))}
              </dl>
            )}
          </>
        )}
      </QueryView>
    </main>
  );
}
