/**
 * The BioTime-compatible API on the API listener: its routes behind BioTime's sign-in and error shapes.
 * Authentication happens from the request head, before a body is read (as for /api); a read token may only
 * read; the changes a request makes are the token's in the audit log, as on /api. Every other path
 * under /biotime answers BioTime's `{"detail": "Not found."}` (405 for a known path's other methods).
 */
import { actingAs, actor } from '../audit-log/actor.js';
import type { Caller } from '../auth/authenticate.js';
import type { Credentials } from '../auth/credentials.js';
import type { HttpServer } from '../http/server.js';
import type { HttpMethod, HttpRequest } from '../http/types.js';
import type { AuditEntry } from '../store/ports/index.js';
import type { UsersDeps } from '../users/effects.js';
import { createBiotimeAuth } from './auth.js';
import { biotimeOpenApi } from './openapi.js';
import { orgRoutes } from './org.js';
import { employeeRoutes } from './personnel.js';
import { PREFIX, type BiotimeRoute } from './route.js';
import { asBiotime, detail, inBiotimeShape, notFound } from './shapes.js';
import { terminalRoutes, type TerminalDeps } from './terminals.js';
import { transactionRoutes } from './transactions.js';

export interface BiotimeDeps extends Omit<TerminalDeps, 'secure'> {
  readonly credentials: Credentials;
  readonly users: UsersDeps;
  /** The API listener speaks TLS: `next` URLs are https unless a proxy says otherwise. */
  readonly tls: boolean;
  readonly jwtTtlS: number;
  /** Called once a caller is known (rate limiting and the access log's location, as for /api). */
  readonly onCaller?: (caller: Caller, req: HttpRequest) => void;
  readonly announceAudit?: (entries: readonly AuditEntry[]) => void;
}

/** Bodies of the facade's writes are small JSON: 1 MiB is plenty, arriving within 10 s of the headers (as on /api). */
const BODY_LIMIT = 1024 * 1024;
const BODY_TIMEOUT_MS = 10_000;
const ANY_METHOD: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export function biotimeRoutes(deps: BiotimeDeps): BiotimeRoute[] {
  const secure = deps.tls;
  return [
    ...transactionRoutes({ store: deps.store, clock: deps.clock, secure }),
    ...terminalRoutes({ ...deps, secure }),
    ...employeeRoutes({ users: deps.users, secure }),
    ...orgRoutes({ store: deps.store, clock: deps.clock, secure }),
  ];
}

export function mountBiotime(http: HttpServer, deps: BiotimeDeps): void {
  const auth = createBiotimeAuth({ store: deps.store, credentials: deps.credentials, clock: deps.clock, jwtTtlS: deps.jwtTtlS });
  for (const [path, jwt] of [
    ['/api-token-auth/', false],
    ['/jwt-api-token-auth/', true],
  ] as const) {
    http.route({
      method: 'POST',
      pattern: PREFIX + path,
      bodyLimit: BODY_LIMIT,
      bodyTimeoutMs: BODY_TIMEOUT_MS,
      handler: (req) => inBiotimeShape({}, () => auth.login(req, jwt)),
    });
  }
  const routes = biotimeRoutes(deps);
  // Its own OpenAPI document, public like /api/openapi.json: it describes, it reveals no data.
  let doc: object | undefined;
  http.route({
    method: 'GET',
    pattern: `${PREFIX}/openapi.json`,
    handler: () => ({ status: 200, body: (doc ??= biotimeOpenApi(routes)) }),
  });
  for (const route of routes) {
    const callers = new WeakMap<HttpRequest, Caller>();
    const writes = route.method !== 'GET';
    http.route({
      method: route.method,
      pattern: route.path,
      bodyLimit: BODY_LIMIT,
      bodyTimeoutMs: BODY_TIMEOUT_MS,
      authorize: async (req) => {
        try {
          const caller = await auth.authenticate(req);
          deps.onCaller?.(caller, req);
          if (writes && caller.token.scope === 'read') throw detail(403, 'You do not have permission to perform this action.');
          callers.set(req, caller);
        } catch (err) {
          throw asBiotime(err);
        }
      },
      handler: (req) => {
        const caller = callers.get(req) as Caller;
        const who = actor('token', { token_id: caller.token.id, label: caller.token.label, address: req.remoteAddress });
        return actingAs(who, deps.announceAudit, () => inBiotimeShape(route.fields ?? {}, () => route.handler(req, caller)));
      },
    });
  }
  // The rest of /biotime: BioTime's 404, or its 405 where the path is served with other methods.
  const served = routes.map((r) => ({ method: r.method, parts: r.path.split('/').filter(Boolean) }));
  for (const method of ANY_METHOD) {
    http.route({
      method,
      pattern: `${PREFIX}/*`,
      bodyLimit: BODY_LIMIT,
      bodyTimeoutMs: BODY_TIMEOUT_MS,
      handler: (req) => {
        const parts = req.path.split('/').filter(Boolean);
        const allowed = served
          .filter((r) => r.parts.length === parts.length && r.parts.every((p, i) => p.startsWith(':') || p === parts[i]))
          .map((r) => r.method);
        if (allowed.length === 0) throw notFound();
        throw detail(405, `Method "${req.method}" not allowed.`, { Allow: [...new Set(allowed)].join(', ') });
      },
    });
  }
}
