/**
 * BIOGATE_TLS_CERT + BIOGATE_TLS_KEY: the one listener speaks HTTPS only.
 * The certificate is made on the spot with openssl (skipped, visibly, without it).
 */
import { writeFile } from 'node:fs/promises';
import https from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import t from 'tap';
import { startApp, tempDir, within } from '../helpers/app.js';
import { NO_OPENSSL, selfSignedCert } from '../helpers/tls.js';

async function selfSigned(t: Parameters<typeof tempDir>[0]): Promise<{ cert: string; key: string; dir: string }> {
  const dir = await tempDir(t, 'biogate-tls-');
  return { ...selfSignedCert(dir, { cn: 'localhost' }), dir };
}

/** GET over HTTPS, accepting the self-signed certificate. */
function httpsGet(port: number, path: string): Promise<{ status: number; body: string; protocol: string }> {
  return new Promise((resolve, reject) => {
    const req = https.get({ host: '127.0.0.1', port, path, rejectUnauthorized: false, timeout: 5000 }, (res) => {
      const protocol = (res.socket as TLSSocket).getProtocol() ?? '';
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, protocol }));
    });
    req.on('timeout', () => req.destroy(new Error('https request timed out')));
    req.on('error', reject);
  });
}

t.test('HTTPS with a self-signed certificate; plain HTTP on the same port fails', { skip: NO_OPENSSL }, async (t) => {
  const { cert, key } = await selfSigned(t);
  const { port, url } = await startApp(t, { config: { tlsCert: cert, tlsKey: key } });
  t.equal(url, `https://127.0.0.1:${port}`);

  const res = await httpsGet(port, '/healthz');
  t.equal(res.status, 200);
  t.equal(res.body, '{"status":"ok"}');
  t.match(res.protocol, /^TLSv1\.[23]$/);

  const plain = await within(
    5000,
    'plain HTTP to the TLS port',
    fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(4000) }).then(
      (r) => ({ ok: true as const, status: r.status }),
      (err: unknown) => ({ ok: false as const, err: err as Error }),
    ),
  );
  t.equal(plain.ok, false, 'no HTTP response');
  if (!plain.ok) t.not(plain.err.name, 'TimeoutError', 'the server closes the connection instead of hanging');
});

t.test('unusable TLS files stop the start with a clear message', { skip: NO_OPENSSL }, async (t) => {
  const { cert, dir } = await selfSigned(t);
  const garbage = join(dir, 'garbage.pem');
  await writeFile(garbage, '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n');
  await t.rejects(startApp(t, { config: { tlsCert: cert, tlsKey: garbage } }), {
    name: 'ListenError',
    message: `cannot use the TLS certificate "${cert}" with the key "${garbage}": not PEM, or they do not belong together`,
  });
});
