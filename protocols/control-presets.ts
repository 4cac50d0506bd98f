// Presets that control the device: restart, information, doors, alarms and emergency mode
// [COMMANDS §3–§4]; part of the one catalog (catalog.ts), in catalog order.
import { Type } from 'typebox';
import { preset } from './preset-schemas.js';
import { DURATION_MESSAGE, type PresetSpec } from './preset-spec.js';

export const CONTROL_PRESETS: readonly PresetSpec[] = [
  preset('reboot', 'Restart the device', null, { aliases: ['restart'] }),
  preset('info', 'Fetch options, system metrics, firmware versions and serial number options', null),
  preset('check', 'Connectivity check and ping status', null),
  preset('reload-options', 'Device reloads stored configuration and options (no Security PUSH wire form)', null),
  preset(
    'door-open',
    'Unlock door relay for a duration',
    Type.Object(
      {
        door_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 4, default: 1, description: 'Relay index 1 to 4' })),
        // [COMMANDS §3.3] 00 = close and FF = latch are other presets, so 1–254 only
        duration: Type.Optional(
          Type.Integer({ minimum: 1, maximum: 254, default: 5, description: 'Unlock seconds, 1 to 254', errorMessage: DURATION_MESSAGE }),
        ),
      },
      { additionalProperties: false },
    ),
    { versions: [3], door: true },
  ),
  preset('door-close', 'Close the active door relay', null, { versions: [3], door: true }),
  preset('door-lock', 'Force lock the door relay', null, { versions: [3], door: true }),
  preset('door-unlock', 'Unlock door relay', null, { door: true }),
  preset('normal-open', 'Passage mode (unlocked)', null, { versions: [3], door: true }),
  preset('cancel-alarm', 'Cancel tamper or breach alarm', null, { versions: [3], door: true }),
  preset('clear-alarm', 'Reset alarm state', null, { door: true }),
  preset('emergency-on', 'Emergency mode (doors unlocked)', null, { versions: [3], door: true }),
  preset('emergency-off', 'Release emergency mode (no documented wire form; always fails)', null, { versions: [3], door: true }),
];
