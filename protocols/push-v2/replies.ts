// Attendance PUSH replies: the handshake block [PUSH-v2 §4.4]; v3-only replies are still answered for
// every device [PUSH-v2 §3] and delegate to the v3 builders.
import type { HandshakeReplyInput, Replies } from '../codec.js';
import { reply } from '../shared/replies.js';
import { offsetMinutes } from '../shared/zoned-time.js';
import { repliesV3 } from '../push-v3/replies.js';
import { encodeTimeZone } from './time-zone.js';

/** TransFlag text form [PUSH-v2 §4.6]: 78 characters, below the vendor limit of 90. */
export const TRANS_FLAG = 'TransData AttLog\tOpLog\tAttPhoto\tEnrollUser\tChgUser\tEnrollFP\tChgFP\tFACE\tUserPic';

/**
 * [PUSH-v2 §4.4] canonical reply, in this order. `${SN}` unchanged after exactly one space [§4.2];
 * `ATTLOGStamp=0` once when a full re-upload is pending [§4.7]; TimeZone always present [§4.5].
 * @throws ProtocolError INVALID_TIME_ZONE
 */
export function handshakeReplyV2(input: HandshakeReplyInput): ReturnType<Replies['handshake']> {
  const lines = [
    `GET OPTION FROM: ${input.sn}`,
    `ATTLOGStamp=${input.fullAttlogReupload === true ? '0' : 'None'}`,
    'OPERLOGStamp=9999',
    'ATTPHOTOStamp=None',
    // [PUSH-v2 §4.4] PUSH 1.0 watermark names for firmware that sends no pushver
    ...(input.legacyStamps === true ? ['Stamp=9999', 'OpStamp=9999', 'PhotoStamp=9999'] : []),
    'ErrorDelay=30',
    `Delay=${input.pollSeconds ?? 10}`,
    'TransTimes=00:00;14:05',
    'TransInterval=1',
    `TransFlag=${TRANS_FLAG}`,
    `TimeZone=${encodeTimeZone(offsetMinutes(input.now, input.timeZone), input.timeZoneUnit)}`,
    'Realtime=1',
    // [PUSH-v2 §12] never start the key exchange
    'Encrypt=None',
    'ServerVer=2.4.1',
    'PushProtVer=2.4.1',
    'PushOptionsFlag=1',
    // fingerprint (1), near-infrared face (2), visible-light face (9) as BIODATA: the canonical reply of
    // [PUSH-v2 §4.4]; a device's own 11-slot mask (type 10, palm) is read as sent [PUSH-v2 §9.4]
    'MultiBioDataSupport=0:1:1:0:0:0:0:0:0:1',
  ];
  return reply(lines.join('\n'));
}

/** [PUSH-v2 §4] v2 answers every endpoint like v3 except the handshake [PUSH-v2 §10.3]. */
export const repliesV2: Replies = { ...repliesV3, handshake: handshakeReplyV2 };
