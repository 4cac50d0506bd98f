/**
 * Punches per hour as a bar chart, drawn by uPlot (a small, maintained canvas charting library) in the theme's
 * colours, drawn again when the theme or the width changes. A canvas says nothing to a screen reader: the chart is an
 * image named by a sentence (total and busiest hour), and the numbers are in a table under it.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { t } from './i18n/index.js';

export interface HourCount {
  readonly hour: number;
  readonly count: number;
}

const label = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

/** The sentence that stands for the chart. */
export function chartSummary(hours: readonly HourCount[]): string {
  const total = hours.reduce((n, h) => n + h.count, 0);
  if (total === 0) return t('chart.none');
  const busiest = hours.reduce((a, b) => (b.count > a.count ? b : a));
  return t('chart.summary', { total, hour: label(busiest.hour), count: busiest.count });
}

/** Bumps when the console's theme changes (the `data-theme` attribute of <html>), so the chart takes its colours. */
function useThemeTick(): number {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const seen = new MutationObserver(() => setTick((n) => n + 1));
    seen.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => seen.disconnect();
  }, []);
  return tick;
}

export function HourlyChart({ hours }: { hours: readonly HourCount[] }) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useThemeTick();
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const sized = new ResizeObserver(() => setWidth(el.clientWidth));
    sized.observe(el);
    return () => sized.disconnect();
  }, []);
  useEffect(() => {
    const el = box.current;
    if (!el || width === 0) return;
    const css = getComputedStyle(document.documentElement);
    const colour = (name: string) => css.getPropertyValue(name).trim();
    const axis = { stroke: colour('--muted'), grid: { stroke: colour('--line'), width: 1 }, ticks: { show: false } };
    const plot = new uPlot(
      {
        width,
        height: 220,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: false, range: [-0.5, hours.length - 0.5] } },
        axes: [
          {
            ...axis,
            splits: () => hours.map((_, i) => i).filter((i) => i % 3 === 0),
            values: (_, ticks) => ticks.map((i) => label(hours[i]?.hour ?? i)),
          },
          { ...axis, size: 40 },
        ],
        series: [
          {},
          {
            label: t('chart.count'),
            stroke: colour('--accent'),
            fill: colour('--accent'),
            paths: uPlot.paths.bars?.({ size: [0.7, 48] }),
            points: { show: false },
          },
        ],
      },
      [hours.map((_, i) => i), hours.map((h) => h.count)],
      el,
    );
    return () => plot.destroy();
  }, [hours, theme, width]);

  return (
    <figure class="chart">
      <div ref={box} role="img" aria-label={chartSummary(hours)} />
      <figcaption>{chartSummary(hours)}</figcaption>
      <details>
        <summary>{t('chart.numbers')}</summary>
        <table>
          <caption class="sr-only">{t('chart.caption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('chart.hour')}</th>
              <th scope="col">{t('chart.count')}</th>
            </tr>
          </thead>
          <tbody>
            {hours.map((h, i) => (
              <tr key={i}>
                <td>{label(h.hour)}</td>
                <td>{h.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
