/**
 * Turns ApiRoute definitions into HTTP routes: authentication, scope, input
 * reading and validation happen here once, so handlers only see clean input.
 */
import { authenticate, requireWrite, type Caller } from '../auth/authenticate.js';
import { secretsEqual, bearer } from '../auth/tokens.js';
import type { Clock } from '../clock.js';
import { BioGateError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import type { Store } from '../store/types.js';
import type { TSchema } from 'typebox';
import { check, readJsonBody, readParams, readQuery } from './input.js';
import { routerPattern, type ApiRoute } from './route.js';

export interface MountDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly adminToken: string | null;
  /** Called after authentication (rate limiting). */
  readonly onCaller?: (caller: Caller) => void;
}

const NO_CALLER = undefined as unknown as Caller;

export function mountRoutes(http: HttpServer, routes: readonly ApiRoute[], deps: MountDeps): void {
  for (const route of routes) {
    http.route({
      method: route.method,
      pattern: routerPattern(route.path),
      handler: async (req) => {
        let caller = NO_CALLER;
        if (route.auth === 'location') {
          caller = await authenticate(deps.store, req.headers['authorization'], deps.clock.now());
          deps.onCaller?.(caller);
          if (route.write ?? (route.method !== 'GET' && route.method !== 'HEAD')) requireWrite(caller);
        } else if (route.auth === 'admin') {
          checkAdmin(deps.adminToken, req.headers['authorization']);
        }
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
        return route.handler({ req, caller, params: params as never, query: query as never, body: body as never });
      },
    });
  }
}

/** [API-CONTRACT §3] JSON of the wrong top-level type (object vs array) is a 400, not a 422. */
function checkTopLevel(schema: TSchema, raw: unknown): void {
  const type = (schema as { type?: unknown }).type;
  if (type === 'object' && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) throw new BioGateError('BAD_REQUEST', 'Body must be a JSON object');
  if (type === 'array' && !Array.isArray(raw)) throw new BioGateError('BAD_REQUEST', 'Body must be a JSON array');
}

export function checkAdmin(adminToken: string | null, authorization: string | undefined): void {
  // The admin API does not exist when no admin token is configured.
  if (adminToken === null) throw new BioGateError('NOT_FOUND', 'The admin API is disabled (set BIOGATE_ADMIN_TOKEN)');
  const given = bearer(authorization);
  if (!given || !secretsEqual(given, adminToken)) {
    throw new BioGateError('UNAUTHORIZED', 'Admin token required', { headers: { 'WWW-Authenticate': 'Bearer realm="biogate-admin"' } });
  }
}
