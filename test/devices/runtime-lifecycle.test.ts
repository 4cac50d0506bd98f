// Device runtime, the parts a terminal and an integrator see over time: comm key trust, automatic
// fallbacks and capability learning [COMMANDS §2.5–§2.6], firmware download [COMMANDS §4.22],
// progress that survives a restart, check-attendance counts, retention. Real app, raw HTTP.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { zkEncode } from '../../protocols/index.js';
import { bearer, DAY_MS, fakeClock, fetchJson, jsonBody, startApp, tempDir, type StartOptions } from '../helpers/app.js';
import { NO_OPENSSL, selfSignedCert } from '../helpers/tls.js';

interface CommandView {
  id: number;
  status: string;
  response: string | null;
  error_message: string | null;
  result: Record<string, unknown> | null;
}

async function setup(tt: Parameters<typeof startApp>[0], options: StartOptions = {}) {
  const app = await startApp(tt, options);
  const api = async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
  /** One terminal speaking raw HTTP. */
  const terminal = (sn: string, key?: string) => {
    const q = (path: string) =>
      `${app.url}/iclock/${path}${path.includes('?') ? '&' : '?'}SN=${sn}${key === undefined ? '' : `&ComKey=${key}`}`;
    return {
      get: async (path: string) => {
        const res = await fetch(q(path));
        return { status: res.status, text: await res.text() };
      },
      post: async (path: string, body: string) => {
        const res = await fetch(q(path), { method: 'POST', body });
        return { status: res.status, text: await res.text() };
      },
    };
  };
  const command = async (id: number) => (await api('GET', `/api/commands/${id}`)).body as CommandView;
  const queue = async (body: Record<string, unknown>) => {
    const { res, body: view } = await api('POST', '/api/commands', body);
    t.equal(res.status, 201, `queued ${String(body['command'])}`);
    return view as CommandView;
  };
  return { app, api, terminal, command, queue };
}

t.test('comm key: a device assigned with one must present it on every request; without it: 401 and no data', async (t) => {
  const { app, api, terminal } = await setup(t);
  t.equal((await api('POST', '/api/devices', { sn: 'CKEY0001', comm_key: '20261121' })).res.status, 201);
  const anonymous = terminal('CKEY0001');
  const wrong = terminal('CKEY0001', '11111111');
  const right = terminal('CKEY0001', '20261121');
  t.same(await anonymous.get('cdata?options=all&pushver=2.4.1'), { status: 401, text: 'Unauthorized' });
  t.equal((await wrong.post('cdata?table=ATTLOG', '7\t2026-07-01 08:00:00\t0\t1\n')).status, 401);
  t.equal((await anonymous.get('getrequest')).status, 401);
  let device = (await api('GET', '/api/devices/CKEY0001')).body as Record<string, unknown>;
  t.equal(device['registered_at'], null, 'a refused handshake registers nothing');
  t.equal(device['last_seen'], null, 'nor counts as presence');
  t.equal(((await api('GET', '/api/attendance')).body as { total: number }).total, 0, 'nor stores punches');

  const hs = await right.get('cdata?options=all&pushver=2.4.1');
  t.equal(hs.status, 200);
  t.match(hs.text, /^GET OPTION FROM: CKEY0001/);
  t.match((await right.post('cdata?table=ATTLOG', '7\t2026-07-01 08:00:00\t0\t1\n')).text, /^OK: ?1$/);
  // [PUSH-v2 §2.9] the handshake form of the key counts too, in any letter case.
  t.equal(await (await fetch(`${app.url}/iclock/getrequest?SN=CKEY0001&PushCommKey=20261121`)).text(), 'OK');
  device = (await api('GET', '/api/devices/CKEY0001')).body as Record<string, unknown>;
  t.ok(device['registered_at']);
  t.notOk('comm_key' in device || 'comm_key_hash' in device, 'the key is write-only');

  // Clearing the key opens the device to the protocol's default behaviour again.
  await api('POST', '/api/devices', { sn: 'CKEY0001', comm_key: null });
  t.equal((await anonymous.get('getrequest')).status, 200);
});

