// Request router shared by both codecs: every endpoint of both generations is answered for every
// device, whatever BioGate believes its protocol to be [PUSH-v2 §3, §10.3; PUSH-v3 §2].
import type { DecodeOptions, DecodeResult, Endpoint, WireRequest } from './codec.js';
import type { RecordSource } from './events.js';
import { ProtocolError } from './protocol-error.js';
import {
  decodeDeviceCmd,
  decodeHandshake,
  decodeOptionsUpload,
  decodeStrayResults,
  decodeV2Table,
  rawRecords,
  type Routed,
} from './push-v2/decode.js';
import { parseHeartbeatInfo } from './push-v2/heartbeat.js';
import { decodeAttPhoto } from './push-v2/photo.js';
import { decodeQueryData, decodeRealtime, decodeRegistry, decodeTableData } from './push-v3/decode.js';
import { uploadSource } from './shared/decoded.js';
import { sample } from './shared/lines.js';
import { endpointOf, queryValue, serialNumberOf, tokenOf } from './shared/request.js';

const SAMPLES = 5;

/** @throws ProtocolError (MISSING_SN, INVALID_SN, UNKNOWN_ENDPOINT, MISSING_PARAMETER) — nothing else */
export function decodeRequest(request: WireRequest, options: DecodeOptions = {}): DecodeResult {
  const endpoint = endpointOf(request.path);
  if (endpoint === undefined) throw new ProtocolError('UNKNOWN_ENDPOINT', `not a device endpoint: ${request.path.slice(0, 100)}`);
  const sn = serialNumberOf(request);
  const routed = route(endpoint, request, options.language);
  const rejected = routed.decoded.rejected;
  return {
    endpoint,
    sn,
    events: routed.decoded.events,
    reply: routed.reply,
    rejected: rejected.length,
    rejectedSamples: rejected.slice(0, SAMPLES).map(sample),
    token: tokenOf(request),
  };
}

const ok = (decoded: Routed['decoded']): Routed => ({ decoded, reply: { kind: 'ok' } });
const single = (event: Routed['decoded']['events'][number]): Routed['decoded'] => ({ events: [event], rejected: [] });

function route(endpoint: Endpoint, request: WireRequest, language: string | undefined): Routed {
  const q = request.query;
  switch (endpoint) {
    case 'cdata':
      return routeCdata(request, language);
    case 'fdata': {
      // [PUSH-v2 §6.8] photo alias of cdata?table=ATTPHOTO
      const source = uploadSource(queryValue(q, 'table') ?? 'ATTPHOTO', queryValue(q, 'Stamp'));
      return ok(decodeAttPhoto(request.body, source));
    }
    case 'getrequest': {
      // [PUSH-v2 §7.1] the plain form is the heartbeat; INFO comes now and then
      const info = queryValue(q, 'INFO');
      return {
        decoded: single({ type: 'heartbeat', info: info === undefined ? null : parseHeartbeatInfo(info) }),
        reply: { kind: 'commands' },
      };
    }
    case 'devicecmd':
      return decodeDeviceCmd(request.body, language);
    // [PUSH-v2 §7.6, PUSH-v3 §8.4]
    case 'ping':
      return ok(single({ type: 'ping' }));
    case 'file': {
      // [PUSH-v3 §7.6] controllers POST ACCOUNT files here: stored raw
      if (request.body.length > 0)
        return ok(single({ type: 'unknownTable', source: uploadSource(queryValue(q, 'table') ?? 'file'), body: request.body }));
      const url = queryValue(q, 'url');
      if (url === undefined || url === '') throw new ProtocolError('MISSING_PARAMETER', 'request has no url parameter');
      return { decoded: single({ type: 'fileRequest', url }), reply: { kind: 'file' } };
    }
    // [PUSH-v2 §12, PUSH-v3 §16] encryption is not offered: OK and log
    case 'exchange':
      return ok(single({ type: 'keyExchange', exchangeType: queryValue(q, 'type') ?? '' }));
    case 'registry':
      return decodeRegistry(request.body, language);
    // [PUSH-v3 §3.4] empty body, GET or POST
    case 'push':
      return { decoded: single({ type: 'configRequest' }), reply: { kind: 'config' } };
    case 'querydata':
      return decodeQueryData(q, request.body, language);
    case 'rtdata': {
      // [PUSH-v3 §13.2] the only documented rtdata request is type=time
      if ((queryValue(q, 'type') ?? '').toLowerCase() === 'time')
        return { decoded: single({ type: 'timeRequest', flavor: 'rtdata' }), reply: { kind: 'time', flavor: 'rtdata' } };
      return ok(single({ type: 'unknownTable', source: uploadSource(`rtdata:${queryValue(q, 'type') ?? ''}`), body: request.body }));
    }
    // [PUSH-v3 §3.7] undocumented poll: OK, counts as seen
    case 'service-control':
      return ok(single({ type: 'serviceControl' }));
    /* c8 ignore next 2 */
    default:
      return endpoint satisfies never;
  }
}

