import { useQuery } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import { ErrorMessage, Link, useAction } from './components.js';
import { LanguageContext, useMessages } from './i18n.js';
import type { PageName } from './router.js';
import { sika, withSession } from './session.js';
import { onboardingMessages } from './onboarding.messages.js';

type Step = 'business_profile' | 'email_verified' | 'phone_verified' | 'payout_destination' | 'first_sandbox_payment' | 'webhook_endpoint' | 'live_activation';

/** Each step of the go-live checklist, in the page's words, with the page that does it. */
const STEPS: Record<Step, { page: PageName; id?: string; en: string; fr: string }> = {
  business_profile: { page: 'settings', en: 'Your business: its organization and a notification e-mail', fr: 'Votre entreprise : son organisation et un e-mail de notification' },
  email_verified: { page: 'settingsSection', id: 'security', en: 'Confirm your e-mail address', fr: 'Confirmez votre adresse e-mail' },
  phone_verified: { page: 'settingsSection', id: 'security', en: 'Confirm your phone number', fr: 'Confirmez votre numéro de téléphone' },
  payout_destination: { page: 'payouts', en: 'Save where your money is paid out', fr: 'Enregistrez où votre argent est versé' },
  first_sandbox_payment: { page: 'paymentLinks', en: 'Take a first payment in sandbox', fr: 'Encaissez un premier paiement en test' },
  webhook_endpoint: { page: 'webhooks', en: 'Register a webhook endpoint', fr: 'Enregistrez un point de terminaison webhook' },
  live_activation: { page: 'goLive', en: 'Activate live payments', fr: 'Activez les paiements réels' },
};

/**
 * The go-live checklist (`GET /api/v1/onboarding/steps`) on the home page until every step is done
 * or the user hides it (`PATCH /api/v1/auth/onboarding`); the e-mail address is confirmed here.
 */
export function Onboarding({ environment, onSignedOut }: { environment: string; onSignedOut: () => void }) {
  const t = useMessages(onboardingMessages);
  const me = useQuery({ queryKey: ['me', environment], queryFn: () => withSession(() => sika.get('/api/v1/auth/me'), onSignedOut) });
  const steps = useQuery({ queryKey: ['onboarding', environment], queryFn: () => withSession(() => sika.get('/api/v1/onboarding/steps'), onSignedOut) });
  const { action: act, error } = useAction(onSignedOut, [['me'], ['onboarding']]);
  const [challengeId, setChallengeId] = useState<string | null>(null);
  const { language } = useContext(LanguageContext);
  if (!me.data || !steps.data || me.data.onboardingDismissed || (steps.data.completed ?? 0) >= (steps.data.total ?? 0)) return null;

  const confirm = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const code = String(new FormData(e.currentTarget).get('code')).trim();
    act.mutate(async () => {
      await sika.post('/api/v1/auth/verify-email', { body: { challengeId: challengeId!, code } });
      setChallengeId(null);
    });
  };
  return (
    <section aria-labelledby="onboarding" className="panel">
      <h2 id="onboarding">{t('title')}</h2>
      <p>{t('progress', { completed: steps.data.completed ?? 0, total: steps.data.total ?? 0 })}</p>
      <ErrorMessage text={error} />
      <ol className="checklist">
        {(steps.data.data ?? []).map((s) => {
          const step = STEPS[s.key as Step];
          const done = s.state === 'complete';
          return (
            <li key={s.key} className={done ? 'done' : undefined}>
              <strong>{t(done ? 'done' : 'todo')}:</strong> {step?.[language] ?? s.title}{' '}
              {!done && s.key === 'email_verified' ? (
                challengeId ? (
                  <form className="inline-form" onSubmit={confirm} aria-label={t('confirm')}>
                    <span role="status">{t('codeSent')}</span>
                    <label>
                      {t('code')}
                      <input name="code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" required />
                    </label>
                    <button type="submit" disabled={act.isPending}>
                      {t('confirm')}
                    </button>
                  </form>
                ) : (
                  <button type="button" className="secondary" disabled={act.isPending} onClick={() => act.mutate(async () => setChallengeId((await sika.post('/api/v1/auth/verify-email/challenge')).challengeId!))}>
                    {t('sendCode')}
                  </button>
                )
              ) : (
                !done &&
                step && (
                  <Link to={step.page} id={step.id} aria-label={`${t('open')}: ${step[language]}`}>
                    {t('open')}
                  </Link>
                )
              )}
            </li>
          );
        })}
      </ol>
      <button type="button" className="secondary" disabled={act.isPending} onClick={() => act.mutate(() => sika.patch('/api/v1/auth/onboarding', { body: { onboardingDismissed: true } }))}>
        {t('dismiss')}
      </button>
    </section>
  );
}