t.test('v3 door-open refused as unsupported: AC_UNLOCK once, then chosen up front; learning resets with new firmware', async (t) => {
  const { api, terminal, command, queue } = await setup(t);
  await api('POST', '/api/devices', { sn: 'FALLV301', version: '3.0.0' });
  const dev = terminal('FALLV301');
  const open = await queue({ sn: 'FALLV301', command: 'door-open', params: { door_id: 1, duration: 5 } });
  t.equal((await dev.get('getrequest')).text, `C:${open.id}:CONTROL DEVICE 01010105`);
  t.equal((await dev.post('devicecmd', `ID=${open.id}&Return=-1002&CMD=CONTROL DEVICE`)).text, 'OK');
  t.match(
    await command(open.id),
    { status: 'sent', sent_at: String },
    '[COMMANDS §2.5] queued again with the fallback: still sent to the API (never back to pending)',
  );
  t.equal((await dev.get('getrequest')).text, `C:${open.id}:AC_UNLOCK`, 'same id, fallback wire');
  await dev.post('devicecmd', `ID=${open.id}&Return=0&CMD=AC_UNLOCK`);
  const done = await command(open.id);
  t.equal(done.status, 'success');
  t.same(done.result, { note: 'door and duration not transmitted' });

  const second = await queue({ sn: 'FALLV301', command: 'door-open', params: { door_id: 2, duration: 9 } });
  t.equal((await dev.get('getrequest')).text, `C:${second.id}:AC_UNLOCK`, 'learned: the fallback is chosen at dispatch');
  await dev.post('devicecmd', `ID=${second.id}&Return=0&CMD=AC_UNLOCK`);

  // A refusal with no fallback fails the command; the next one fails before it is sent.
  const lock = await queue({ sn: 'FALLV301', command: 'door-lock' });
  const sent = (await dev.get('getrequest')).text;
  t.equal(sent, `C:${lock.id}:CONTROL DEVICE 06010100`);
  await dev.post('devicecmd', `ID=${lock.id}&Return=-1002&CMD=CONTROL DEVICE`);
  t.equal((await command(lock.id)).status, 'failed');
  const again = await queue({ sn: 'FALLV301', command: 'door-lock' });
  t.equal((await dev.get('getrequest')).text, 'OK', 'nothing sent');
  const refused = await command(again.id);
  t.equal(refused.status, 'failed');
  t.equal(refused.error_message, 'not supported by this device (learned from Return -1002)');

  // [COMMANDS §2.6] new firmware forgets what was learned.
  t.equal((await dev.post('cdata?table=options', 'FirmVer=ZAM180-NF-Ver1.0.9,PushVersion=3.1.2\n')).status, 200);
  const third = await queue({ sn: 'FALLV301', command: 'door-lock' });
  t.equal((await dev.get('getrequest')).text, `C:${third.id}:CONTROL DEVICE 06010100`, 'tried again on the new firmware');
});

t.test('v2 check-attendance: −1 retried with T times then failed; −1002 → CHECK and ATTLOGStamp=0 once [fixture A32c]', async (t) => {
  const { api, terminal, command, queue } = await setup(t);
  await api('POST', '/api/devices', { sn: 'SAMPLEA32C' });
  const dev = terminal('SAMPLEA32C');
  await dev.get('cdata?options=all&pushver=2.4.1');
  const range = await queue({ sn: 'SAMPLEA32C', command: 'check-attendance', params: { startDate: '2026-02-01', endDate: '2026-02-10' } });
  t.equal((await dev.get('getrequest')).text, `C:${range.id}:DATA QUERY ATTLOG StartTime=2026-02-01 00:00:00\tEndTime=2026-02-10 23:59:59`);
  await dev.post('devicecmd', `ID=${range.id}&Return=-1&CMD=DATA`);
  t.equal((await dev.get('getrequest')).text, `C:${range.id}:DATA QUERY ATTLOG StartTime=2026-02-01T00:00:00\tEndTime=2026-02-10T23:59:59`);
  await dev.post('devicecmd', `ID=${range.id}&Return=-1&CMD=DATA`);
  const both = await command(range.id);
  t.equal(both.status, 'failed');
  t.equal(both.error_message, 'device returned -1 for both date formats: no records in range, or query not supported');

  const full = await queue({ sn: 'SAMPLEA32C', command: 'check-attendance', params: { startDate: '2026-02-01', endDate: '2026-02-10' } });
  t.match((await dev.get('getrequest')).text, new RegExp(`^C:${full.id}:DATA QUERY ATTLOG StartTime=2026-02-01 00:00:00`));
  await dev.post('devicecmd', `ID=${full.id}&Return=-1002&CMD=DATA`);
  t.equal((await dev.get('getrequest')).text, `C:${full.id}:CHECK`);
  const hs = (await dev.get('cdata?options=all&pushver=2.4.1')).text;
  t.match(hs, /\nATTLOGStamp=0\n/, '[PUSH-v2 §4.7] the next handshake asks for everything');
  t.notMatch((await dev.get('cdata?options=all&pushver=2.4.1')).text, /ATTLOGStamp=0\n/, 'once');
  // The re-upload arrives while the command is outstanding and counts toward it.
  t.match((await dev.post('cdata?table=ATTLOG&Stamp=0', '5\t2026-02-02 08:00:00\t0\t1\n6\t2026-02-03 08:00:00\t0\t1\n')).text, /^OK: ?2$/);
  await dev.post('devicecmd', `ID=${full.id}&Return=0&CMD=CHECK`);
  const reuploaded = await command(full.id);
  t.equal(reuploaded.status, 'success');
  t.same(reuploaded.result, { note: 'range query unsupported; full re-upload requested', records: 2, stored: 2 });

  const learned = await queue({ sn: 'SAMPLEA32C', command: 'check-attendance', params: {} });
  t.equal(
    (await dev.get('getrequest')).text,
    `C:${learned.id}:CHECK`,
    'DATA QUERY ATTLOG is known unsupported now: straight to the fallback',
  );
});

