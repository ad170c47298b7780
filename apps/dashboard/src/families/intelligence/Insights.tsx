import { useQuery } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useCatalogNames } from '../../shell/countries.js';
import { useContext, useMemo, useState } from 'react';
import { QueryView, Scrollable } from '../../shell/components.js';
import { formatAmount, LanguageContext, useMessages, type Messages } from '../../shell/i18n.js';
import { MoneyChart, type DayOfMoney } from '../../shell/MoneyChart.js';
import { Suggestions } from './Suggestions.js';
import { Decisions, Lifecycle } from './InsightsActivity.js';
import { sika, withSession } from '../../shell/session.js';
import { daysBetween, lastDays } from '../../shell/days.js';
import type { PageProps } from '../../shell/props.js';

const messages: Messages<
  | 'title'
  | 'period'
  | 'day'
  | 'period.7'
  | 'period.30'
  | 'period.90'
  | 'kpis'
  | 'kpis.none'
  | 'payments'
  | 'succeeded'
  | 'failed'
  | 'successRate'
  | 'volume'
  | 'fees'
  | 'refunds'
  | 'net'
  | 'chart.label'
  | 'byOperator'
  | 'noOperator'
  | 'operator'
  | 'health'
  | 'health.help'
  | 'health.none'
  | 'country'
  | 'attempts'
  | 'failureRate'
  | 'usualFailureRate'
  | 'status'
  | 'status.healthy'
  | 'status.degraded'
  | 'status.insufficient_data'
  | 'recommendations'
  | 'recommendations.none'
  | 'severity.high'
  | 'severity.medium'
  | 'severity.low'
> = {
  en: {
    title: 'Insights',
    period: 'Period',
    day: 'Day',
    'period.7': 'The last 7 days',
    'period.30': 'The last 30 days',
    'period.90': 'The last 90 days',
    kpis: 'Payments',
    'kpis.none': 'No payment in this period.',
    payments: 'Payments',
    succeeded: 'Succeeded',
    failed: 'Failed',
    successRate: 'Success rate',
    volume: 'Volume',
    fees: 'Fees',
    refunds: 'Refunds',
    net: 'Net',
    'chart.label': 'Volume and refunds per day in {currency}: {volume} received, {refunds} refunded.',
    byOperator: 'By operator',
    noOperator: 'Card (no operator)',
    operator: 'Operator',
    health: 'Operator health',
    'health.help': 'Each operator’s failure rate over the last 7 days against its usual rate (the 28 days before).',
    'health.none': 'No operator was used in the last 7 days.',
    country: 'Country',
    attempts: 'Attempts',
    failureRate: 'Failure rate',
    usualFailureRate: 'Usual failure rate',
    status: 'Status',
    'status.healthy': 'Healthy',
    'status.degraded': 'Degraded',
    'status.insufficient_data': 'Too few payments to tell',
    recommendations: 'Recommendations',
    'recommendations.none': 'No recommendation right now.',
    'severity.high': 'Important',
    'severity.medium': 'Worth a look',
    'severity.low': 'For later',
  },
  fr: {
    title: 'Analyses',
    period: 'Période',
    day: 'Jour',
    'period.7': 'Les 7 derniers jours',
    'period.30': 'Les 30 derniers jours',
    'period.90': 'Les 90 derniers jours',
    kpis: 'Paiements',
    'kpis.none': 'Aucun paiement sur cette période.',
    payments: 'Paiements',
    succeeded: 'Réussis',
    failed: 'Échoués',
    successRate: 'Taux de réussite',
    volume: 'Volume',
    fees: 'Frais',
    refunds: 'Remboursements',
    net: 'Net',
    'chart.label': 'Volume et remboursements par jour en {currency} : {volume} reçus, {refunds} remboursés.',
    byOperator: 'Par opérateur',
    noOperator: 'Carte (sans opérateur)',
    operator: 'Opérateur',
    health: 'Santé des opérateurs',
    'health.help': 'Le taux d’échec de chaque opérateur sur les 7 derniers jours, comparé à son taux habituel (les 28 jours d’avant).',
    'health.none': 'Aucun opérateur utilisé ces 7 derniers jours.',
    country: 'Pays',
    attempts: 'Tentatives',
    failureRate: 'Taux d’échec',
    usualFailureRate: 'Taux d’échec habituel',
    status: 'Statut',
    'status.healthy': 'Bon',
    'status.degraded': 'Dégradé',
    'status.insufficient_data': 'Trop peu de paiements pour juger',
    recommendations: 'Recommandations',
    'recommendations.none': 'Aucune recommandation pour le moment.',
    'severity.high': 'Important',
    'severity.medium': 'À regarder',
    'severity.low': 'Plus tard',
  },
};

