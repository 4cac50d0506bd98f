/**
 * GET /api/docs over real HTTP: the reference page and the Redoc script it loads are served by
 * BioGate itself (200, content types), under a strict Content-Security-Policy, and the page
 * points at nothing outside the gateway: no external script, style, font or image, and the
 * policy allows no other host.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import t from 'tap';
import { DOCS_ACCESSIBILITY, REDOC_CDN_LOGO } from '../../src/api/docs.js';
import { gateway } from './client.js';

/** Every src= / href= / spec-url= value of an HTML page. */
const urlsIn = (html: string) => [...html.matchAll(/\b(?:src|href|spec-url)\s*=\s*"([^"]*)"/gi)].map((m) => m[1] as string);

t.test('the reference page: served, strict CSP, only local URLs', async (t) => {
  const { url } = await gateway(t);
  const page = await fetch(`${url}/api/docs`);
  t.equal(page.status, 200, 'no token needed');
  t.match(page.headers.get('content-type'), /^text\/html; charset=utf-8/);
  const csp = page.headers.get('content-security-policy') ?? '';
  t.match(csp, /default-src 'none'/, 'CSP: nothing by default');
  t.match(csp, /script-src 'self'(;|$)/, 'CSP: scripts from BioGate only (no inline, no eval)');
  t.match(csp, /connect-src 'self'/, 'CSP: fetches back to BioGate only');
  t.match(csp, /frame-ancestors 'none'/);
  t.notMatch(csp, /https?:|\*/, 'CSP names no other host and no wildcard');
  t.equal(page.headers.get('x-content-type-options'), 'nosniff');

  const html = await page.text();
  t.notMatch(html, /https?:\/\//, 'the page holds no absolute URL');
  t.notMatch(html, /<script>(?!<\/script>)|<script\s+(?![^>]*\bsrc=)/, 'no inline script');
  const urls = urlsIn(html);
  t.ok(urls.length >= 2, `the page's URLs: ${urls.join(' ')}`);
  for (const u of urls) t.match(u, /^\/[^/]/, `${u} is a path on BioGate`);
  t.ok(urls.includes('/api/openapi.json'), 'Redoc renders /api/openapi.json');

  for (const u of urls) {
    const res = await fetch(`${url}${u}`);
    t.equal(res.status, 200, `${u} is served`);
  }
  const script = urls.find((u) => u.endsWith('.js')) as string;
  const js = await fetch(`${url}${script}`);
  t.match(js.headers.get('content-type'), /^text\/javascript; charset=utf-8/);
  t.match(js.headers.get('content-security-policy') ?? '', /default-src 'none'/);
  const body = Buffer.from(await js.arrayBuffer());
  const shipped = await readFile(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'));
  t.ok(shipped.includes(REDOC_CDN_LOGO), 'the pinned bundle asks a CDN for its logo');
  t.notOk(body.includes('cdn.redoc.ly'), 'the served one does not');
  t.ok(
    body.equals(Buffer.from(shipped.toString('utf8').replaceAll(REDOC_CDN_LOGO, 'data:,') + DOCS_ACCESSIBILITY)),
    'otherwise it is the pinned bundle, byte for byte, and the accessibility addendum',
  );
  t.match(body.toString('utf8', 0, 4096), /redoc|Redoc/i);

  const head = await fetch(`${url}/api/docs`, { method: 'HEAD' });
  t.equal(head.status, 200, 'HEAD too');
  const post = await fetch(`${url}/api/docs`, { method: 'POST' });
  t.equal(post.status, 405, 'read-only');
});
