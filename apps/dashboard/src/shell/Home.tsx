import { useQuery } from '@tanstack/react-query';
import { useContext, useMemo, useState } from 'react';
import { BalanceTable, balanceRows, useBalance } from './BalanceTable.js';
import { BalanceTransactionsTable } from './BalanceTransactions.js';
import { QueryView } from './components.js';
import { useCatalogNames } from './countries.js';
import { formatAmount, LanguageContext, useMessages } from './i18n.js';
import { MoneyChart, type DayOfMoney } from './Chart.js';
import { sika, withSession } from './session.js';
import { lastDays } from './days.js';
import { Onboarding } from './Onboarding.js';
import { ActivationCard } from './activation.js';
import type { DashboardFamily } from './family.js';
import type { PageProps } from './props.js';
import { homeMessages } from './home.messages.js';

/** The environment's balances, the last 30 days of money in and out, and the latest balance transactions. */
export function Home({ environment, onSignedOut }: PageProps) {
  const t = useMessages(homeMessages);
  const balance = useBalance(environment, onSignedOut);
  const rows = balanceRows(balance.data);

  return (
    <main className="page">
      <h1>{t('title')}</h1>
      <ActivationCard onSignedOut={onSignedOut} />
      <Onboarding environment={environment} onSignedOut={onSignedOut} />
      <section aria-labelledby="balances">
        <h2 id="balances">{t('balances')}</h2>
        <QueryView query={balance} isEmpty={() => rows.length === 0} empty={t('empty')}>
          {() => <BalanceTable rows={rows} labelledBy="balances" />}
        </QueryView>
      </section>
      <LastThirtyDays environment={environment} onSignedOut={onSignedOut} />
      <RecentActivity environment={environment} onSignedOut={onSignedOut} />
    </main>
  );
}

/** Payments in and payouts out per day (GET /api/v1/balance/summaries), one currency at a time. */
function LastThirtyDays({ environment, onSignedOut }: PageProps) {
  const t = useMessages(homeMessages);
  const { language } = useContext(LanguageContext);
  const [chosen, setChosen] = useState<string | null>(null);
  const range = useMemo(() => lastDays(30), []);
  const summaries = useQuery({
    queryKey: ['balance-summaries', environment, range.from, range.to],
    queryFn: () => withSession(() => sika.get('/api/v1/balance/summaries', { params: { query: range } }), onSignedOut),
  });
  // Kept while the answer is the same, so the chart is drawn again only when its figures change.
  const byCurrency = useMemo(() => {
    const map = new Map<string, (DayOfMoney & { fees: number })[]>();
    for (const s of summaries.data?.data ?? []) {
      const days = map.get(s.currency!) ?? map.set(s.currency!, []).get(s.currency!)!;
      days.push({ date: s.date!, in: s.in ?? 0, out: s.out ?? 0, fees: s.fees ?? 0 });
    }
    return map;
  }, [summaries.data]);
  // The currency picked, else the one that moved most.
  const moved = (days: DayOfMoney[]) => days.reduce((sum, d) => sum + d.in + d.out, 0);
  const currencies = [...byCurrency.keys()].sort((a, b) => moved(byCurrency.get(b)!) - moved(byCurrency.get(a)!));
  const currency = chosen && byCurrency.has(chosen) ? chosen : currencies[0];
  const days = currency ? byCurrency.get(currency)! : [];
  const total = (field: 'in' | 'out' | 'fees') => days.reduce((sum, d) => sum + d[field], 0);
  const money = (minor: number) => formatAmount(language, minor, currency ?? 'XOF');

  return (
    <section aria-labelledby="thirty-days">
      <h2 id="thirty-days">{t('chart.title')}</h2>
      <QueryView query={summaries} isEmpty={() => !currency || moved(days) === 0} empty={t('chart.quiet')}>
        {() => (
          <>
            {currencies.length > 1 && (
              <label className="inline">
                {t('balance.currency')}
                <select value={currency} onChange={(e) => setChosen(e.target.value)}>
                  {currencies.map((c) => (
                    <option key={c} value={c}>
                      {c.toUpperCase()}
                    </option>
                  ))}
                </select>
              </label>
            )}
            <dl className="facts totals">
              <dt>{t('chart.in')}</dt>
              <dd>{money(total('in'))}</dd>
              <dt>{t('chart.out')}</dt>
              <dd>{money(total('out'))}</dd>
              <dt>{t('chart.fees')}</dt>
              <dd>{money(total('fees'))}</dd>
            </dl>
            <MoneyChart
              days={days}
              currency={currency!}
              seriesNames={{ day: t('chart.day'), in: t('chart.in'), out: t('chart.out'), fees: t('chart.fees') }}
              label={t('chart.label', { currency: currency!.toUpperCase(), in: money(total('in')), out: money(total('out')) })}
            />
          </>
        )}
      </QueryView>
    </section>
  );
}

