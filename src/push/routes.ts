/**
 * The device push endpoints: thin glue from HTTP to codec to actor. Devices
 * never get JSON: they get what their firmware expects [API-CONTRACT §6].
 */
import { codecFor, ProtocolError, type DeviceReply, type WireRequest } from '../../protocols/index.js';
import type { ActorReply } from '../devices/actor.js';
import type { Hub } from '../devices/hub.js';
import { BioGateError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import type { Counter } from '../ops/metrics.js';
import { isPackedUpload, unpackTgz } from '../devices/packed.js';
import { encodeBody } from './charset.js';
import { decodeInSlices } from './sliced-decode.js';

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

/** The reply as HTTP; a reply carrying commands learns whether it reached the terminal (devices/outbox.ts Batch). */
const text = (r: ActorReply | DeviceReply): HttpResponse => ({
  status: r.status, headers: { 'Content-Type': 'text/plain' },
  // [COMMANDS §3.10] names in the device's character set (GB2312 for language 83, issue #18)
  body: 'charset' in r ? encodeBody(r.body, r.charset) : r.body,
  ...('onSettled' in r && r.onSettled ? { onSettled: r.onSettled } : {}),
});

/**
 * [PUSH-v2 §6.4] a packed upload (`ContentType=tgz`) is unpacked and decoded as if sent plain (issue #18);
 * or the reply refusing it (too large, not a tgz).
 */
async function unpacked(wire: WireRequest, req: HttpRequest): Promise<WireRequest | HttpResponse> {
  if (!isPackedUpload(wire.path, wire.query)) return wire;
  try {
    const body = await unpackTgz(wire.body);
    const query = Object.fromEntries(Object.entries(wire.query).filter(([k]) => k.toLowerCase() !== 'contenttype'));
    return { ...wire, query, body };
  } catch (err) {
    if (!(err instanceof BioGateError) || (err.code !== 'PAYLOAD_TOO_LARGE' && err.code !== 'BAD_REQUEST')) throw err;
    req.log.info({ code: err.code, detail: err.detail }, 'packed device upload refused');
    return { status: err.status, headers: { 'Content-Type': 'text/plain' }, body: 'ERROR' };
  }
}

export function mountPushRoutes(http: HttpServer, deps: PushDeps): void {
  const handler = async (req: HttpRequest): Promise<HttpResponse> => {
    const wire = await unpacked(wireRequest(req), req);
    if (!('method' in wire)) return wire;
    let decoded;
    try {
      decoded = await decodeInSlices(reader, wire); // a large ATTLOG in slices that yield (issue #12)
    } catch (err) {
      if (!(err instanceof ProtocolError)) throw err;
      deps.protocolErrors?.inc({ code: err.code });
      req.log.info({ code: err.code, path: req.path }, 'device request refused');
      return { status: err.code === 'UNKNOWN_ENDPOINT' ? 404 : 400, headers: { 'Content-Type': 'text/plain' }, body: 'ERROR' };
    }
    try {
      return text(await deps.hub.handle(decoded.sn, { wire, decoded, remoteAddress: req.remoteAddress, signal: req.signal }));
    } catch (err) {
      // [PUSH-v2 §2.2] a non-200 makes the terminal keep its data and resend: a store outage is a plain 503 (issue #12).
      if (!(err instanceof BioGateError) || err.code !== 'STORE_UNAVAILABLE') throw err;
      req.log.warn({ sn: decoded.sn, endpoint: decoded.endpoint }, 'store unavailable: device told to retry');
      return { status: 503, headers: { 'Content-Type': 'text/plain', ...err.headers }, body: 'store unavailable' };
    }
  };
  for (const method of ['GET', 'POST'] as const) {
    http.route({ method, pattern: '/iclock/*', handler, bodyLimit: deps.bodyLimit });
  }
}
