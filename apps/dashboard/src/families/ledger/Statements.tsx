import { useQuery } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { Badge } from '../../shell/Badge.js';
import { CursorPager, ErrorMessage, errorText, QueryView, saveAsFile, Scrollable, useAction, useCursorPages } from '../../shell/components.js';
import { CurrencySelect } from '../../shell/countries.js';
import { DAY_MS, utcDay } from '../../shell/days.js';
import { formatAmount, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';
import { statementMessages } from './statements.messages.js';

type Statement = Answer<'get', '/api/v1/statements/{id}'>;

/** While a statement of the page is computed in the background, the list is asked again this often. */
const FOLLOW_MS = 2000;

/** The statement's days, as the merchant reads them: its first and last UTC day (the period ends at the start of the day after). */
const periodOf = (s: Statement) => `${utcDay(s.period_start * 1000)} – ${utcDay(s.period_end * 1000 - DAY_MS)}`;

/** The Reports page's statements: a new one (a currency, the last full month or from a day to a day), and the list with totals and files. */
export function Statements({ environment, onSignedOut }: PageProps) {
  const t = useMessages(statementMessages);
  const { language } = useContext(LanguageContext);
  const [period, setPeriod] = useState<'lastMonth' | 'days'>('lastMonth');
  // One Idempotency-Key per filled-in form: a double click makes one statement; a refusal lets the next try be new.
  const [formKey, setFormKey] = useState(() => crypto.randomUUID());
  const [fileError, setFileError] = useState<string | null>(null);
  const pages = useCursorPages(environment);
  const statements = useQuery({
    queryKey: ['statements', environment, pages.after],
    queryFn: () => withSession(() => sika.get('/api/v1/statements', { params: { query: { limit: 20, ...(pages.after ? { starting_after: pages.after } : {}) } } }), onSignedOut),
    refetchInterval: (q) => (q.state.data?.data.some((s) => s.status === 'pending') ? FOLLOW_MS : false),
  });
  const { action, error, failure } = useAction(onSignedOut, [['statements', environment]]);

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const body = { currency: text('currency').toLowerCase(), ...(period === 'days' ? { from: text('from'), to: text('to') } : {}) };
    action.mutate(() => sika.post('/api/v1/statements', { body, headers: { 'Idempotency-Key': formKey } }), {
      onSuccess: () => {
        setFormKey(crypto.randomUUID());
        pages.reset();
      },
      onError: () => setFormKey(crypto.randomUUID()),
    });
  };

  /** A file of the statement, fetched with the session (a plain link cannot carry the access token) and saved. */
  const download = async (s: Statement, kind: 'csv' | 'pdf') => {
    setFileError(null);
    try {
      const name = `statement-${s.currency}-${utcDay(s.period_start * 1000)}-${environment}.${kind}`;
      if (kind === 'csv') saveAsFile((await withSession(() => sika.get('/api/v1/statements/{id}/csv', { params: { path: { id: s.id } }, parseAs: 'text' }), onSignedOut)) as unknown as string, name);
      else saveAsFile((await withSession(() => sika.get('/api/v1/statements/{id}/pdf', { params: { path: { id: s.id }, query: { lang: language } }, parseAs: 'blob' }), onSignedOut)) as unknown as Blob, name, 'application/pdf');
    } catch (err) {
      setFileError(errorText(err, t('error.generic')));
    }
  };

  return (
    <section aria-labelledby="statements">
      <h2 id="statements">{t('statements')}</h2>
      <p>{t('statements.help')}</p>
      <ErrorMessage text={error} error={failure} />
      <form className="inline-form" onSubmit={submit} aria-label={t('new')}>
        <CurrencySelect label={t('currency')} name="currency" defaultValue="xof" onSignedOut={onSignedOut} />
        <label>
          {t('period')}
          <select value={period} onChange={(e) => setPeriod(e.target.value as typeof period)}>
            <option value="lastMonth">{t('period.lastMonth')}</option>
            <option value="days">{t('period.days')}</option>
          </select>
        </label>
        {period === 'days' && (
          <>
            <label>
              {t('from')}
              <input name="from" type="date" required aria-describedby="statement-limit" />
            </label>
            <label>
              {t('to')}
              <input name="to" type="date" required aria-describedby="statement-limit" />
            </label>
            <small id="statement-limit" className="help">
              {t('period.limit')}
            </small>
          </>
        )}
        <button type="submit" disabled={action.isPending}>
          {t('create')}
        </button>
      </form>
      <ErrorMessage text={fileError} />
      <QueryView query={statements} isEmpty={(l) => l.data.length === 0} empty={t('none')}>
        {(l) => (
          <>
            <Scrollable labelledBy="statements">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('period')}</th>
                    <th scope="col">{t('currency')}</th>
                    <th scope="col">{t('status')}</th>
                    <th scope="col">{t('opening')}</th>
                    <th scope="col">{t('change')}</th>
                    <th scope="col">{t('closing')}</th>
                    <th scope="col">{t('files')}</th>
                  </tr>
                </thead>
                <tbody>
                  {l.data.map((s) => {
                    const money = (minor: number | undefined) => (minor === undefined ? '—' : formatAmount(language, minor, s.currency));
                    const days = periodOf(s);
                    return (
                      <tr key={s.id}>
                        <th scope="row">{days}</th>
                        <td>{s.currency.toUpperCase()}</td>
                        <td>
                          <Badge status={s.status}>{t(`status.${s.status}`)}</Badge>
                        </td>
                        <td className="amount">{money(s.opening?.total)}</td>
                        <td className="amount">{money(s.opening && s.closing ? s.closing.total - s.opening.total : undefined)}</td>
                        <td className="amount">{money(s.closing?.total)}</td>
                        <td>
                          {s.status === 'ready' ? (
                            <span className="actions">
                              <button type="button" className="secondary" aria-label={t('csvOf', { period: days })} onClick={() => void download(s, 'csv')}>
                                {t('csv')}
                              </button>
                              <button type="button" className="secondary" aria-label={t('pdfOf', { period: days })} onClick={() => void download(s, 'pdf')}>
                                {t('pdf')}
                              </button>
                            </span>
                          ) : (
                            t('pending.help')
                          )}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </Scrollable>
            <CursorPager pages={pages} label={t('pages')} hasMore={l.has_more} lastId={l.data.at(-1)?.id} />
          </>
        )}
      </QueryView>
    </section>
  );
}
