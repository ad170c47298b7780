import { useQuery } from '@tanstack/react-query';
import { Badge } from '../../shell/Badge.js';
import { useCatalogNames } from '../../shell/countries.js';
import { useContext, useMemo, useState } from 'react';
import { QueryView } from '../../shell/components.js';
import { formatAmount, LanguageContext, LOCALES, useMessages, useT } from '../../shell/i18n.js';
import { Chart, IN_COLOUR, MoneyChart, OUT_COLOUR, type DayOfMoney } from '../../shell/Chart.js';
import { Suggestions } from './Suggestions.js';
import { Decisions, Lifecycle } from './InsightsActivity.js';
import { sika, withSession } from '../../shell/session.js';
import { daysBetween, lastDays } from '../../shell/days.js';
import type { PageProps } from '../../shell/props.js';
import { insightsMessages } from './insights.messages.js';

type Period = 7 | 30 | 90;

/** The colours of the success rate's line and of operator health's bars (AA against white). */
const RATE_COLOUR = '#1d4f91';
const RECENT_FAILURE_COLOUR = '#8a4b00';
const USUAL_FAILURE_COLOUR = '#5f6368';

/** Payment KPIs with their days as a chart, by operator, operator health, and the recommendations computed from the data. */
export function Insights({ environment, onSignedOut }: PageProps) {
  const t = useMessages(insightsMessages);
  const shared = useT();
  const names = useCatalogNames(onSignedOut);
  const { language } = useContext(LanguageContext);
  const [period, setPeriod] = useState<Period>(30);
  const range = useMemo(() => lastDays(period), [period]);
  const percent = (rate: number | null | undefined) => (rate == null ? '—' : new Intl.NumberFormat(LOCALES[language], { style: 'percent', maximumFractionDigits: 1 }).format(rate));
  const wholePercent = (rate: number) => new Intl.NumberFormat(LOCALES[language], { style: 'percent', maximumFractionDigits: 0 }).format(rate);
  const count = (n: number) => new Intl.NumberFormat(LOCALES[language]).format(n);
  const rateOf = (succeeded: number, failed: number) => (succeeded + failed === 0 ? null : succeeded / (succeeded + failed));

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

  // Every day of the period with its payments succeeded and failed, all currencies together (the success rate counts payments, not money).
  const decidedDays = useMemo(() => {
    const byDay = new Map<string, { succeeded: number; failed: number }>();
    for (const d of days.data?.data ?? []) {
      const day = byDay.get(d.key) ?? { succeeded: 0, failed: 0 };
      byDay.set(d.key, { succeeded: day.succeeded + d.succeeded, failed: day.failed + d.failed });
    }
    return daysBetween(range.from, range.to).map((date) => ({ date, ...(byDay.get(date) ?? { succeeded: 0, failed: 0 }) }));
  }, [days.data, range]);
  const decided = decidedDays.reduce((sum, d) => ({ succeeded: sum.succeeded + d.succeeded, failed: sum.failed + d.failed }), { succeeded: 0, failed: 0 });

  // Each operator's payments over the period, its currencies together (its volume and net said per currency).
  const operatorRows = useMemo(() => {
    const byKey = new Map<string, { key: string; count: number; succeeded: number; failed: number; volume: string[]; net: string[] }>();
    for (const row of operators.data?.data ?? []) {
      if (row.count === 0) continue;
      const o = byKey.get(row.key) ?? { key: row.key, count: 0, succeeded: 0, failed: 0, volume: [], net: [] };
      byKey.set(row.key, {
        ...o,
        count: o.count + row.count,
        succeeded: o.succeeded + row.succeeded,
        failed: o.failed + row.failed,
        volume: [...o.volume, formatAmount(language, row.volume, row.currency)],
        net: [...o.net, formatAmount(language, row.net, row.currency)],
      });
    }
    return [...byKey.values()];
  }, [operators.data, language]);
  const operatorName = (key: string) => (key === 'none' ? t('noOperator') : names.operator(key));

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

      <section aria-labelledby="success-rate">
        <h2 id="success-rate">{t('successRate')}</h2>
        <QueryView query={days} isEmpty={() => decided.succeeded + decided.failed === 0} empty={t('rate.none')}>
          {() => (
            <Chart
              axis={{ days: decidedDays.map((d) => d.date) }}
              axisName={t('day')}
              line
              yMax={1}
              yFormat={wholePercent}
              series={[
                { name: t('successRate'), colour: RATE_COLOUR, values: decidedDays.map((d) => rateOf(d.succeeded, d.failed)), format: percent, summary: percent(rateOf(decided.succeeded, decided.failed)) },
                { name: t('succeeded'), colour: IN_COLOUR, values: decidedDays.map((d) => d.succeeded), format: count, tableOnly: true },
                { name: t('failed'), colour: OUT_COLOUR, values: decidedDays.map((d) => d.failed), format: count, tableOnly: true },
              ]}
              label={t('rate.label', { rate: percent(rateOf(decided.succeeded, decided.failed)), succeeded: count(decided.succeeded), failed: count(decided.failed) })}
              figures={shared('chart.figures')}
            />
          )}
        </QueryView>
      </section>

      <section aria-labelledby="by-operator">
        <h2 id="by-operator">{t('byOperator')}</h2>
        <QueryView query={operators} isEmpty={() => operatorRows.length === 0} empty={t('kpis.none')}>
          {() => (
            <Chart
              axis={{ categories: operatorRows.map((o) => operatorName(o.key)) }}
              axisName={t('operator')}
              yFormat={count}
              series={[
                { name: t('succeeded'), colour: IN_COLOUR, values: operatorRows.map((o) => o.succeeded), format: count, summary: count(decided.succeeded) },
                { name: t('failed'), colour: OUT_COLOUR, values: operatorRows.map((o) => o.failed), format: count, summary: count(decided.failed) },
              ]}
              columns={[
                { name: t('payments'), cells: operatorRows.map((o) => count(o.count)) },
                { name: t('successRate'), cells: operatorRows.map((o) => percent(rateOf(o.succeeded, o.failed))) },
                { name: t('volume'), cells: operatorRows.map((o) => o.volume.join(' · ')) },
                { name: t('net'), cells: operatorRows.map((o) => o.net.join(' · ')) },
              ]}
              label={t('operators.label', { operators: operatorRows.map((o) => t('operators.one', { name: operatorName(o.key), succeeded: count(o.succeeded), failed: count(o.failed) })).join('; ') })}
              figures={t('operators.figures')}
            />
          )}
        </QueryView>
      </section>

      <section aria-labelledby="health">
        <h2 id="health">{t('health')}</h2>
        <p>{t('health.help')}</p>
        <QueryView query={health} isEmpty={(h) => h.data.length === 0} empty={t('health.none')}>
          {(h) => {
            // An operator working in several countries is named with the country on the chart.
            const inSeveral = (operator: string) => h.data.filter((row) => row.operator === operator).length > 1;
            const name = (row: (typeof h.data)[number]) => (inSeveral(row.operator) ? `${names.operator(row.operator)} (${names.country(row.country)})` : names.operator(row.operator));
            const attempts = h.data.reduce((sum, row) => sum + row.attempts, 0);
            const failed = h.data.reduce((sum, row) => sum + row.failed, 0);
            return (
              <Chart
                axis={{ categories: h.data.map(name) }}
                axisName={t('operator')}
                yFormat={wholePercent}
                series={[
                  { name: t('health.recent'), colour: RECENT_FAILURE_COLOUR, values: h.data.map((row) => row.failureRate), format: percent, summary: percent(attempts === 0 ? null : failed / attempts) },
                  { name: t('usualFailureRate'), colour: USUAL_FAILURE_COLOUR, values: h.data.map((row) => row.usualFailureRate), format: percent },
                ]}
                columns={[
                  { name: t('country'), cells: h.data.map((row) => names.country(row.country)) },
                  { name: t('attempts'), cells: h.data.map((row) => count(row.attempts)) },
                  { name: t('status'), cells: h.data.map((row) => <Badge status={row.status}>{t(`status.${row.status}`)}</Badge>) },
                ]}
                label={t('health.label', { operators: h.data.map((row) => t('health.one', { name: name(row), recent: percent(row.failureRate), usual: percent(row.usualFailureRate) })).join('; ') })}
                figures={t('operators.figures')}
              />
            );
          }}
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
