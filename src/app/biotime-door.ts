/** The BioTime-compatible API (src/biotime/) on the API listener, unless BIOGATE_BIOTIME_API=off. */
import type { Caller } from '../auth/authenticate.js';
import type { Credentials } from '../auth/credentials.js';
import { mountBiotime } from '../biotime/mount.js';
import type { HttpServer } from '../http/server.js';
import type { HttpRequest } from '../http/types.js';
import type { AuditEntry } from '../store/ports/index.js';
import type { ApiParts } from './api-routes.js';

export function mountBiotimeDoor(
  http: HttpServer,
  p: ApiParts & {
    readonly credentials: Credentials;
    readonly tls: boolean;
    readonly onCaller: (caller: Caller, req: HttpRequest) => void;
    readonly announceAudit: (entries: readonly AuditEntry[]) => void;
  },
): void {
  if (p.config.biotimeApi === 'off') return;
  mountBiotime(http, {
    store: p.store,
    clock: p.clock,
    credentials: p.credentials,
    tls: p.tls,
    jwtTtlS: p.config.biotimeJwtTtlS,
    onlineThresholdS: p.config.onlineThresholdS,
    liveLastSeen: (sn) => p.hub.presence.lastSeenOf(sn),
    onlineElsewhere: (sn) => p.hub.presence.onlineElsewhere(sn),
    users: { store: p.store, clock: p.clock, sync: p.sync, bus: p.bus, outbox: p.outbox, log: p.log, quotaUsers: p.config.quotaUsers },
    onCaller: p.onCaller,
    announceAudit: p.announceAudit,
  });
}