/**
 * The latest ten balance transactions, each named by what the merchant knows it by (a payment's
 * description, else how its payer paid; a payout's recipient) and linking to it. The names come
 * from the latest payments and payouts, asked beside: a transaction of an older one shows its id.
 */
function RecentActivity({ environment, onSignedOut }: PageProps) {
  const t = useMessages(homeMessages);
  const names = useCatalogNames(onSignedOut);
  const recent = useQuery({
    queryKey: ['balance-transactions', environment, 'recent'],
    queryFn: async () => {
      const [list, payments, payouts] = await Promise.all([
        withSession(() => sika.get('/api/v1/balance-transactions', { params: { query: { limit: 10 } } }), onSignedOut),
        withSession(() => sika.get('/api/v1/payment-intents', { params: { query: { limit: 20 } } }), onSignedOut),
        withSession(() => sika.get('/api/v1/merchant/payouts', { params: { query: { limit: 20 } } }), onSignedOut),
      ]);
      // The routes also answer CSV, which these requests do not ask for.
      const subjects = new Map<string, Subject>();
      for (const p of typeof payments === 'string' ? [] : (payments.data ?? [])) subjects.set(p.id, { kind: 'payment', description: p.description ?? null, method: p.payment_method as PaymentSubject['method'] });
      for (const p of typeof payouts === 'string' ? [] : (payouts.data ?? [])) subjects.set(p.id, { kind: 'payout', destination: p.destination as PayoutSubject['destination'] });
      return { transactions: typeof list === 'string' ? [] : (list.data ?? []), subjects };
    },
  });
  const nameOf = (subject: Subject): string | null => {
    if (subject.kind === 'payout') {
      const d = subject.destination;
      return d?.account_name ?? ([names.operator(d?.operator), d?.msisdn ?? d?.account_number].filter(Boolean).join(' · ') || null);
    }
    if (subject.description) return subject.description;
    const m = subject.method;
    if (m?.mobile_money) return `${names.operator(m.mobile_money.operator)} ••${(m.mobile_money.msisdn ?? '').replace(/\D/g, '').slice(-4)}`;
    if (m?.card) return `${(m.card.brand ?? '').replace(/^./, (c) => c.toUpperCase())} ••${m.card.last4 ?? ''}`;
    return null;
  };
  return (
    <section aria-labelledby="activity">
      <h2 id="activity">{t('activity.title')}</h2>
      <QueryView query={recent} isEmpty={(r) => r.transactions.length === 0} empty={t('activity.empty')}>
        {(r) => (
          <BalanceTransactionsTable
            transactions={r.transactions}
            labelledBy="activity"
            nameOf={(source) => {
              const subject = r.subjects.get(source);
              return subject ? nameOf(subject) : null;
            }}
          />
        )}
      </QueryView>
    </section>
  );
}

/** What Home's recent activity names a transaction's payment or payout by. */
type Subject = PaymentSubject | PayoutSubject;
type PaymentSubject = { kind: 'payment'; description: string | null; method?: { mobile_money?: { operator?: string; msisdn?: string }; card?: { brand?: string; last4?: string } } | null };
type PayoutSubject = { kind: 'payout'; destination?: { operator?: string; msisdn?: string; account_number?: string; account_name?: string } };

/** The home page: the shell's own, first in the navigation (and shown at any address no family serves). */
export const home: DashboardFamily = {
  pages: { home: Home },
  navigation: [{ group: 'money', page: 'home', label: 'nav.home' }],
};
