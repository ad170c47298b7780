import { useQuery } from '@tanstack/react-query';
import type { Answer } from '../../../../clients/typescript/src/index.js';
import { Badge } from './Badge.js';
import { Link } from './components.js';
import { useMessages, type Messages } from './i18n.js';
import { sika, withSession } from './session.js';

/** The merchant's application to take live money, as GET /api/v1/merchant/activation answers it. */
export type Activation = Answer<'get', '/api/v1/merchant/activation'>;
export type ActivationStatus = Activation['status'];

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

type Key = `status.${ActivationStatus}` | `says.${ActivationStatus}` | `act.${ActivationStatus}` | 'title' | 'reason';

const messages: Messages<Key> = {
  en: {
    title: 'Going live',
    reason: 'Reason given: {reason}',
    'status.not_submitted': 'Not applied yet',
    'status.under_review': 'Under review',
    'status.information_requested': 'Information requested',
    'status.active': 'Live is open',
    'status.rejected': 'Not approved',
    'status.suspended': 'Suspended',
    'says.not_submitted': 'Live payments open once Sika approves your application: tell us about your business, who represents it and where your money goes.',
    'says.under_review': 'Sika is reviewing your application. We e-mail you its decision; there is nothing to do meanwhile.',
    'says.information_requested': 'Sika needs more from you before it decides: correct what is asked and submit again.',
    'says.active': 'Your live payments and payouts move real money.',
    'says.rejected': 'Sika did not approve your application. Write to support if you wish to contest it.',
    'says.suspended': 'Your account is suspended: new live payments and payouts are refused; what was under way finishes.',
    'act.not_submitted': 'Apply to go live',
    'act.under_review': 'See your application',
    'act.information_requested': 'See what is asked',
    'act.active': 'See your application',
    'act.rejected': 'See why',
    'act.suspended': 'See why',
  },
  fr: {
    title: 'Passage en production',
    reason: 'Motif donné : {reason}',
    'status.not_submitted': 'Pas encore de demande',
    'status.under_review': 'En cours d’examen',
    'status.information_requested': 'Informations demandées',
    'status.active': 'Production ouverte',
    'status.rejected': 'Non approuvée',
    'status.suspended': 'Suspendu',
    'says.not_submitted': 'Les paiements réels s’ouvrent dès que Sika approuve votre demande : présentez votre entreprise, qui la représente et où votre argent est versé.',
    'says.under_review': 'Sika examine votre demande. Nous vous envoyons sa décision par e-mail ; vous n’avez rien à faire d’ici là.',
    'says.information_requested': 'Sika a besoin de précisions avant de décider : corrigez ce qui est demandé et envoyez à nouveau.',
    'says.active': 'Vos paiements et virements réels déplacent de l’argent réel.',
    'says.rejected': 'Sika n’a pas approuvé votre demande. Écrivez au support si vous souhaitez la contester.',
    'says.suspended': 'Votre compte est suspendu : les nouveaux paiements et virements réels sont refusés ; ce qui était en cours se termine.',
    'act.not_submitted': 'Demander le passage en production',
    'act.under_review': 'Voir votre demande',
    'act.information_requested': 'Voir ce qui est demandé',
    'act.active': 'Voir votre demande',
    'act.rejected': 'Voir pourquoi',
    'act.suspended': 'Voir pourquoi',
  },
};

/** The words of the application's state: its status, what it means for the merchant, and the reason of a rejection or a suspension. */
export function useActivationWords() {
  const t = useMessages(messages);
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
