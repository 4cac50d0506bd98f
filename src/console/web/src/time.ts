/**
 * Times in the location's time zone (the API speaks UTC; people think in the site's local time).
 * Built on Intl only: no time-zone database shipped in the bundle.
 */
import { t } from './i18n/index.js';

const formatters = new Map<string, Intl.DateTimeFormat>();

function partsFormatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** Wall-clock fields of an instant in a zone. */
function wallClock(ms: number, zone: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of partsFormatter(zone).formatToParts(new Date(ms))) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/** The zone's offset from UTC at an instant, in ms (positive east of Greenwich). */
export function zoneOffsetMs(ms: number, zone: string): number {
  const w = wallClock(ms, zone);
  const asUtc = Date.UTC(w['year'] ?? 1970, (w['month'] ?? 1) - 1, w['day'] ?? 1, w['hour'] ?? 0, w['minute'] ?? 0, w['second'] ?? 0);
  return asUtc - (ms - (ms % 1000));
}

/**
 * The UTC instant of a local date and time in a zone (`2026-03-29`, `23:59:59.999`, `Europe/Berlin`),
 * as ISO 8601. Two passes, so a date on a daylight-saving change gets the offset valid at that time.
 */
export function localToUtc(date: string, time: string, zone: string): string {
  const [y, m, d] = date.split('-').map(Number);
  const [hh, mm, rest] = time.split(':');
  const [ss, frac] = (rest ?? '0').split('.');
  const guess = Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1, Number(hh), Number(mm), Number(ss)) + Number(frac ?? 0);
  let instant = guess - zoneOffsetMs(guess, zone);
  instant = guess - zoneOffsetMs(instant, zone);
  return new Date(instant).toISOString();
}

/** `2026-03-01 09:30:00` in the zone (sortable, unambiguous, fits a table cell). */
export function formatLocal(iso: string | null | undefined, zone: string): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  if (!Number.isFinite(ms)) return iso;
  const w = wallClock(ms, zone);
  const p = (n: number | undefined) => String(n ?? 0).padStart(2, '0');
  return `${w['year']}-${p(w['month'])}-${p(w['day'])} ${p(w['hour'])}:${p(w['minute'])}:${p(w['second'])}`;
}

/** "12 s ago", "5 min ago", "3 h ago", else the local date. */
export function ago(iso: string | null | undefined, now: number, zone: string): string {
  if (!iso) return t('time.never');
  const s = Math.round((now - Date.parse(iso)) / 1000);
  if (s < 0) return t('time.justNow');
  if (s < 60) return t('time.seconds', { n: s });
  if (s < 3600) return t('time.minutes', { n: Math.floor(s / 60) });
  if (s < 86_400) return t('time.hours', { n: Math.floor(s / 3600) });
  return formatLocal(iso, zone);
}

/** Today in the zone, as YYYY-MM-DD. */
export function localToday(zone: string, now = Date.now()): string {
  return formatLocal(new Date(now).toISOString(), zone).slice(0, 10);
}
