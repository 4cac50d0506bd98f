/**
 * User photos through the API (issue #35 item 4), on both stores (test/mongo-api-leg.mjs runs test/api): an
 * upload is re-encoded (nothing but pixels survives), GET gives the stored JPEG back, the emulated terminals
 * that hold the user receive it in their dialects (`biophoto` with exactly those bytes on a v3 terminal that
 * enrols from photos, `USERPIC` on a v2 one, nothing on a terminal without photos), DELETE removes it here and
 * there; oversized, non-image and undecodable uploads are refused and leave nothing; scope, tenancy and the
 * photo quota hold.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import t from 'tap';
import { createSimulatedDevice, type SimulatedDevice } from '../../src/simulator/index.js';
import { waitFor } from '../helpers/app.js';
import { gateway, settled, type ErrorBody, type Json } from './client.js';

const ADMIN_TOKEN = 'photos-admin-token-0123456789abcdef';
/** Text hidden in the upload's EXIF: the stored photo must not carry it. */
const SECRET = 'gps-and-camera-serial-of-ann';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A 64 × 80 gradient, as a JPEG with EXIF (a comment and a 90° orientation) or as a PNG. */
async function image(format: 'jpeg' | 'png', width = 64, height = 80): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = (i * 7) % 251;
  const base = sharp(pixels, { raw: { width, height, channels: 3 } });
  return format === 'png'
    ? base.png().toBuffer()
    : base
        .withExif({ IFD0: { ImageDescription: SECRET } })
        .withMetadata({ orientation: 6 })
        .jpeg()
        .toBuffer();
}

/** Random pixels compress badly: a big photo within 1 MiB. */
async function noise(side: number): Promise<Buffer> {
  const pixels = Buffer.alloc(side * side * 3);
  for (let i = 0; i < pixels.length; i++) pixels[i] = Math.floor(Math.random() * 256);
  return sharp(pixels, { raw: { width: side, height: side, channels: 3 } })
    .jpeg({ quality: 95 })
    .toBuffer();
}

