/**
 * The device push endpoints: thin glue from HTTP to codec to actor. Devices
 * never get JSON: they get what their firmware expects [API-CONTRACT §6].
 */
import { codecFor, ProtocolError, type DeviceReply, type WireRequest } from '../../protocols/index.js';
import type { Hub } from '../devices/hub.js';
import type { HttpServer } from '../http/server.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import type { Counter } from '../ops/metrics.js';

export interface PushDeps {
  readonly hub: Hub;
  readonly bodyLimit: number;
  readonly protocolErrors?: Counter;
}

// Decoding does not depend on the dialect: either codec reads any request [PUSH-v2 §10.3].
const reader = codecFor('2.0.0');

function wireRequest(req: HttpRequest): WireRequest {
  const query: Record<string, string> = {};
  for (const [k, v] of req.query) if (!(k in query)) query[k] = v;
  // [PUSH-v2 §2.8] some firmware appends `.aspx` to endpoint names.
  const path = req.path.replace(/\.aspx$/i, '');
  return { method: req.method, path, query, headers: req.headers, body: req.body };
}

const text = (r: DeviceReply): HttpResponse => ({ status: r.status, headers: { 'Content-Type': 'text/plain' }, body: r.body });

export function mountPushRoutes(http: HttpServer, deps: PushDeps): void {
  const handler = async (req: HttpRequest): Promise<HttpResponse> => {
    const wire = wireRequest(req);
    let decoded;
    try {
      decoded = reader.decode(wire);
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err;
      deps.protocolErrors?.inc({ code: err.code });
      req.log.info({ code: err.code, path: req.path }, 'device request refused');
      return { status: err.code === 'UNKNOWN_ENDPOINT' ? 404 : 400, headers: { 'Content-Type': 'text/plain' }, body: 'ERROR' };
    }
    return text(await deps.hub.handle(decoded.sn, { wire, decoded, remoteAddress: req.remoteAddress, signal: req.signal }));
  };
  for (const method of ['GET', 'POST'] as const) {
    http.route({ method, pattern: '/iclock/*', handler, bodyLimit: deps.bodyLimit });
  }
}
