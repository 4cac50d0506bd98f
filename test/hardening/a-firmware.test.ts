/**
 * Issue #12: every error on the firmware download path fails the command with a clear
 * error_message and never kills the process [COMMANDS §4.22]; a cached file is base64-encoded
 * once and shared by every device. Issue #32: downloads go through the address guard (a literal
 * private host is refused when queued, a name resolving to one when connecting), at most two run at
 * once, and errors name neither size nor MD5. Real local HTTPS server with a self-signed certificate
 * (as test/devices/runtime-lifecycle.test.ts), real app, raw device requests.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createFirmwareCache, FirmwareError } from '../../src/devices/firmware.js';
import { bearer, fetchJson, jsonBody, startApp, tempDir, type Teardown } from '../helpers/app.js';
import { NO_OPENSSL, selfSignedCert } from '../helpers/tls.js';

const firmware = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 17) % 256));
const md5 = createHash('md5').update(firmware).digest('hex');
/** Over two encoding pieces and not a multiple of 3 bytes. */
const big = Buffer.from(Array.from({ length: 6 * 1024 * 1024 + 1 }, (_, i) => (i * 7 + (i >> 12)) % 256));

/** An HTTPS firmware server: /fw.bin is the file; /bad-<n> redirects to a malformed Location. */
async function firmwareServer(t: Teardown) {
  const dir = await tempDir(t);
  const { cert, key } = selfSignedCert(dir, { localhost: true });
  const bad = ['https://[oops', 'https://host:99999/fw.bin', 'http://%zz'];
  const seen = { requests: 0, open: 0, mostOpen: 0 };
  const server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
    seen.requests++;
    const m = /^\/bad-(\d)$/.exec(req.url ?? '');
    if (m) res.writeHead(302, { Location: bad[Number(m[1])] ?? '' }).end();
    else if (req.url === '/fw.bin') res.end(firmware);
    else if (req.url === '/big.bin') res.end(big);
    else if (req.url?.startsWith('/slow-')) {
      // Held for a while, so that downloads running at once overlap here.
      seen.mostOpen = Math.max(seen.mostOpen, ++seen.open);
      setTimeout(() => {
        seen.open--;
        res.end(firmware);
      }, 300);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  return { cert, base: `https://127.0.0.1:${port}`, named: `https://localhost:${port}`, bad, seen };
}

t.test('a redirect with a malformed Location fails the command; the process lives on', { skip: NO_OPENSSL }, async (t) => {
  const fw = await firmwareServer(t);
  // The firmware server is on loopback: allowed for this test only.
  const app = await startApp(t, { config: { firmwareCaFile: fw.cert, firmwareAllowPrivate: 'on' } });
  const api = async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
  const dev = (path: string) =>
    fetch(`${app.url}/iclock/${path}${path.includes('?') ? '&' : '?'}SN=FWBAD1`).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    }));
  await api('POST', '/api/devices', { sn: 'FWBAD1' });

  for (let i = 0; i < fw.bad.length; i++) {
    const url = `${fw.base}/bad-${i}`;
    const queued = await api('POST', '/api/commands', {
      sn: 'FWBAD1',
      command: 'firmware-upgrade',
      params: { url, checksum: md5, size: firmware.length },
    });
    t.equal(queued.res.status, 201);
    const id = (queued.body as { id: number }).id;
    t.match((await dev('getrequest')).text, new RegExp(`^C:${id}:UPGRADE`));
    const served = await dev(`file?url=${encodeURIComponent(url)}`);
    t.equal(served.status, 404, `${fw.bad[i]}: the device gets no file`);
    const command = (await api('GET', `/api/commands/${id}`)).body as { status: string; error_message: string };
    t.equal(command.status, 'failed', `${fw.bad[i]}: the command failed`);
    t.match(
      command.error_message,
      /^firmware download: (malformed redirect location|refused redirect)/,
      `${fw.bad[i]}: clear error_message`,
    );
  }
  t.equal((await fetch(`${app.url}/healthz`)).status, 200, 'the process is alive');
});

