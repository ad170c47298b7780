import { useState, type FormEvent } from 'react';
import { SikaError } from '../../../../../clients/typescript/src/index.js';
import type { Messages } from '../../../src/shell/i18n.js';
import { useOperatorAction } from '../components.js';
import { api } from '../session.js';
import { useConsoleT } from '../words.js';
import { FIELD_WORDS, REQUESTABLE_FIELDS, type RequestableField } from './fields.js';
import type { ReviewedApplication } from './statuses.js';

const WORDS = {
  en: {
    ...FIELD_WORDS.en,
    'decide.title': 'Decide',
    'decide.nothing': 'There is no decision to make on an application with this status.',
    'decide.approve': 'Approve',
    'decide.reject': 'Reject',
    'decide.request': 'Request information',
    'decide.cancel': 'Cancel',
    'decide.approve.confirm': 'Approve the application of {name}? Its live environment opens at once and the merchant is e-mailed.',
    'decide.approve.yes': 'Yes, approve',
    'decide.reject.reason': 'Reason, which the merchant reads',
    'decide.reject.help': 'Final: the merchant cannot apply again. When something can be fixed, request information instead.',
    'decide.reject.submit': 'Reject the application',
    'decide.reject.empty': 'Give the reason the merchant will read.',
    'decide.request.fields': 'What the merchant must give again',
    'decide.request.message': 'Message about: {field}',
    'decide.request.help': 'Pick each field to correct and say what is wrong: the merchant reads each message beside its field, corrects them and submits again.',
    'decide.request.submit': 'Send the request',
    'decide.request.none': 'Pick at least one field, with a message for each.',
    'decide.done.approved': 'Approved: the merchant’s live environment is open.',
    'decide.done.rejected': 'Rejected: the merchant is told the reason.',
    'decide.done.information_requested': 'Information requested: the merchant is told what to give again.',
  },
  fr: {
    ...FIELD_WORDS.fr,
    'decide.title': 'Décider',
    'decide.nothing': 'Il n’y a pas de décision à prendre sur une demande de ce statut.',
    'decide.approve': 'Approuver',
    'decide.reject': 'Refuser',
    'decide.request': 'Demander des informations',
    'decide.cancel': 'Annuler',
    'decide.approve.confirm': 'Approuver la demande de {name} ? Sa production s’ouvre aussitôt et le marchand est prévenu par e-mail.',
    'decide.approve.yes': 'Oui, approuver',
    'decide.reject.reason': 'Motif, que le marchand lira',
    'decide.reject.help': 'Définitif : le marchand ne peut pas refaire de demande. Si quelque chose peut être corrigé, demandez plutôt des informations.',
    'decide.reject.submit': 'Refuser la demande',
    'decide.reject.empty': 'Donnez le motif que le marchand lira.',
    'decide.request.fields': 'Ce que le marchand doit donner à nouveau',
    'decide.request.message': 'Message sur : {field}',
    'decide.request.help': 'Cochez chaque champ à corriger et dites ce qui ne va pas : le marchand lit chaque message à côté de son champ, corrige et envoie à nouveau.',
    'decide.request.submit': 'Envoyer la demande',
    'decide.request.none': 'Cochez au moins un champ, avec un message pour chacun.',
    'decide.done.approved': 'Approuvée : la production du marchand est ouverte.',
    'decide.done.rejected': 'Refusée : le marchand est informé du motif.',
    'decide.done.information_requested': 'Informations demandées : le marchand est informé de ce qu’il doit donner à nouveau.',
  },
} satisfies Messages<string>;

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
  const t = useConsoleT(WORDS);
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
