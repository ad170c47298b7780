import { useQuery } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { Badge } from '../../shell/Badge.js';
import { ErrorMessage, isNotFound, Link, NotFound, ObjectHeading, QueryView, retryUnlessNotFound, useAction, useCanWrite } from '../../shell/components.js';
import { formatAmount, formatWhen, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { disputeMessages as messages } from './disputes.messages.js';
import { reasonWords } from './Disputes.js';
import type { PageProps } from '../../shell/props.js';

type DisputeObject = Answer<'get', '/api/v1/disputes/{id}'>;
type Evidence = NonNullable<DisputeObject['evidence']>;

const CLOSED = ['won', 'lost', 'accepted'];

/** One dispute: its facts, the evidence sent, and while it awaits the merchant the evidence form and Accept. */
export function Dispute({ environment, onSignedOut, id }: PageProps) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  const disputeId = id ?? '';
  const canWrite = useCanWrite('payment_intents.write', environment, onSignedOut);
  const [said, setSaid] = useState<'submitted' | 'accepted' | null>(null);
  const dispute = useQuery({
    queryKey: ['disputes', environment, 'one', disputeId],
    queryFn: () => withSession(() => sika.get('/api/v1/disputes/{id}', { params: { path: { id: disputeId } } }), onSignedOut),
    retry: retryUnlessNotFound,
  });
  const { action, error, failure } = useAction(onSignedOut, [
    ['disputes', environment],
    ['balance', environment],
  ]);
  // One Idempotency-Key per answer the merchant gives: a double click sends it once; a refusal lets the next try be new.
  const [answerKey, setAnswerKey] = useState(() => crypto.randomUUID());
  const answered = (what: 'submitted' | 'accepted') => ({ onSuccess: () => setSaid(what), onError: () => setAnswerKey(crypto.randomUUID()) });

  if (dispute.isError && isNotFound(dispute.error)) return <NotFound title={t('dispute')} message={t('notFound')} back="disputes" backLabel={t('back')} />;
  return (
    <main className="page">
      <p>
        <Link to="disputes">{t('back')}</Link>
      </p>
      <QueryView query={dispute}>
        {(d) => {
          const amount = formatAmount(language, d.amount, d.currency);
          const late = d.evidence_due_by !== null && Date.parse(d.evidence_due_by) <= Date.now();
          const closed = CLOSED.includes(d.status);
          return (
            <>
              <ObjectHeading name={`${reasonWords(d.reason)} · ${amount}`} id={d.id} />
              {said && (
                <p role="status" className="notice">
                  {t(said)}
                </p>
              )}
              <section aria-labelledby="dispute-facts">
                <h2 id="dispute-facts">{t('facts')}</h2>
                <dl className="facts">
                  <dt>{t('status')}</dt>
                  <dd>
                    <Badge status={d.status}>{t(`status.${d.status}`)}</Badge>
                  </dd>
                  <dt>{t('reason')}</dt>
                  <dd>{reasonWords(d.reason)}</dd>
                  <dt>{t('amount')}</dt>
                  <dd>{amount}</dd>
                  <dt>{t('payment')}</dt>
                  <dd>
                    <Link to="payment" id={d.payment_intent}>
                      <code>{d.payment_intent}</code>
                    </Link>
                  </dd>
                  <dt>{t('dueBy')}</dt>
                  <dd>{d.evidence_due_by ? formatWhen(language, d.evidence_due_by) : t('dueBy.none')}</dd>
                  <dt>{t('created')}</dt>
                  <dd>{formatWhen(language, d.created)}</dd>
                  {d.closed_at && (
                    <>
                      <dt>{t('closed')}</dt>
                      <dd>{formatWhen(language, d.closed_at)}</dd>
                    </>
                  )}
                </dl>
              </section>

              <section aria-labelledby="dispute-evidence">
                <h2 id="dispute-evidence">{t('evidence')}</h2>
                {d.evidence ? <EvidenceSent evidence={d.evidence} /> : <p>{t('evidence.none')}</p>}
              </section>

              <ErrorMessage text={error} error={failure} />
              {canWrite && d.status === 'needs_response' && (
                <section aria-labelledby="dispute-answer">
                  <h2 id="dispute-answer">{t('answer')}</h2>
                  <p>{t('answer.help')}</p>
                  {late ? (
                    <p>{t('answer.late')}</p>
                  ) : (
                    <EvidenceForm
                      {...{ environment, onSignedOut }}
                      busy={action.isPending}
                      onSubmit={(body) => action.mutate(() => sika.post('/api/v1/disputes/{id}/evidence', { params: { path: { id: d.id } }, body, headers: { 'Idempotency-Key': answerKey } }), answered('submitted'))}
                    />
                  )}
                </section>
              )}
              {canWrite && !closed && (
                <section aria-labelledby="dispute-accept">
                  <h2 id="dispute-accept">{t('accept')}</h2>
                  <p>{t('accept.help')}</p>
                  <button
                    type="button"
                    className="danger"
                    disabled={action.isPending}
                    onClick={() =>
                      window.confirm(t('accept.confirm', { amount })) &&
                      action.mutate(() => sika.post('/api/v1/disputes/{id}/accept', { params: { path: { id: d.id } }, body: {}, headers: { 'Idempotency-Key': answerKey } }), answered('accepted'))
                    }
                  >
                    {t('accept')}
                  </button>
                </section>
              )}
            </>
          );
        }}
      </QueryView>
    </main>
  );
}