t.test('v3 check-attendance keeps only rows inside the window and reports the counts', async (t) => {
  const { api, terminal, command, queue } = await setup(t);
  await api('POST', '/api/devices', { sn: 'CHKATT03', version: '3.0.0' });
  const dev = terminal('CHKATT03');
  const q = await queue({ sn: 'CHKATT03', command: 'check-attendance', params: { startDate: '2026-02-01', endDate: '2026-02-01' } });
  t.equal((await dev.get('getrequest')).text, `C:${q.id}:DATA QUERY tablename=transaction,fielddesc=*,filter=*`);
  // [PUSH-v3 §13.1] time_second is the packed wall clock.
  const at = (day: number, hour: number, minute: number, second: number) =>
    zkEncode({ year: 2026, month: day === 31 ? 1 : 2, day, hour, minute, second });
  const rows = [
    `transaction cardno=0\tpin=11\tverified=1\tdoorid=1\teventtype=0\tinoutstate=0\ttime_second=${at(31, 23, 59, 59)}`,
    `transaction cardno=0\tpin=12\tverified=1\tdoorid=1\teventtype=0\tinoutstate=0\ttime_second=${at(1, 8, 0, 0)}`,
    `transaction cardno=0\tpin=13\tverified=1\tdoorid=1\teventtype=0\tinoutstate=0\ttime_second=${at(1, 17, 30, 0)}`,
  ];
  const up = await dev.post(
    `querydata?type=tabledata&cmdid=${q.id}&tablename=transaction&count=3&packcnt=1&packidx=1`,
    `${rows.join('\n')}\n`,
  );
  t.equal(up.status, 200);
  await dev.post('devicecmd', `ID=${q.id}&Return=0&CMD=DATA`);
  const done = await command(q.id);
  t.equal(done.status, 'success');
  t.same(done.result, { records: 2, stored: 2 });
  const page = (await api('GET', '/api/attendance?sn=CHKATT03')).body as { data: { pin: string }[] };
  t.same(page.data.map((a) => a.pin).sort(), ['12', '13'], 'the row outside the window is not stored');
});

t.test('a restart between the lines of a multi-line command loses nothing', async (t) => {
  const dir = await tempDir(t);
  const storePath = join(dir, 'biogate.db');
  const first = await setup(t, { storePath });
  await first.api('POST', '/api/users', { pin: 42, first_name: 'Restart' });
  await first.api('POST', '/api/devices', { sn: 'RESTART3', version: '3.0.0' });
  const lines = (await first.terminal('RESTART3').get('getrequest')).text.split('\n');
  t.equal(lines.length, 2, 'user + userauthorize');
  const [head, child] = lines.map((l) => Number(l.split(':')[1]));
  await first.terminal('RESTART3').post('devicecmd', `ID=${head}&Return=0&CMD=DATA`);
  await first.app.close();

  const second = await setup(t, { storePath, config: { bootstrap: 'off' } });
  const api = async (path: string) => fetchJson(`${second.app.url}${path}`, { headers: bearer(first.app.token) });
  t.equal(
    ((await api(`/api/commands/${String(head)}`)).body as CommandView).status,
    'sent',
    'waiting for its second line across the restart',
  );
  await second.terminal('RESTART3').post('devicecmd', `ID=${child}&Return=0&CMD=DATA`);
  const done = (await api(`/api/commands/${String(head)}`)).body as CommandView;
  t.equal(done.status, 'success');
  t.equal(done.response, `ID=${head}&Return=0&CMD=DATA\nID=${child}&Return=0&CMD=DATA`);
});

