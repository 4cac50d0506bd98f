// The getrequest reply as the terminal reads it, and the result block it posts back.

import type { DialectResult } from './execution.js';
import { splitLines } from './wire-text.js';

export interface CommandLine {
  readonly id: string;
  readonly command: string;
}

/** [PUSH-v2 §7.2] `OK` when idle, else `C:${id}:${command}` lines. Ids may be any text without a
 *  colon (`OPENDOOR0`, fixture A32b); the command keeps every later colon (times). Other lines are
 *  returned as junk. */
export function parseCommandReply(body: string): { commands: CommandLine[]; junk: string[] } {
  const commands: CommandLine[] = [];
  const junk: string[] = [];
  for (const line of splitLines(body)) {
    if (line === 'OK') continue;
    const m = /^C:([^:]+):(.*)$/.exec(line);
    if (m === null) junk.push(line);
    else commands.push({ id: m[1] as string, command: m[2] as string });
  }
  return { commands, junk };
}

/** [PUSH-v2 §8.1–§8.2] `ID=..&Return=..&CMD=..`, followed by parameter lines (INFO), or the
 *  key-per-line block of a Shell result (fixture A29). */
export function formatResult(id: string, r: DialectResult): string {
  if (r.content !== undefined) return `ID=${id}\nReturn=${r.code}\nCMD=${r.cmd}\nContent=${r.content}`;
  return [`ID=${id}&Return=${r.code}&CMD=${r.cmd}`, ...(r.lines ?? [])].join('\n');
}
