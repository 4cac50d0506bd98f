// The Security PUSH codec [PUSH-v3].
import type { Codec } from '../codec.js';
import { createCodec } from '../codec-base.js';
import { encodePresetV3, encodeSyncV3, timeSyncV3 } from './encode.js';
import { repliesV3 } from './replies.js';

export const pushV3Codec: Codec = createCodec({
  version: '3.0.0',
  major: 3,
  encodePreset: encodePresetV3,
  encodeSync: encodeSyncV3,
  encodeTimeSync: timeSyncV3,
  // [COMMANDS §2.5] no sync fallback on v3
  syncFallback: () => undefined,
  replies: repliesV3,
});
