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

/**
 * Redoc's colours, changed where its defaults fall below WCAG 2.1 AA contrast (4.5:1 for text) on their
 * backgrounds: code in descriptions (#e53935 on #f4f5f5: 3.9), secondary text and labels (#93999c on white: 2.9), the
 * response and method colours. Given as Redoc's `theme` attribute (JSON it parses), so no inline script is needed.
 * test/console/api-docs.test.ts runs axe-core over the rendered page.
 */
export const DOCS_THEME = {
  colors: {
    primary: { main: '#1d4f91' },
    success: { main: '#1b5e20' },
    warning: { main: '#8a4b00' },
    error: { main: '#b71c1c' },
    text: { primary: '#222222', secondary: '#4f5b62' },
    responses: {
      // tabTextColor: the response tabs of the dark right panel (#11171a behind them).
      success: { color: '#1b5e20', backgroundColor: 'rgba(27,94,32,0.08)', tabTextColor: '#a5d6a7' },
      error: { color: '#b71c1c', backgroundColor: 'rgba(183,28,28,0.07)', tabTextColor: '#ef9a9a' },
      redirect: { color: '#7a4500', backgroundColor: 'rgba(122,69,0,0.08)', tabTextColor: '#ffcc80' },
      info: { color: '#1d4f91', backgroundColor: 'rgba(29,79,145,0.08)', tabTextColor: '#90caf9' },
    },
    http: {
      get: '#1b5e20',
      post: '#1d4f91',
      put: '#6a1b9a',
      options: '#5d4037',
      patch: '#8a4b00',
      delete: '#b71c1c',
      basic: '#4f5b62',
      link: '#00695c',
      head: '#6a1b9a',
    },
  },
  typography: {
    code: { color: '#a31515', backgroundColor: 'rgba(38,50,56,0.05)' },
    links: { color: '#1d4f91', visited: '#5b2c83', hover: '#0d3c7a' },
  },
  schema: { typeNameColor: '#4f5b62', typeTitleColor: '#222222', requireLabelColor: '#b71c1c', nestedBackground: '#fafafa' },
  sidebar: { textColor: '#222222', activeTextColor: '#1d4f91', backgroundColor: '#fafafa' },
  rightPanel: { backgroundColor: '#263238', textColor: '#ffffff' },
};

/**
 * What the theme cannot reach: Redoc draws its section labels ("Authorizations:", "query Parameters", "Request Body
 * schema") in a fixed rgba(38,50,56,0.5), 2.9:1 on white. Inline style is allowed by the CSP (`style-src 'unsafe-inline'`,
 * which Redoc's own styles need).
 */
const DOCS_STYLE = [
  'redoc h5 { color: #4f5b62 !important; }',
  // A response tab takes its status colour (`tabTextColor`, light for the dark panel) also when selected, on white.
  'redoc li.react-tabs__tab--selected { color: #222222 !important; }',
].join(' ');

const attribute = (value: unknown) => JSON.stringify(value).replaceAll('&', '&amp;').replaceAll("'", '&#39;');

/** `<redoc spec-url>` starts Redoc as soon as its script has loaded: no inline script needed (CSP). */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>BioGate API reference</title>
<style>${DOCS_STYLE}</style>
</head>
<body>
<noscript>This reference needs JavaScript. The document itself is at <a href="/api/openapi.json">/api/openapi.json</a>.</noscript>
<main><redoc spec-url="/api/openapi.json" theme='${attribute(DOCS_THEME)}'></redoc></main>
<script src="${DOCS_SCRIPT_PATH}"></script>
</body>
</html>
`;

/**
 * Redoc's footer asks Redocly's CDN for a logo, the one request the reference would make elsewhere (the CSP
 * refuses it, and the browser reports the violation). Served with an empty data: URL instead: the image
 * does not decode, and Redoc's own onError leaves it out. Everything else is the pinned bundle, byte for byte, and the
 * addendum below.
 */
export const REDOC_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
export function offline(bundle: Buffer): Buffer {
  const text = bundle.toString('utf8');
  return text.includes(REDOC_CDN_LOGO) ? Buffer.from(text.replaceAll(REDOC_CDN_LOGO, 'data:,'), 'utf8') : bundle;
}

/**
 * Appended to the bundle: what Redoc leaves inaccessible and no theme reaches. Its drop-downs (the example of a union
 * answer, a request's media type) have a visible caption but no accessible name, and a table wider than its column
 * (the preset table) scrolls where the keyboard cannot go. Run after each render, at most every 200 ms.
 */
export const DOCS_ACCESSIBILITY = `
;(function () {
  var queued = false;
  function fix() {
    queued = false;
    document.querySelectorAll('redoc select:not([aria-label])').forEach(function (s) {
      var choices = Array.prototype.map.call(s.options, function (o) { return o.text; }).join(' or ');
      s.setAttribute('aria-label', 'Choose: ' + choices);
    });
    document.querySelectorAll('redoc table:not([tabindex])').forEach(function (t) {
      var overflow = getComputedStyle(t).overflowX;
      if (overflow === 'auto' || overflow === 'scroll') t.setAttribute('tabindex', '0');
    });
  }
  new MutationObserver(function () {
    if (!queued) { queued = true; setTimeout(fix, 200); }
  }).observe(document.documentElement, { childList: true, subtree: true });
})();
`;

/** The bundle as served: offline, with the accessibility addendum. */
export const served = (bundle: Buffer): Buffer => Buffer.concat([offline(bundle), Buffer.from(DOCS_ACCESSIBILITY, 'utf8')]);

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
          bundle = readFile(file).then(served);
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
