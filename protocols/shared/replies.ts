// Reply bodies common to both generations. Bodies are LF-joined without a final LF [PUSH-v2 §4.4].
import type { CommandsReplyOptions, DeviceReply, ReplyPlan } from '../codec.js';
import type { QueuedLine } from '../commands.js';
import { ProtocolError } from '../protocol-error.js';
import { formatWallClock, zkEncode } from './zk-time.js';
import { formatOffsetColon, formatOffsetCompact, offsetMinutes, utcWallClock, wallClockIn } from './zoned-time.js';

export const reply = (body: string, status = 200): DeviceReply => ({ status, contentType: 'text/plain', body });

export const okReply = (): DeviceReply => reply('OK');

const ONE_LINE = /^[^\r\n\0]*$/;

function invalid(message: string): never {
  throw new ProtocolError('INVALID_ARGUMENT', message);
}

const TABLE = /^[\x21-\x3c\x3e-\x7e]{1,64}$/;

function table(name: string): string {
  return TABLE.test(name) ? name : invalid(`table name ${JSON.stringify(name)} cannot be echoed`);
}

function count(n: number): number {
  return Number.isSafeInteger(n) && n >= 0 ? n : invalid(`record count must be a non-negative integer, got ${n}`);
}

/** Vendor return code −731: "server received the data abnormally" [PUSH-v3 §12, −701…−732]. */
export const RECEIVED_ABNORMALLY = -731;

/** @throws ProtocolError INVALID_ARGUMENT for plans that are not upload forms */
export function uploadReply(plan: ReplyPlan, accepted: number): DeviceReply {
  switch (plan.kind) {
    case 'ok':
      return okReply();
    // [PUSH-v2 §6.1] servers that run against real devices send `OK: 3` (with a space)
    case 'okCount':
      return reply(`OK: ${count(accepted)}`);
    // [PUSH-v3 §7.1] table name exactly as in the query; a plain OK makes devices re-upload forever
    case 'tableCount':
      return reply(`${table(plan.table)}=${count(accepted)}`);
    // [PUSH-v3 §10.2] querydata count/options packets echo the declared count
    case 'tableEcho':
      return reply(`${table(plan.table)}=${count(plan.count)}`);
    // [Security PUSH V4.8 §12.1.4] vendor code -731 "server received the data abnormally": the device sends the packet again
    case 'countMismatch':
      return reply(`${table(plan.table)}=${RECEIVED_ABNORMALLY}`);
    case 'handshake':
    case 'registry':
    case 'config':
    case 'commands':
    case 'time':
    case 'remoteUser':
    case 'file':
      return invalid(`reply plan ${plan.kind} is not an upload reply`);
    /* c8 ignore next 2 */
    default:
      return plan satisfies never;
  }
}

const ID = /^[A-Za-z0-9]{1,16}$/;

/**
 * [PUSH-v2 §7.2] idle `OK`, else one `C:${id}:${command}` per line. [PUSH-v3 §8.2] CmdFormat=1 devices
 * get `DataType=1,SN=…,Priority=…,CmdID=…,CmdDesc=C:…` lines.
 * @throws ProtocolError INVALID_ARGUMENT when a line would break the framing
 */
export function commandsReply(lines: readonly QueuedLine[], options: CommandsReplyOptions = {}): DeviceReply {
  if (lines.length === 0) return okReply();
  const out = lines.map((line) => {
    const id = String(line.id);
    // [PUSH-v2 §7.4] ids: letters and digits, up to 16 characters; [COMMANDS §1] one record per command
    if (!ID.test(id)) invalid(`command id ${JSON.stringify(id)} is not 1-16 letters or digits`);
    if (line.wire === '' || !ONE_LINE.test(line.wire)) invalid(`command ${id} is empty or contains CR, LF or NUL`);
    const framed = `C:${id}:${line.wire}`;
    if (options.cmdFormat !== 1) return framed;
    return `DataType=1,SN=${options.sn ?? ''},Priority=${line.priority ?? 0},CmdID=${id},CmdDesc=${framed}`;
  });
  return reply(out.join('\n'));
}

/**
 * [PUSH-v2 §4.8] `Time=2011-05-05T17:40:20-05:00` (device-local with offset);
 * [PUSH-v3 §13.2] `DateTime=${packed UTC},ServerTZ=+0800`.
 * @throws ProtocolError INVALID_TIME_ZONE
 */
export function timeReply(now: Date, timeZone: string, flavor: 'iso' | 'rtdata'): DeviceReply {
  const offset = offsetMinutes(now, timeZone);
  if (flavor === 'iso') return reply(`Time=${formatWallClock(wallClockIn(now, timeZone), 'T')}${formatOffsetColon(offset)}`);
  const packed = zkEncode(utcWallClock(now));
  if (packed === undefined) invalid('times before 2000 cannot be sent to the device');
  return reply(`DateTime=${packed},ServerTZ=${formatOffsetCompact(offset)}`);
}

/** [PUSH-v2 §6.10] RemoteAtt: command text without `C:` framing, or an empty body. */
export function remoteUserReply(lines: readonly string[]): DeviceReply {
  for (const line of lines) if (!ONE_LINE.test(line)) invalid('remote user line contains CR, LF or NUL');
  return reply(lines.join('\n'));
}
