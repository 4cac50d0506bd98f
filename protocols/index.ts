// Public entry of the wire layer. `src/` imports from here (and types from codec.ts / catalog.ts).
import type { Codec } from './codec.js';
import { effectiveVersion, type VersionFacts } from './versions.js';
import type { DeviceEvent } from './events.js';
import type { ProtocolVersion } from './commands.js';
import { pushV2Codec } from './push-v2/codec.js';
import { pushV3Codec } from './push-v3/codec.js';

export type * from './codec.js';
export { ProtocolError } from './protocol-error.js';
export { detectVersion } from './detect-version.js';
export { httpDate } from './shared/http-date.js';
export {
  describeReturnCode,
  classifyReturn,
  commandOutcome,
  learnedUnsupportedMessage,
  UNSUPPORTED_CODES,
  type Dialect,
} from './return-codes.js';
export {
  FALLBACKS,
  presetFallback,
  CHECK_ATTENDANCE_BOTH_FORMATS_FAILED,
  DOOR_OPEN_FALLBACK_NOTE,
  FULL_REUPLOAD_NOTE,
} from './fallbacks.js';
export { NO_WIRE_FORM } from './unsupported.js';
export { attendanceWindow, inAttendanceWindow, type AttendanceWindow } from './attendance-window.js';
export { capabilityKey, endsBatch } from './capability.js';
export * from './catalog.js';
export { registryCodeFrom, sessionIdFrom, assumedToken } from './push-v3/session.js';
export { doorOptionKeys, userauthorizeRows } from './push-v3/encode.js';
export { holidayRows } from './push-v3/access-tables.js';
export { zkEncode, zkDecode, formatWallClock, type WallClock } from './shared/zk-time.js';
export { isTimeZone, offsetMinutes, wallClockIn } from './shared/zoned-time.js';
export { parseCard, cardToHex } from './shared/card.js';
export { heldUserDiffers } from './shared/held-user.js';
export { lockCount, photoTable } from './shared/profile.js';
export { charsetFor, type Charset } from './shared/text.js';
export {
  PROTOCOL_V2,
  PROTOCOL_V3,
  PROTOCOL_VERSIONS,
  protocolVersionSchema,
  effectiveVersion,
  byVersion,
  type VersionFacts,
} from './versions.js';

const CODECS: Readonly<Record<ProtocolVersion, Codec>> = { '2.0.0': pushV2Codec, '3.0.0': pushV3Codec };

/** Any codec decodes any request [PUSH-v2 §10.3]; this one reads requests before the device is known. */
export const readerCodec: Codec = pushV2Codec;

/** The codec of a protocol generation; chosen once per device (DESIGN.md "Pick the codec once"). */
export function codecFor(version: ProtocolVersion): Codec {
  return CODECS[version];
}

/** The codec of a device record (its override, else its detected version, else v2). */
export function codecOfDevice(device: VersionFacts | undefined): Codec {
  return CODECS[effectiveVersion(device)];
}

/**
 * Records carried by upload events — the `n` of `OK: n` / `${table}=${n}` when every record was stored.
 * A raw (unknownTable) body counts its non-empty lines.
 */
export function countRecords(events: readonly DeviceEvent[]): number {
  let n = 0;
  for (const event of events) {
    // typed rights are the same rows as the raw records beside them (push-v3/tabledata.ts)
    if (event.type === 'userRights' || event.type === 'timezoneRows' || event.type === 'holidayRows') continue;
    if ('records' in event) n += event.records.length;
    else if (event.type === 'unknownRecords') n += event.lines.length;
    else if (event.type === 'unknownTable') n += rawLineCount(event.body);
  }
  return n;
}

function rawLineCount(body: Uint8Array): number {
  let lines = 0;
  let content = false;
  for (const byte of body) {
    if (byte === 0x0a) {
      if (content) lines++;
      content = false;
    } else if (byte !== 0x0d && byte !== 0x20 && byte !== 0x09) {
      content = true;
    }
  }
  return content ? lines + 1 : lines;
}
