/**
 * Issue #32, High 4: GET /api/attendance.csv is streamed, page by page, and bounded per location.
 * - The body goes out chunked (no Content-Length, never built whole) and holds every record once,
 *   in arrival order; a client that stops reading holds the export up (backpressure) while the
 *   gateway goes on answering others.
 * - At most 2 exports of a location run at once: a third gets 429 EXPORT_BUSY with Retry-After;
 *   another location is not affected; a slot is free again once an export ends or its client leaves;
 *   the slots are leases in the store, so a second gateway on the same store counts the same exports.
 * Both HTTP engines; real app, records stored through the port (as attendance-feed.test.ts does).
 * SQLite only (a body larger than the socket buffers takes 60,000 punches to seed).
 */
import { connect, type Socket } from 'node:net';
import t from 'tap';
import type { NewAttendance } from '../../src/store/ports/index.js';
import { TEST_STORE, bearer, fakeClock, startApp, type StartedApp } from '../helpers/app.js';

const ROWS = 60_000;

const punch = (locationId: number, i: number): NewAttendance => {
  const ts = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  return {
    location_id: locationId,
    sn: 'EXPORT01',
    pin: String(1000 + (i % 5000)),
    user_id: null,
    timestamp: ts,
    local_time: ts.slice(0, 19).replace('T', ' '),
    status: 0,
    verify: 1,
    work_code: null,
  };
};

async function seed(s: StartedApp, locationId: number, rows: number): Promise<void> {
  for (let from = 0; from < rows; from += 5000) {
    const batch = Array.from({ length: Math.min(5000, rows - from) }, (_, j) => punch(locationId, from + j));
    await s.app.store.attendance.record(batch, '2026-03-05T00:00:00.000Z');
  }
}

/** An export on a raw socket that reads the status line, then stops reading (the gateway must wait). */
async function stalledExport(s: StartedApp, token: string): Promise<{ socket: Socket; head: string }> {
  const socket = connect(s.port, '127.0.0.1');
  const head = await new Promise<string>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      resolve(chunk.toString('latin1'));
    });
    socket.write(`GET /api/attendance.csv HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  });
  return { socket, head };
}

for (const engine of ['uws', 'node'] as const) {
  const skip =
    TEST_STORE === 'mongodb' &&
    'SQLite only: 60,000 seeded punches; streaming and slots do not depend on the store (count and listAfter on MongoDB: test/contract)';
  t.test(`${engine}: the export is streamed; at most 2 per location at once`, { skip }, async (t) => {
    const clock = fakeClock('2026-03-05T12:00:00.000Z');
    const s = await startApp(t, { clock, env: { BIOGATE_HTTP_ENGINE: engine } });
    const other = await s.app.locations.create({ name: 'Other' });
    await seed(s, s.locationId, ROWS);
    await s.app.store.attendance.record([punch(other.location.id, 1)], '2026-03-05T00:00:00.000Z');
    clock.advance(10_000);

    const res = await fetch(`${s.url}/api/attendance.csv`, { headers: bearer(s.token) });
    t.equal(res.status, 200);
    t.equal(res.headers.get('transfer-encoding'), 'chunked', 'sent chunked');
    t.equal(res.headers.get('content-length'), null, 'no Content-Length: the body is never built whole');
    const lines = (await res.text()).split('\r\n');
    t.equal(lines.at(-1), '', 'ends with CRLF');
    t.equal(lines.length - 2, ROWS, 'every record');
    const ids = lines.slice(1, -1).map((l) => Number(l.slice(0, l.indexOf(','))));
    t.ok(
      ids.every((id, i) => i === 0 || id > (ids[i - 1] as number)),
      'once each, in arrival order',
    );

    // Two exports whose clients stop reading: both hold their slot, the gateway answers others.
    const first = await stalledExport(s, s.token);
    const second = await stalledExport(s, s.token);
    t.teardown(() => {
      first.socket.destroy();
      second.socket.destroy();
    });
    t.match(first.head, /^HTTP\/1\.1 200/);
    t.match(second.head, /^HTTP\/1\.1 200/);
    t.equal((await fetch(`${s.url}/healthz`)).status, 200, 'the gateway answers while both exports wait for their readers');
    const third = await fetch(`${s.url}/api/attendance.csv`, { headers: bearer(s.token) });
    t.equal(third.status, 429, 'a third export of the location is refused');
    t.match(await third.json(), { code: 'EXPORT_BUSY' });
    t.match(third.headers.get('retry-after'), /^\d+$/, 'with Retry-After');
    // The slots are the store's: a second gateway on the same store refuses the location's third export too.
    const node2 = await startApp(t, { clock, storeUrl: s.storeUrl, env: { BIOGATE_HTTP_ENGINE: engine } });
    const onNode2 = await fetch(`${node2.url}/api/attendance.csv`, { headers: bearer(s.token) });
    t.equal(onNode2.status, 429, 'the third export, asked of another node, is refused');
    t.match(await onNode2.json(), { code: 'EXPORT_BUSY' });
    const elsewhere = await fetch(`${s.url}/api/attendance.csv`, { headers: bearer(other.token.token) });
    t.equal(elsewhere.status, 200, 'another location exports meanwhile');
    t.equal((await elsewhere.text()).split('\r\n').length, 3);

    // A client that leaves frees its slot.
    first.socket.destroy();
    let status = 429;
    for (let i = 0; i < 200 && status === 429; i++) {
      const again = await fetch(`${s.url}/api/attendance.csv?to=2026-01-01T00:00:09Z`, { headers: bearer(s.token) });
      status = again.status;
      await again.arrayBuffer();
      if (status === 429) await new Promise((r) => setTimeout(r, 10));
    }
    t.equal(status, 200, 'the slot of a client that left is free again');
  });
}
