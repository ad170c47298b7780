import { useState, type FormEvent } from 'react';
import { SikaError } from '../../../../../clients/typescript/src/index.js';
import { useOperatorAction } from '../components.js';
import { api } from '../session.js';
import { useConsoleT } from '../words.js';
import { REQUESTABLE_FIELDS, type RequestableField } from './fields.js';
import type { ReviewedApplication } from './statuses.js';
import { decideMessages } from './decide.messages.js';

type Decision = 'approved' | 'rejected' | 'information_requested';

type Step = 'choose' | 'approve' | 'reject' | 'request';

/** A step's container takes the focus as it opens, so the keyboard and a screen reader continue from there, not from the button it replaced. */
const focusOnOpen = (element: HTMLElement | null) => element?.focus();

/**
 * A reviewer's (or an admin's) decisions on the application, those its status allows: approve
 * after a confirmation, reject with the reason the merchant reads, or ask for named fields again,
 * each with a message. The API's refusal (another reviewer decided meanwhile: IKW-ACT-004) is said
 * in its words; the page then shows the status as it now is.
 */
export function Decide({ merchantId, application, onSignedOut }: { merchantId: string; application: ReviewedApplication; onSignedOut: () => void }) {
  const t = useConsoleT(decideMessages);
  const { action, error, setError } = useOperatorAction(onSignedOut, [['operator-application', merchantId], ['operator-applications']]);
  const [step, setStep] = useState<Step>('choose');
  const [done, setDone] = useState<Decision | null>(null);
  const [reason, setReason] = useState('');
  // The fields picked, each with its message, in the order picked.
  const [asked, setAsked] = useState<{ field: RequestableField; message: string }[]>([]);
  const underReview = application.status === 'under_review';
  const rejectable = underReview || application.status === 'information_requested';
  const path = { params: { path: { merchantId } } };
  // The submission this page shows: a decision after the merchant submitted again is refused (IKW-ACT-004), not made on details unread.
  const submission = application.submissions;

  const decide = (decision: Decision, work: () => Promise<unknown>) =>
    action.mutate(work, {
      onSuccess: () => {
        setDone(decision);
        setStep('choose');
        setReason('');
        setAsked([]);
      },
      // The status changed under the page (another operator decided): the buttons it allows now, over a stale step.
      onError: (err) => {
        if (err instanceof SikaError && err.code === 'IKW-ACT-004') setStep('choose');
      },
    });
  const open = (next: Step) => {
    setError(null);
    setDone(null);
    setStep(next);
  };
  const reject = (e: FormEvent) => {
    e.preventDefault();
    if (!reason.trim()) return setError(t('decide.reject.empty'));
    decide('rejected', () => api.post('/api/v1/operator/applications/{merchantId}/reject', { ...path, body: { reason: reason.trim(), submission } }));
  };
  const request = (e: FormEvent) => {
    e.preventDefault();
    const fields = asked.map((a) => ({ field: a.field, message: a.message.trim() }));
    if (fields.length === 0 || fields.some((f) => !f.message)) return setError(t('decide.request.none'));
    decide('information_requested', () => api.post('/api/v1/operator/applications/{merchantId}/request-information', { ...path, body: { fields, submission } }));
  };
  const toggle = (field: RequestableField, on: boolean) => setAsked(on ? [...asked, { field, message: '' }] : asked.filter((a) => a.field !== field));
  const write = (field: RequestableField, message: string) => setAsked(asked.map((a) => (a.field === field ? { field, message } : a)));
  const cancel = (
    <button type="button" className="secondary" onClick={() => open('choose')}>
      {t('decide.cancel')}
    </button>
  );

  return (
    <section className="panel" aria-labelledby="application-decide">
      <h2 id="application-decide">{t('decide.title')}</h2>
      <p role="status" className="decision-done">
        {done ? t(`decide.done.${done}`) : ''}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!rejectable ? (
        <p>{t('decide.nothing')}</p>
      ) : step === 'approve' ? (
        <div ref={focusOnOpen} tabIndex={-1}>
          <p>{t('decide.approve.confirm', { name: application.legalName ?? application.merchantName ?? merchantId })}</p>
          <div className="actions">
            <button type="button" disabled={action.isPending} onClick={() => decide('approved', () => api.post('/api/v1/operator/applications/{merchantId}/approve', { ...path, body: { submission } }))}>
              {t('decide.approve.yes')}
            </button>
            {cancel}
          </div>
        </div>
      ) : step === 'reject' ? (
        <form onSubmit={reject} noValidate ref={focusOnOpen} tabIndex={-1}>
          <label>
            {t('decide.reject.reason')}
            <textarea name="reason" rows={3} maxLength={1000} required value={reason} onChange={(e) => setReason(e.target.value)} aria-describedby="reject-help" />
          </label>
          <p id="reject-help" className="help">
            {t('decide.reject.help')}
          </p>
          <div className="actions">
            <button type="submit" className="danger" disabled={action.isPending}>
              {t('decide.reject.submit')}
            </button>
            {cancel}
          </div>
        </form>
      ) : step === 'request' ? (
        <form onSubmit={request} noValidate ref={focusOnOpen} tabIndex={-1}>
          <fieldset className="requested-fields" aria-describedby="request-help">
            <legend>{t('decide.request.fields')}</legend>
            <p id="request-help" className="help">
              {t('decide.request.help')}
            </p>
            {REQUESTABLE_FIELDS.map((field) => {
              const picked = asked.find((a) => a.field === field);
              return (
                <div key={field} className="requested-field">
                  <label className="check">
                    <input type="checkbox" checked={picked !== undefined} onChange={(e) => toggle(field, e.target.checked)} />
                    {t(`field.${field}`)}
                  </label>
                  {picked && (
                    <label>
                      {t('decide.request.message', { field: t(`field.${field}`) })}
                      <textarea rows={2} maxLength={500} required value={picked.message} onChange={(e) => write(field, e.target.value)} />
                    </label>
                  )}
                </div>
              );
            })}
          </fieldset>
          <div className="actions">
            <button type="submit" disabled={action.isPending}>
              {t('decide.request.submit')}
            </button>
            {cancel}
          </div>
        </form>
      ) : (
        <div className="actions">
          {underReview && (
            <button type="button" onClick={() => open('approve')}>
              {t('decide.approve')}
            </button>
          )}
          {underReview && (
            <button type="button" className="secondary" onClick={() => open('request')}>
              {t('decide.request')}
            </button>
          )}
          <button type="button" className="danger" onClick={() => open('reject')}>
            {t('decide.reject')}
          </button>
        </div>
      )}
    </section>
  );
}
