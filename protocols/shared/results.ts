// `/iclock/devicecmd` bodies [PUSH-v2 §8.1–§8.3], shared by v3 [PUSH-v3 §9.1, §1.4].
import type { CommandResult, DeviceOptions } from '../events.js';
import { intOrNull } from './numbers.js';
import { parseOptions } from './options.js';

/** Keys that belong to the result itself; any other key on a following line is a device parameter. */
const RESULT_KEYS = new Set(['id', 'sn', 'return', 'cmd', 'filename', 'content']);

export interface ParsedResults {
  readonly results: CommandResult[];
  readonly rejected: string[];
}

interface Draft {
  readonly lines: string[];
  readonly pairs: Array<[string, string]>;
  readonly params: string[];
  content: string | null;
}

/**
 * [PUSH-v2 §8.3] 1. CR LF → LF; 2. a line whose key (before the first `=` and any `&`) is `ID` starts a
 * result; 3. that line splits on `&` (a bare token is kept with an empty value, [PUSH-v3 §9.1] ACCOUNT);
 * 4. following lines are single pairs; after `Content=`, every line up to the next `ID=` line is content;
 * 5. keys case-insensitive, `Return` a signed integer; 6. INFO parameters parse with [PUSH-v2 §5.2].
 */
export function parseResults(text: string): ParsedResults {
  const results: CommandResult[] = [];
  const rejected: string[] = [];
  let draft: Draft | undefined;
  const finish = (): void => {
    if (draft === undefined) return;
    const result = toResult(draft);
    if (result === undefined) rejected.push(draft.lines.join('\n'));
    else results.push(result);
    draft = undefined;
  };
  for (const piece of text.split('\n')) {
    const line = piece.endsWith('\r') ? piece.slice(0, -1) : piece;
    if (startsResult(line)) {
      finish();
      draft = { lines: [line], pairs: line.split('&').map(splitPair), params: [], content: null };
      continue;
    }
    if (draft === undefined) {
      if (line.trim() !== '') rejected.push(line);
      continue;
    }
    if (draft.content !== null) {
      // [PUSH-v2 §8.3 step 4] shell output spans lines
      draft.lines.push(line);
      draft.content += `\n${line}`;
      continue;
    }
    if (line.trim() === '') continue;
    draft.lines.push(line);
    const [key, value] = splitPair(line);
    if (key.toLowerCase() === 'content') draft.content = value;
    else if (RESULT_KEYS.has(key.toLowerCase())) draft.pairs.push([key, value]);
    else draft.params.push(line);
  }
  finish();
  return { results, rejected };
}

function startsResult(line: string): boolean {
  const amp = line.indexOf('&');
  const head = amp < 0 ? line : line.slice(0, amp);
  const eq = head.indexOf('=');
  return eq > 0 && head.slice(0, eq).trim().toLowerCase() === 'id';
}

function splitPair(text: string): [string, string] {
  const eq = text.indexOf('=');
  return eq < 0 ? [text.trim(), ''] : [text.slice(0, eq).trim(), text.slice(eq + 1)];
}

function toResult(draft: Draft): CommandResult | undefined {
  let id = '';
  let returnCode: number | null = null;
  let cmd = '';
  let sn = '';
  let content = draft.content;
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of draft.pairs) {
    switch (key.toLowerCase()) {
      case 'id':
        id ||= value.trim();
        break;
      case 'return':
        returnCode ??= intOrNull(value);
        break;
      case 'cmd':
        cmd ||= value.trim();
        break;
      case 'sn':
        sn ||= value.trim();
        break;
      case 'content':
        content ??= value;
        break;
      default:
        if (key !== '' && !(key in fields)) fields[key] = value;
    }
  }
  if (id === '' || returnCode === null) return undefined;
  // the final LF of a body is not part of the content
  while (draft.lines.length > 1 && draft.lines[draft.lines.length - 1] === '') draft.lines.pop();
  if (content !== null) content = content.replace(/\n+$/, '');
  let options: DeviceOptions | null = null;
  if (draft.params.length > 0) options = parseOptions(draft.params.join('\n')).options;
  return { id, returnCode, cmd, sn, content, fields, options, raw: draft.lines.join('\n') };
}
