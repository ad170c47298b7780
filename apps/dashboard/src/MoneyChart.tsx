import { useContext, useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { decimalsOf, formatAmount, LanguageContext } from './i18n.js';

export interface DayOfMoney {
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  /** Minor units received that day (payments, funding releases), gross. */
  in: number;
  /** Minor units sent that day (payouts, refunds), without fees. */
  out: number;
}

const HALF_DAY_S = 43_200;
const IN_COLOUR = '#1b7a3d';
const OUT_COLOUR = '#b3261e';

/**
 * Money in and out per day as bars (uPlot, drawn on a canvas). A canvas says nothing to a screen
 * reader, so the caller gives the same figures as text too (`label`, and its table).
 */
export function MoneyChart({ days, currency, label, seriesNames }: { days: DayOfMoney[]; currency: string; label: string; seriesNames: { day: string; in: string; out: string } }) {
  const { language } = useContext(LanguageContext);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const money = (minor: number) => formatAmount(language, minor, currency);
    // A day without movement has no bar at all (a zero bar would still draw its outline).
    const data: uPlot.AlignedData = [days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000), days.map((d) => d.in || null), days.map((d) => d.out || null)];
    const bars = (align: -1 | 1) => uPlot.paths.bars!({ size: [0.4, 24], align });
    const chart = new uPlot(
      {
        width: element.clientWidth,
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        fmtDate: (template) => uPlot.fmtDate(template, language === 'fr' ? FRENCH_NAMES : undefined),
        cursor: { drag: { x: false, y: false } },
        legend: { show: true },
        // Half a day either side, so the first and last days' bars (drawn beside their day) show whole.
        scales: { x: { time: true, range: (_u, min, max) => [min - HALF_DAY_S, max + HALF_DAY_S] }, y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
        axes: [{}, { size: 70, values: (_u, ticks) => ticks.map((v) => new Intl.NumberFormat(language, { notation: 'compact' }).format(v / 10 ** decimalsOf(currency))) }],
        series: [
          { label: seriesNames.day },
          { label: seriesNames.in, stroke: IN_COLOUR, fill: IN_COLOUR, paths: bars(-1), points: { show: false }, value: (_u, _v, _s, i) => (i == null ? '' : money(days[i]!.in)) },
          { label: seriesNames.out, stroke: OUT_COLOUR, fill: OUT_COLOUR, paths: bars(1), points: { show: false }, value: (_u, _v, _s, i) => (i == null ? '' : money(days[i]!.out)) },
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
  return <div ref={box} className="chart" role="img" aria-label={label} />;
}

const FRENCH_NAMES = {
  MMMM: ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'],
  MMM: ['janv.', 'févr.', 'mars', 'avr.', 'mai', 'juin', 'juil.', 'août', 'sept.', 'oct.', 'nov.', 'déc.'],
  WWWW: ['dimanche', 'lundi', 'mardi', 'mercredi', 'jeudi', 'vendredi', 'samedi'],
  WWW: ['dim.', 'lun.', 'mar.', 'mer.', 'jeu.', 'ven.', 'sam.'],
};
