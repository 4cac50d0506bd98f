/**
 * Issue #32 item 2: a terminal's stored options are bounded (512 keys, 1 KiB a value, 64 KiB in
 * all; 4 KiB for a serial no location holds) however often hostile options are uploaded, excess is
 * dropped with a budgeted warning, and `device.updated` carries only the keys that changed. A real
 * terminal's options (recorded fixtures A20, A22, A23) are stored unchanged. Real app, raw HTTP;
 * both stores (BIOGATE_TEST_API_STORE=mongodb runs this on MongoDB).
 */
import t from 'tap';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { parseOptions } from '../../protocols/shared/options.js';
import { bearer, fetchJson, jsonBody, logCapture, startApp, type StartedApp } from '../helpers/app.js';
import { readFixture, splitHead } from '../protocols/fixture-reader.js';

const MiB = 1024 * 1024;
const bytesOf = (options: Record<string, string> | null | undefined): number => Buffer.byteLength(JSON.stringify(options ?? {}));

/**
 * An options body of 8 MiB (BIOGATE_DEVICE_BODY_LIMIT_MB's default, the largest accepted), different
 * keys per round (a merge that keeps every key would grow without end), some values far over 1 KiB.
 */
function hostileBody(round: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; ; i++) {
    const line = i % 97 === 0 ? `Huge${round}_${i}=${'x'.repeat(64 * 1024)}` : `Opt${round}_${i}=${'v'.repeat(900)}`;
    if (size + line.length + 1 > 8 * MiB) {
      lines.push(`Tail${round}=${'t'.repeat(8 * MiB - size - `Tail${round}=`.length)}`);
      break;
    }
    lines.push(line);
    size += line.length + 1;
  }
  const body = lines.join(',');
  if (Buffer.byteLength(body) !== 8 * MiB) throw new Error(`hostile body of ${Buffer.byteLength(body)} bytes`);
  return body;
}

async function upload(s: StartedApp, sn: string, body: string): Promise<number> {
  const res = await fetch(`${s.url}/iclock/cdata?SN=${sn}&table=options`, { method: 'POST', body });
  await res.text();
  return res.status;
}

async function storedOptions(s: StartedApp, sn: string): Promise<Record<string, string>> {
  return { ...((await s.app.store.devices.getBySerial(sn))?.options ?? {}) };
}

t.test('ten hostile 8 MiB options uploads: the stored options stay within 64 KiB (assigned) and 4 KiB (unknown serial)', async (t) => {
  const logs = logCapture();
  const s = await startApp(t, { logs });
  const api = (method: string, path: string, body?: unknown) =>
    fetchJson(`${s.url}${path}`, body === undefined ? { method, headers: bearer(s.token) } : jsonBody(method, body, bearer(s.token)));
  t.equal((await api('POST', '/api/devices', { sn: 'OPTSBIG1' })).res.status, 201);
  t.equal((await fetch(`${s.url}/iclock/cdata?SN=OPTSBIG1&options=all&pushver=2.4.1`)).status, 200);
  t.equal(await upload(s, 'OPTSBIG1', 'FirmVer=Ver 6.60,DeviceName=K40'), 200);
  const events: AnyFeedEvent[] = [];
  s.app.feed.subscribe({ locationId: s.locationId }, (e) => events.push(e));

  for (let round = 0; round < 10; round++) {
    const body = hostileBody(round);
    t.equal(await upload(s, 'OPTSBIG1', body), 200, `assigned: upload ${round} answered`);
    t.equal(await upload(s, 'OPTSUNK1', body), 200, `unknown serial: upload ${round} answered`);
    const poll = Date.now();
    t.equal((await fetch(`${s.url}/iclock/getrequest?SN=OPTSBIG1`)).status, 200);
    t.ok(Date.now() - poll < 500, 'the gateway keeps answering promptly');
  }
  await s.app.feed.settled();

  const assigned = await storedOptions(s, 'OPTSBIG1');
  const unknown = await storedOptions(s, 'OPTSUNK1');
  const assignedBytes = bytesOf(assigned);
  const unknownBytes = bytesOf(unknown);
  t.comment(`stored options after 10 hostile 8 MiB uploads: assigned ${assignedBytes} bytes, unknown serial ${unknownBytes} bytes`);
  t.ok(assignedBytes <= 64 * 1024, `assigned terminal: ${assignedBytes} bytes as JSON (≤ 64 KiB)`);
  t.ok(unknownBytes <= 4 * 1024, `unknown serial: ${unknownBytes} bytes as JSON (≤ 4 KiB)`);
  const raw = (o: Record<string, string>) => Object.entries(o).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);
  t.ok(raw(assigned) <= 64 * 1024, 'assigned: keys and values ≤ 64 KiB');
  t.ok(raw(unknown) <= 4 * 1024, 'unknown serial: keys and values ≤ 4 KiB');
  t.ok(Object.keys(assigned).length <= 512, 'at most 512 keys');
  t.ok(
    Object.values(assigned).every((v) => Buffer.byteLength(v) <= 1024),
    'no value over 1 KiB',
  );
  t.equal(assigned['FirmVer'], 'Ver 6.60', 'what the terminal reported first is kept');
  t.equal((assigned as Record<string, string>)['DeviceName'], 'K40');

  const updated = events.filter((e) => e.type === 'device.updated' && e.data.sn === 'OPTSBIG1');
  t.ok(updated.length >= 10, 'one device.updated per upload');
  const largest = Math.max(...updated.map((e) => Buffer.byteLength(JSON.stringify(e))));
  const allEvents = events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0);
  t.comment(`feed events of the assigned terminal: largest ${largest} bytes, all ${allEvents} bytes`);
  t.ok(largest <= 64 * 1024 + 8 * 1024, `each device.updated stays small (${largest} bytes)`);
  // The first hostile upload fills the options (its event names what it added); the others add little.
  const sizes = updated.map((e) => Buffer.byteLength(JSON.stringify(e)));
  t.ok(
    sizes.filter((n) => n > 4096).length <= 1,
    `once the options are full, each event carries only what still changed (${sizes.join(', ')} bytes)`,
  );

  const warnings = logs.entries().filter((l) => l['msg'] === 'device options beyond their limits: excess dropped');
  t.ok(warnings.length >= 2 && warnings.length <= 6, `the warning is budgeted (${warnings.length} lines for 20 uploads)`);
});

