// Attendance PUSH requests [PUSH-v2 §4–§8]: handshake, cdata uploads, heartbeat, command results.
import type { ReplyPlan } from '../codec.js';
import type { HandshakeEvent, RecordSource } from '../events.js';
import type { Decoded } from '../shared/decoded.js';
import { parseOptions } from '../shared/options.js';
import { queryValue } from '../shared/request.js';
import { parseResults } from '../shared/results.js';
import { splitLines } from '../shared/lines.js';
import { decodeText } from '../shared/text.js';
import { decodeAttlog } from './attlog.js';
import { decodeAttPhoto } from './photo.js';
import { decodeTagged } from './tagged.js';
import { DEFAULT_TAG, TAGGED_TABLES, uploadReplyPlan } from './tables.js';

export interface Routed {
  readonly decoded: Decoded;
  readonly reply: ReplyPlan;
}

/** [PUSH-v2 §4.1] `options=all` handshake; unknown parameters are kept, never rejected [§2.1]. */
export function decodeHandshake(query: Readonly<Record<string, string>>): HandshakeEvent {
  const get = (name: string): string | null => queryValue(query, name) ?? null;
  const flag = get('PushOptionsFlag');
  return {
    type: 'handshake',
    pushVersion: get('pushver'),
    language: get('language'),
    deviceType: get('DeviceType'),
    // [PUSH-v2 §2.9] binding key or comm key: accepted and logged, never required
    commKey: get('pushcommkey') ?? get('ComKey'),
    pushOptionsFlag: flag !== null && flag.trim() === '1',
    params: { ...query },
  };
}

/** `table=options` [PUSH-v2 §5]: reply OK. */
export function decodeOptionsUpload(body: Uint8Array, language: string | undefined): Routed {
  const raw = decodeText(body, language);
  const { options, rejected } = parseOptions(raw);
  return { decoded: { events: [{ type: 'options', options, raw }], rejected: [...rejected] }, reply: { kind: 'ok' } };
}

/** Attendance-protocol tables [PUSH-v2 §6]; undefined when the table is not one of them. */
export function decodeV2Table(table: string, body: Uint8Array, language: string | undefined, source: RecordSource): Routed | undefined {
  const upper = table.toUpperCase();
  const reply = uploadReplyPlan(upper);
  if (upper === 'ATTLOG') return { decoded: decodeAttlog(decodeText(body, language), source), reply };
  // [PUSH-v2 §6.8] binary photo, one per request
  if (upper === 'ATTPHOTO') return { decoded: decodeAttPhoto(body, source), reply };
  if (TAGGED_TABLES.has(upper)) return { decoded: decodeTagged(decodeText(body, language), source, DEFAULT_TAG.get(upper)), reply };
  // [PUSH-v2 §6.9] IDCARD: stored raw per record, `OK: ${records}`
  if (upper === 'IDCARD') return { decoded: rawRecords(body, language, source), reply };
  return undefined;
}

/** A text table kept unparsed: one raw string per line; a binary body (NUL) is kept whole. */
export function rawRecords(body: Uint8Array, language: string | undefined, source: RecordSource, unknown = false): Decoded {
  if (body.includes(0)) return { events: [{ type: 'unknownTable', source, body }], rejected: [] };
  const records = splitLines(decodeText(body, language));
  return {
    events: records.length > 0 ? [{ type: 'rawRecords', source, records, ...(unknown ? { unknown: true as const } : {}) }] : [],
    rejected: [],
  };
}

/**
 * [fixture A43] results posted to `/iclock/cdata` without a table (pushver 2.4.0, firmware 6.5.x): the
 * `ID=…&Return=…&CMD=…` body of [PUSH-v2 §8.3]; undefined when the body is not results.
 */
export function decodeStrayResults(body: Uint8Array, language: string | undefined): Routed | undefined {
  const text = decodeText(body, language);
  if (!/^\s*ID=/i.test(text)) return undefined;
  const { results, rejected } = parseResults(text);
  return results.length === 0 ? undefined : { decoded: { events: [{ type: 'commandResults', results }], rejected }, reply: { kind: 'ok' } };
}

/** `/iclock/devicecmd` [PUSH-v2 §8]: reply OK. */
export function decodeDeviceCmd(body: Uint8Array, language: string | undefined): Routed {
  const { results, rejected } = parseResults(decodeText(body, language));
  return {
    decoded: { events: results.length > 0 ? [{ type: 'commandResults', results }] : [], rejected },
    reply: { kind: 'ok' },
  };
}