async function fetchPhoto(url: string, token: string, pin: number, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/users/${pin}/photo`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    etag: res.headers.get('etag'),
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

t.test('PUT re-encodes and reaches the terminals in their dialects, GET returns it, DELETE removes it everywhere', async (t) => {
  const g = await gateway(t, { config: { adminToken: ADMIN_TOKEN, longpollS: 1 } });
  const { a, started } = g;
  const sims = new Map<string, SimulatedDevice>();
  for (const [sn, protocol, photoSupport] of [
    ['PH-V3-PHOTO', 'v3', true],
    ['PH-V2-PHOTO', 'v2', true],
    ['PH-V3-NONE', 'v3', false],
  ] as const) {
    t.equal((await a.api('POST', '/api/devices', { body: { sn, name: sn } })).status, 201);
    const sim = createSimulatedDevice({
      url: g.url,
      sn,
      protocol,
      faceSupport: true,
      photoSupport,
      pollDelayMs: 50,
      fast: true,
      retryDelayMs: 200,
    });
    t.teardown(() => sim.stop());
    sim.start();
    sims.set(sn, sim);
    await waitFor(() => sim.stats.polls > 0, 20_000, `${sn} handshake`);
  }
  t.equal((await a.api('POST', '/api/users', { body: { pin: 1001, first_name: 'Ann' } })).status, 201);
  await settled(a.api, 'the user on the terminals');
  t.equal((await a.api<Json>('GET', '/api/users/1001')).body['photo'], null, 'no photo yet');

  const upload = await image('jpeg');
  const put = await a.api<Json>('PUT', '/api/users/1001/photo', { raw: upload, headers: { 'content-type': 'image/jpeg' } });
  t.equal(put.status, 201, 'a first photo');
  // EXIF orientation 6 (90° clockwise) is applied: 64 × 80 is stored as 80 × 64.
  t.match(put.body, { url: '/api/users/1001/photo', width: 80, height: 64, size: Number });

  const got = await fetchPhoto(g.url, a.token, 1001);
  t.equal(got.status, 200);
  t.equal(got.type, 'image/jpeg');
  t.equal(got.bytes.length, put.body['size'], 'the stored size');
  t.strictSame([...got.bytes.subarray(0, 3)], [0xff, 0xd8, 0xff], 'a JPEG');
  t.notOk(got.bytes.includes(Buffer.from(SECRET)), 'the EXIF text did not survive');
  const meta = await sharp(got.bytes).metadata();
  t.match(meta, { format: 'jpeg', width: 80, height: 64 });
  t.equal(meta.exif, undefined, 'no EXIF block at all');
  t.equal(got.etag, `"${sha256(got.bytes)}"`);
  t.equal((await fetchPhoto(g.url, a.token, 1001, { 'if-none-match': got.etag ?? '' })).status, 304, 'unchanged: 304');
  t.match((await a.api<Json>('GET', '/api/users/1001')).body['photo'], { url: '/api/users/1001/photo', width: 80, height: 64 });

  await settled(a.api, 'the photo on the terminals');
  // Terminals get a copy re-encoded small enough for a v2 reply [PUSH-v2 §7.3]: the stored one scaled to 480 px at most.
  const copy = (await started.app.store.photos.get(a.id, 'user', '1001-terminal')) as Buffer;
  t.ok(copy.length > 0 && copy.length <= 24 * 1024, `the terminals' copy is ${copy.length} bytes`);
  t.match(await sharp(copy).metadata(), { format: 'jpeg', width: 80, height: 64 }, 'a small photo keeps its size');
  const v3 = sims.get('PH-V3-PHOTO') as SimulatedDevice;
  t.match(
    v3.photos('1001'),
    [{ pin: '1001', type: 9, sha256: sha256(copy) }],
    'the v3 terminal holds the re-encoded bytes as a face photo',
  );
  const line = v3
    .executed()
    .map((c) => c.command)
    .find((l) => l.startsWith('DATA UPDATE biophoto'));
  t.equal(
    line,
    `DATA UPDATE biophoto PIN=1001\tType=9\tSize=${copy.toString('base64').length}\tContent=${copy.toString('base64')}\tFormat=0\tUrl=\tPostBackTmpFlag=0`,
    'the biophoto line [PUSH-v3 §11.2]',
  );
  t.match((sims.get('PH-V2-PHOTO') as SimulatedDevice).photos('1001'), [{ type: 9, sha256: sha256(copy) }], 'v2: BIOPHOTO');
  t.strictSame((sims.get('PH-V3-NONE') as SimulatedDevice).photos('1001'), [], 'a terminal without photos gets none');
  const none = await a.api<{ data: Json[] }>('GET', '/api/commands?sn=PH-V3-NONE&limit=100');
  t.ok(none.body.data.length > 0 && none.body.data.every((c) => c['status'] === 'success'), 'its ops still succeed (the user is there)');

  const before = (await a.api<{ total: number }>('GET', '/api/commands?limit=1')).body.total;
  t.equal((await a.api('PUT', '/api/users/1001/photo', { raw: upload, headers: { 'content-type': 'image/jpeg' } })).status, 200);
  t.equal((await a.api<{ total: number }>('GET', '/api/commands?limit=1')).body.total, before, 'the same photo again queues nothing');

  const png = await image('png', 40, 50);
  const replaced = await a.api<Json>('PUT', '/api/users/1001/photo', { raw: png, headers: { 'content-type': 'image/png' } });
  t.match(replaced, { status: 200, body: { width: 40, height: 50 } }, 'a PNG replaces it, stored as a JPEG');
  const second = await fetchPhoto(g.url, a.token, 1001);
  t.equal(second.type, 'image/jpeg');
  await settled(a.api, 'the new photo on the terminals');
  const secondCopy = (await started.app.store.photos.get(a.id, 'user', '1001-terminal')) as Buffer;
  t.match(v3.photos('1001'), [{ type: 9, sha256: sha256(secondCopy) }], 'the terminal holds the new one');

  t.equal((await a.api('DELETE', '/api/users/1001/photo')).status, 200);
  t.match(await a.api('GET', '/api/users/1001/photo'), { status: 404, body: { code: 'PHOTO_NOT_FOUND' } });
  t.match(await a.api('DELETE', '/api/users/1001/photo'), { status: 404, body: { code: 'PHOTO_NOT_FOUND' } });
  t.equal((await a.api<Json>('GET', '/api/users/1001')).body['photo'], null);
  await settled(a.api, 'the photo deletes');
  for (const sn of ['PH-V3-PHOTO', 'PH-V2-PHOTO'])
    t.strictSame((sims.get(sn) as SimulatedDevice).photos('1001'), [], `${sn} holds no photo`);
  t.ok(
    v3.executed().some((c) => c.command === 'DATA DELETE biophoto PIN=1001'),
    'v3 got the biophoto delete',
  );
  t.ok(sims.get('PH-V3-NONE')?.users().has('1001'), 'the user stays on every terminal');
  t.equal(await started.app.store.photos.bytes(a.id), 0, 'no bytes left in the photo store');
});

