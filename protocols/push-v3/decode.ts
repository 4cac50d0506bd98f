// Security PUSH requests [PUSH-v3 §3, §7, §10]: registration, table uploads, querydata.
import { ProtocolError } from '../protocol-error.js';
import type { RecordSource } from '../events.js';
import type { Routed } from '../push-v2/decode.js';
import { intOrNull } from '../shared/numbers.js';
import { parseOptions } from '../shared/options.js';
import { queryValue } from '../shared/request.js';
import { decodeText } from '../shared/text.js';
import { decodeRows } from './tabledata.js';

/** `/iclock/registry` [PUSH-v3 §3.3]: a comma list parsed with [PUSH-v2 §5.2]. */
export function decodeRegistry(body: Uint8Array, language: string | undefined): Routed {
  const raw = decodeText(body, language);
  const { options, rejected } = parseOptions(raw);
  return { decoded: { events: [{ type: 'registration', options, raw }], rejected: [...rejected] }, reply: { kind: 'registry' } };
}

/** `cdata?table=rtlog|rtstate` [PUSH-v3 §7.2–§7.3]: reply OK. */
export function decodeRealtime(table: string, body: Uint8Array, language: string | undefined, source: RecordSource): Routed {
  return { decoded: decodeRows(table, body, decodeText(body, language), source), reply: { kind: 'ok' } };
}

/**
 * `cdata?table=tabledata&tablename=t&count=n` [PUSH-v3 §7.4]: reply `${t}=${accepted}`, never plain OK;
 * `${t}=-731` when the body holds another number of records than `count` (Security PUSH V4.8 §12.1.4).
 */
export function decodeTableData(query: Readonly<Record<string, string>>, body: Uint8Array, language: string | undefined): Routed {
  const table = required(query, 'tablename');
  const source: RecordSource = {
    kind: 'upload',
    table,
    ...optionalInt('declaredCount', queryValue(query, 'count')),
  };
  return checkedCount(table, source.declaredCount, decodeRows(table, body, decodeText(body, language), source));
}

/**
 * [PUSH-v3 §10.2; Security PUSH V4.8 §12.1.4; fixture B25] records are counted for every table; when the device declared a count and the
 * body holds another number of records, nothing is kept and the reply is the vendor code −731, so the
 * device sends the packet again (a cut or garbled transfer). Binary bodies are not counted.
 */
function checkedCount(table: string, declared: number | undefined, decoded: Routed['decoded']): Routed {
  const received = receivedRecords(decoded);
  if (declared !== undefined && received !== undefined && received !== declared) {
    return { decoded: { events: [], rejected: [] }, reply: { kind: 'countMismatch', table, declared, received } };
  }
  return { decoded, reply: { kind: 'tableCount', table } };
}

/** Records in a decoded body: kept plus rejected; undefined for a binary body. */
function receivedRecords(decoded: Routed['decoded']): number | undefined {
  let n = decoded.rejected.length;
  for (const event of decoded.events) {
    if (event.type === 'unknownTable') return undefined;
    // typed rights are the same rows as the raw records beside them (tabledata.ts)
    if (event.type === 'userRights' || event.type === 'timezoneRows' || event.type === 'holidayRows') continue;
    if ('records' in event) n += event.records.length;
  }
  return n;
}

/** `/iclock/querydata` [PUSH-v3 §10]: reply `${tablename}=${count}` to every packet. */
export function decodeQueryData(query: Readonly<Record<string, string>>, body: Uint8Array, language: string | undefined): Routed {
  const type = (queryValue(query, 'type') ?? '').toLowerCase();
  const cmdId = required(query, 'cmdid');
  const declared = intOrNull(queryValue(query, 'count'));
  const tableParam = queryValue(query, 'tablename');
  if (type === 'options') {
    // [PUSH-v3 §10.5] GET OPTIONS answer: a comma list
    const table = tableParam === undefined || tableParam.trim() === '' ? 'options' : required(query, 'tablename');
    const { options, rejected } = parseOptions(decodeText(body, language));
    return {
      decoded: { events: [{ type: 'queryOptions', cmdId, options }], rejected: [...rejected] },
      reply: { kind: 'tableEcho', table, count: declared ?? 1 },
    };
  }
  const table = required(query, 'tablename');
  if (type === 'count') {
    // [PUSH-v3 §10.3] the count is in the body (`user=5`), not in Return
    const text = decodeText(body, language).trim();
    const eq = text.indexOf('=');
    const count = eq > 0 ? intOrNull(text.slice(eq + 1)) : null;
    return {
      decoded:
        count === null || count < 0
          ? { events: [], rejected: text === '' ? [] : [text] }
          : { events: [{ type: 'queryCount', cmdId, table, count }], rejected: [] },
      // [PUSH-v3 §10.2] vendor V4.8 §12.1.3: "the client returns the count, the server returns ok"
      reply: { kind: 'ok' },
    };
  }
  const source: RecordSource = {
    kind: 'query',
    cmdId,
    table,
    ...optionalInt('declaredCount', queryValue(query, 'count')),
    ...optionalInt('packCount', queryValue(query, 'packcnt')),
    ...optionalInt('packIndex', queryValue(query, 'packidx')),
  };
  // [PUSH-v3 §10.6] ACCOUNT transfers (datafmt, NUL + tgz) and vmtable answers are stored raw
  const raw = type !== 'tabledata' || queryValue(query, 'datafmt') !== undefined || body.includes(0);
  if (raw)
    return {
      decoded: { events: [{ type: 'unknownTable', source, body }], rejected: [] },
      reply: { kind: 'tableEcho', table, count: declared ?? 1 },
    };
  // [PUSH-v3 §10.2] `${tablename}=${count}` for every table, including tables kept unparsed
  return checkedCount(table, source.declaredCount, decodeRows(table, body, decodeText(body, language), source));
}

// echoed into `${table}=${n}` replies [PUSH-v3 §7.1]: printable ASCII without blanks or `=`
const ECHOABLE = /^[\x21-\x3c\x3e-\x7e]{1,64}$/;

function required(query: Readonly<Record<string, string>>, name: string): string {
  const value = queryValue(query, name)?.trim();
  if (value === undefined || value === '') throw new ProtocolError('MISSING_PARAMETER', `request has no ${name} parameter`);
  if (!ECHOABLE.test(value))
    throw new ProtocolError('INVALID_PARAMETER', `${name} must be 1-64 printable characters without blanks or '='`);
  return value;
}

function optionalInt<K extends string>(key: K, value: string | undefined): { [P in K]?: number } {
  const n = intOrNull(value);
  return (n === null ? {} : { [key]: n }) as { [P in K]?: number };
}
