/**
 * Issue #32, Medium 13: what terminals send reaches HR's spreadsheet through the CSV exports.
 * - Every CSV BioGate writes (src/csv-out.ts) prefixes a cell starting with `=`, `+`, `-`, `@`, TAB
 *   or CR with `'` (OWASP "CSV Injection"), so a spreadsheet shows it as text instead of running it.
 * - A PIN from a terminal is at most 24 characters: a longer one makes its line a rejected line
 *   (counted, warned within the log budget) and nothing of it is stored.
 * Real app; punches go in through a terminal's ATTLOG upload, as at a site.
 */
import t from 'tap';
import { CSV_COLUMNS } from '../../src/views/attendance.js';
import { csvRows } from '../../src/csv-out.js';
import { bearer, fakeClock, fetchJson, jsonBody, logCapture, startApp } from '../helpers/app.js';

/** Splits CSV text (RFC 4180, CRLF) into rows of cells, honouring quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  return rows;
}

t.test('csvRows: formula triggers are prefixed with a quote (OWASP), everything else is left alone', async (t) => {
  const cells = ['=HYPERLINK("http://x")', '+1', '-1.5', '@SUM(A1)', '\tx', '\rx', 'a=b', '1', '', "'=x", 'ok -', ' =x'];
  const [row] = parseCsv(csvRows([cells]));
  t.strictSame(row, [`'=HYPERLINK("http://x")`, "'+1", "'-1.5", "'@SUM(A1)", "'\tx", "'\rx", 'a=b', '1', '', "'=x", 'ok -', ' =x']);
  t.equal(parseCsv(csvRows([[-3, 0, 4, null, true]]))[0]?.join('|'), "'-3|0|4||1", 'numbers are cells too: a negative one as well');
  t.equal(csvRows([['=1']], 'lf'), "'=1\n", 'LF files (the CLI) alike');
});

t.test('GET /api/attendance.csv: device-supplied PINs, work codes and serials cannot run as formulas', async (t) => {
  const clock = fakeClock('2026-03-05T12:00:00.000Z');
  const s = await startApp(t, { clock });
  t.equal((await fetchJson(`${s.url}/api/devices`, jsonBody('POST', { sn: 'CSVINJ01' }, bearer(s.token)))).res.status, 201);
  const lines = [
    '@SUM(A1)\t2026-03-05 08:00:00\t0\t1\t=HYPERLINK("//e.vil")',
    '+41\t2026-03-05 08:01:00\t0\t1\t-2+3',
    '1001\t2026-03-05 08:02:00\t0\t1\t7',
  ].join('\n');
  const res = await fetch(`${s.url}/iclock/cdata?SN=CSVINJ01&table=ATTLOG&Stamp=1`, { method: 'POST', body: lines });
  t.equal(await res.text(), 'OK: 3');
  clock.advance(10_000);
  const csv = await fetch(`${s.url}/api/attendance.csv`, { headers: bearer(s.token) });
  t.equal(csv.status, 200);
  const rows = parseCsv(await csv.text());
  const col = (name: (typeof CSV_COLUMNS)[number]) => CSV_COLUMNS.indexOf(name);
  t.strictSame(
    rows.slice(1).map((r) => [r[col('pin')], r[col('work_code')]]),
    [
      ["'@SUM(A1)", `'=HYPERLINK("//e.vil")`],
      ["'+41", "'-2+3"],
      ['1001', '7'],
    ],
  );
  t.equal(rows[1]?.[col('sn')], 'CSVINJ01');
});

t.test('PINs from terminals: at most 24 characters; a longer one is a rejected line, warned and never stored', async (t) => {
  const logs = logCapture();
  const clock = fakeClock('2026-03-05T12:00:00.000Z');
  const s = await startApp(t, { clock, logs });
  t.equal((await fetchJson(`${s.url}/api/devices`, jsonBody('POST', { sn: 'LONGPIN1' }, bearer(s.token)))).res.status, 201);
  const pin24 = '1'.repeat(24);
  const pin25 = '2'.repeat(25);
  const body = [
    `${pin24}\t2026-03-05 08:00:00\t0\t1`,
    `${pin25}\t2026-03-05 08:01:00\t0\t1`,
    `PIN=${'3'.repeat(40)}\tDateTime=2026-03-05 08:02:00\tStatus=0\tVerify=1`,
  ].join('\n');
  const res = await fetch(`${s.url}/iclock/cdata?SN=LONGPIN1&table=ATTLOG&Stamp=1`, { method: 'POST', body });
  t.equal(await res.text(), 'OK: 1', 'only the 24-character PIN is accepted');
  clock.advance(10_000);
  const { body: page } = await fetchJson(`${s.url}/api/attendance`, { headers: bearer(s.token) });
  t.strictSame(
    (page as { data: { pin: string }[] }).data.map((r) => r.pin),
    [pin24],
    'the longer PINs are not stored',
  );
  const warned = logs.entries().filter((e) => e['msg'] === 'device lines rejected' && e['sn'] === 'LONGPIN1');
  t.equal(warned.length, 1, 'warned once, within the log budget');
  t.equal(warned[0]?.['rejected'], 2, 'both lines counted');

  // rtlog (v3 door events that are punches) and user uploads hold PINs too.
  const users = `USER PIN=${'4'.repeat(25)}\tName=Long\nUSER PIN=77\tName=Short`;
  const up = await fetch(`${s.url}/iclock/cdata?SN=LONGPIN1&table=OPERLOG&Stamp=1`, { method: 'POST', body: users });
  t.match(await up.text(), /^OK/);
  const after = logs.entries().filter((e) => e['msg'] === 'device lines rejected' && e['sn'] === 'LONGPIN1');
  t.equal(after.at(-1)?.['rejected'], 1, 'the user line with a 25-character PIN is rejected too');
});
