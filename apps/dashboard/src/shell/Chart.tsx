import { useContext, useEffect, useId, useRef, type ReactNode } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { Scrollable } from './components.js';
import { decimalsOf, formatAmount, LanguageContext, LOCALES, useT, type Language } from './i18n.js';

/** What a chart runs along: UTC days (YYYY-MM-DD), or named things (operators) side by side. */
export type ChartAxis = { days: string[] } | { categories: string[] };

/** One series of a chart: a colour on the chart and in the legend, and a column of its table. */
export interface ChartSeries {
  name: string;
  /** Its colour on the chart and beside its name in the legend (AA against white). */
  colour: string;
  /** One value per point of the axis; null where there is none (no bar, a gap in the line). */
  values: (number | null)[];
  /** How one value reads in the table. */
  format: (value: number) => string;
  /** What the legend says of it over the whole chart (its total, its rate); without it, the legend names it only. */
  summary?: string;
  /** A series of the table only (the fees beside money in and out): not drawn, not in the legend. */
  tableOnly?: boolean;
}

/** A column of the table that is not a number on the chart (an operator's country, its status). */
export interface ChartColumn {
  name: string;
  cells: ReactNode[];
}

const HALF_DAY_S = 43_200;
const HEIGHT = 220;

/** A UTC day in the language's own short format (26 Nov, 26 nov.). */
const dayName = (language: Language, day: string) => new Date(`${day}T00:00:00Z`).toLocaleDateString(LOCALES[language], { timeZone: 'UTC', day: 'numeric', month: 'short' });

/**
 * A chart (uPlot, drawn on a canvas) with a legend naming each colour and what it sums up to, and
 * the same figures a click away as a table. A canvas says nothing to a screen reader: `label`
 * says what the chart shows, and the table says every point. Along days, the table lists the
 * days with something to say (any value not zero); along categories, every one. One or two series
 * are drawn, as bars (side by side) or as a line with its points. Every chart of the application
 * is one of these.
 */
