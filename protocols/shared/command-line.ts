// Reading a command line back (`C:${id}:${command}` framing and DATA field lists). BioGate does not
// receive commands, but tests, the RemoteAtt reply and capability learning need to read what the
// encoders produce, and vendor samples print command lines (fixture A37) [PUSH-v2 §7.2, §9.1].
import { parseKeyValues, type KeyValues } from './key-value.js';
import { splitFields } from './lines.js';

export interface FramedCommand {
  readonly id: string;
  readonly command: string;
}

/** `C:${id}:${command}` → parts; undefined when the line is not framed [PUSH-v2 §7.2]. */
export function unframe(line: string): FramedCommand | undefined {
  const m = /^C:([^:]+):(.*)$/s.exec(line);
  return m === null ? undefined : { id: m[1] as string, command: m[2] as string };
}

export interface DataCommand {
  /** UPDATE, DELETE, QUERY, COUNT (upper-cased) */
  readonly verb: string;
  /** table as written */
  readonly table: string;
  /** fields with lower-cased keys; `*` conditions give an empty map and `all: true` */
  readonly fields: KeyValues;
  readonly all: boolean;
}

/**
 * `DATA ${verb} ${table} ${k=v\tk=v…}` [PUSH-v2 §9.1, PUSH-v3 §11.2–§11.4]. The v3 query form
 * `DATA QUERY tablename=t,fielddesc=*,filter=…` yields table `t` and its filter fields.
 */
export function parseDataCommand(command: string): DataCommand | undefined {
  const m = /^DATA ([A-Za-z]+) (.+)$/s.exec(command);
  if (m === null) return undefined;
  const verb = (m[1] as string).toUpperCase();
  const rest = m[2] as string;
  const query = /^tablename=([^,]*),fielddesc=[^,]*,filter=(.*)$/is.exec(rest);
  const [table, condition] = query === null ? splitAtSpace(rest) : [query[1] as string, query[2] as string];
  if (table === '') return undefined;
  if (condition === '*') return { verb, table, fields: {}, all: true };
  const { fields, spaced } = splitFields(condition);
  return { verb, table, fields: parseKeyValues(fields, spaced), all: false };
}

function splitAtSpace(text: string): [string, string] {
  const sp = text.indexOf(' ');
  return sp < 0 ? [text, ''] : [text.slice(0, sp), text.slice(sp + 1)];
}
