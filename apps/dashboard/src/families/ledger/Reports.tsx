import { useQuery } from '@tanstack/react-query';
import { useContext, useState, type FormEvent } from 'react';
import { BalanceTable, balanceRows } from '../../shell/BalanceTable.js';
import { BalanceTransactionsTable } from '../../shell/BalanceTransactions.js';
import { CursorPager, ErrorMessage, errorText, QueryView, saveAsFile, Scrollable, useCursorPages } from '../../shell/components.js';
import { formatAmount, LanguageContext, useMessages } from '../../shell/i18n.js';
import { sika, withSession } from '../../shell/session.js';
import { DAY_MS, dayStartMs, lastDays, utcDay } from '../../shell/days.js';
import type { PageProps } from '../../shell/props.js';
import { Statements } from './Statements.js';
import { reportMessages } from './reports.messages.js';

const TYPES = ['payment', 'payout', 'payout_failure', 'refund', 'escrow_funding', 'escrow_release', 'escrow_refund', 'funding_release'] as const;
type TransactionType = (typeof TYPES)[number];
/** Unix seconds of a UTC day's start. */
const dayStart = (day: string) => dayStartMs(day) / 1000;

/** For finance: the balance at a chosen moment, balance transactions filtered (and as CSV), a payout's reconciliation, daily summaries, and statements. */
export function Reports(props: PageProps) {
  const t = useMessages(reportMessages);
  return (
    <main className="page">
      <h1>{t('nav.reports')}</h1>
      {/* Keyed by environment: an id typed for one environment means nothing in the other. */}
      <BalanceAt key={`balance ${props.environment}`} {...props} />
      <Transactions key={`transactions ${props.environment}`} {...props} />
      <DailySummaries {...props} />
      <Statements key={`statements ${props.environment}`} {...props} />
    </main>
  );
}

