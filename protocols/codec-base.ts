// What both codecs share: the request router, result judgement, capability keys. Each version adds
// its encoders and replies (push-v2/codec.ts, push-v3/codec.ts).
import type { ProtocolMajor } from './catalog.js';
import type { Codec, Replies } from './codec.js';
import type { DeviceProfile, EncodeContext, EncodeResult, PresetCommand, ProtocolVersion, SyncOp, WireLines } from './commands.js';
import { capabilityKey, endsBatch } from './capability.js';
import { decodeRequest } from './decode.js';
import { presetFallback } from './fallbacks.js';
import { isFailure, validCommand, type ValidCommand } from './preset-params.js';
import { classifyReturn, commandOutcome, describeReturnCode } from './return-codes.js';

export interface VersionParts {
  readonly version: ProtocolVersion;
  readonly major: ProtocolMajor;
  readonly encodePreset: (command: ValidCommand, profile: DeviceProfile, context: EncodeContext) => EncodeResult;
  readonly encodeSync: (op: SyncOp, profile: DeviceProfile, context: EncodeContext) => EncodeResult;
  readonly encodeTimeSync: (now: Date, timeZone: string) => EncodeResult;
  readonly syncFallback: (op: SyncOp, returnCode: number, profile: DeviceProfile) => WireLines | undefined;
  readonly replies: Replies;
}

export function createCodec(parts: VersionParts): Codec {
  const { major } = parts;
  return Object.freeze({
    version: parts.version,
    major,
    storesUserWindow: major === 3,
    storesAccessTables: major === 3,
    decode: decodeRequest,
    // every preset's params are checked against the catalog once, including presets without params
    encodePreset: (command: PresetCommand, profile: DeviceProfile, context: EncodeContext): EncodeResult => {
      const valid = validCommand(command);
      return isFailure(valid) ? valid : parts.encodePreset(valid, profile, context);
    },
    encodeSync: parts.encodeSync,
    encodeTimeSync: parts.encodeTimeSync,
    presetFallback: (command: PresetCommand, returnCode: number) => presetFallback(major, command, returnCode),
    syncFallback: parts.syncFallback,
    classifyReturn: (code: number) => classifyReturn(major, code),
    capabilityKey,
    describeReturnCode: (code: number, preset?: Parameters<Codec['describeReturnCode']>[1]) => describeReturnCode(major, code, preset),
    outcome: (code: number, preset?: Parameters<Codec['outcome']>[1]) => commandOutcome(major, code, preset),
    endsBatch,
    replies: parts.replies,
  });
}
