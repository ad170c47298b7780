import { useQuery } from '@tanstack/react-query';
import type { Answer } from '../../../../clients/typescript/src/index.js';
import { Badge } from './Badge.js';
import { Link } from './components.js';
import { useMessages } from './i18n.js';
import { sika, withSession } from './session.js';
import { activationMessages, type ActivationStatus } from './activation.messages.js';

/** The merchant's application to take live money, as GET /api/v1/merchant/activation answers it. */
export type Activation = Answer<'get', '/api/v1/merchant/activation'>;

/**
 * The application (one per merchant, whichever environment is shown): Home's card and the Go live
 * page read the same query, which a submission asks again.
 */
export function useActivation(onSignedOut: () => void) {
  return useQuery({
    queryKey: ['activation'],
    queryFn: () => withSession(() => sika.get('/api/v1/merchant/activation'), onSignedOut),
  });
}

/** The words of the application's state: its status, what it means for the merchant, and the reason of a rejection or a suspension. */
export function useActivationWords() {
  const t = useMessages(activationMessages);
  return {
    title: t('title'),
    status: (s: ActivationStatus) => t(`status.${s}`),
    says: (s: ActivationStatus) => t(`says.${s}`),
    action: (s: ActivationStatus) => t(`act.${s}`),
    reason: (reason: string) => t('reason', { reason }),
  };
}

/** The application's state in words: a badge, what it means, the reason of a rejection or a suspension. */
export function ActivationState({ activation }: { activation: Activation }) {
  const words = useActivationWords();
  const reason = (activation.status === 'rejected' || activation.status === 'suspended') && activation.decision?.reason ? activation.decision.reason : null;
  return (
    <>
      <p>
        <Badge status={activation.status}>{words.status(activation.status)}</Badge>
      </p>
      <p>{words.says(activation.status)}</p>
      {reason && <p className="reason-given">{words.reason(reason)}</p>}
    </>
  );
}

/** Home's card of the application: where it stands in words, and the way to the Go live page. */
export function ActivationCard({ onSignedOut }: { onSignedOut: () => void }) {
  const words = useActivationWords();
  const activation = useActivation(onSignedOut);
  if (!activation.data) return null;
  const status = activation.data.status;
  return (
    <section aria-labelledby="going-live" className="panel">
      <h2 id="going-live">{words.title}</h2>
      <ActivationState activation={activation.data} />
      <Link to="goLive">{words.action(status)}</Link>
    </section>
  );
}

/**
 * Live's banner until the platform opens it (or while the account is suspended): what the
 * application's state means, in the merchant's words, and the way to the Go live page. Nothing once live is open.
 */
export function LiveNotOpenBanner({ onSignedOut }: { onSignedOut: () => void }) {
  const words = useActivationWords();
  const activation = useActivation(onSignedOut);
  const status = activation.data?.status;
  if (!status || status === 'active') return null;
  return (
    <p className="banner live-closed">
      {words.says(status)} <Link to="goLive">{words.action(status)}</Link>
    </p>
  );
}