/** The evidence as it was sent, in the fields' names of the form. */
function EvidenceSent({ evidence }: { evidence: Evidence }) {
  const t = useMessages(messages);
  const { language } = useContext(LanguageContext);
  return (
    <dl className="facts">
      <dt>{t('evidence.submittedAt')}</dt>
      <dd>{formatWhen(language, evidence.submitted_at)}</dd>
      <dt>{t('customerEmail')}</dt>
      <dd>{evidence.customer_email}</dd>
      <dt>{t('customerName')}</dt>
      <dd>{evidence.customer_name}</dd>
      <dt>{t('customerPhone')}</dt>
      <dd>{evidence.customer_phone}</dd>
      <dt>{t('serviceDetails')}</dt>
      <dd>{evidence.service_details}</dd>
      <dt>{t('deliveryAddress')}</dt>
      <dd>{evidence.delivery_address ?? '—'}</dd>
      <dt>{t('deliveryDate')}</dt>
      <dd>{evidence.delivery_date ? formatWhen(language, evidence.delivery_date, 'utcDate') : '—'}</dd>
      <dt>{t('evidence.files')}</dt>
      <dd>{evidence.files.length ? evidence.files.map((f) => <code key={f}>{f} </code>) : t('evidence.noFiles')}</dd>
    </dl>
  );
}

type EvidenceBody = { customer_email: string; customer_name: string; customer_phone: string; service_details: string; delivery_address?: string; delivery_date?: string; files?: string[] };

/** The evidence form: the payer, what was delivered, and files among the merchant's ready assets. */
function EvidenceForm({ environment, onSignedOut, busy, onSubmit }: Pick<PageProps, 'environment' | 'onSignedOut'> & { busy: boolean; onSubmit: (body: EvidenceBody) => void }) {
  const t = useMessages(messages);
  const assets = useQuery({
    queryKey: ['assets', environment, 'ready'],
    queryFn: () => withSession(() => sika.get('/api/v1/assets', { params: { query: { limit: 100 } } }), onSignedOut),
  });
  const ready = (assets.data?.data ?? []).filter((a) => a.status === 'ready');
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const files = form.getAll('files').map(String);
    onSubmit({
      customer_email: text('email'),
      customer_name: text('name'),
      customer_phone: text('phone'),
      service_details: text('details'),
      ...(text('address') ? { delivery_address: text('address') } : {}),
      ...(text('date') ? { delivery_date: text('date') } : {}),
      ...(files.length ? { files } : {}),
    });
  };
  return (
    <form className="inline-form" aria-label={t('answer')} onSubmit={submit}>
      <label>
        {t('customerEmail')}
        <input name="email" type="email" autoComplete="off" required />
      </label>
      <label>
        {t('customerName')}
        <input name="name" autoComplete="off" required />
      </label>
      <label>
        {t('customerPhone')}
        <input name="phone" type="tel" autoComplete="off" required />
      </label>
      <label className="wide">
        {t('serviceDetails')}
        <textarea name="details" rows={3} required />
      </label>
      <label>
        {t('deliveryAddress')} {t('optional')}
        <input name="address" autoComplete="off" />
      </label>
      <label>
        {t('deliveryDate')} {t('optional')}
        <input name="date" type="date" />
      </label>
      <fieldset>
        <legend>
          {t('files')} {t('optional')}
        </legend>
        <p className="help">{t('files.help')}</p>
        {assets.isSuccess && ready.length === 0 && <p>{t('files.none')}</p>}
        {ready.map((a) => (
          <label key={a.id} className="check">
            <input type="checkbox" name="files" value={a.id} /> {a.name}
          </label>
        ))}
      </fieldset>
      <button type="submit" disabled={busy}>
        {t('submit')}
      </button>
    </form>
  );
}
