import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import type { Answer } from '../../../../clients/typescript/src/index.js';
import { Link } from './components.js';
import { formatWhen, LanguageContext, useMessages, type Messages } from './i18n.js';
import { sika, withSession } from './session.js';

/** The limits and holds Sika's risk team set on the merchant in an environment (docs/limits.md). */
export type Limits = Answer<'get', '/api/v1/limits'>;

/** The environment's limits: the Limits page and the Payouts page's freeze notice read the same query. */
export function useLimits(environment: string, onSignedOut: () => void) {
  return useQuery({
    queryKey: ['limits', environment],
    queryFn: () => withSession(() => sika.get('/api/v1/limits'), onSignedOut),
  });
}

const messages: Messages<'frozen' | 'frozen.since' | 'frozen.see'> = {
  en: {
    frozen: 'Payouts are frozen by Sika’s risk team: {reason}. New payouts are refused until the freeze is lifted; payments are still taken.',
    'frozen.since': 'Frozen since {date}.',
    'frozen.see': 'See your limits and holds',
  },
  fr: {
    frozen: 'Les virements sont gelés par l’équipe risques de Sika : {reason}. Les nouveaux virements sont refusés jusqu’à la levée du gel ; les paiements sont toujours acceptés.',
    'frozen.since': 'Gelés depuis le {date}.',
    'frozen.see': 'Voir vos limites et retenues',
  },
};

/**
 * A payout freeze in words, with its reason and date: on the Limits page, and above the Payouts
 * page's form (a payout made there would be refused with IKW-LIM-005). Nothing when payouts are not frozen.
 */
export function PayoutFreezeNotice({ limits, linked = false }: { limits: Limits | undefined; linked?: boolean }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const freeze = limits?.payoutFreeze;
  if (!freeze) return null;
  return (
    <p className="notice payout-freeze">
      {t('frozen', { reason: freeze.reason ?? '' })} {t('frozen.since', { date: formatWhen(language, freeze.since) })}
      {linked && (
        <>
          {' '}
          <Link to="limits">{t('frozen.see')}</Link>
        </>
      )}
    </p>
  );
}
