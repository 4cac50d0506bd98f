// Presets that move or clear data on the device, upgrade it or send raw commands: users, enrolment,
// attendance, clearing, firmware, shell and custom [COMMANDS §3–§4]; part of the one catalog
// (catalog.ts), in catalog order.
import { Type } from 'typebox';
import { commandText, date, nullable, ONE_LINE, pin, preset, userId } from './preset-schemas.js';
import type { PresetSpec } from './preset-spec.js';

export const DATA_PRESETS: readonly PresetSpec[] = [
  preset(
    'load-users',
    'Fetch users from the device to the server (one user by pin or user_id, else all)',
    Type.Object({ user_id: nullable(userId()), pin: nullable(pin()) }, { additionalProperties: false }),
  ),
  preset('sync-users', 'Push pending users from the server to the device', null),
  preset(
    'enroll-biometric',
    'Start remote fingerprint or face enrollment (the person must be at the device)',
    Type.Object(
      {
        pin: pin(),
        user_id: userId(),
        type: Type.Optional(
          Type.Union([Type.Literal('fingerprint'), Type.Literal('face')], { default: 'fingerprint', description: 'fingerprint or face' }),
        ),
        // [COMMANDS §3.9] fid passes to the wire unchanged; 111 = face
        fid: Type.Optional(
          Type.Union([Type.Integer({ minimum: 0, maximum: 9 }), Type.Literal(111)], {
            default: 0,
            description: 'Finger position 0 to 9, or 111 for face',
          }),
        ),
        retry: Type.Optional(Type.Integer({ minimum: 1, maximum: 3, default: 3, description: 'Capture attempts, 1 to 3' })),
        overwrite: Type.Optional(
          Type.Union([Type.Literal(0), Type.Literal(1)], { default: 1, description: '1 overwrite an existing template, 0 keep it' }),
        ),
      },
      { additionalProperties: false },
    ),
    { resultTimeoutS: 600 },
  ),
  preset(
    'check-attendance',
    'Fetch attendance logs from the device, optionally within a date window',
    Type.Object({ startDate: nullable(date('First day')), endDate: nullable(date('Last day')) }, { additionalProperties: false }),
  ),
  preset('clear-log', 'Destructive: delete attendance logs on the device', null, { risk: 'risky' }),
  preset('clear-photo', 'Destructive: delete attendance photos on the device (no Security PUSH wire form)', null, { risk: 'risky' }),
  preset('clear-biodata', 'Destructive: delete fingerprint and face templates on the device', null, { risk: 'risky' }),
  preset('clear-data', 'Destructive: delete all data on the device (users, templates, logs)', null, { risk: 'risky' }),
  preset(
    'firmware-upgrade',
    'Flash firmware from a download URL',
    Type.Object(
      {
        url: Type.String({
          minLength: 9,
          maxLength: 2048,
          pattern: '^https://[^\\s,]+$',
          description:
            'HTTPS download URL; BioGate downloads it, so a loopback, link-local or private host is refused unless BIOGATE_FIRMWARE_ALLOW_PRIVATE=on',
        }),
        checksum: Type.String({ pattern: '^[0-9a-fA-F]{32}$', description: 'MD5 hash of the file' }),
        size: Type.Integer({ minimum: 1, description: 'Size in bytes' }),
      },
      { additionalProperties: false },
    ),
    { risk: 'risky' },
  ),
  preset(
    'shell-command',
    'Run a shell command string on the device (no Security PUSH wire form)',
    Type.Object({ command: commandText('Shell command string', `^${ONE_LINE}$`) }, { additionalProperties: false }),
    { risk: 'risky' },
  ),
  // [COMMANDS §4.24] the gateway adds the `C:<id>:` framing itself
  preset(
    'custom',
    'Send a raw device push protocol command string',
    Type.Object(
      { command: commandText('Raw device push protocol command string', `^(?![Cc]:)${ONE_LINE}$`) },
      { additionalProperties: false },
    ),
    { risk: 'risky' },
  ),
];
