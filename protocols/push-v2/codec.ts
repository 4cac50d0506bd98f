// The Attendance PUSH codec [PUSH-v2].
import type { Codec } from '../codec.js';
import { createCodec } from '../codec-base.js';
import { wire } from '../preset-common.js';
import { encodePresetV2, encodeSyncV2, syncFallbackV2 } from './encode.js';
import { repliesV2 } from './replies.js';

export const pushV2Codec: Codec = createCodec({
  version: '2.0.0',
  major: 2,
  encodePreset: encodePresetV2,
  encodeSync: (op, profile) => encodeSyncV2(op, profile),
  // [PUSH-v2 §9.2, §9.5] no clock command: CHECK makes the device re-handshake and take the Date
  // header and TimeZone again
  encodeTimeSync: () => wire('CHECK'),
  syncFallback: syncFallbackV2,
  replies: repliesV2,
});
