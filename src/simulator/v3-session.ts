// Security PUSH session: first contact, registration, configuration download [PUSH-v3 §3–§5].

import { createHash } from 'node:crypto';
import type { DeviceMemory } from './memory.js';
import type { DeviceProfile } from './profile.js';
import { optionsBody, registryBody } from './profile.js';
import type { HandshakeOutcome, Send, SessionState } from './session.js';
import { keyValues, secondsOf } from './session.js';
import { SimulatorError } from './sim-error.js';
import { splitLines } from './wire-text.js';

/** [PUSH-v3 §3.3] the registry request carries this content type in the vendor example */
export const PUSH_CONTENT_TYPE = 'application/push;charset=UTF-8';

/** [PUSH-v3 §5] token = hex MD5 of RegistryCode + SN + SessionID (order assumed, no separator). */
export function pushToken(registryCode: string, sn: string, sessionId: string): string {
  return createHash('md5').update(`${registryCode}${sn}${sessionId}`).digest('hex');
}

export async function v3Handshake(
  send: Send,
  profile: DeviceProfile,
  memory: DeviceMemory,
  previous: SessionState,
  uploadOptions: boolean,
): Promise<HandshakeOutcome> {
  const sn = profile.sn;
  const query: Array<[string, string]> = [
    ['SN', sn],
    ['options', 'all'],
    ['pushver', profile.pushver],
    ['DeviceType', 'acc'],
    ['PushOptionsFlag', '1'],
    ['language', profile.language],
  ];
  if (profile.commKey !== undefined) query.push(['pushcommkey', profile.commKey]);
  const first = await send({ method: 'GET', path: '/iclock/cdata', query });
  if (first.status !== 200) throw new SimulatorError('http', `first contact answered HTTP ${first.status}`);
  const lines = splitLines(first.text);
  const warnings: string[] = [];
  let config: Map<string, string>;
  let registryCode: string | null;
  let configDate: string | null;
  if (lines.length === 1 && lines[0] === 'OK') {
    // [PUSH-v3 §3.2] unregistered: register, then download the configuration
    const reg = await send(
      { method: 'POST', path: '/iclock/registry', query: [['SN', sn]], body: registryBody(profile, memory) },
      PUSH_CONTENT_TYPE,
    );
    if (reg.status === 406) throw new SimulatorError('refused', 'registration refused with HTTP 406 [PUSH-v3 §3.3]');
    if (reg.status !== 200) throw new SimulatorError('http', `registry answered HTTP ${reg.status}`);
    registryCode = keyValues(splitLines(reg.text)).get('RegistryCode') ?? null;
    if (registryCode === null || !/^[A-Za-z0-9]{1,32}$/.test(registryCode)) {
      throw new SimulatorError(
        'protocol',
        `registry reply has no RegistryCode of 1-32 letters and digits [PUSH-v3 §3.3]: ${JSON.stringify(reg.text)}`,
      );
    }
    // [PUSH-v3 §3.4] empty POST; the vendor table says GET, its example POST
    const push = await send({ method: 'POST', path: '/iclock/push', query: [['SN', sn]], body: '' }, PUSH_CONTENT_TYPE);
    if (push.status !== 200) throw new SimulatorError('http', `push answered HTTP ${push.status}`);
    config = keyValues(splitLines(push.text));
    configDate = push.date;
  } else if (lines[0] === 'registry=ok') {
    // [PUSH-v3 §4.3] registered: the configuration comes with the first-contact reply
    config = keyValues(lines.slice(1));
    registryCode = config.get('RegistryCode') ?? previous.registryCode;
    if (!config.has('RegistryCode')) warnings.push('registered first-contact reply has no RegistryCode [PUSH-v3 §4.3]');
    configDate = first.date;
  } else {
    throw new SimulatorError(
      'protocol',
      `first contact answered neither OK nor registry=ok [PUSH-v3 §3.2]: ${JSON.stringify(lines[0] ?? '')}`,
    );
  }
  if (configDate === null) warnings.push('configuration reply has no Date header [PUSH-v3 §4.4]');
  const sessionId = config.get('SessionID') ?? null;
  if (sessionId === null) warnings.push('configuration has no SessionID [PUSH-v3 §4.1]');
  return {
    state: {
      established: true,
      serverOptions: config,
      delayS: secondsOf(config, 'RequestDelay'),
      errorDelayS: secondsOf(config, 'ErrorDelay'),
      timeoutS: secondsOf(config, 'TimeoutSec'),
      realtime: config.get('Realtime') !== '0',
      utcOffsetMinutes: undefined,
      fullReupload: false,
      registryCode,
      sessionId,
      token: registryCode !== null && sessionId !== null ? pushToken(registryCode, sn, sessionId) : null,
    },
    warnings,
    // [PUSH-v3 §3.5] the device put PushOptionsFlag=1 on its first-contact URL, so it sends them
    optionsUpload: uploadOptions ? { kind: 'options', protocol: 'v3', body: optionsBody(profile, memory, []) } : null,
  };
}
