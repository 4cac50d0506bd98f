/** /healthz (process up), /readyz (store reachable), /metrics (Prometheus text). */
import type { AdminAuth } from '../auth/admin-token.js';
import { BioGateError } from '../errors.js';
import type { Store } from '../store/types.js';
import type { HttpServer } from '../http/server.js';
import type { MetricsRegistry } from './metrics.js';

export interface OpsDeps {
  readonly store: Store;
  readonly metrics: MetricsRegistry;
  readonly admin: AdminAuth;
  /** `draining`: SIGTERM's drain period (BIOGATE_SHUTDOWN_DRAIN_S), still serving; `stopping`: closing. */
  readonly readiness: () => 'serving' | 'draining' | 'stopping';
}

export function mountOpsRoutes(http: HttpServer, deps: OpsDeps): void {
  http.route({ method: 'GET', pattern: '/healthz', handler: () => ({ status: 200, body: { status: 'ok' } }) });
  http.route({
    method: 'GET',
    pattern: '/readyz',
    handler: async (req) => {
      const readiness = deps.readiness();
      if (readiness !== 'serving') return { status: 503, body: { status: readiness } };
      // The store's ping answers from the driver's view at once during an outage (no
      // 1 s wait per probe) and succeeds again as soon as the database answers.
      try {
        await deps.store.ping();
        return { status: 200, body: { status: 'ready', store: deps.store.kind } };
      } catch (err) {
        req.log.warn({ err }, 'store not reachable');
        const retry = err instanceof BioGateError ? err.headers : {};
        return { status: 503, headers: { ...retry }, body: { status: 'store unreachable', store: deps.store.kind } };
      }
    },
  });
  http.route({
    method: 'GET',
    pattern: '/metrics',
    handler: async (req) => {
      // /metrics takes the read-only metrics token or the admin token, when either is configured.
      deps.admin.checkMetrics(req.headers['authorization'], req.remoteAddress);
      return { status: 200, headers: { 'Content-Type': 'text/plain; version=0.0.4; charset=utf-8' }, body: await deps.metrics.render() };
    },
  });
}