function routeCdata(request: WireRequest, language: string | undefined): Routed {
  const q = request.query;
  const table = queryValue(q, 'table');
  if (table === undefined || table === '') {
    // [PUSH-v2 §4.8] legacy clock request
    if ((queryValue(q, 'type') ?? '').toLowerCase() === 'time')
      return { decoded: single({ type: 'timeRequest', flavor: 'iso' }), reply: { kind: 'time', flavor: 'iso' } };
    if (request.body.length > 0) {
      // [fixture A43] command results posted here by some firmware (pushver 2.4.0, firmware 6.5.x)
      const results = decodeStrayResults(request.body, language);
      if (results !== undefined) return results;
      // [PUSH-v3 §7.6] remote verification, ACCOUNT overview …: not offered, stored raw
      return ok(single({ type: 'unknownTable', source: uploadSource(''), body: request.body }));
    }
    // [PUSH-v2 §4.1, PUSH-v3 §3.2] `options=all` handshake / first contact
    return { decoded: single(decodeHandshake(q)), reply: { kind: 'handshake' } };
  }
  const lower = table.toLowerCase();
  const source: RecordSource = uploadSource(table, queryValue(q, 'Stamp'));
  // [PUSH-v2 §6.4] a packed (`ContentType=tgz`) body is unpacked by the runtime before decoding
  // (src/devices/packed.ts); one that reaches the codec still packed is kept whole, never read as text
  if ((queryValue(q, 'ContentType') ?? '').toLowerCase() === 'tgz') return ok(single({ type: 'unknownTable', source, body: request.body }));
  // [PUSH-v2 §5, PUSH-v3 §3.5]
  if (lower === 'options') return decodeOptionsUpload(request.body, language);
  // [PUSH-v3 §7.2–§7.4]
  if (lower === 'rtlog' || lower === 'rtstate') return decodeRealtime(table, request.body, language, source);
  if (lower === 'tabledata') return decodeTableData(q, request.body, language);
  // [PUSH-v2 §6.10] remote user lookup
  if (lower === 'remoteatt') {
    const pin = queryValue(q, 'PIN');
    if (pin === undefined || pin === '') throw new ProtocolError('MISSING_PARAMETER', 'request has no PIN parameter');
    return { decoded: single({ type: 'remoteUserLookup', pin }), reply: { kind: 'remoteUser' } };
  }
  // [PUSH-v2 §6] attendance tables (also sent by 3.x terminals [PUSH-v3 §7.5])
  const v2 = decodeV2Table(table, request.body, language, source);
  if (v2 !== undefined) return v2;
  // [PUSH-v2 §6.1] unknown table: keep its records raw, reply OK so the device does not loop
  return ok(rawRecords(request.body, language, source, true));
}
