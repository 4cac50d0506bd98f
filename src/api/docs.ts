/**
 * GET /api/docs: the human-readable API reference, rendered in the browser by Redoc
 * (https://github.com/Redocly/redoc, the `redoc` npm package, pinned) from /api/openapi.json.
 * Everything is served by BioGate itself: the page, Redoc's standalone bundle, the document.
 * No CDN, and a Content-Security-Policy that lets the page load nothing from elsewhere.
 *
 * Where the bundle comes from: `npm run build` copies it from node_modules/redoc into
 * dist/docs-assets/ (src/api/docs-copy.ts), so a production install without dev
 * dependencies still has it; in a development tree it is read from node_modules directly.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BioGateError } from '../errors.js';
import { defineRoute, type ApiRoute } from './route.js';

export const DOCS_PATH = '/api/docs';
export const DOCS_SCRIPT_PATH = '/api/docs/redoc.standalone.js';
const BUNDLE = 'redoc.standalone.js';
/** dist/docs-assets/ seen from dist/src/api/docs.js. */
const BUILT_ASSETS = fileURLToPath(new URL('../../docs-assets/', import.meta.url));

/**
 * Redoc injects its styles at run time (styled-components) and builds its search index in a
 * worker started from a blob: URL; nothing else is allowed. `connect-src 'self'` is what lets it
 * fetch /api/openapi.json, and keeps it from calling anywhere else.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': DOCS_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** `<redoc spec-url>` starts Redoc as soon as its script has loaded: no inline script needed (CSP). */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>BioGate API reference</title>
</head>
<body>
<noscript>This reference needs JavaScript. The document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</noscript>
<redoc spec-url="/api/openapi.json"></redoc>
<script src="${DOCS_SCRIPT_PATH}"></script>
</body>
</html>
`;

/**
 * Redoc's footer asks Redocly's CDN for a logo, the one request the reference would make elsewhere (the CSP
 * refuses it, and the browser reports the violation). Served with an empty data: URL instead: the image
 * does not decode, and Redoc's own onError leaves it out. Everything else is the pinned bundle, byte for byte.
 */
export const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
export function offline(bundle: Buffer): Buffer {
  const text = bundle.toString('utf8');
  return text.includes(REDOC_CDN_LOGO) ? Buffer.from(text.replaceAll(REDOC_CDN_LOGO, 'data:,'), 'utf8') : bundle;
}

/** The bundle shipped in dist/, else the one in node_modules (development tree); undefined when neither exists. */
export function findRedocBundle(): string | undefined {
  const built = join(BUILT_ASSETS, BUNDLE);
  if (existsSync(built)) return built;
  try {
    return createRequire(import.meta.url).resolve(`redoc/bundles/${BUNDLE}`);
  } catch {
    return undefined;
  }
}

/** Build step: copies Redoc's bundle (and its licence notice) from node_modules into dist/docs-assets/. */
export function copyRedocBundle(): string {
  const source = createRequire(import.meta.url).resolve(`redoc/bundles/${BUNDLE}`);
  mkdirSync(BUILT_ASSETS, { recursive: true });
  const target = join(BUILT_ASSETS, BUNDLE);
  copyFileSync(source, target);
  const licence = `${source}.LICENSE.txt`;
  if (existsSync(licence)) copyFileSync(licence, join(BUILT_ASSETS, `${BUNDLE}.LICENSE.txt`));
  copyFileSync(join(dirname(source), '..', 'LICENSE'), join(BUILT_ASSETS, 'REDOC-LICENSE'));
  return target;
}

export function docsRoutes(): ApiRoute[] {
  // Read once on first use (about 1 MB), then served from memory.
  let bundle: Promise<Buffer> | undefined;
  return [
    defineRoute({
      method: 'GET',
      path: DOCS_PATH,
      auth: 'none',
      doc: {
        summary: 'This API reference, for people (HTML, rendered by Redoc from /api/openapi.json)',
        tags: ['meta'],
        responses: { 200: null },
      },
      handler: () => ({
        status: 200,
        headers: { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache', ...SECURITY_HEADERS },
        body: PAGE,
      }),
    }),
    defineRoute({
      method: 'GET',
      path: DOCS_SCRIPT_PATH,
      auth: 'none',
      doc: { summary: 'The Redoc script the reference page loads', tags: ['meta'], responses: { 200: null }, errors: ['NOT_FOUND'] },
      handler: async () => {
        if (bundle === undefined) {
          const file = findRedocBundle();
          if (file === undefined)
            throw new BioGateError(
              'NOT_FOUND',
              'The API reference renderer is not installed (build with `npm run build`); the document is at /api/openapi.json',
            );
          bundle = readFile(file).then(offline);
          bundle.catch(() => (bundle = undefined));
        }
        return {
          status: 200,
          headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=3600', ...SECURITY_HEADERS },
          body: await bundle,
        };
      },
    }),
  ];
}
