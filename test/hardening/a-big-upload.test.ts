/**
 * Issue #12 "Nothing stalls the event loop": a big ATTLOG upload is decoded and stored in slices
 * that yield, so other requests are answered while it is stored (shown by order of events, not
 * by timing: test/bench/event-loop.bench.ts measures the latency). The slicing must not change
 * what is stored: every record once, counts and rejected lines as before, local → UTC exactly as
 * localToUtc (DST edges included).
 */
import t from 'tap';
import { localToUtc } from '../../src/time/zones.js';
import { ADMIN_TOKEN, bearer, fetchJson, jsonBody, startApp } from '../helpers/app.js';

const pad = (n: number): string => String(n).padStart(2, '0');

/** `n` distinct punches (~280 KB for 8,000: several decode and store slices), every 13th line garbage. */
function attlog(n: number): { body: string; valid: number } {
  const lines: string[] = [];
  let valid = 0;
  for (let i = 0; i < n; i++) {
    if (i % 13 === 12) {
      lines.push(`not a punch ${i}`);
      continue;
    }
    const s = (i * 7) % 86_400;
    lines.push(
      `${1 + (i % 300)}\t2026-01-${pad(1 + (i % 28))} ${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}\t${i % 2}\t1\t0\t0\t0`,
    );
    valid++;
  }
  return { body: `${lines.join('\n')}\n`, valid };
}

t.test('a big ATTLOG upload: other requests are answered while it is stored; everything stored once', async (t) => {
  const s = await startApp(t, { config: { deviceBodyLimitMb: 16 } });
  await fetchJson(`${s.url}/api/devices`, jsonBody('POST', { sn: 'BIGUP001' }, bearer(s.token)));
  const { body, valid } = attlog(8_000);

  const order: string[] = [];
  let probe: Promise<void> | undefined;
  const off = s.app.bus.on('attendance.recorded', () => {
    // Storing has begun: a request sent now must not wait for the whole upload.
    probe ??= fetch(`${s.url}/healthz`).then(async (r) => {
      await r.text();
      order.push('healthz answered');
    });
  });
  const res = await fetch(`${s.url}/iclock/cdata?SN=BIGUP001&table=ATTLOG&Stamp=1`, { method: 'POST', body });
  const text = await res.text();
  order.push('upload answered');
  off();
  await probe;
  t.equal(res.status, 200);
  t.equal(text.trim(), `OK: ${valid}`, 'the count of valid records');
  t.strictSame(order, ['healthz answered', 'upload answered'], 'the event loop served another request in between');

  const stored = await fetchJson(`${s.url}/api/attendance?sn=BIGUP001&limit=1`, { headers: bearer(s.token) });
  t.equal((stored.body as { total: number }).total, valid, 'every record stored');
  const again = await fetch(`${s.url}/iclock/cdata?SN=BIGUP001&table=ATTLOG&Stamp=1`, { method: 'POST', body });
  t.equal((await again.text()).trim(), `OK: ${valid}`, 'a resent batch is acknowledged');
  const after = await fetchJson(`${s.url}/api/attendance?sn=BIGUP001&limit=1`, { headers: bearer(s.token) });
  t.equal((after.body as { total: number }).total, valid, 'and not stored twice');
});

t.test('local → UTC in slices equals localToUtc, DST edges included', async (t) => {
  const s = await startApp(t, { config: { adminToken: ADMIN_TOKEN } });
  const zone = 'Europe/Berlin';
  await fetchJson(`${s.url}/admin/locations/${s.locationId}`, jsonBody('PATCH', { timezone: zone }, bearer(ADMIN_TOKEN)));
  await fetchJson(`${s.url}/api/devices`, jsonBody('POST', { sn: 'DSTUP001' }, bearer(s.token)));
  const times: string[] = [];
  // Every 7 minutes across both 2026 transitions (a gap on 03-29, an overlap on 10-25), and more.
  for (const day of ['2026-03-28', '2026-03-29', '2026-10-25', '2026-10-26', '2026-06-30']) {
    for (let m = 0; m < 24 * 60; m += 7) times.push(`${day} ${pad(Math.floor(m / 60))}:${pad(m % 60)}:${pad(m % 60)}`);
  }
  const body = times.map((time, i) => `${i + 1}\t${time}\t0\t1\t0\t0\t0`).join('\n');
  const res = await fetch(`${s.url}/iclock/cdata?SN=DSTUP001&table=ATTLOG&Stamp=1`, { method: 'POST', body });
  t.equal((await res.text()).trim(), `OK: ${times.length}`);
  const page = await s.app.store.attendance.list(s.locationId, { sn: 'DSTUP001' }, { offset: 0, limit: 10_000 });
  t.equal(page.total, times.length);
  const wrong = page.items
    .filter((a) => a.timestamp !== localToUtc(a.local_time, zone))
    .map((a) => `${a.local_time} → ${a.timestamp}, expected ${localToUtc(a.local_time, zone)}`);
  t.strictSame(wrong, [], 'every UTC time as localToUtc computes it');
});
