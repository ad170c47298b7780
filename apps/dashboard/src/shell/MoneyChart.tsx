import { useContext, useEffect, useId, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { Scrollable } from './components.js';
import { decimalsOf, formatAmount, LanguageContext, LOCALES, useT, type Language } from './i18n.js';

export interface DayOfMoney {
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  /** Minor units received that day (payments, funding releases), gross. */
  in: number;
  /** Minor units sent that day (payouts, refunds), without fees. */
  out: number;
  /** Minor units of fees that day, where the chart's table shows them. */
  fees?: number;
}

const HALF_DAY_S = 43_200;
/** The series' colours, on the chart and beside their names in the legend (AA against white). */
const IN_COLOUR = '#1b7a3d';
const OUT_COLOUR = '#b3261e';

/** A UTC day in the language's own short format (26 Nov, 26 nov.). */
const dayName = (language: Language, at: Date) => at.toLocaleDateString(LOCALES[language], { timeZone: 'UTC', day: 'numeric', month: 'short' });

/**
 * Money in and out per day as bars (uPlot, drawn on a canvas), with a legend naming each colour
 * and its total, and the same figures a click away as a table. A canvas says nothing to a screen
 * reader: `label` says the totals, and the table says every day (with `fees` when its names
 * have them). Every chart of the application is one of these.
 */
export function MoneyChart({ days, currency, label, seriesNames }: { days: DayOfMoney[]; currency: string; label: string; seriesNames: { day: string; in: string; out: string; fees?: string } }) {
  const { language } = useContext(LanguageContext);
  const t = useT();
  const box = useRef<HTMLDivElement>(null);
  const figuresId = useId();
  const money = (minor: number) => formatAmount(language, minor, currency);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    // A day without movement has no bar at all (a zero bar would still draw its outline).
    const data: uPlot.AlignedData = [days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000), days.map((d) => d.in || null), days.map((d) => d.out || null)];
    const bars = (align: -1 | 1) => uPlot.paths.bars!({ size: [0.4, 24], align });
    const chart = new uPlot(
      {
        width: element.clientWidth,
        height: 220,
        cursor: { drag: { x: false, y: false } },
        // The legend is the component's own (below), named and totalled in the page's language.
        legend: { show: false },
        // Half a day either side, so the first and last days' bars (drawn beside their day) show whole.
        scales: { x: { time: true, range: (_u, min, max) => [min - HALF_DAY_S, max + HALF_DAY_S] }, y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
        axes: [
          { values: (_u, ticks) => ticks.map((s) => dayName(language, new Date(s * 1000))) },
          { size: 70, values: (_u, ticks) => ticks.map((v) => new Intl.NumberFormat(LOCALES[language], { notation: 'compact' }).format(v / 10 ** decimalsOf(currency))) },
        ],
        series: [
          { label: seriesNames.day },
          { label: seriesNames.in, stroke: IN_COLOUR, fill: IN_COLOUR, paths: bars(-1), points: { show: false } },
          { label: seriesNames.out, stroke: OUT_COLOUR, fill: OUT_COLOUR, paths: bars(1), points: { show: false } },
        ],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [days, currency, language, seriesNames.day, seriesNames.in, seriesNames.out]);
  const total = (field: 'in' | 'out') => days.reduce((sum, d) => sum + d[field], 0);
  const moved = days.filter((d) => d.in || d.out || d.fees);
  return (
    <figure className="money-chart">
      <div ref={box} className="chart" role="img" aria-label={label} />
      <ul className="legend" aria-label={t('chart.legend')}>
        {(
          [
            ['in', IN_COLOUR],
            ['out', OUT_COLOUR],
          ] as const
        ).map(([field, colour]) => (
          <li key={field}>
            <svg className="swatch" width="12" height="12" aria-hidden="true">
              <rect width="12" height="12" fill={colour} />
            </svg>
            {t('chart.legendItem', { name: seriesNames[field], amount: money(total(field)) })}
          </li>
        ))}
      </ul>
      <details>
        <summary id={figuresId}>{t('chart.figures')}</summary>
        <Scrollable labelledBy={figuresId}>
          <table>
            <thead>
              <tr>
                <th scope="col">{seriesNames.day}</th>
                <th scope="col">{seriesNames.in}</th>
                <th scope="col">{seriesNames.out}</th>
                {seriesNames.fees && <th scope="col">{seriesNames.fees}</th>}
              </tr>
            </thead>
            <tbody>
              {moved.map((d) => (
                <tr key={d.date}>
                  <th scope="row">{dayName(language, new Date(`${d.date}T00:00:00Z`))}</th>
                  <td className="amount">{money(d.in)}</td>
                  <td className="amount">{money(d.out)}</td>
                  {seriesNames.fees && <td className="amount">{money(d.fees ?? 0)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </Scrollable>
      </details>
    </figure>
  );
}
