/**
 * Issue #12: log volume from device traffic is bounded. Rejected-line samples are truncated
 * (≤ 200 bytes each, ≤ 3 per request) and rate-limited per serial; an ERRORLOG flood is one
 * summary line (count + the first few, truncated), not a line per record. Real app, raw device
 * requests, logs captured, the clock faked to move between rate windows.
 */
import t from 'tap';
import { bearer, fakeClock, fetchJson, jsonBody, logCapture, startApp } from '../helpers/app.js';

const bytes = (v: unknown) => Buffer.byteLength(String(v), 'utf8');

t.test('rejected lines: truncated, few, rate-limited per serial', async (t) => {
  const logs = logCapture();
  const clock = fakeClock();
  const s = await startApp(t, { logs, clock });
  await fetchJson(`${s.url}/api/devices`, jsonBody('POST', { sn: 'NOISY001' }, bearer(s.token)));
  await fetchJson(`${s.url}/api/devices`, jsonBody('POST', { sn: 'QUIET001' }, bearer(s.token)));
  // 40 garbage lines of 5 KB each (multi-byte characters, so bytes and characters differ).
  const garbage = Array.from({ length: 40 }, (_, i) => `${'ü'.repeat(2500)}garbage-${i}`).join('\n');
  const upload = (sn: string) =>
    fetch(`${s.url}/iclock/cdata?SN=${sn}&table=ATTLOG`, { method: 'POST', body: garbage }).then((r) => r.text());
  for (let i = 0; i < 20; i++) await upload('NOISY001');
  await upload('QUIET001');

  const lines = () => logs.entries().filter((e) => e['msg'] === 'device lines rejected');
  const noisy = lines().filter((e) => e['sn'] === 'NOISY001');
  t.equal(noisy.length, 5, '20 requests in one minute: 5 lines');
  for (const e of noisy) {
    const samples = e['samples'] as string[];
    t.ok(samples.length <= 3, `≤ 3 samples (${samples.length})`);
    for (const sample of samples) t.ok(bytes(sample) <= 200, `sample ≤ 200 bytes (${bytes(sample)})`);
    t.equal(e['rejected'], 40, 'the count is complete');
  }
  t.equal(lines().filter((e) => e['sn'] === 'QUIET001').length, 1, 'another serial has its own budget');
  t.ok(logs.text().length < 20_000, `the whole log stays small (${logs.text().length} bytes for 840 rejected 5 KB lines)`);

  clock.advance(60_000);
  await upload('NOISY001');
  const next = lines()
    .filter((e) => e['sn'] === 'NOISY001')
    .at(-1);
  t.equal(next?.['suppressed'], 15, 'a new window: the line says how many were left out');
});

t.test('an ERRORLOG flood is one summary line', async (t) => {
  const logs = logCapture();
  const s = await startApp(t, { logs });
  await fetchJson(`${s.url}/api/devices`, jsonBody('POST', { sn: 'ERRLOG01' }, bearer(s.token)));
  const records = Array.from(
    { length: 5000 },
    (_, i) => `ERRORLOG ErrCode=D01E${String(i).padStart(4, '0')}\tErrMsg=${'x'.repeat(1000)}\tDataOrigin=cmd\tCmdId=${i}\tAdditional=`,
  ).join('\n');
  const res = await fetch(`${s.url}/iclock/cdata?SN=ERRLOG01&table=ERRORLOG&Stamp=9999`, { method: 'POST', body: records });
  t.match(await res.text(), /^OK(: ?5000)?$/);
  const summary = logs.entries().filter((e) => e['msg'] === 'device reported errors');
  t.equal(summary.length, 1);
  t.equal(summary[0]?.['count'], 5000, 'the count of every record');
  const errors = summary[0]?.['errors'] as string[];
  t.ok(errors.length <= 3, 'the first few');
  for (const e of errors) t.ok(bytes(e) <= 200, `each truncated (${bytes(e)} bytes)`);
  t.ok(logs.text().length < 10_000, `5 MB of errors, a small log (${logs.text().length} bytes)`);
});
