/**
 * Punch photos (issue #35 item 4), on both stores (test/mongo-api-leg.mjs runs test/api): a v2 terminal's
 * ATTPHOTO upload [PUSH-v2 §6.8] is kept only while its location opts in, is served at
 * GET /api/attendance/{id}/photo whichever of photo and punch arrived first, is announced as `attendance.photo`
 * (its URL, never its bytes) when it follows its punch, and goes after `attendance_photo_retention_days`.
 */
import sharp from 'sharp';
import t from 'tap';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { expirePunchPhotos } from '../../src/locations/quotas.js';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { waitFor } from '../helpers/app.js';
import { gateway, type Json } from './client.js';

const ADMIN_TOKEN = 'punch-photos-admin-token-0123456789abcdef';
const SN = 'PUNCH-PHOTO-1';

const jpeg = (shade: number) =>
  sharp({ create: { width: 32, height: 24, channels: 3, background: { r: shade, g: 40, b: 90 } } })
    .jpeg()
    .toBuffer();

/** One ATTPHOTO upload as a v2 terminal sends it: header lines, a NUL, the raw JPEG [PUSH-v2 §6.8]. */
async function uploadPhoto(url: string, fileName: string, bytes: Buffer): Promise<{ status: number; text: string }> {
  const head = Buffer.from(`PIN=${fileName}\nSN=${SN}\nsize=${bytes.length}\nCMD=uploadphoto\0`);
  const res = await fetch(`${url}/iclock/cdata?SN=${SN}&table=ATTPHOTO&Stamp=9999`, { method: 'POST', body: Buffer.concat([head, bytes]) });
  return { status: res.status, text: await res.text() };
}

t.test('kept while the location opts in, served by record id, announced, expired', async (t) => {
  const g = await gateway(t, { config: { adminToken: ADMIN_TOKEN, longpollS: 1 } });
  const { a, started } = g;
  const b = await g.tenant('Other');
  const admin = { token: ADMIN_TOKEN };
  const events: AnyFeedEvent[] = [];
  started.app.feed.subscribe({ locationId: null }, (e) => void events.push(e));
  t.equal((await a.api('POST', '/api/devices', { body: { sn: SN } })).status, 201);
  const sim = createSimulatedDevice({ url: g.url, sn: SN, protocol: 'v2', pollDelayMs: 50, fast: true, retryDelayMs: 200 });
  t.teardown(() => sim.stop());
  sim.start();
  await waitFor(() => sim.stats.polls > 0, 20_000, 'handshake');
  t.match((await a.api<Json>('GET', '/api/me')).body, { attendance_photos: false, attendance_photo_retention_days: 30 });

  const recordAt = async (local: string): Promise<number> => {
    const list = await a.api<{ data: Json[] }>('GET', `/api/attendance?pin=1001&limit=100`);
    const found = list.body.data.find((r) => r['local_time'] === local);
    if (!found) throw new Error(`no record at ${local}`);
    return found['id'] as number;
  };
  const photoOf = async (id: number, token = a.token) => {
    const res = await fetch(`${g.url}/api/attendance/${id}/photo`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
  };

  // Off (the default): acknowledged, not kept.
  t.ok(await sim.punch('1001', '2026-11-30 08:00:00'));
  t.match(await uploadPhoto(g.url, '20261130080000-1001.jpg', await jpeg(10)), { status: 200, text: /^OK/ }, 'acknowledged');
  const early = await recordAt('2026-11-30 08:00:00');
  t.match(await a.api(`GET`, `/api/attendance/${early}/photo`), { status: 404, body: { code: 'PHOTO_NOT_FOUND' } }, 'not kept while off');

  const on = await a.api<Json>('PATCH', `/admin/locations/${a.id}`, {
    ...admin,
    body: { attendance_photos: true, attendance_photo_retention_days: 7 },
  });
  t.match(on, { status: 200, body: { attendance_photos: true, attendance_photo_retention_days: 7 } });
  t.match(await a.api('PATCH', `/admin/locations/${a.id}`, { ...admin, body: { attendance_photo_retention_days: 0 } }), { status: 422 });
  t.match((await a.api<Json>('GET', '/api/me')).body, { attendance_photos: true, attendance_photo_retention_days: 7 });

  // The punch first, then its photo: kept, served, announced with its URL.
  t.ok(await sim.punch('1001', '2026-11-30 09:01:02'));
  const id = await recordAt('2026-11-30 09:01:02');
  const photo = await jpeg(200);
  t.match(await uploadPhoto(g.url, '20261130090102-1001.jpg', photo), { status: 200 });
  const got = await photoOf(id);
  t.equal(got.status, 200);
  t.equal(got.type, 'image/jpeg');
  t.ok(got.bytes.equals(photo), 'the bytes the terminal sent');
  await waitFor(() => events.some((e) => e.type === 'attendance.photo'), 10_000, 'attendance.photo');
  const announced = events.find((e) => e.type === 'attendance.photo');
  t.match(announced, { location_id: a.id, data: { record: { id, pin: '1001', sn: SN }, photo_url: `/api/attendance/${id}/photo` } });
  t.notOk(JSON.stringify(announced).includes(photo.toString('base64').slice(0, 40)), 'the event carries no bytes');

  // The photo first, then its punch: found by the punch's key all the same.
  const later = await jpeg(120);
  t.match(await uploadPhoto(g.url, '20261130170000-1001.jpg', later), { status: 200 });
  t.ok(await sim.punch('1001', '2026-11-30 17:00:00'));
  t.ok((await photoOf(await recordAt('2026-11-30 17:00:00'))).bytes.equals(later), 'photo before punch');

  // Not kept: a failed verification's photo (no PIN), bytes that are not a JPEG.
  const before = await started.app.store.photos.bytes(a.id);
  t.match(await uploadPhoto(g.url, '20261130100000.jpg', await jpeg(30)), { status: 200 });
  t.match(await uploadPhoto(g.url, '20261130100001-1001.jpg', Buffer.from('not a jpeg at all')), { status: 200 });
  t.equal(await started.app.store.photos.bytes(a.id), before, 'neither was kept');

  // Tenancy and scope.
  t.match(await b.api('GET', `/api/attendance/${id}/photo`), { status: 404, body: { code: 'ATTENDANCE_NOT_FOUND' } });
  const read = await started.app.locations.issueToken({ location_id: a.id, scope: 'read', label: 'viewer' });
  t.equal((await photoOf(id, read.token)).status, 403, 'a read token gets no photos');

  // Retention: 7 days on.
  t.equal(await expirePunchPhotos(started.app.store, new Date(Date.now() + 6 * 86_400_000)), 0, 'within 7 days: kept');
  t.equal(await expirePunchPhotos(started.app.store, new Date(Date.now() + 8 * 86_400_000)), 2, 'after 7 days: both go');
  t.match(await a.api(`GET`, `/api/attendance/${id}/photo`), { status: 404, body: { code: 'PHOTO_NOT_FOUND' } });
  t.equal(await started.app.store.photos.bytes(a.id), 0);
});
