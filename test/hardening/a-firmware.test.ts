/**
 * Issue #12: every error on the firmware download path fails the command with a clear
 * error_message and never kills the process [COMMANDS §4.22]; a cached file is base64-encoded
 * once and shared by every device. Real local HTTPS server with a self-signed certificate
 * (as test/devices/runtime-lifecycle.test.ts), real app, raw device requests.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import t from 'tap';
import { createFirmwareCache, FirmwareError } from '../../src/devices/firmware.js';
import { bearer, fetchJson, jsonBody, startApp, tempDir, type Teardown } from '../helpers/app.js';

const openssl = spawnSync('openssl', ['version'], { stdio: 'ignore', timeout: 10_000 });
const skip = openssl.status === 0 ? false : 'openssl is not installed: cannot make a certificate for the firmware server';
const firmware = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 17) % 256));
const md5 = createHash('md5').update(firmware).digest('hex');

/** An HTTPS firmware server: /fw.bin is the file; /bad-<n> redirects to a malformed Location. */
async function firmwareServer(t: Teardown) {
  const dir = await tempDir(t);
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-days',
      '1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore', timeout: 60_000 },
  );
  const bad = ['https://[oops', 'https://host:99999/fw.bin', 'http://%zz'];
  const server = createServer({ cert: readFileSync(cert), key: readFileSync(key) }, (req, res) => {
    const m = /^\/bad-(\d)$/.exec(req.url ?? '');
    if (m) res.writeHead(302, { Location: bad[Number(m[1])] ?? '' }).end();
    else if (req.url === '/fw.bin') res.end(firmware);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { cert, base: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, bad };
}

t.test('a redirect with a malformed Location fails the command; the process lives on', { skip }, async (t) => {
  const fw = await firmwareServer(t);
  const app = await startApp(t, { config: { firmwareCaFile: fw.cert } });
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

t.test('every failure is a FirmwareError; a cached file is encoded once and shared', { skip }, async (t) => {
  const fw = await firmwareServer(t);
  const cache = createFirmwareCache({ caFile: fw.cert, maxBytes: 1024 * 1024, timeoutMs: 5000 });
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
