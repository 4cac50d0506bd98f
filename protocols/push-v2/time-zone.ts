// [PUSH-v2 §4.5] the handshake `TimeZone` value. Never omitted: a K40 Pro behind a server that sent none
// showed its clock +2:30 off.
import type { TimeZoneUnit } from '../codec.js';
import { formatOffsetColon } from '../shared/zoned-time.js';

/**
 * auto: whole hours within −11…11 → hours (`8`, `-5`, `0`); otherwise minutes (`330`, `-210`, `780`).
 * Overrides for firmware that reads the value differently: `minutes` always minutes; `hours` whole hours
 * (a fractional offset has no hour form and is sent in minutes); `hh:mm` the older form (`-05:00`).
 */
export function encodeTimeZone(offsetMinutes: number, unit: TimeZoneUnit = 'auto'): string {
  const wholeHours = offsetMinutes % 60 === 0;
  const hours = offsetMinutes / 60;
  switch (unit) {
    case 'auto':
      return wholeHours && hours >= -11 && hours <= 11 ? String(hours) : String(offsetMinutes);
    case 'hours':
      return wholeHours ? String(hours) : String(offsetMinutes);
    case 'minutes':
      return String(offsetMinutes);
    case 'hh:mm':
      return formatOffsetColon(offsetMinutes);
    /* c8 ignore next 2 */
    default:
      return unit satisfies never;
  }
}
