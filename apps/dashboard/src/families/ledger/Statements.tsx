import { useQuery } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import type { Answer } from '../../../../../clients/typescript/src/index.js';
import { Badge } from '../../shell/Badge.js';
import { CursorPager, ErrorMessage, errorText, QueryView, saveAsFile, Scrollable, useAction, useCursorPages } from '../../shell/components.js';
import { CurrencySelect } from '../../shell/countries.js';
import { DAY_MS, utcDay } from '../../shell/days.js';
import { formatAmount, LanguageContext, useMessages, type Messages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import type { PageProps } from '../../shell/props.js';

const messages: Messages<
  | 'statements'
  | 'statements.help'
  | 'new'
  | 'currency'
  | 'period'
  | 'period.lastMonth'
  | 'period.days'
  | 'from'
  | 'to'
  | 'period.limit'
  | 'create'
  | 'none'
  | 'pages'
  | 'status'
  | 'status.pending'
  | 'status.ready'
  | 'opening'
  | 'closing'
  | 'change'
  | 'files'
  | 'csv'
  | 'pdf'
  | 'csvOf'
  | 'pdfOf'
  | 'pending.help'
> = {
  en: {
    statements: 'Statements',
    'statements.help': 'A statement of one currency over a period of whole UTC days: the balances at its start and end, and what each kind of movement did between them, for your accountant. A period over 92 days is computed in the background.',
    new: 'New statement',
    currency: 'Currency',
    period: 'Period',
    'period.lastMonth': 'The last full month',
    'period.days': 'From a day to a day',
    from: 'From (UTC day)',
    to: 'To (UTC day, included)',
    'period.limit': 'At most a year, ending yesterday or before.',
    create: 'Create the statement',
    none: 'No statement in this environment yet.',
    pages: 'Pages of statements',
    status: 'Status',
    'status.pending': 'Being computed',
    'status.ready': 'Ready',
    opening: 'Opening balance',
    closing: 'Closing balance',
    change: 'Change',
    files: 'Files',
    csv: 'CSV',
    pdf: 'PDF',
    csvOf: 'Download the CSV of the statement {period}',
    pdfOf: 'Download the PDF of the statement {period}',
    'pending.help': 'Its files can be downloaded once it is ready.',
  },
  fr: {
    statements: 'Relevés',
    'statements.help': 'Un relevé d’une devise sur une période de jours UTC entiers : les soldes au début et à la fin, et ce que chaque type de mouvement a fait entre les deux, pour votre comptable. Une période de plus de 92 jours est calculée en arrière-plan.',
    new: 'Nouveau relevé',
    currency: 'Devise',
    period: 'Période',
    'period.lastMonth': 'Le dernier mois complet',
    'period.days': 'D’un jour à un autre',
    from: 'Du (jour UTC)',
    to: 'Au (jour UTC, inclus)',
    'period.limit': 'Un an au plus, finissant hier ou avant.',
    create: 'Créer le relevé',
    none: 'Aucun relevé dans cet environnement pour le moment.',
    pages: 'Pages de relevés',
    status: 'Statut',
    'status.pending': 'En cours de calcul',
    'status.ready': 'Prêt',
    opening: 'Solde d’ouverture',
    closing: 'Solde de clôture',
    change: 'Variation',
    files: 'Fichiers',
    csv: 'CSV',
    pdf: 'PDF',
    csvOf: 'Télécharger le CSV du relevé {period}',
    pdfOf: 'Télécharger le PDF du relevé {period}',
    'pending.help': 'Ses fichiers se téléchargent une fois qu’il est prêt.',
  },
};

type Statement = Answer<'get', '/api/v1/statements/{id}'>;

/** While a statement of the page is computed in the background, the list is asked again this often. */
const FOLLOW_MS = 2000;

/** The statement's days, as the merchant reads them: its first and last UTC day (the period ends at the start of the day after). */
const periodOf = (s: Statement) => `${utcDay(s.period_start * 1000)} – ${utcDay(s.period_end * 1000 - DAY_MS)}`;

/** The Reports page's statements: a new one (a currency, the last full month or from a day to a day), and the list with totals and files. */
export function Statements({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
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
