/**
 * The doors on the API listener that answer location tokens: the REST API (/api, /admin) and the
 * BioTime-compatible API (/biotime), with what they share: the rate limiter (one bucket per token for
 * every door: REST, the stream, MQTT requests, BioTime), the admin check with its back-off, the access
 * log's location of a request, and the audit log's announcement of a request's changes.
 */
import { createAdminAuth, type AdminAuth } from '../auth/admin-token.js';
import type { Caller } from '../auth/authenticate.js';
import type { Credentials } from '../auth/credentials.js';
import { createRateLimiter, type RateLimiter } from '../auth/rate-limit.js';
import { mountRoutes } from '../api/mount.js';
import type { ApiRoute } from '../api/route.js';
import { announceAudit } from '../audit-log/announce.js';
import { createCors, parseCorsOrigins } from '../http/cors.js';
import type { HttpServer } from '../http/server.js';
import type { HttpRequest } from '../http/types.js';
import type { AuditEntry } from '../store/ports/index.js';
import { buildApiRoutes, type ApiParts } from './api-routes.js';
import { mountBiotimeDoor } from './biotime-door.js';

export interface ApiDoorOptions {
  readonly credentials: Credentials;
  /** The location of each authenticated request, for the access log. */
  readonly locationOf: WeakMap<HttpRequest, number>;
  readonly tls: boolean;
  readonly apiBodyTimeoutMs?: number | undefined;
}

export interface ApiDoors {
  readonly apiRoutes: readonly ApiRoute[];
  readonly limiter: RateLimiter | undefined;
  readonly admin: AdminAuth;
}

export function mountApiDoors(http: HttpServer, parts: ApiParts, o: ApiDoorOptions): ApiDoors {
  const { config, clock, bus } = parts;
  const limiter = config.rateLimitRps > 0 ? createRateLimiter(config.rateLimitRps, clock) : undefined;
  const admin = createAdminAuth(config.adminToken, clock, undefined, config.metricsToken);
  const onCaller = (c: Caller, req: HttpRequest) => {
    o.locationOf.set(req, c.location.id);
    limiter?.take(c.token.id);
  };
  const announce = (entries: readonly AuditEntry[]) => announceAudit(bus, entries);
  const apiRoutes = buildApiRoutes(parts);
  mountRoutes(http, apiRoutes, {
    store: parts.store,
    credentials: o.credentials,
    clock,
    admin,
    cors: createCors(parseCorsOrigins(config.corsOrigins)),
    announceAudit: announce,
    ...(o.apiBodyTimeoutMs !== undefined ? { bodyTimeoutMs: o.apiBodyTimeoutMs } : {}),
    onCaller,
  });
  mountBiotimeDoor(http, { ...parts, credentials: o.credentials, tls: o.tls, onCaller, announceAudit: announce });
  return { apiRoutes, limiter, admin };
}
