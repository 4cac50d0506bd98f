/**
 * Turns ApiRoute definitions into HTTP routes: authentication, scope, input
 * reading and validation happen here once, so handlers only see clean input.
 */
import { actingAs, actor } from '../audit-log/actor.js';
import { requireWrite, type Caller } from '../auth/authenticate.js';
import type { Credentials } from '../auth/credentials.js';
import type { AdminAuth } from '../auth/admin-token.js';
import type { Clock } from '../clock.js';
import { BioGateError } from '../errors.js';
import type { Cors } from '../http/cors.js';
import type { HttpServer } from '../http/server.js';
import type { HttpMethod, HttpRequest, HttpResponse } from '../http/types.js';
import type { AuditEntry } from '../store/ports/index.js';
import type { Store } from '../store/types.js';
import type { TSchema } from 'typebox';
import { check } from '../validation/input.js';
import { readJsonBody, readParams, readQuery } from './input.js';
import { routerPattern, type ApiRoute } from './route.js';

export interface MountDeps {
  readonly store: Store;
  /** How callers' tokens are checked (kept between requests, src/auth/credentials.ts). */
  readonly credentials: Credentials;
  readonly clock: Clock;
  /** The admin token's check, with its back-off per client address. */
  readonly admin: AdminAuth;
  /** Called after authentication (rate limiting, the access log's location). */
  readonly onCaller?: (caller: Caller, req: HttpRequest) => void;
  /** BIOGATE_CORS_ORIGINS (src/http/cors.ts): preflights and Access-Control-* headers for listed origins. */
  readonly cors?: Cors;
  /** Told of the audit entries a request's changes wrote, after their commit (the feed's `audit.recorded`). */
  readonly announceAudit?: (entries: readonly AuditEntry[]) => void;
  /** Time an API body has from the headers to arrive in full (ms); API_BODY_TIMEOUT_MS unless a test shortens it. */
  readonly bodyTimeoutMs?: number;
}

/**
 * An API body is small JSON from a program: 10 s is plenty, and a client trickling one in holds a
 * connection for no longer (terminals keep BIOGATE_DEVICE_BODY_TIMEOUT_S on /iclock/).
 */
export const API_BODY_TIMEOUT_MS = 10_000;

const NO_CALLER = undefined as unknown as Caller;

export function mountRoutes(http: HttpServer, routes: readonly ApiRoute[], deps: MountDeps): void {
  // CORS off (no origins listed): OPTIONS stays a 405 like any unserved method.
  const cors = deps.cors && !deps.cors.disabled ? deps.cors : undefined;
  if (cors) mountPreflights(http, routes, cors);
  const bodyTimeoutMs = deps.bodyTimeoutMs ?? API_BODY_TIMEOUT_MS;
  for (const route of routes) {
    // The caller, found by `authorize` from the request head before any body is read, for the handler.
    const callers = new WeakMap<HttpRequest, Caller>();
    const authorize = (req: HttpRequest): Promise<void> | void => {
      if (route.auth === 'admin') return deps.admin.check(req.headers['authorization'], req.remoteAddress);
      if (route.auth === 'none') return;
      return deps.credentials.authenticate(req.headers['authorization'], deps.clock.now()).then((caller) => {
        deps.onCaller?.(caller, req);
        if (route.write ?? (route.method !== 'GET' && route.method !== 'HEAD')) requireWrite(caller);
        callers.set(req, caller);
      });
    };
    const handler = async (req: HttpRequest): Promise<HttpResponse> => {
      const caller = callers.get(req) ?? NO_CALLER;
      const params = route.params ? check(route.params, readParams(req, route.params), 'path') : {};
      const query = route.query ? check(route.query, readQuery(req, route.query), 'query') : {};
      let body: unknown = undefined;
      if (route.body) {
        const raw = readJsonBody(req, route.bodyRequired ?? true);
        if (raw !== undefined) {
          checkTopLevel(route.body, raw);
          body = route.bodyMode === 'raw' ? raw : check(route.body, raw, 'body');
        }
      }
      // The changes the handler makes are the caller's (src/audit-log/): a location token's, or the admin's.
      const who =
        route.auth === 'admin'
          ? actor('admin', { address: req.remoteAddress })
          : caller
            ? actor('token', { token_id: caller.token.id, label: caller.token.label, address: req.remoteAddress })
            : undefined;
      const run = () => route.handler({ req, caller, params: params as never, query: query as never, body: body as never });
      return who ? actingAs(who, deps.announceAudit, run) : run();
    };
    http.route({
      method: route.method,
      pattern: routerPattern(route.path),
      // Authorization before the body is read: a caller without a valid token never gets 16 MiB read for it.
      authorize: cors ? withCorsAuthorize(cors, authorize) : authorize,
      handler: cors ? withCors(cors, handler) : handler,
      bodyTimeoutMs,
    });
  }
}

/** One OPTIONS route per path: the CORS preflight, and for everyone the `Allow` list. */
function mountPreflights(http: HttpServer, routes: readonly ApiRoute[], cors: Cors): void {
  const methods = new Map<string, HttpMethod[]>();
  for (const r of routes) methods.set(r.path, [...(methods.get(r.path) ?? []), r.method]);
  for (const [path, list] of methods) {
    http.route({ method: 'OPTIONS', pattern: routerPattern(path), handler: (req) => cors.preflight(req.headers['origin'], list) });
  }
}

/** Adds the Access-Control-* headers to the answer, errors included (a page must be able to read a 401 or 422). */
function withCors(cors: Cors, handler: (req: HttpRequest) => Promise<HttpResponse>) {
  return async (req: HttpRequest): Promise<HttpResponse> => {
    const extra = cors.headersFor(req.headers['origin']);
    if (Object.keys(extra).length === 0) return handler(req);
    try {
      const res = await handler(req);
      return { ...res, headers: { ...res.headers, ...extra } };
    } catch (err) {
      throw withCorsHeaders(cors, req, err);
    }
  };
}

/** A refusal by `authorize` carries the Access-Control-* headers too (a page must be able to read a 401). */
function withCorsAuthorize(cors: Cors, authorize: (req: HttpRequest) => Promise<void> | void) {
  return async (req: HttpRequest): Promise<void> => {
    try {
      await authorize(req);
    } catch (err) {
      throw withCorsHeaders(cors, req, err);
    }
  };
}

function withCorsHeaders(cors: Cors, req: HttpRequest, err: unknown): unknown {
  const extra = cors.headersFor(req.headers['origin']);
  if (!(err instanceof BioGateError) || Object.keys(extra).length === 0) return err;
  return new BioGateError(err.code, err.detail, { cause: err.cause, headers: { ...err.headers, ...extra } });
}

/** [API-CONTRACT §3] JSON of the wrong top-level type (object vs array) is a 400, not a 422. */
function checkTopLevel(schema: TSchema, raw: unknown): void {
  const type = (schema as { type?: unknown }).type;
  if (type === 'object' && (raw === null || typeof raw !== 'object' || Array.isArray(raw)))
    throw new BioGateError('BAD_REQUEST', 'Body must be a JSON object');
  if (type === 'array' && !Array.isArray(raw)) throw new BioGateError('BAD_REQUEST', 'Body must be a JSON array');
}
