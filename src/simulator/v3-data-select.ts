// Security PUSH (v3) commands that select rows by a condition: DATA DELETE, DATA QUERY and DATA COUNT
// [PUSH-v3 §10.2–§10.4, §11.3]; query answers travel as querydata packets.

import { splitWord } from './command-fields.js';
import type { ExecutionContext } from './execution.js';
import {
  biodataRecordV3,
  biophotoRecord,
  templatev10Record,
  transactionRecord,
  userauthorizeRecord,
  timezoneRecord,
  holidayRecord,
  userpicRecord,
  userRecordV3,
} from './records.js';
import { V3_CODES as C } from './v3-codes.js';
import { CONDITIONS, OTHER_TABLES, unknownKey } from './v3-tables.js';
import { field, parseCommaFields, parseTabFields } from './wire-text.js';

/** records per querydata packet */
const PACKET = 100;

/** A parsed condition: match-all, or key → value pairs that must all hold; or a return code. */
type Condition = ReadonlyMap<string, string> | 'all' | 'new' | number;

function parseCondition(table: string, text: string, allowNew: boolean): Condition {
  if (text === '*') return 'all';
  if (text === 'NewRecord' && allowNew) return 'new';
  if (text === '') return C.malformed;
  const f = parseTabFields(text);
  if (f.malformed) return C.malformed;
  if (unknownKey(f, CONDITIONS[table] ?? [])) return C.noCondition;
  return f.values;
}

/** Does a row satisfy a condition? Values compare as text (numbers are written without padding). */
const matches = (cond: ReadonlyMap<string, string> | 'all', row: Readonly<Record<string, string | number>>): boolean =>
  cond === 'all' || [...cond].every(([k, v]) => String(row[k]) === v);

/** Rows of a table as condition-matchable columns plus their query record. */
function rows(table: string, ctx: ExecutionContext, newOnly: boolean): Array<[Record<string, string | number>, string]> | undefined {
  const m = ctx.memory;
  const uid = (pin: string): number => m.users.get(pin)?.uid ?? 0;
  switch (table) {
    case 'user':
      return [...m.users.values()].map((u) => [{ pin: u.pin, cardno: u.card }, userRecordV3(u)]);
    case 'userauthorize':
      return m.authorizations().map((a) => [{ pin: a.pin, authorizetimezoneid: a.timezoneId }, userauthorizeRecord(a)]);
    case 'templatev10':
      return m
        .templates()
        .filter((t) => t.table === 'templatev10')
        .map((t) => [{ pin: t.pin, fingerid: t.no }, templatev10Record(t, uid(t.pin))]);
    case 'biodata':
      return m
        .templates()
        .filter((t) => t.table === 'biodata')
        .map((t) => [{ pin: t.pin, type: t.type, no: t.no, index: t.index }, biodataRecordV3(t)]);
    case 'biophoto':
      return m.bioPhotos().map((p) => [{ pin: p.pin, type: p.type }, biophotoRecord(p)]);
    case 'userpic':
      return [...m.userPhotos].map(([pin, size]) => [{ pin }, userpicRecord(pin, size)]);
    case 'transaction':
      return m
        .attendance()
        .filter((a) => !newOnly || a.index > m.uploadedUpTo)
        .map((a) => [{ pin: a.pin }, transactionRecord(a)]);
    case 'timezone':
      return [...m.timezones()].map(([id, fields]) => [{}, timezoneRecord(id, fields)]);
    case 'holiday':
      return [...m.holidays().values()].map((fields) => [{}, holidayRecord(fields)]);
    default:
      return OTHER_TABLES.has(table) ? [] : undefined;
  }
}

/** [PUSH-v3 §11.3] `DATA DELETE table k=v[\tk=v…]` or `*`. Deleting a user does not cascade: the
 *  vendor sequence deletes userauthorize and templates first [COMMANDS §5.2]. */
