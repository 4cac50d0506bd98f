// Security PUSH replies [PUSH-v3 §3–§4].
import type { ConfigReplyInput, DeviceReply, HandshakeReplyInput, Replies } from '../codec.js';
import { ProtocolError } from '../protocol-error.js';
import { commandsReply, okReply, remoteUserReply, reply, timeReply, uploadReply } from '../shared/replies.js';

const CODE = /^[A-Za-z0-9]{1,32}$/;
const SESSION = /^[0-9A-Za-z]{1,64}$/;

/** [PUSH-v3 §3.3] `RegistryCode=${code}`: at most 32 letters and digits. */
export function registryReply(registryCode: string): DeviceReply {
  if (!CODE.test(registryCode)) throw new ProtocolError('INVALID_ARGUMENT', 'RegistryCode must be 1-32 letters or digits');
  return reply(`RegistryCode=${registryCode}`);
}

/** [PUSH-v3 §3.3] refusal is HTTP 406. */
export function registryRefusedReply(): DeviceReply {
  return reply('', 406);
}

function configLines(input: ConfigReplyInput): string[] {
  if (!SESSION.test(input.sessionId)) throw new ProtocolError('INVALID_ARGUMENT', 'SessionID must be letters and digits');
  const version = input.pushProtVer ?? '3.0.1';
  return [
    'ServerVersion=3.0.1',
    'ServerName=BioGate',
    // [PUSH-v3 §4.2, §16] 3.0.1 keeps devices away from encryption (≥ 3.1.1)
    `PushProtVer=${version}`,
    `PushVersion=${version}`,
    'ErrorDelay=30',
    `RequestDelay=${input.pollSeconds ?? 5}`,
    'TransTimes=00:00;14:00',
    'TransInterval=1',
    'TransTables=User Transaction',
    'Realtime=1',
    `SessionID=${input.sessionId}`,
    'TimeoutSec=10',
    'MultiBioDataSupport=0:1:1:0:0:0:0:0:0:1',
  ];
}

/** [PUSH-v3 §4.2] `/iclock/push` configuration. */
export function configReply(input: ConfigReplyInput): DeviceReply {
  return reply(configLines(input).join('\n'));
}

/**
 * [PUSH-v3 §3.2] unregistered → exactly `OK` (the device then registers); registered → `registry=ok`,
 * `RegistryCode=…` and the configuration [PUSH-v3 §4.3].
 */
export function handshakeReplyV3(input: HandshakeReplyInput): DeviceReply {
  const registration = input.registration;
  if (registration === undefined) return okReply();
  if (!CODE.test(registration.registryCode)) throw new ProtocolError('INVALID_ARGUMENT', 'RegistryCode must be 1-32 letters or digits');
  const config = configLines({
    sessionId: registration.sessionId,
    ...(input.pollSeconds === undefined ? {} : { pollSeconds: input.pollSeconds }),
    ...(input.pushProtVer === undefined ? {} : { pushProtVer: input.pushProtVer }),
  });
  return reply(['registry=ok', `RegistryCode=${registration.registryCode}`, ...config].join('\n'));
}

export const repliesV3: Replies = {
  handshake: handshakeReplyV3,
  registry: registryReply,
  registryRefused: registryRefusedReply,
  config: configReply,
  upload: uploadReply,
  commands: commandsReply,
  ok: okReply,
  time: timeReply,
  remoteUser: remoteUserReply,
};