t.test('every failure is a FirmwareError; a cached file is encoded once and shared', { skip: NO_OPENSSL }, async (t) => {
  const fw = await firmwareServer(t);
  const cache = createFirmwareCache({ caFile: fw.cert, maxBytes: 1024 * 1024, timeoutMs: 5000, allowPrivate: true });
  for (const url of [`${fw.base}/bad-0`, `${fw.base}/bad-1`, 'https://127.0.0.1:1/fw.bin', `${fw.base}/missing`]) {
    const err = await cache.fetch({ url, checksum: md5, size: firmware.length }).then(
      () => undefined,
      (e: unknown) => e,
    );
    t.ok(err instanceof FirmwareError, `${url}: FirmwareError (${String(err)})`);
  }
  const request = { url: `${fw.base}/fw.bin`, checksum: md5, size: firmware.length };
  const first = await cache.fetch(request);
  const second = await cache.fetch({ ...request, checksum: md5.toUpperCase() });
  t.equal(first.size, firmware.length);
  t.ok(Buffer.from(first.base64, 'base64').equals(firmware), 'the file, base64');
  t.equal(first, second, 'the same encoded copy for every requester');
});

/** A gateway with the firmware server's certificate trusted, an API caller and one raw terminal. */
async function gateway(t: Teardown, fw: { cert: string }, config: Record<string, unknown> = {}) {
  const app = await startApp(t, { config: { firmwareCaFile: fw.cert, ...config } });
  const api = async (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
  const dev = (sn: string, path: string) =>
    fetch(`${app.url}/iclock/${path}${path.includes('?') ? '&' : '?'}SN=${sn}`).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    }));
  const upgrade = (sn: string, params: { url: string; checksum: string; size: number }) =>
    api('POST', '/api/commands', { sn, command: 'firmware-upgrade', params });
  /** Queues, lets the terminal take the command and ask for the file; the answer and the command after. */
  const attempt = async (sn: string, params: { url: string; checksum: string; size: number }) => {
    const queued = await upgrade(sn, params);
    if (queued.res.status !== 201) throw new Error(`${params.url}: queueing answered ${queued.res.status}`);
    const id = (queued.body as { id: number }).id;
    await dev(sn, 'getrequest');
    const served = await dev(sn, `file?url=${encodeURIComponent(params.url)}`);
    const command = (await api('GET', `/api/commands/${id}`)).body as { status: string; error_message: string | null };
    return { served, command };
  };
  return { api, upgrade, attempt };
}

t.test(
  'by default a firmware url whose host is a literal private or loopback address is refused when queued (422)',
  { skip: NO_OPENSSL },
  async (t) => {
    const fw = await firmwareServer(t);
    const { api, upgrade } = await gateway(t, fw);
    await api('POST', '/api/devices', { sn: 'FWSSRF1' });
    for (const host of ['127.0.0.1', '[::1]', '10.0.0.5', '169.254.169.254', '192.168.1.1', '[::ffff:127.0.0.1]']) {
      const url = `https://${host}:${new URL(fw.base).port}/secret`;
      const queued = await upgrade('FWSSRF1', { url, checksum: md5, size: firmware.length });
      t.equal(queued.res.status, 422, `${host}: 422`);
      const body = queued.body as { code: string; detail: { loc: string[]; msg: string }[] };
      t.equal(body.code, 'VALIDATION_FAILED');
      t.same(body.detail[0]?.loc, ['body', 'params', 'url']);
      t.match(body.detail[0]?.msg, /loopback, link-local or private address.*BIOGATE_FIRMWARE_ALLOW_PRIVATE=on/, `${host}: a clear detail`);
    }
    const unparsable = await upgrade('FWSSRF1', { url: 'https://[oops/fw.bin', checksum: md5, size: firmware.length });
    t.equal(unparsable.res.status, 422, 'a url that does not parse: 422, not 500');
    t.match(unparsable.body, { code: 'VALIDATION_FAILED', detail: [{ loc: ['body', 'params', 'url'] }] });
    t.equal(((await api('GET', '/api/commands?sn=FWSSRF1')).body as { total: number }).total, 0, 'nothing queued');
    t.equal(fw.seen.requests, 0, 'the gateway never connected');
  },
);