export function Chart({
  axis,
  axisName,
  series,
  columns = [],
  label,
  figures,
  yFormat,
  yMax,
  line = false,
}: {
  axis: ChartAxis;
  /** The table's first column: what a point is (a day, an operator). */
  axisName: string;
  series: ChartSeries[];
  columns?: ChartColumn[];
  label: string;
  /** The table's summary ("The figures, day by day"). */
  figures: string;
  /** How the vertical axis writes its values (compact). */
  yFormat: (value: number) => string;
  /** The top of the vertical axis when it is fixed (1 for rates), else the largest value. */
  yMax?: number;
  line?: boolean;
}) {
  const { language } = useContext(LanguageContext);
  const t = useT();
  const box = useRef<HTMLDivElement>(null);
  const figuresId = useId();
  const drawn = series.filter((s) => !s.tableOnly);
  const points = 'days' in axis ? axis.days : axis.categories;
  // What the drawing depends on, as one value (the props are new objects at every render).
  const drawing = JSON.stringify([axis, axisName, drawn.map((s) => [s.name, s.colour, s.values]), yMax, line]);
  const pointName = (i: number) => ('days' in axis ? dayName(language, axis.days[i]!) : axis.categories[i]!);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const byDay = 'days' in axis;
    const xs = byDay ? axis.days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000) : axis.categories.map((_name, i) => i);
    // A point without a value has no bar at all (a zero bar would still draw its outline).
    const data: uPlot.AlignedData = [xs, ...drawn.map((s) => s.values.map((v) => (line ? v : v || null)))];
    const bars = (align: -1 | 0 | 1) => uPlot.paths.bars!({ size: [drawn.length > 1 ? 0.4 : 0.6, 24], align });

    const chart = new uPlot(
      {
        width: element.clientWidth,
        height: HEIGHT,
        cursor: { drag: { x: false, y: false } },
        // The legend is the component's own (below), named and summed up in the page's language.
        legend: { show: false },
        // Half a step either side, so the first and last bars (drawn beside their point) show whole;
        // along categories the range is fixed (uPlot would put a lone category at the edge).
        scales: {
          x: byDay ? { time: true, range: (_u, min, max) => [min - HALF_DAY_S, max + HALF_DAY_S] } : { time: false, auto: false, range: [-0.5, xs.length - 0.5] },
          y: { range: (_u, _min, max) => [0, yMax ?? Math.max(max, 1)] },
        },
        axes: [
          byDay ? { values: (_u, ticks) => ticks.map((s) => dayName(language, new Date(s * 1000).toISOString().slice(0, 10))) } : { splits: () => xs, values: (_u, ticks) => ticks.map((i) => axis.categories[i] ?? '') },
          { size: 70, values: (_u, ticks) => ticks.map(yFormat) },
        ],
        series: [
          { label: axisName },
          ...drawn.map((s, i) =>
            line
              ? { label: s.name, stroke: s.colour, width: 2, spanGaps: true, points: { show: true, size: 7, fill: s.colour } }
              : { label: s.name, stroke: s.colour, fill: s.colour, paths: bars(drawn.length > 1 ? (i === 0 ? -1 : 1) : 0), points: { show: false } },
          ),
        ],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [drawing, language]);
  const rows = points.map((_p, i) => i).filter((i) => !('days' in axis) || series.some((s) => s.values[i]));
  return (
    <figure className="chart-figure">
      <div ref={box} className="chart" role="img" aria-label={label} />
      <ul className="legend" aria-label={t('chart.legend')}>
        {drawn.map((s) => (
          <li key={s.name}>
            <svg className="swatch" width="12" height="12" aria-hidden="true">
              {line ? <circle cx="6" cy="6" r="5" fill={s.colour} /> : <rect width="12" height="12" fill={s.colour} />}
            </svg>
            {s.summary === undefined ? s.name : t('chart.legendItem', { name: s.name, value: s.summary })}
          </li>
        ))}
      </ul>
      <details>
        <summary id={figuresId}>{figures}</summary>
        <Scrollable labelledBy={figuresId}>
          <table>
            <thead>
              <tr>
                <th scope="col">{axisName}</th>
                {series.map((s) => (
                  <th scope="col" key={s.name}>
                    {s.name}
                  </th>
                ))}
                {columns.map((c) => (
                  <th scope="col" key={c.name}>
                    {c.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((i) => (
                <tr key={points[i]}>
                  <th scope="row">{pointName(i)}</th>
                  {series.map((s) => {
                    const value = s.values[i];
                    return (
                      <td key={s.name} className="amount">
                        {value == null ? '—' : s.format(value)}
                      </td>
                    );
                  })}
                  {columns.map((c) => (
                    <td key={c.name}>{c.cells[i]}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </Scrollable>
      </details>
    </figure>
  );
}

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

/** The colours of money in and out (AA against white). */
export const IN_COLOUR = '#1b7a3d';
export const OUT_COLOUR = '#b3261e';

/** Money in and out per day as bars, each totalled in the legend; the fees in the table when `seriesNames` names them. */
export function MoneyChart({ days, currency, label, seriesNames }: { days: DayOfMoney[]; currency: string; label: string; seriesNames: { day: string; in: string; out: string; fees?: string } }) {
  const { language } = useContext(LanguageContext);
  const t = useT();
  const money = (minor: number) => formatAmount(language, minor, currency);
  const column = (name: string, colour: string, field: 'in' | 'out' | 'fees', tableOnly = false): ChartSeries => {
    const values = days.map((d) => d[field] ?? 0);
    return { name, colour, values, format: money, summary: money(values.reduce((sum, v) => sum + v, 0)), tableOnly };
  };
  const series = [column(seriesNames.in, IN_COLOUR, 'in'), column(seriesNames.out, OUT_COLOUR, 'out')];
  if (seriesNames.fees) series.push(column(seriesNames.fees, '', 'fees', true));
  return (
    <Chart
      axis={{ days: days.map((d) => d.date) }}
      axisName={seriesNames.day}
      series={series}
      label={label}
      figures={t('chart.figures')}
      yFormat={(v) => new Intl.NumberFormat(LOCALES[language], { notation: 'compact' }).format(v / 10 ** decimalsOf(currency))}
    />
  );
}
