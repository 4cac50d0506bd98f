// Attendance PUSH session: the `options=all` handshake and its `GET OPTION FROM:` reply [PUSH-v2 §4].

import type { DeviceMemory } from './memory.js';
import type { DeviceProfile } from './profile.js';
import { optionsBody } from './profile.js';
import type { HandshakeOutcome, Send } from './session.js';
import { keyValues, secondsOf } from './session.js';
import { SimulatorError } from './sim-error.js';
import { parseIntStrict, splitLines } from './wire-text.js';

/** [PUSH-v2 §4.5] TimeZone in minutes: hours when |v| ≤ 14, minutes above (330 = +05:30), or the
 *  old `hh:mm` form (`-05:00`). */
export function timeZoneMinutes(value: string): number | undefined {
  const hm = /^([+-]?)(\d{1,2}):(\d{2})$/.exec(value);
  if (hm !== null) return (hm[1] === '-' ? -1 : 1) * (Number(hm[2]) * 60 + Number(hm[3]));
  const n = parseIntStrict(value);
  if (n === undefined) return undefined;
  return Math.abs(n) <= 14 ? n * 60 : n;
}

export async function v2Handshake(
  send: Send,
  profile: DeviceProfile,
  memory: DeviceMemory,
  uploadOptions: boolean,
): Promise<HandshakeOutcome> {
  const query: Array<[string, string]> = [
    ['SN', profile.sn],
    ['options', 'all'],
    ['pushver', profile.pushver],
    ['language', profile.language],
  ];
  // [PUSH-v2 §2.9] binding key, accepted and never required by BioGate
  if (profile.commKey !== undefined) query.push(['pushcommkey', profile.commKey]);
  const reply = await send({ method: 'GET', path: '/iclock/cdata', query });
  if (reply.status !== 200) throw new SimulatorError('http', `handshake answered HTTP ${reply.status}`);
  const lines = splitLines(reply.text);
  // [PUSH-v2 §4.2] the first line is exactly `GET OPTION FROM: ${SN}`
  if (lines[0] !== `GET OPTION FROM: ${profile.sn}`) {
    throw new SimulatorError(
      'protocol',
      `handshake reply does not start with "GET OPTION FROM: ${profile.sn}" [PUSH-v2 §4.2]: ${JSON.stringify(lines[0] ?? '')}`,
    );
  }
  const options = keyValues(lines.slice(1));
  const warnings: string[] = [];
  if (reply.date === null) warnings.push('handshake reply has no Date header [PUSH-v2 §2.7]');
  const tz = options.get('TimeZone');
  const utcOffsetMinutes = tz === undefined ? undefined : timeZoneMinutes(tz);
  if (tz === undefined) warnings.push('handshake reply has no TimeZone [PUSH-v2 §4.5]');
  else if (utcOffsetMinutes === undefined) warnings.push(`handshake reply has an unreadable TimeZone=${tz} [PUSH-v2 §4.5]`);
  const asked = (options.get('PushOptions') ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
  return {
    state: {
      established: true,
      serverOptions: options,
      delayS: secondsOf(options, 'Delay'),
      errorDelayS: secondsOf(options, 'ErrorDelay'),
      timeoutS: secondsOf(options, 'Timeout'),
      realtime: options.get('Realtime') !== '0',
      utcOffsetMinutes,
      fullReupload: options.get('ATTLOGStamp') === '0',
      registryCode: null,
      sessionId: null,
      token: null,
    },
    warnings,
    // [PUSH-v2 §5.1] parameters are sent when the server set PushOptionsFlag=1
    optionsUpload:
      uploadOptions && options.get('PushOptionsFlag') === '1'
        ? { kind: 'options', protocol: 'v2', body: optionsBody(profile, memory, asked) }
        : null,
  };
}
