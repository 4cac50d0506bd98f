/**
 * The device push endpoints: thin glue from HTTP to codec to actor. Devices
 * never get JSON: they get what their firmware expects [API-CONTRACT §6].
 */
import { ProtocolError, type DecodeResult, type DeviceReply, type WireRequest } from '../../protocols/index.js';
import type { ActorReply } from '../devices/actor-types.js';
import { decodeInSlices, decodeRequest, SLICE_BYTES } from '../devices/decode.js';
import type { Hub } from '../devices/hub.js';
import { BioGateError } from '../errors.js';
import type { HttpServer } from '../http/server.js';
import type { HttpRequest, HttpResponse } from '../http/types.js';
import type { Counter } from '../ops/metrics.js';
import { isPackedUpload, unpackTgz } from '../devices/packed.js';
import { encodeBody } from '../charset.js';

export interface PushDeps {
  readonly hub: Hub;
  readonly bodyLimit: number;
  readonly protocolErrors?: Counter;
}

/**
 * The query as one object, the first value of a repeated name winning. Most device queries are plain
 * `SN=…&options=all`: split here in one pass; one with escapes (`%`, `+`) goes through URLSearchParams.
 */
function queryOf(req: HttpRequest): Record<string, string> {
  const query: Record<string, string> = Object.create(null) as Record<string, string>;
  const raw = req.rawQuery;
  if (raw.includes('%') || raw.includes('+')) {
    for (const [k, v] of req.query) if (!(k in query)) query[k] = v;
    return query;
  }
  for (let start = 0; start <= raw.length;) {
    let end = raw.indexOf('&', start);
    if (end < 0) end = raw.length;
    if (end > start) {
      const eq = raw.indexOf('=', start);
      const k = eq < 0 || eq > end ? raw.slice(start, end) : raw.slice(start, eq);
      if (!(k in query)) query[k] = eq < 0 || eq > end ? '' : raw.slice(eq + 1, end);
    }
    start = end + 1;
  }
  return query;
}

const ASPX = /\.aspx$/i;

function wireRequest(req: HttpRequest): WireRequest {
  // [PUSH-v2 §2.8] some firmware appends `.aspx` to endpoint names.
  const path = ASPX.test(req.path) ? req.path.slice(0, -'.aspx'.length) : req.path;
  return { method: req.method, path, query: queryOf(req), headers: req.headers, body: req.body };
}

const TEXT: Readonly<Record<string, string>> = Object.freeze({ 'Content-Type': 'text/plain' });

/** The reply as HTTP; a reply carrying commands learns whether it reached the terminal (devices/outbox.ts Batch). */
const text = (r: ActorReply | DeviceReply): HttpResponse => ({
  status: r.status,
  headers: TEXT,
  // [COMMANDS §3.10] names in the device's character set (GB2312 for language 83)
  body: 'charset' in r ? encodeBody(r.body, r.charset) : r.body,
  ...('onSettled' in r && r.onSettled ? { onSettled: r.onSettled } : {}),
});

/**
 * [PUSH-v2 §6.4] a packed upload (`ContentType=tgz`) is unpacked and decoded as if sent plain;
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
    return { status: err.status, headers: TEXT, body: 'ERROR' };
  }
}

export function mountPushRoutes(http: HttpServer, deps: PushDeps): void {
  /** A request the codec refused: counted, logged, answered without reaching an actor. */
  const refused = (req: HttpRequest, err: unknown): HttpResponse => {
    if (!(err instanceof ProtocolError)) throw err;
    deps.protocolErrors?.inc({ code: err.code });
    req.log.info({ code: err.code, path: req.path }, 'device request refused');
    return { status: err.code === 'UNKNOWN_ENDPOINT' ? 404 : 400, headers: TEXT, body: 'ERROR' };
  };
  /** [PUSH-v2 §2.2] a non-200 makes the terminal keep its data and resend: a store outage is a plain 503. */
  const unavailable = (req: HttpRequest, decoded: DecodeResult, err: unknown): HttpResponse => {
    if (!(err instanceof BioGateError) || err.code !== 'STORE_UNAVAILABLE') throw err;
    req.log.warn({ sn: decoded.sn, endpoint: decoded.endpoint }, 'store unavailable: device told to retry');
    return { status: 503, headers: { 'Content-Type': 'text/plain', ...err.headers }, body: 'store unavailable' };
  };
  const toActor = (req: HttpRequest, wire: WireRequest, decoded: DecodeResult): Promise<HttpResponse> | HttpResponse => {
    let reply: Promise<ActorReply> | ActorReply;
    try {
      reply = deps.hub.handle(decoded.sn, { wire, decoded, remoteAddress: req.remoteAddress, client: req });
    } catch (err) {
      return unavailable(req, decoded, err);
    }
    // An idle poll answered from the actor's state goes out in this turn.
    if (!(reply instanceof Promise)) return text(reply);
    return reply.then(text, (err: unknown) => unavailable(req, decoded, err));
  };
  /** Packed or large uploads: unpacked, decoded in slices that yield (devices/decode.ts). */
  const slowly = async (req: HttpRequest, plain: WireRequest): Promise<HttpResponse> => {
    const wire = await unpacked(plain, req);
    if (!('method' in wire)) return wire;
    let decoded;
    try {
      decoded = await decodeInSlices(wire); // a large ATTLOG in slices that yield
    } catch (err) {
      return refused(req, err);
    }
    return toActor(req, wire, decoded);
  };
  const handler = (req: HttpRequest): Promise<HttpResponse> | HttpResponse => {
    const wire = wireRequest(req);
    if (wire.body.length > SLICE_BYTES || isPackedUpload(wire.path, wire.query)) return slowly(req, wire);
    let decoded;
    try {
      decoded = decodeRequest(wire);
    } catch (err) {
      return refused(req, err);
    }
    return toActor(req, wire, decoded);
  };
  for (const method of ['GET', 'POST'] as const) {
    http.route({ method, pattern: '/iclock/*', handler, bodyLimit: deps.bodyLimit });
  }
}