export function remove(tail: string, ctx: ExecutionContext): number {
  const [table, text] = splitWord(tail);
  if (table === '') return C.malformed;
  if (table === 'holiday' && text.trim() === '*') {
    ctx.memory.clearHolidays();
    return 0;
  }
  if (OTHER_TABLES.has(table)) return 0;
  if (!Object.hasOwn(CONDITIONS, table)) return C.noTable;
  const cond = parseCondition(table, text, false);
  if (typeof cond === 'number') return cond;
  // 'new' is refused by parseCondition when allowNew is false
  const all = cond as ReadonlyMap<string, string> | 'all';
  const m = ctx.memory;
  switch (table) {
    case 'user':
      m.deleteUsers((u) => matches(all, { pin: u.pin, cardno: u.card }));
      break;
    case 'userauthorize':
      m.deleteAuthorizations((a) => matches(all, { pin: a.pin, authorizetimezoneid: a.timezoneId }));
      break;
    case 'templatev10':
      m.deleteTemplates((t) => t.table === 'templatev10' && matches(all, { pin: t.pin, fingerid: t.no }));
      break;
    case 'biodata':
      m.deleteTemplates((t) => t.table === 'biodata' && matches(all, { pin: t.pin, type: t.type, no: t.no, index: t.index }));
      break;
    case 'biophoto':
      m.deleteBioPhotos((p) => matches(all, { pin: p.pin, type: p.type }));
      break;
    case 'userpic':
      m.deleteUserPhotos((pin) => matches(all, { pin }));
      break;
    default:
      // transaction: only `*` [PUSH-v3 §11.3]; a pin condition clears that user's rows is not
      // documented, so it is refused
      if (all !== 'all') return C.noCondition;
      m.clearAttendance();
  }
  return 0;
}

/** Send records as querydata packets [PUSH-v3 §10.2]; false when a packet was not delivered. */
async function sendPackets(id: string, tablename: string, records: readonly string[], ctx: ExecutionContext): Promise<boolean> {
  const packcnt = Math.ceil(records.length / PACKET);
  for (let i = 0; i < packcnt; i++) {
    const chunk = records.slice(i * PACKET, (i + 1) * PACKET);
    const ok = await ctx.io.answer({
      kind: 'querydata',
      type: 'tabledata',
      cmdid: id,
      tablename,
      count: chunk.length,
      packcnt,
      packidx: i + 1,
      body: chunk.join('\n'),
    });
    if (!ok) return false;
  }
  return true;
}

/** [PUSH-v3 §10.4] `DATA QUERY tablename=t,fielddesc=*,filter=f`; Return = number of records. */
export async function query(id: string, tail: string, ctx: ExecutionContext): Promise<number> {
  const args = parseCommaFields(tail);
  const table = field(args, 'tablename');
  if (args.malformed || table === undefined || table === '') return C.malformed;
  const cond = parseCondition(table, field(args, 'filter') ?? '*', table === 'transaction');
  const all = rows(table, ctx, cond === 'new');
  if (all === undefined) return C.badQueryTable;
  if (typeof cond === 'number') return cond;
  const selected = all.filter(([cols]) => cond === 'new' || matches(cond, cols));
  if (
    !(await sendPackets(
      id,
      table,
      selected.map(([, record]) => record),
      ctx,
    ))
  )
    return C.httpError;
  // a full answer counts as uploaded for a later `filter=NewRecord`
  if (table === 'transaction' && typeof cond === 'string') ctx.memory.markUploaded(ctx.memory.attendance().at(-1)?.index ?? 0);
  return selected.length;
}

/** [PUSH-v3 §10.3] `DATA COUNT table[ cond]`: the count travels in the querydata body; Return 0. */
export async function count(id: string, tail: string, ctx: ExecutionContext): Promise<number> {
  const [table, text] = splitWord(tail);
  if (table === '') return C.malformed;
  const all = rows(table, ctx, false);
  if (all === undefined) return C.noTable;
  const cond = parseCondition(table, text === '' ? '*' : text, false);
  if (typeof cond === 'number') return cond;
  const n = all.filter(([cols]) => matches(cond as ReadonlyMap<string, string> | 'all', cols)).length;
  const ok = await ctx.io.answer({
    kind: 'querydata',
    type: 'count',
    cmdid: id,
    tablename: table,
    count: 1,
    packcnt: 1,
    packidx: 1,
    body: `${table}=${n}`,
  });
  return ok ? 0 : C.httpError;
}