t.test('retention: attendance and finished commands older than BIOGATE_RETENTION_DAYS are pruned', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const { app, api, terminal, command, queue } = await setup(t, { clock, config: { retentionDays: 30 } });
  await api('POST', '/api/devices', { sn: 'RETAIN01' });
  const dev = terminal('RETAIN01');
  await dev.post('cdata?table=ATTLOG', '1\t2026-01-15 08:00:00\t0\t1\n2\t2026-02-27 08:00:00\t0\t1\n');
  t.match((await dev.post('cdata?table=IDCARD', 'PIN=1\tSNNum=1234\nPIN=2\tSNNum=5678\n')).text, /^OK: ?2$/, 'raw records kept');
  const old = await queue({ sn: 'RETAIN01', command: 'clear-log' });
  await dev.get('getrequest');
  await dev.post('devicecmd', `ID=${old.id}&Return=0&CMD=CLEAR_LOG`);
  const open = await queue({ sn: 'RETAIN01', command: 'info' });
  clock.advance(31 * DAY_MS);
  const pruned = await app.app.hub.pruneRetention();
  t.same(
    pruned,
    { attendance: 2, commands: 1, records: 2 },
    'the punch from January, the February one now too, the finished command, the raw records',
  );
  t.equal((await api('GET', `/api/commands/${old.id}`)).res.status, 404);
  t.equal((await command(open.id)).status, 'pending', 'unfinished commands are never pruned');
  t.same(await app.app.hub.pruneRetention(), { attendance: 0, commands: 0, records: 0 });
});

t.test(
  'firmware-upgrade: BioGate downloads the HTTPS file, checks size and MD5, serves it only to the device it offered it to',
  { skip: NO_OPENSSL },
  async (t) => {
    const dir = await tempDir(t);
    const { cert, key } = selfSignedCert(dir, { localhost: true });
    const firmware = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
    let downloads = 0;
    const server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
      downloads++;
      if (req.url === '/fw.bin') res.end(firmware);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const md5 = createHash('md5').update(firmware).digest('hex');

    // The firmware server is on loopback: allowed here (BIOGATE_FIRMWARE_ALLOW_PRIVATE=on).
    const { api, terminal, command, queue } = await setup(t, { config: { firmwareCaFile: cert, firmwareAllowPrivate: 'on' } });
    await api('POST', '/api/devices', { sn: 'FIRMWARE1' });
    await api('POST', '/api/devices', { sn: 'FIRMWARE2' });
    const dev = terminal('FIRMWARE1');
    const url = `${base}/fw.bin`;
    const t0 = await queue({ sn: 'FIRMWARE1', command: 'firmware-upgrade', params: { url, checksum: md5, size: firmware.length } });
    t.equal((await dev.get(`file?url=${encodeURIComponent(url)}`)).status, 404, 'not offered yet: the command is still pending');
    t.equal((await dev.get('getrequest')).text, `C:${t0.id}:UPGRADE checksum=${md5},url=${url},size=${firmware.length}`);
    const served = await dev.get(`file?url=${encodeURIComponent(url)}`);
    t.equal(served.status, 200);
    t.ok(Buffer.from(served.text, 'base64').equals(firmware), '[COMMANDS §4.22] method 1 content is the file, base64');
    await dev.get(`file?url=${encodeURIComponent(url)}`);
    t.equal(downloads, 1, 'downloaded once, served from the cache after');
    t.equal((await terminal('FIRMWARE2').get(`file?url=${encodeURIComponent(url)}`)).status, 404, 'another device was offered nothing');
    t.equal((await dev.get(`file?url=${encodeURIComponent(`${base}/other.bin`)}`)).status, 404, 'an url BioGate did not offer');
    await dev.post('devicecmd', `ID=${t0.id}&Return=0&CMD=UPGRADE`);
    t.equal((await command(t0.id)).status, 'success');

    const bad = await queue({
      sn: 'FIRMWARE1',
      command: 'firmware-upgrade',
      params: { url, checksum: 'f'.repeat(32), size: firmware.length },
    });
    await dev.get('getrequest');
    t.equal((await dev.get(`file?url=${encodeURIComponent(url)}`)).status, 404);
    const failed = await command(bad.id);
    t.equal(failed.status, 'failed');
    t.equal(failed.error_message, 'firmware download: checksum did not match', 'neither MD5 is named');
  },
);

t.test('unknown upload tables are acknowledged (so the device moves on) and counted in /metrics', async (t) => {
  const { app, api, terminal } = await setup(t);
  await api('POST', '/api/devices', { sn: 'UNKNOWN1' });
  const dev = terminal('UNKNOWN1');
  const first = await dev.post('cdata?table=MYSTERY', 'a=1\nb=2\n');
  t.equal(first.status, 200);
  await dev.post('cdata?table=MYSTERY', 'c=3\n');
  await dev.post(`cdata?table=${'x'.repeat(60)}`, 'd=4\n');
  const metrics = await (await fetch(`${app.url}/metrics`)).text();
  t.match(metrics, /biogate_device_unknown_tables_total\{table="MYSTERY",node="[^"]+"\} 2/);
  t.match(metrics, /biogate_device_unknown_tables_total\{table="other",node="[^"]+"\} 1/, 'device-chosen names are bounded');
});
