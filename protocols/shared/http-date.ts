// [PUSH-v2 §2.7] IMF-fixdate for the HTTP Date header, e.g. `Tue, 03 Feb 2026 08:15:00 GMT`.
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number): string => String(n).padStart(2, '0');

export function httpDate(date: Date): string {
  return (
    `${DAYS[date.getUTCDay()] as string}, ${pad(date.getUTCDate())} ${MONTHS[date.getUTCMonth()] as string} ${String(date.getUTCFullYear()).padStart(4, '0')} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} GMT`
  );
}
