/**
 * GET /console: the web console, a single-page app served by BioGate itself. It talks
 * to the public REST API and the WebSocket stream only, with the token the operator typed in, so
 * the pages themselves carry no data and need no authentication.
 *
 *   /                    302 → /console/
 *   /console, /console/  the page (index.html)
 *   /console/assets/F    a built file (app.js, app.css …), 404 when unknown
 *   /console/anything    the page again (client-side routes survive a reload or a bookmark)
 *
 * Every answer carries a strict Content-Security-Policy: scripts, styles and connections from
 * BioGate only (no inline script or style), and no framing.
 */
import { BioGateError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import { findConsoleDir, loadAssets, type Asset } from './assets.js';

export const CONSOLE_PATH = '/console';
export const ASSETS_PATH = '/console/assets';

/** A Host header worth echoing into the policy: a name or address and an optional port, nothing else. */
const SANE_HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * The console's Content-Security-Policy. `connect-src` lists ws:/wss: of the page's own host
 * explicitly: CSP Level 3 lets 'self' cover them, but older engines do not. `img-src data:` is
 * for the inline SVG icon in the stylesheet; nothing else is allowed from anywhere.
 */
export function consoleCsp(host: string | undefined): string {
  const sockets = host !== undefined && SANE_HOST.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${sockets}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function securityHeaders(req: HttpRequest): Record<string, string> {
  return {
    'Content-Security-Policy': consoleCsp(req.headers['host']),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  };
}

/**
 * Answers with the asset, or 304 when the client holds this version already. Revalidated on every
 * use (`no-cache`): file names carry no hash, and a console that outlives an upgrade must not mix
 * an old script with a new API.
 */
function serve(req: HttpRequest, asset: Asset): HttpResponse {
  const headers = { ...securityHeaders(req), ETag: asset.etag, 'Cache-Control': 'no-cache', 'Content-Type': asset.type };
  const given = req.headers['if-none-match'];
  if (given !== undefined && given.split(',').some((tag) => tag.trim().replace(/^W\//, '') === asset.etag)) return { status: 304, headers };
  return { status: 200, headers, body: asset.body };
}

export function mountConsole(http: HttpServer, options: { readonly dir?: string } = {}): void {
  let assets: Promise<ReadonlyMap<string, Asset>> | undefined;
  const load = (): Promise<ReadonlyMap<string, Asset>> => {
    if (assets === undefined) {
      const dir = options.dir ?? findConsoleDir();
      if (dir === undefined)
        throw new BioGateError(
          'NOT_FOUND',
          'The console is not built: run `npm run build` (the API is at /api, its reference at /api/docs)',
        );
      assets = loadAssets(dir);
      assets.catch(() => (assets = undefined));
    }
    return assets;
  };
  const page = async (req: HttpRequest): Promise<HttpResponse> => {
    const index = (await load()).get('index.html');
    if (index === undefined) throw new BioGateError('NOT_FOUND', 'The console is not built: run `npm run build`');
    return serve(req, index);
  };

  // A browser pointed at the gateway lands on the console; 302, since / may mean something else one day.
  http.route({
    method: 'GET',
    pattern: '/',
    handler: (req) => ({ status: 302, headers: { Location: `${CONSOLE_PATH}/`, ...securityHeaders(req) } }),
  });
  http.route({ method: 'GET', pattern: CONSOLE_PATH, handler: page });
  http.route({ method: 'GET', pattern: `${CONSOLE_PATH}/*`, handler: page });
  http.route({
    method: 'GET',
    pattern: `${ASSETS_PATH}/*`,
    handler: async (req) => {
      const name = req.params['*'] ?? '';
      // Flat folder: a name with a slash (or dot-dot) is simply not in the map.
      const asset = name === 'index.html' ? undefined : (await load()).get(name);
      if (asset === undefined) throw new BioGateError('NOT_FOUND', `No console asset ${name}`);
      return serve(req, asset);
    },
  });
}