t.test("a real terminal's options are stored unchanged; device.updated names only the changed keys", async (t) => {
  const s = await startApp(t);
  const events: AnyFeedEvent[] = [];
  s.app.feed.subscribe({ locationId: s.locationId }, (e) => events.push(e));
  for (const [i, name] of [
    'a20-options-upload-vendor.http',
    'a22-options-upload-k40pro-field.http',
    'a23-options-upload-uface800-field.http',
  ].entries()) {
    const sn = `OPTSFIX${i}`;
    t.equal((await fetchJson(`${s.url}/api/devices`, jsonBody('POST', { sn }, bearer(s.token)))).res.status, 201);
    const { head, body } = splitHead((readFixture('v2', name).exchanges[0] as { request: Buffer }).request);
    const target = (head[0] as string).split(' ')[1] as string;
    const query = new URLSearchParams(target.slice(target.indexOf('?') + 1));
    query.set('SN', sn);
    const before = await storedOptions(s, sn);
    const res = await fetch(`${s.url}/iclock/cdata?${query.toString()}`, { method: 'POST', body });
    t.equal(res.status, 200, name);
    await res.text();
    // What the protocol layer reads from the body [PUSH-v2 §5.2], none of it a secret.
    const expected = { ...parseOptions(body.toString('utf8')).options.values };
    const stored = await storedOptions(s, sn);
    t.same(stored, { ...before, ...stored }, `${name}: nothing stored before is lost`);
    t.ok(Object.keys(expected).length > 0, `${name}: the fixture carries options`);
    for (const [k, v] of Object.entries(expected)) t.equal(stored[k], v, `${name}: ${k} stored unchanged`);
    await s.app.feed.settled();
    const mine = events.filter((e) => e.type === 'device.updated' && e.data.sn === sn);
    const last = mine.at(-1);
    t.same(
      last?.type === 'device.updated' ? last.data.device['options'] : undefined,
      expected,
      `${name}: the event names the changed keys`,
    );
    // The same report again with one value changed: the event names that key only.
    const again = await fetch(`${s.url}/iclock/cdata?${query.toString()}`, {
      method: 'POST',
      body: `${body.toString('utf8').trimEnd()},UserCount=9999`,
    });
    await again.text();
    await s.app.feed.settled();
    const next = events.filter((e) => e.type === 'device.updated' && e.data.sn === sn).at(-1);
    t.same(
      next?.type === 'device.updated' ? next.data.device['options'] : undefined,
      { UserCount: '9999' },
      `${name}: only the changed key`,
    );
    t.equal((await storedOptions(s, sn))['UserCount'], '9999');
  }
});