t.test('refusals leave nothing: size, type, undecodable, dimensions, scope, unknown user, other locations, quota', async (t) => {
  const g = await gateway(t, { config: { adminToken: ADMIN_TOKEN, quotaPhotoMb: 1 } });
  const { a, started } = g;
  const b = await g.tenant('Other');
  t.equal((await a.api('POST', '/api/users', { body: { pin: 5, first_name: 'Eve' } })).status, 201);
  const jpeg = await image('jpeg');
  const refusals: [Uint8Array, string, number, string, string][] = [
    [Buffer.concat([jpeg, Buffer.alloc(1024 * 1024)]), 'image/jpeg', 413, 'PAYLOAD_TOO_LARGE', 'over 1 MiB'],
    [Buffer.from('not an image at all'), 'image/jpeg', 415, 'UNSUPPORTED_MEDIA_TYPE', 'text claiming to be a JPEG'],
    [jpeg, 'text/plain', 415, 'UNSUPPORTED_MEDIA_TYPE', 'a JPEG sent as text'],
    [await image('png'), 'image/jpeg', 415, 'UNSUPPORTED_MEDIA_TYPE', 'a PNG sent as a JPEG'],
    [
      await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } })
        .gif()
        .toBuffer(),
      'application/octet-stream',
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'a GIF',
    ],
    [jpeg.subarray(0, 200), 'image/jpeg', 422, 'PHOTO_INVALID', 'a truncated JPEG'],
    [await image('png', 2001, 10), 'image/png', 422, 'PHOTO_INVALID', 'wider than 2,000 px'],
    [new Uint8Array(0), 'image/jpeg', 415, 'UNSUPPORTED_MEDIA_TYPE', 'an empty body'],
  ];
  for (const [raw, type, status, code, what] of refusals)
    t.match(
      await a.api<ErrorBody>('PUT', '/api/users/5/photo', { raw, headers: { 'content-type': type } }),
      { status, body: { code } },
      what,
    );
  t.match(await a.api('PUT', '/api/users/6/photo', { raw: jpeg, headers: { 'content-type': 'image/jpeg' } }), {
    status: 404,
    body: { code: 'USER_NOT_FOUND' },
  });
  const operator = await started.app.locations.issueToken({ location_id: a.id, scope: 'operator', label: 'desk' });
  const read = await started.app.locations.issueToken({ location_id: a.id, scope: 'read', label: 'viewer' });
  for (const token of [operator.token, read.token]) {
    t.match(await a.api('PUT', '/api/users/5/photo', { raw: jpeg, token, headers: { 'content-type': 'image/jpeg' } }), {
      status: 403,
      body: { code: 'SCOPE_DENIED' },
    });
    t.match(await a.api('GET', '/api/users/5/photo', { token }), { status: 403, body: { code: 'SCOPE_DENIED' } });
    t.match(await a.api('DELETE', '/api/users/5/photo', { token }), { status: 403, body: { code: 'SCOPE_DENIED' } });
  }
  t.match(await a.api('GET', '/api/users/5/photo'), { status: 404, body: { code: 'PHOTO_NOT_FOUND' } }, 'nothing was stored');
  t.equal(await started.app.store.photos.bytes(a.id), 0);

  t.equal(
    (await a.api('PUT', '/api/users/5/photo', { raw: jpeg, headers: { 'content-type': 'application/octet-stream' } })).status,
    201,
    'octet-stream: sniffed',
  );
  t.equal((await b.api('POST', '/api/users', { body: { pin: 5, first_name: 'Other Eve' } })).status, 201);
  t.match(
    await b.api('GET', '/api/users/5/photo'),
    { status: 404, body: { code: 'PHOTO_NOT_FOUND' } },
    "another location's user 5 has none",
  );
  t.match(await b.api('DELETE', '/api/users/5/photo'), { status: 404, body: { code: 'PHOTO_NOT_FOUND' } });
  t.equal((await a.api('GET', '/api/users/5/photo')).status, 200, 'still there');

  // BIOGATE_QUOTA_PHOTO_MB=1: big photos fill the location until one is refused, and that one leaves nothing.
  let refusedPin: number | undefined;
  for (let pin = 100; pin < 110 && refusedPin === undefined; pin++) {
    t.equal((await a.api('POST', '/api/users', { body: { pin, first_name: `User ${pin}` } })).status, 201);
    const res = await a.api<ErrorBody>('PUT', `/api/users/${pin}/photo`, {
      raw: await noise(520),
      headers: { 'content-type': 'image/jpeg' },
    });
    if (res.status === 429) {
      t.equal(res.body.code, 'QUOTA_EXCEEDED');
      t.match(String(res.body.detail), /BIOGATE_QUOTA_PHOTO_MB/);
      refusedPin = pin;
    } else {
      t.equal(res.status, 201, `photo of ${pin}`);
      const copy = (await started.app.store.photos.get(a.id, 'user', `${pin}-terminal`)) as Buffer;
      const meta = await sharp(copy).metadata();
      t.ok(copy.length <= 24 * 1024 && Math.max(meta.width ?? 0, meta.height ?? 0) <= 480, `a large photo's copy: ${copy.length} bytes`);
    }
  }
  t.ok(refusedPin !== undefined && refusedPin > 100, 'a later photo passed the quota and was refused');
  t.ok((await started.app.store.photos.bytes(a.id)) <= 1024 * 1024, 'the location stays within 1 MiB');
  t.match(await a.api('GET', `/api/users/${refusedPin}/photo`), { status: 404, body: { code: 'PHOTO_NOT_FOUND' } });
  t.equal(await started.app.store.photos.bytes(b.id), 0, "the other location's room is its own");

  const held = await started.app.store.photos.bytes(a.id);
  t.equal((await a.api('DELETE', '/api/users/100')).status, 200);
  t.ok((await started.app.store.photos.bytes(a.id)) < held, "a deleted user's photo bytes go with it");
});