type Period = 7 | 30 | 90;


/** Payment KPIs with their days as a chart, by operator, operator health, and the recommendations computed from the data. */
export function Insights({ environment, onSignedOut }: PageProps) {
  const t = useMessages(messages);
  const names = useCatalogNames(onSignedOut);
  const { language } = useContext(LanguageContext);
  const [period, setPeriod] = useState<Period>(30);
  const range = useMemo(() => lastDays(period), [period]);
  const percent = (rate: number | null | undefined) => (rate == null ? '—' : new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 }).format(rate));

  const kpis = useQuery({
    queryKey: ['kpis', environment, range],
    queryFn: () => withSession(() => sika.get('/api/v1/intelligence/kpis', { params: { query: range } }), onSignedOut),
  });
  const days = useQuery({
    queryKey: ['kpis-by-day', environment, range],
    queryFn: () => withSession(() => sika.get('/api/v1/intelligence/kpis/breakdown', { params: { query: { ...range, dimension: 'day' } } }), onSignedOut),
  });
  const operators = useQuery({
    queryKey: ['kpis-by-operator', environment, range],
    queryFn: () => withSession(() => sika.get('/api/v1/intelligence/kpis/breakdown', { params: { query: { ...range, dimension: 'operator' } } }), onSignedOut),
  });
  const health = useQuery({
    queryKey: ['operator-health', environment],
    queryFn: () => withSession(() => sika.get('/api/v1/intelligence/operators'), onSignedOut),
  });
  const recommendations = useQuery({
    queryKey: ['recommendations', environment],
    queryFn: () => withSession(() => sika.get('/api/v1/intelligence/recommendations'), onSignedOut),
  });

  // Every day of the period, per currency, for the chart (the breakdown leaves out days without payments).
  const chartDays = useMemo(() => {
    const byCurrency = new Map<string, Map<string, DayOfMoney & { refunds: number; volume: number }>>();
    for (const d of days.data?.data ?? []) {
      const map = byCurrency.get(d.currency) ?? byCurrency.set(d.currency, new Map()).get(d.currency)!;
      map.set(d.key, { date: d.key, in: d.volume, out: d.refunds, volume: d.volume, refunds: d.refunds });
    }
    const filled = new Map<string, DayOfMoney[]>();
    for (const [currency, map] of byCurrency) {
      const list: DayOfMoney[] = [];
      for (const date of daysBetween(range.from, range.to)) list.push(map.get(date) ?? { date, in: 0, out: 0 });
      filled.set(currency, list);
    }
    return filled;
  }, [days.data, range]);

  return (
    <main className="page">
      <h1>{t('title')}</h1>
      <label className="inline">
        {t('period')}
        <select value={period} onChange={(e) => setPeriod(Number(e.target.value) as Period)}>
          {([7, 30, 90] as const).map((p) => (
            <option key={p} value={p}>
              {t(`period.${p}`)}
            </option>
          ))}
        </select>
      </label>

      <section aria-labelledby="kpis">
        <h2 id="kpis">{t('kpis')}</h2>
        <QueryView query={kpis} isEmpty={(k) => k.data.every((c) => c.count === 0)} empty={t('kpis.none')}>
          {(k) =>
            k.data
              .filter((c) => c.count > 0)
              .map((c) => {
                const money = (minor: number) => formatAmount(language, minor, c.currency);
                const series = chartDays.get(c.currency) ?? [];
                return (
                  <div key={c.currency} className="kpis" role="group" aria-label={c.currency.toUpperCase()}>
                    <dl className="facts">
                      <dt>{t('payments')}</dt>
                      <dd>{c.count}</dd>
                      <dt>{t('succeeded')}</dt>
                      <dd>{c.succeeded}</dd>
                      <dt>{t('failed')}</dt>
                      <dd>{c.failed}</dd>
                      <dt>{t('successRate')}</dt>
                      <dd>{percent(c.successRate)}</dd>
                      <dt>{t('volume')}</dt>
                      <dd>{money(c.volume)}</dd>
                      <dt>{t('fees')}</dt>
                      <dd>{money(c.fees)}</dd>
                      <dt>{t('refunds')}</dt>
                      <dd>{money(c.refunds)}</dd>
                      <dt>{t('net')}</dt>
                      <dd>{money(c.net)}</dd>
                    </dl>
                    {series.length > 0 && (
                      <MoneyChart
                        days={series}
                        currency={c.currency}
                        seriesNames={{ day: t('day'), in: t('volume'), out: t('refunds') }}
                        label={t('chart.label', { currency: c.currency.toUpperCase(), volume: money(c.volume), refunds: money(c.refunds) })}
                      />
                    )}
                  </div>
                );
              })
          }
        </QueryView>
      </section>

      <section aria-labelledby="by-operator">
        <h2 id="by-operator">{t('byOperator')}</h2>
        <QueryView query={operators} isEmpty={(o) => o.data.every((row) => row.count === 0)} empty={t('kpis.none')}>
          {(o) => (
            <Scrollable labelledBy="by-operator">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('operator')}</th>
                    <th scope="col">{t('payments')}</th>
                    <th scope="col">{t('successRate')}</th>
                    <th scope="col">{t('volume')}</th>
                    <th scope="col">{t('net')}</th>
                  </tr>
                </thead>
                <tbody>
                  {o.data
                    .filter((row) => row.count > 0)
                    .map((row) => (
                      <tr key={`${row.key} ${row.currency}`}>
                        <th scope="row">{row.key === 'none' ? t('noOperator') : names.operator(row.key)}</th>
                        <td>{row.count}</td>
                        <td>{percent(row.successRate)}</td>
                        <td className="amount">{formatAmount(language, row.volume, row.currency)}</td>
                        <td className="amount">{formatAmount(language, row.net, row.currency)}</td>
                      </tr>
                    ))}
                </tbody>
              </table>
            </Scrollable>
          )}
        </QueryView>
      </section>

      <section aria-labelledby="health">
        <h2 id="health">{t('health')}</h2>
        <p>{t('health.help')}</p>
        <QueryView query={health} isEmpty={(h) => h.data.length === 0} empty={t('health.none')}>
          {(h) => (
            <Scrollable labelledBy="health">
              <table>
                <thead>
                  <tr>
                    <th scope="col">{t('operator')}</th>
                    <th scope="col">{t('country')}</th>
                    <th scope="col">{t('attempts')}</th>
                    <th scope="col">{t('failureRate')}</th>
                    <th scope="col">{t('usualFailureRate')}</th>
                    <th scope="col">{t('status')}</th>
                  </tr>
                </thead>
                <tbody>
                  {h.data.map((row) => (
                    <tr key={`${row.country} ${row.operator}`} className={row.status === 'degraded' ? 'warning' : undefined}>
                      <th scope="row">{names.operator(row.operator)}</th>
                      <td>{names.country(row.country)}</td>
                      <td>{row.attempts}</td>
                      <td>{percent(row.failureRate)}</td>
                      <td>{percent(row.usualFailureRate)}</td>
                      <td>
                        <Badge status={row.status}>{t(`status.${row.status}`)}</Badge>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scrollable>
          )}
        </QueryView>
      </section>

      <section aria-labelledby="recommendations">
        <h2 id="recommendations">{t('recommendations')}</h2>
        <QueryView query={recommendations} isEmpty={(r) => r.data.length === 0} empty={t('recommendations.none')}>
          {(r) => (
            <ul className="recommendations">
              {r.data.map((rec) => (
                <li key={rec.id} className={`severity-${rec.severity}`}>
                  <strong>{t(`severity.${rec.severity}`)}:</strong> {rec.title}
                  <p>{rec.detail}</p>
                </li>
              ))}
            </ul>
          )}
        </QueryView>
      </section>
      <Suggestions environment={environment} onSignedOut={onSignedOut} />
      <Decisions environment={environment} onSignedOut={onSignedOut} />
      <Lifecycle environment={environment} onSignedOut={onSignedOut} />
    </main>
  );
}
