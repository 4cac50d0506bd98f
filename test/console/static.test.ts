/**
 * The console's static serving over real HTTP (no browser): `/` redirects, the page and its
 * assets come with a strict Content-Security-Policy, content types and ETags, unknown assets are
 * 404, client-side routes get the page, and the built bundle names no external origin.
 * Needs the built bundle (`npm test` and `npm run build` build it: node src/console/web/build.mjs).
 */
import { readdir, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import t from 'tap';
import { findConsoleDir } from '../../src/console/assets.js';
import { consoleCsp } from '../../src/console/routes.js';
import { startApp } from '../helpers/app.js';

const dir = findConsoleDir();

/** A GET with the path sent exactly as given (fetch would resolve `..` before sending it). */
function rawGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

t.test('the bundle is built', async (t) => {
  t.ok(dir, 'dist/console/index.html exists (run `node src/console/web/build.mjs`)');
});

t.test(
  'serving: redirect, page, assets, CSP, ETag, 404, SPA fallback',
  { skip: dir === undefined && 'the console is not built' },
  async (t) => {
    const { url, port } = await startApp(t);

    const root = await fetch(`${url}/`, { redirect: 'manual' });
    t.equal(root.status, 302, '/ redirects');
    t.equal(root.headers.get('location'), '/console/');

    for (const path of ['/console', '/console/', '/console/devices', '/console/devices/CJDE193560303', '/console/admin/tokens']) {
      const res = await fetch(`${url}${path}`);
      t.equal(res.status, 200, `${path} is the page`);
      t.match(res.headers.get('content-type'), /^text\/html; charset=utf-8/);
      const csp = res.headers.get('content-security-policy') ?? '';
      t.match(csp, /default-src 'self'/, `${path}: CSP default-src 'self'`);
      t.match(csp, /script-src 'self'(;|$)/, 'no inline script, no eval');
      t.match(csp, /style-src 'self'(;|$)/, 'no inline style');
      t.match(csp, /frame-ancestors 'none'/, 'never framed');
      t.match(
        csp,
        new RegExp(`connect-src 'self' ws://127\\.0\\.0\\.1:${port} wss://127\\.0\\.0\\.1:${port}(;|$)`),
        'fetches and the stream go to BioGate only',
      );
      t.notMatch(csp, /unsafe|\*/, 'no unsafe-* and no wildcard');
      t.equal(res.headers.get('x-content-type-options'), 'nosniff');
      await res.arrayBuffer();
    }

    const html = await (await fetch(`${url}/console/`)).text();
    t.notMatch(html, /https?:\/\//, 'the page holds no absolute URL');
    t.notMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script');
    t.notMatch(html, /\sstyle=|\son[a-z]+=/i, 'no inline style or event handler attribute');
    const urls = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1] as string).filter((u) => !u.startsWith('/api/'));
    t.same(
      urls.sort(),
      ['/console/assets/app.css', '/console/assets/app.js', '/console/assets/favicon.svg'],
      'the page loads its three assets',
    );

    const types: Record<string, RegExp> = { 'app.js': /^text\/javascript/, 'app.css': /^text\/css/, 'favicon.svg': /^image\/svg\+xml/ };
    for (const [name, type] of Object.entries(types)) {
      const res = await fetch(`${url}/console/assets/${name}`);
      t.equal(res.status, 200, `${name} served`);
      t.match(res.headers.get('content-type'), type, `${name} content type`);
      t.equal(res.headers.get('cache-control'), 'no-cache', 'revalidated on every use');
      const etag = res.headers.get('etag') ?? '';
      t.match(etag, /^"[A-Za-z0-9_-]{10,}"$/, 'a strong ETag');
      const body = Buffer.from(await res.arrayBuffer());
      t.same(body, await readFile(join(dir as string, name)), 'the built file, byte for byte');
      const again = await fetch(`${url}/console/assets/${name}`, { headers: { 'if-none-match': etag } });
      t.equal(again.status, 304, `${name}: 304 when the client has it`);
      t.equal((await again.arrayBuffer()).byteLength, 0);
      const changed = await fetch(`${url}/console/assets/${name}`, { headers: { 'if-none-match': '"something-else"' } });
      t.equal(changed.status, 200, 'another ETag gets the file');
      await changed.arrayBuffer();
    }
    const head = await fetch(`${url}/console/assets/app.js`, { method: 'HEAD' });
    t.equal(head.status, 200, 'HEAD works');
    t.equal(Number(head.headers.get('content-length')), (await readFile(join(dir as string, 'app.js'))).byteLength);

    for (const path of ['/console/assets/nope.js', '/console/assets/index.html', '/console/assets/', '/console/assets/sub/app.js']) {
      const res = await fetch(`${url}${path}`);
      t.equal(res.status, 404, `${path} is 404`);
      t.match(await res.json(), { code: 'NOT_FOUND' });
    }
    for (const path of [
      '/console/assets/../../package.json',
      '/console/assets/..%2f..%2fpackage.json',
      '/console/assets/%2e%2e/%2e%2e/package.json',
    ]) {
      const res = await rawGet(port, path);
      t.not(res.status, 200, `${path} is not served (${res.status})`);
      t.notMatch(res.body, /"name":\s*"biogate"/, 'nothing outside the bundle leaks');
    }
    const post = await fetch(`${url}/console/`, { method: 'POST' });
    t.equal(post.status, 405, 'the console is read-only');
    await post.arrayBuffer();
  },
);

t.test('a Host header that is not a host name is not echoed into the policy', async (t) => {
  t.equal(consoleCsp('gw.example.com:8443').includes("connect-src 'self' ws://gw.example.com:8443 wss://gw.example.com:8443"), true);
  t.equal(consoleCsp('[::1]:8080').includes('ws://[::1]:8080'), true, 'IPv6 literal');
  for (const bad of ['evil.com; script-src *', 'a b', 'x/y', undefined])
    t.match(consoleCsp(bad), /connect-src 'self'; /, `${String(bad)} leaves 'self' alone`);
});

t.test('the bundle names no external origin and stays in budget', { skip: dir === undefined && 'the console is not built' }, async (t) => {
  // XML namespace names are identifiers, never fetched (Preact creates SVG elements with them).
  const NAMESPACES = new Set([
    'http://www.w3.org/2000/svg',
    'http://www.w3.org/1999/xlink',
    'http://www.w3.org/1999/xhtml',
    'http://www.w3.org/1998/Math/MathML',
    'http://www.w3.org/XML/1998/namespace',
  ]);
  const files = await readdir(dir as string);
  t.ok(files.includes('app.js') && files.includes('app.css') && files.includes('index.html'));
  let jsBytes = 0;
  for (const name of files) {
    const text = await readFile(join(dir as string, name), 'utf8');
    if (name.endsWith('.js')) jsBytes += text.length;
    const origins = [...text.matchAll(/(?:https?|wss?):\/\/[^\s"'`)<>\\]*/g)].map((m) => m[0]).filter((u) => !NAMESPACES.has(u));
    t.same(origins, [], `${name}: no external URL`);
    t.notMatch(text, /\/\/(cdn|fonts|unpkg|jsdelivr)\b/i, `${name}: no CDN`);
  }
  t.ok(jsBytes > 1000 && jsBytes < 600 * 1024, `JavaScript ${jsBytes} bytes before gzip`);
});
