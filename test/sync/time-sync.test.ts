// Time sync (sync/time-sync.ts, DESIGN.md "Sync"): a location's time zone changed through the admin
// API, or its UTC offset changed by daylight saving, sends every terminal of the location a time
// sync on its next poll, one per device however many changes; the zone last synced is in the store.
// A disabled location's terminals keep being told their zone in the handshake (not TimeZone=0).
import t from 'tap';
import { ADMIN_TOKEN, bearer, fakeClock, fetchJson, jsonBody, startApp } from '../helpers/app.js';

t.test('time zone update and DST send a time sync to every terminal, one per device', async (t) => {
  const clock = fakeClock('2026-03-20T10:00:00.000Z');
  const app = await startApp(t, { clock, config: { adminToken: ADMIN_TOKEN, longpollS: 1 } });
  const api = async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
  const admin = async (body: unknown) =>
    fetchJson(`${app.url}/admin/locations/${app.locationId}`, jsonBody('PATCH', body, bearer(ADMIN_TOKEN)));
  const get = async (sn: string, path: string) =>
    (await fetch(`${app.url}/iclock/${path}${path.includes('?') ? '&' : '?'}SN=${sn}`)).text();
  /** One poll, every line acknowledged; the wire lines. */
  const poll = async (sn: string): Promise<string[]> => {
    const text = await get(sn, 'getrequest');
    if (text === 'OK') return [];
    const lines = text.split('\n').filter(Boolean);
    await fetch(`${app.url}/iclock/devicecmd?SN=${sn}`, {
      method: 'POST',
      body: lines.map((l) => `ID=${l.split(':')[1]}&Return=0&CMD=x`).join('\n'),
    });
    return lines.map((l) => l.split(':').slice(2).join(':'));
  };

  t.equal((await api('POST', '/api/devices', { sn: 'TZV20001' })).res.status, 201);
  t.equal((await api('POST', '/api/devices', { sn: 'TZV30001', version: '3.0.0' })).res.status, 201);
  t.same([await poll('TZV20001'), await poll('TZV30001')], [[], []], 'nothing queued yet');

  t.equal((await admin({ timezone: 'Europe/Berlin' })).res.status, 200);
  t.equal((await admin({ timezone: 'Europe/Paris' })).res.status, 200);
  t.same(await poll('TZV20001'), ['CHECK'], 'v2: one CHECK (the re-handshake takes the new TimeZone) for two changes');
  const v3 = await poll('TZV30001');
  t.equal(v3.length, 1, 'v3: one time sync for two changes');
  t.match(v3[0], /^SET OPTIONS DateTime=\d+$/, "v3: the clock set in the dialect's form");
  t.same([await poll('TZV20001'), await poll('TZV30001')], [[], []], 'nothing more');
  const synced = (await api('GET', '/api/commands?command=time-sync&status=success')).body as { total: number };
  t.equal(synced.total, 2, 'the time syncs are commands like any other, acknowledged');

  t.equal(await app.app.timeSync.check(), 0, 'the periodic check: no change, nothing queued');
  clock.set('2026-03-29T01:30:00.000Z'); // Paris switched to summer time at 01:00 UTC
  t.equal(await app.app.timeSync.check(), 2, 'daylight saving: both terminals queued');
  t.equal(await app.app.timeSync.check(), 0, 'once');
  t.same(await poll('TZV20001'), ['CHECK']);
  t.match(await poll('TZV30001'), [/^SET OPTIONS DateTime=\d+$/]);
});

t.test("a disabled location's terminals are still told their zone in the handshake, not TimeZone=0", async (t) => {
  const app = await startApp(t, { clock: fakeClock('2026-07-01T10:00:00.000Z'), config: { adminToken: ADMIN_TOKEN, longpollS: 1 } });
  t.equal(
    (await fetchJson(`${app.url}/admin/locations/${app.locationId}`, jsonBody('PATCH', { timezone: 'Europe/Paris' }, bearer(ADMIN_TOKEN))))
      .res.status,
    200,
  );
  t.equal((await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn: 'TZOFF001' }, bearer(app.token)))).res.status, 201);
  const handshakeZone = async () =>
    /TimeZone=([^\r\n]*)/.exec(await (await fetch(`${app.url}/iclock/cdata?SN=TZOFF001&options=all&pushver=2.4.1`)).text())?.[1];
  t.equal(await handshakeZone(), '2', 'Paris in summer: UTC+2');
  t.equal(
    (await fetchJson(`${app.url}/admin/locations/${app.locationId}`, jsonBody('PATCH', { is_active: false }, bearer(ADMIN_TOKEN)))).res
      .status,
    200,
  );
  t.equal(await handshakeZone(), '2', 'disabled: still UTC+2');
});
