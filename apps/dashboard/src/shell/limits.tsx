import { useQuery } from '@tanstack/react-query';
import { useContext } from 'react';
import type { Answer } from '../../../../clients/typescript/src/index.js';
import { Link } from './components.js';
import { formatWhen, LanguageContext, useMessages } from './i18n.js';
import { sika, withSession } from './session.js';
import { limitNoticeMessages } from './limits.messages.js';

/** The limits and holds Sika's risk team set on the merchant in an environment (docs/limits.md). */
export type Limits = Answer<'get', '/api/v1/limits'>;

/** The environment's limits: the Limits page and the Payouts page's freeze notice read the same query. */
export function useLimits(environment: string, onSignedOut: () => void) {
  return useQuery({
    queryKey: ['limits', environment],
    queryFn: () => withSession(() => sika.get('/api/v1/limits'), onSignedOut),
  });
}

/**
 * A payout freeze in words, with its reason and date: on the Limits page, and above the Payouts
 * page's form (a payout made there would be refused with IKW-LIM-005). Nothing when payouts are not frozen.
 */
export function PayoutFreezeNotice({ limits, linked = false }: { limits: Limits | undefined; linked?: boolean }) {
  const t = useMessages(limitNoticeMessages);
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