t.test(
  'a host name that resolves to a loopback address is refused when downloading; the error reveals nothing of the body',
  { skip: NO_OPENSSL },
  async (t) => {
    const fw = await firmwareServer(t);
    const { api, attempt } = await gateway(t, fw);
    await api('POST', '/api/devices', { sn: 'FWSSRF2' });
    // `localhost` is a name (it passes the queue's literal check) whose address is loopback.
    const { served, command } = await attempt('FWSSRF2', { url: `${fw.named}/fw.bin`, checksum: 'f'.repeat(32), size: 1 });
    t.equal(served.status, 404, 'the terminal gets no file');
    t.equal(command.status, 'failed');
    t.match(
      command.error_message,
      /^firmware download: refused: .*loopback, link-local or private address \(allowed only with BIOGATE_FIRMWARE_ALLOW_PRIVATE=on\)$/,
    );
    t.notMatch(command.error_message, String(firmware.length), 'not the size');
    t.notMatch(command.error_message, md5, 'not the checksum');
    t.equal(fw.seen.requests, 0, 'the gateway never connected');
  },
);

t.test(
  'with BIOGATE_FIRMWARE_ALLOW_PRIVATE=on: mismatches say so without the values; served bytes are the file',
  { skip: NO_OPENSSL },
  async (t) => {
    const fw = await firmwareServer(t);
    const { api, attempt } = await gateway(t, fw, { firmwareAllowPrivate: 'on' });
    await api('POST', '/api/devices', { sn: 'FWSSRF3' });
    const url = `${fw.base}/fw.bin`;
    for (const size of [1, firmware.length + 1]) {
      const { command } = await attempt('FWSSRF3', { url, checksum: md5, size });
      t.equal(command.status, 'failed');
      t.equal(command.error_message, 'firmware download: size did not match', `announced ${size}: no size revealed`);
    }
    const wrong = await attempt('FWSSRF3', { url, checksum: 'f'.repeat(32), size: firmware.length });
    t.equal(wrong.command.status, 'failed');
    t.equal(wrong.command.error_message, 'firmware download: checksum did not match', 'no MD5 revealed');
    const bigUrl = `${fw.base}/big.bin`;
    const ok = await attempt('FWSSRF3', { url: bigUrl, checksum: createHash('md5').update(big).digest('hex'), size: big.length });
    t.equal(ok.served.status, 200);
    t.ok(Buffer.from(ok.served.text, 'base64').equals(big), 'the file, base64, byte for byte');
    t.equal(ok.served.text, big.toString('base64'), 'one well-formed base64 text (no padding inside)');
  },
);

t.test('at most two downloads run at once; the others wait and succeed', { skip: NO_OPENSSL }, async (t) => {
  const fw = await firmwareServer(t);
  const cache = createFirmwareCache({ caFile: fw.cert, maxBytes: 1024 * 1024, timeoutMs: 5000, allowPrivate: true });
  const files = await Promise.all(
    [1, 2, 3, 4, 5].map((i) => cache.fetch({ url: `${fw.base}/slow-${i}`, checksum: md5, size: firmware.length })),
  );
  t.equal(fw.seen.requests, 5);
  t.equal(fw.seen.mostOpen, 2, 'two at once, never more');
  for (const f of files) t.ok(Buffer.from(f.base64, 'base64').equals(firmware));
  const guarded = createFirmwareCache({ caFile: fw.cert, maxBytes: 1024 * 1024, timeoutMs: 5000, allowPrivate: false });
  const err = await guarded.fetch({ url: `${fw.base}/fw.bin`, checksum: md5, size: firmware.length }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof FirmwareError);
  t.match((err as Error).message, /^firmware download: refused: 127\.0\.0\.1 .*BIOGATE_FIRMWARE_ALLOW_PRIVATE=on/);
  t.equal(fw.seen.requests, 5, 'a literal loopback host is refused before connecting');
});