function BalanceAt({ environment, onSignedOut }: PageProps) {
  const t = useMessages(reportMessages);
  const [asOf, setAsOf] = useState<number | null>(null);
  const balance = useQuery({
    queryKey: ['balance', environment, asOf],
    queryFn: () => withSession(() => sika.get('/api/v1/balance', { params: { query: { as_of: asOf! } } }), onSignedOut),
    enabled: asOf !== null,
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const moment = String(new FormData(e.currentTarget).get('moment'));
    // datetime-local is the browser's local time, which Date reads as such.
    setAsOf(Math.floor(new Date(moment).getTime() / 1000));
  };
  const rows = balanceRows(balance.data);
  return (
    <section aria-labelledby="balance-at">
      <h2 id="balance-at">{t('balanceAt')}</h2>
      <p>{t('balanceAt.help')}</p>
      <form className="inline-form" onSubmit={submit} aria-label={t('balanceAt')}>
        <label>
          {t('balanceAt.moment')}
          <input name="moment" type="datetime-local" step="1" required />
        </label>
        <button type="submit">{t('balanceAt.show')}</button>
      </form>
      {asOf !== null && (
        <QueryView query={balance} isEmpty={() => rows.length === 0} empty={t('balanceAt.none')}>
          {() => <BalanceTable rows={rows} labelledBy="balance-at" />}
        </QueryView>
      )}
    </section>
  );
}

interface TransactionFilters {
  type?: TransactionType;
  payout?: string;
  'created[gte]'?: number;
  'created[lt]'?: number;
}

function Transactions({ environment, onSignedOut }: PageProps) {
  const t = useMessages(reportMessages);
  const [filters, setFilters] = useState<TransactionFilters>({});
  const pages = useCursorPages(environment);
  const [download, setDownload] = useState<'idle' | 'busy'>('idle');
  const [error, setError] = useState<string | null>(null);
  const after = pages.after;
  const list = useQuery({
    queryKey: ['balance-transactions', environment, filters, after],
    queryFn: async () => {
      const answer = await withSession(() => sika.get('/api/v1/balance-transactions', { params: { query: { limit: 20, ...filters, ...(after ? { starting_after: after } : {}) } } }), onSignedOut);
      return typeof answer === 'string' ? { data: [], has_more: false } : { data: answer.data ?? [], has_more: answer.has_more ?? false };
    },
  });

  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim();
    const next: TransactionFilters = {};
    if (text('type')) next.type = text('type') as TransactionType;
    if (text('payout')) next.payout = text('payout');
    if (text('from')) next['created[gte]'] = dayStart(text('from'));
    if (text('to')) next['created[lt]'] = dayStart(text('to')) + DAY_MS / 1000;
    setFilters(next);
    pages.reset();
  };

  /** Every match (not only this page) as the API's CSV, saved by the browser. */
  const downloadCsv = async () => {
    setDownload('busy');
    setError(null);
    try {
      const csv = await withSession(() => sika.get('/api/v1/balance-transactions', { params: { query: filters }, headers: { Accept: 'text/csv' }, parseAs: 'text' }), onSignedOut);
      saveAsFile(csv as unknown as string, `balance-transactions-${environment}-${utcDay(Date.now())}.csv`);
    } catch (err) {
      setError(errorText(err, t('error.generic')));
    } finally {
      setDownload('idle');
    }
  };

  return (
    <section aria-labelledby="transactions">
      <h2 id="transactions">{t('transactions')}</h2>
      <p>{t('transactions.help')}</p>
      <form className="inline-form" onSubmit={submit} aria-label={t('transactions')}>
        <label>
          {t('type')}
          <select name="type" defaultValue="">
            <option value="">{t('type.all')}</option>
            {TYPES.map((type) => (
              <option key={type} value={type}>
                {type.replaceAll('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('from')}
          <input name="from" type="date" />
        </label>
        <label>
          {t('to')}
          <input name="to" type="date" />
        </label>
        <label>
          {t('payout')}
          <input name="payout" pattern="po_\w+" aria-describedby="payout-help" autoComplete="off" />
          <small id="payout-help">{t('payout.help')}</small>
        </label>
        <button type="submit">{t('filter')}</button>
        <button type="button" className="secondary" disabled={download === 'busy'} onClick={() => void downloadCsv()}>
          {download === 'busy' ? t('downloading') : t('download')}
        </button>
      </form>
      <ErrorMessage text={error} />
      <QueryView query={list} isEmpty={(l) => l.data.length === 0} empty={t('none')}>
        {(l) => (
          <>
            {filters.payout && <p role="status">{t('settled', { payout: filters.payout, count: l.data.length })}</p>}
            <BalanceTransactionsTable transactions={l.data} labelledBy="transactions" showStatus />
            <CursorPager pages={pages} label={t('pages')} hasMore={l.has_more ?? false} lastId={l.data.at(-1)?.id} />
          </>
        )}
      </QueryView>
    </section>
  );
}

function DailySummaries({ environment, onSignedOut }: PageProps) {
  const t = useMessages(reportMessages);
  const { language } = useContext(LanguageContext);
  const [range, setRange] = useState(() => lastDays(7));
  const summaries = useQuery({
    queryKey: ['balance-summaries', environment, range.from, range.to],
    queryFn: () => withSession(() => sika.get('/api/v1/balance/summaries', { params: { query: range } }), onSignedOut),
  });
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    setRange({ from: String(form.get('from')), to: String(form.get('to')) });
  };
  return (
    <section aria-labelledby="summaries">
      <h2 id="summaries">{t('summaries')}</h2>
      <p>{t('summaries.help')}</p>
      <form className="inline-form" onSubmit={submit} aria-label={t('summaries')}>
        <label>
          {t('from')}
          <input name="from" type="date" defaultValue={range.from} required />
        </label>
        <label>
          {t('to')}
          <input name="to" type="date" defaultValue={range.to} required />
        </label>
        <button type="submit">{t('filter')}</button>
      </form>
      <QueryView query={summaries} isEmpty={(s) => !s.data?.length} empty={t('summaries.none')}>
        {(s) => (
          <Scrollable labelledBy="summaries">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('day')}</th>
                  <th scope="col">{t('balance.currency')}</th>
                  <th scope="col">{t('opening')}</th>
                  <th scope="col">{t('in')}</th>
                  <th scope="col">{t('out')}</th>
                  <th scope="col">{t('fees')}</th>
                  <th scope="col">{t('closing')}</th>
                  <th scope="col">{t('addsUp')}</th>
                </tr>
              </thead>
              <tbody>
                {(s.data ?? []).map((d) => {
                  const money = (minor: number | undefined) => formatAmount(language, minor ?? 0, d.currency!);
                  // Checked here, not taken on trust: the identity the auditors rely on.
                  const addsUp = (d.opening ?? 0) + (d.in ?? 0) - (d.out ?? 0) - (d.fees ?? 0) === d.closing;
                  return (
                    <tr key={`${d.currency} ${d.date}`}>
                      <th scope="row">{d.date}</th>
                      <td>{d.currency!.toUpperCase()}</td>
                      <td className="amount">{money(d.opening)}</td>
                      <td className="amount">{money(d.in)}</td>
                      <td className="amount">{money(d.out)}</td>
                      <td className="amount">{money(d.fees)}</td>
                      <td className="amount">{money(d.closing)}</td>
                      <td>{addsUp ? `✓ ${t('addsUp.yes')}` : `✗ ${t('addsUp.no')}`}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </Scrollable>
        )}
      </QueryView>
    </section>
  );
}
